"""Evaluation as array work, against the query-by-query reading it replaced.

The judge (every rank as a chunk index, bearing by key membership, IoU by ``ranked_iou``) is
compared with the scalar judge it replaced, kept here as the oracle: on random chunkings
(disjoint, and overlapping as a chunk file may be), random spans across documents, every hit
rule and both multi-hop rules, runs with unknown chunk IDs, IDs ranked twice, queries missing
and unknown. The TREC reader's fast path is compared with the line reader on the same text:
ties, duplicate lines, CRLF, blank lines, and malformed lines giving the same located error.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from golden_lsp.core.goldenset.config import ConfigError
from golden_lsp.core.labels.resolve import Span
from golden_lsp.core.labels.scoring import parse_hit_rule
from golden_lsp.core.text.chunker import Chunk
from golden_lsp.evaluate.chunkings import Chunking
from golden_lsp.evaluate.judging import _first_satisfied, judge
from golden_lsp.evaluate.metrics import bootstrap, iou, randomization_p
from golden_lsp.evaluate.runs import (
    _read_trec_arrays,
    _read_trec_duckdb,
    _read_trec_lines,
    in_memory_run,
    ranked_of,
    read_run,
)
from golden_lsp.evaluate.targets import Settings, Target, Targets

RULES = ("any_overlap", "span_containment", "coverage>=0.5", "union_coverage>=0.6")
KS = (1, 2, 5, 10, 40)


def scalar_judge(tg: Targets, rankings: dict[str, list[str]], settings: Settings):
    """The judge before the array work: rank by rank, query by query (each ID once)."""
    kmax = max(settings.ks)
    by_id = tg.chunking.by_id
    n = len(tg.answerable)
    depth = max((len(rankings.get(t.query_id, ())) for t in tg.answerable), default=0)
    rel = np.zeros((n, min(kmax, depth)), dtype=bool)
    first_hit = np.zeros(n, dtype=int)
    ious = np.zeros((n, len(settings.ks)))
    for q, t in enumerate(tg.answerable):
        ranking = rankings.get(t.query_id, [])[:kmax]
        rel[q, : len(ranking)] = [cid in t.relevant for cid in ranking]
        firsts = [_first_satisfied(tg.hit_rule, ranking, by_id, s, b) for s, b in zip(t.spans, t.bearing)]
        if settings.multi == "all":
            first_hit[q] = max(firsts) if all(firsts) else 0
        else:
            first_hit[q] = min((f for f in firsts if f), default=0)
        spans: dict[str, list[tuple[int, int]]] = {}
        for s in t.spans:
            spans.setdefault(s.doc_id, []).append((s.start, s.end))
        for j, k in enumerate(settings.ks):
            got: dict[str, list[tuple[int, int]]] = {}
            for cid in ranking[:k]:
                c = by_id.get(cid)
                if c is not None:
                    got.setdefault(c.doc_id, []).append((c.start, c.end))
            ious[q, j] = iou(got, spans)
    return rel, np.asarray([len(t.relevant) for t in tg.answerable]), first_hit, ious


def random_targets(seed: int, rule: str, overlapping: bool) -> tuple[Targets, list[str]]:
    rng = random.Random(seed)
    chunks = []
    for d in range(4):
        cuts = sorted(set(rng.sample(range(500), 14)))
        for lo, hi in itertools.pairwise(cuts):
            chunks.append(Chunk(f"doc{d}", lo, hi, "", f"c{d}-{lo}"))
        if overlapping:  # a chunk file may hold overlapping and nested chunks
            for _ in range(6):
                lo = rng.randrange(480)
                chunks.append(Chunk(f"doc{d}", lo, lo + rng.randint(1, 80), "", f"o{d}-{lo}-{len(chunks)}"))
    chunking = Chunking("test", f"seed {seed}", tuple(chunks))
    hit_rule = parse_hit_rule(rule)
    answerable = []
    for q in range(30):
        spans = []
        for _ in range(rng.choice((1, 1, 2, 3))):
            lo = rng.randrange(480)
            spans.append(Span(f"doc{rng.randrange(4)}", lo, lo + rng.randint(1, 60), "exact", lo, lo + 1))
        answerable.append(
            Target(
                f"q{q}",
                "?",
                "multi" if len(spans) > 1 else "single",
                None,
                None,
                docs=tuple(dict.fromkeys(s.doc_id for s in spans)),
                spans=tuple(spans),
                bearing=tuple(chunking.bearing(hit_rule, s) for s in spans),
            )
        )
    tg = Targets(answerable, [], 0, chunking, hit_rule, {})
    return tg, [c.chunk_id for c in chunks] + ["unknown-a", "unknown-b"]


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("overlapping", (False, True))
@pytest.mark.parametrize("seed", range(6))
def test_the_array_judge_equals_the_scalar_one(seed, rule, overlapping):
    tg, ids = random_targets(seed, rule, overlapping)
    assert tg.chunking.disjoint is not overlapping
    rng = random.Random(seed + 100)
    rankings = {}
    for t in tg.answerable[:-2]:  # the last two are missing from the run
        ranking = rng.sample(ids, rng.randint(0, 45))
        ranking += rng.sample(ranking, min(len(ranking), rng.randint(0, 4)))  # ranked twice
        rankings[t.query_id] = ranking
    rankings["not-in-the-set"] = ids[:5]
    run = in_memory_run("test", rankings)
    assert run.duplicates > 0
    for multi in ("any", "all"):
        settings = Settings(KS, multi, 0, 0)
        got = judge(tg, run, settings)
        rel, n_rel, first, ious = scalar_judge(tg, run.rankings, settings)
        assert np.array_equal(got.rel, rel)
        assert np.array_equal(got.n_rel, n_rel)
        assert np.array_equal(got.first_hit, first), (multi, got.first_hit, first)
        assert np.allclose(got.iou, ious, rtol=0, atol=1e-12)


def test_a_ranking_cut_at_the_largest_k_and_a_run_of_nothing():
    tg, ids = random_targets(3, "any_overlap", False)
    settings = Settings((1, 3), "any", 0, 0)
    deep = in_memory_run("deep", {t.query_id: ids[:20] for t in tg.answerable})
    assert judge(tg, deep, settings).rel.shape == (len(tg.answerable), 3)
    empty = judge(tg, in_memory_run("empty", {}), settings)
    assert empty.rel.shape == (len(tg.answerable), 0)
    assert not empty.first_hit.any() and not empty.iou.any()


# --- the TREC reader --------------------------------------------------------------------------


def trec_text(seed: int) -> str:
    """A TREC run with tied scores (float32 ties too), duplicate lines, IDs across queries."""
    rng = random.Random(seed)
    lines = []
    for q in range(12):
        for d in rng.sample(range(40), rng.randint(0, 25)):
            score = rng.choice((1.0, 2.0, 2.5, 1.0 + 1e-9, rng.random()))
            lines.append(f"q{q % 9} Q0 d{d:02} {rng.randint(1, 50)} {score!r} tag")
            if rng.random() < 0.1:
                lines.append(lines[-1])  # the same line twice
    rng.shuffle(lines)
    return "\n".join(lines) + "\n"


def the_old_way(text: str) -> tuple[dict[str, list[str]], int]:
    """The line reader's rankings with each ID kept at its best rank, as read_run kept them."""
    out, dropped = {}, 0
    for qid, ids in _read_trec_lines(None, text).items():  # type: ignore[arg-type]
        out[qid] = list(dict.fromkeys(ids))
        dropped += len(ids) - len(out[qid])
    return out, dropped


@pytest.mark.parametrize("seed", range(15))
def test_the_fast_trec_readers_rank_as_the_line_reader(tmp_path, seed):
    text = trec_text(seed)
    path = tmp_path / "run.trec"
    path.write_text(text, encoding="utf-8")
    want, dropped = the_old_way(text)
    for fast in (_read_trec_arrays(text), _read_trec_duckdb(path, path.read_bytes())):
        assert fast is not None
        assert fast.rankings() == want
        assert list(fast.rankings()) == list(want)  # queries in order of first appearance
        assert fast.duplicates == dropped
    run = read_run(path)
    assert (run.rankings, run.duplicates) == (want, dropped)
    assert ranked_of(_read_trec_lines(None, text)).rankings() == want  # type: ignore[arg-type]
    # tabs, runs of spaces, CRLF and lines without a final newline read the same
    crlf = text.replace(" Q0 ", "\t Q0  ").replace("\n", "\r\n").rstrip()
    assert _read_trec_arrays(crlf).rankings() == want


@pytest.mark.parametrize(
    "bad, where",
    [
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 1 x t\n", ":2: score 'x' is not a number"),
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 1 nan t\n", ":2: score is NaN"),
        ("q1 Q0 d1 1 2.0\nq1 Q0 d2 1 1.0 t x\n", ":1: a TREC run line has 6 fields"),  # 5 + 7 fields
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 1\n", ":2: a TREC run line has 6 fields"),
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 1 1.0 \n", ":2: a TREC run line has 6 fields"),  # a trailing space
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d\t2 1 1.0 t\n", ":2: a TREC run line has 6 fields"),  # a tab in a field
        ("q1 Q0 d1 1 2.0 t\n q1 Q0 d2 1 1.0\n", ":2: a TREC run line has 6 fields"),  # a leading space
        ("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 1 0x1p3 t\n", ":2: score '0x1p3' is not a number"),
    ],
)
def test_a_malformed_line_is_located_as_before(tmp_path, bad, where):
    path = tmp_path / "run.trec"
    path.write_text(bad, encoding="utf-8")
    with pytest.raises(ConfigError) as fast:
        read_run(path, "trec")
    with pytest.raises(ConfigError) as lines:
        _read_trec_lines(path, bad)
    assert str(fast.value) == str(lines.value)
    assert where in str(fast.value)


@pytest.mark.parametrize(
    "text",
    [
        "q1 Q0 d1 1 2.0 t\n\n  \nq1 Q0 d2 2 1.0 t\n",  # blank lines between
        "q1 Q0 d1 1 2.0 t\rq1 Q0 d2 2 1.0 t\r",  # old Mac line ends
        "q1 Q0 d1 1 2.0 t\x0cq1 Q0 d2 2 1.0 t\u2028q2 Q0 d3 1 1_0 t\n",  # other line breaks, 1_0
        "q1 Q0 d1 1 2.0 t\nq1 Q0 d\u00a02 2 1.0 t\n",  # a no-break space splits a field
        "\ufeffq1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1e400 t \nq1 Q0 d3 3 -inf t\nq2 Q0 é 1 +.5E-3 t\n",  # BOM, ∞
        "q1 Q0 d1 1 2.0 t\r\nq1 Q0 d2 2 1.0 t\r\n",  # CRLF
    ],
)
def test_what_the_fast_path_leaves_to_the_line_reader_reads_the_same(tmp_path, text):
    path = tmp_path / "run.trec"
    path.write_text(text, encoding="utf-8", newline="")
    try:
        want = the_old_way(text.removeprefix("\ufeff"))  # read_run reads past a BOM
    except ConfigError as exc:
        with pytest.raises(ConfigError) as got:
            read_run(path, "trec")
        assert str(got.value) == str(exc).replace("None:", f"{path}:")
        return
    run = read_run(path, "trec")
    assert (run.rankings, run.duplicates) == want


# --- the bootstrap ----------------------------------------------------------------------------


def bootstrap_in_one_piece(values: np.ndarray, resamples: int, seed: int):
    """The bootstrap before it was drawn in blocks: every resample's counts in one matrix."""
    n = values.shape[0]
    flat = values.reshape(n, -1)
    idx = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    counts = np.bincount((idx + np.arange(resamples)[:, None] * n).ravel(), minlength=resamples * n)
    means = counts.reshape(resamples, n).astype(float) @ flat / n
    lo, hi = np.percentile(means, 2.5, axis=0), np.percentile(means, 97.5, axis=0)
    return lo.reshape(values.shape[1:]), hi.reshape(values.shape[1:])


@pytest.mark.parametrize("n, resamples", [(5, 7), (37, 2000), (3001, 999), (20_000, 120)])
def test_the_bootstrap_in_blocks_draws_what_it_drew_in_one_piece(n, resamples):
    values = np.random.default_rng(n).random((n, 3, 4))
    for got, want in zip(bootstrap(values, resamples, 11), bootstrap_in_one_piece(values, resamples, 11)):
        assert np.allclose(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("n, resamples", [(5, 7), (37, 2000), (3001, 999), (20_000, 120)])
def test_the_randomization_test_in_blocks_flips_what_it_flipped_in_one_piece(n, resamples):
    # deltas of a few values, so that flipped means tie with the observed one
    deltas = np.random.default_rng(n).integers(-2, 3, size=(n, 2, 3)) / 4
    signs = np.random.default_rng(12).choice((-1.0, 1.0), size=(resamples, n))
    flat = deltas.reshape(n, -1)
    flipped = np.abs(signs @ flat / n)
    extreme = (flipped >= np.abs(flat.mean(axis=0))[None, :] - 1e-12).sum(axis=0)
    want = ((extreme + 1) / (resamples + 1)).reshape(2, 3)
    assert np.array_equal(randomization_p(deltas, resamples, 11), want)


def test_duckdb_reads_every_plain_decimal_as_float_does(tmp_path):
    forms = [
        "+.5E-3",
        "5.",
        "-0",
        "0.0",
        "1e-310",
        "4.9e-324",
        "1.7976931348623157e308",
        "3e38",
        "3.4028236e38",
        "0.30000000000000004",
        "-12",
        "007.50",
        "1E+2",
        "123456789012345678901234567890",
    ]
    text = "".join(f"q{i % 3} Q0 d{i} {i} {s} tag\n" for i, s in enumerate(forms))
    path = tmp_path / "run.trec"
    path.write_text(text, encoding="utf-8")
    fast = _read_trec_duckdb(path, path.read_bytes())
    assert fast is not None
    assert (fast.rankings(), fast.duplicates) == the_old_way(text)


@pytest.mark.parametrize("overlapping", (False, True))
def test_the_chunks_overlapping_a_span_by_bisection_are_those_a_scan_finds(overlapping):
    tg, _ = random_targets(5, "any_overlap", overlapping)
    chunking, rng = tg.chunking, random.Random(9)
    for _ in range(400):
        doc, lo = f"doc{rng.randrange(5)}", rng.randrange(-5, 510)
        hi = lo + rng.randint(0, 70)
        scan = sorted(
            (c for c in chunking.chunks if c.doc_id == doc and c.start < hi and c.end > lo),
            key=lambda c: (c.start, c.end),
        )
        assert chunking.overlapping(doc, lo, hi) == scan, (doc, lo, hi)


@pytest.mark.parametrize(
    "text, fmt",
    [
        ('\t {"query_id": "q1", "chunk_ids": ["d1"]}\n', "jsonl"),
        ('\ufeff{"q1": {"d1": 1.0}}', "ranx"),
        ("\n q1 Q0 d1 1 1.0 t\n", "trec"),
    ],
)
def test_a_run_is_detected_as_before_without_decoding_it_first(tmp_path, text, fmt):
    path = tmp_path / "run"
    path.write_text(text, encoding="utf-8")
    assert read_run(path).format == fmt
    assert read_run(path).rankings == {"q1": ["d1"]}


def test_a_run_after_a_separator_character_is_json_to_detect_as_before(tmp_path):
    # str.strip strips \x1c, bytes.strip does not: the JSONL reader, not the TREC one, refuses it
    path = tmp_path / "run"
    path.write_text('\x1c{"query_id": "q1", "chunk_ids": ["d1"]}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="invalid JSON"):
        read_run(path)
