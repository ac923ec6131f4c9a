"""The practice commands as subprocesses: stats on the example set, agree against a hand-computed
kappa, sample's strategies, proportions, reproducibility and refusal to overwrite an input."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from core_support import loc, make_project, qline

from golden_lsp.practice.agreement import Counts, cohen_kappa


def example_records(root: Path) -> list[dict]:
    return [
        json.loads(x)
        for x in (root / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        if x.startswith("{")
    ]


# --- stats ------------------------------------------------------------------------------------


def test_stats_json_on_the_example_set_matches_its_artifact(cli, examples):
    proc = cli(["stats", "--format", "json", examples])
    assert proc.returncode == 0, proc.stderr
    stats = json.loads(proc.stdout)
    assert list(stats) == [
        "n_records",
        "hop",
        "n_spans",
        "span_chars",
        "spans_by_doc",
        "records_by_chunk_count",
        "query_types",
        "splits",
        "n_unanswerable",
        "annotators",
        "n_judge_labelled",
        "n_judge_proposed",
    ]
    artifact = [
        json.loads(x) for x in (examples / "golden-set.v1.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    spans = [s for r in artifact for s in r["answer_spans"]]
    lengths = sorted(s["char_end"] - s["char_start"] for s in spans)
    assert stats["n_records"] == len(artifact)
    assert stats["hop"] == {
        "single": sum(r["hop"] == "single" for r in artifact),
        "multi": sum(r["hop"] == "multi" for r in artifact),
    }
    assert stats["n_spans"] == len(spans)
    assert stats["span_chars"]["min"] == lengths[0] and stats["span_chars"]["max"] == lengths[-1]
    assert stats["span_chars"]["mean"] == sum(lengths) / len(lengths)  # full precision: only text rounds
    docs = sorted(p.name for p in (examples / "corpus").glob("*.md"))
    assert stats["spans_by_doc"] == {d: sum(s["doc_id"] == d for s in spans) for d in docs}
    by_count: dict[str, int] = {}
    for r in artifact:
        key = str(len(r["answer_bearing_chunk_ids"]))
        by_count[key] = by_count.get(key, 0) + 1
    assert stats["records_by_chunk_count"] == dict(sorted(by_count.items()))
    assert stats["records_by_chunk_count"]["0"] == stats["n_unanswerable"] == 1
    types: dict[str, int] = {}
    for r in artifact:
        if "query_type" in r:
            types[r["query_type"]] = types.get(r["query_type"], 0) + 1
    assert stats["query_types"] == dict(sorted(types.items())) and len(types) == 6
    assert stats["splits"] == {"canary": 1, "dev": 5, "test": 6}


def test_stats_text_and_markdown_say_the_hit_rule(cli, examples):
    text = cli(["stats", examples]).stdout
    assert "records by answer-bearing chunks (hit rule any_overlap):" in text
    assert "unanswerable  1" in text and "shape findings: none" in text
    md = cli(["stats", "--format", "markdown", "--hit-rule", "span_containment", examples]).stdout
    assert "### Records by answer-bearing chunks (hit rule span_containment)" in md
    assert "| records | 73 |" in md


# --- agree ------------------------------------------------------------------------------------


def paragraph(i: int) -> str:
    return f"Paragraph {i} is about hut topic {i} and says nothing else at all."


#: five paragraphs of equal length; max_chars 80 makes each its own chunk
CORPUS = {"d.md": "# Topics\n\n" + "\n\n".join(paragraph(i) for i in range(1, 6)) + "\n"}


def quote(i: int) -> dict:
    return loc("d.md", f"Paragraph {i} is about")


def unanswerable(rid: str) -> str:
    rec = json.loads(qline(rid, []))
    rec["unanswerable"] = True
    return json.dumps(rec)


def test_agree_against_a_hand_computed_kappa(tmp_path, cli):
    root = make_project(
        tmp_path / "p",
        CORPUS,
        [
            qline("r1", [quote(1)]),
            qline("r2", [quote(2)]),
            qline("r3", [quote(3)]),
            unanswerable("r4"),
            qline("only-a", [quote(1)]),
        ],
        config='corpus = "corpus"\nmax_chars = 80\n',
    )
    b = root / "b.questions.jsonl"
    b.write_text(
        "\n".join(
            [
                qline("r1", [quote(1)]),
                qline("r2", [quote(3)]),
                qline("r3", [quote(3), quote(4)], hop="multi"),
                qline("r4", [quote(5)]),
                qline("only-b", [quote(2)]),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    proc = cli(["agree", "--format", "json", root / "questions.jsonl", b])
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    # 4 records x 5 chunks = 20 pairs: both relevant 2 (r1, r3), only A 1 (r2), only B 3 (r2, r3, r4),
    # neither 14. p_o = 16/20 = 0.8; p_A = 3/20, p_B = 5/20; p_e = .15*.25 + .85*.75 = 0.675;
    # kappa = (0.8 - 0.675) / (1 - 0.675) = 0.384615...
    # (JSON carries full precision: only text rounds)
    assert got["kappa"] == pytest.approx(0.125 / 0.325, rel=1e-12) and got["band"] == "poor"
    assert (got["n_records"], got["n_items"]) == (4, 20)
    # per record (5 chunks each): r1 agrees fully; r2 p_o .6 p_e .68 → -0.25; r3 p_o .8 p_e .56 → 6/11;
    # r4 p_o .8 p_e .8 → 0. Span F1: 1, 0, 2L/3L, 0 (equal paragraphs) → mean 5/12
    assert got["records"] == [
        {"id": "r1", "kappa": 1.0, "span_f1": 1.0, "chunks_agree": True, "agree": True, "disagree": False},
        {
            "id": "r2",
            "kappa": pytest.approx(-0.25),
            "span_f1": 0.0,
            "chunks_agree": False,
            "agree": False,
            "disagree": True,
        },
        {
            "id": "r3",
            "kappa": pytest.approx(6 / 11, rel=1e-12),
            "span_f1": pytest.approx(2 / 3, rel=1e-12),
            "chunks_agree": False,
            "agree": False,
            "disagree": True,
        },
        {
            "id": "r4",
            "kappa": pytest.approx(0.0, abs=1e-12),
            "span_f1": 0.0,
            "chunks_agree": False,
            "agree": False,
            "disagree": True,
        },
    ]
    assert got["span_f1"] == pytest.approx(5 / 12, rel=1e-12) and got["span_f1"] != round(got["span_f1"], 4)
    low, high = got["kappa_ci95"]
    assert low <= got["kappa"] <= high
    assert (got["only_in_a"], got["only_in_b"]) == (["only-a"], ["only-b"])
    text = cli(["agree", root / "questions.jsonl", b]).stdout
    assert "Cohen's kappa 0.385 (poor" in text and "N = 20 (record, chunk) pairs" in text
    assert "hit rule any_overlap" in text and "95% CI [" in text
    assert "disagreements: 3 of 4 records" in text
    assert "A: no span (unanswerable)" in text and "B: d.md" in text and "Paragraph 5 is about" in text


def test_agree_says_when_labels_moved_to_other_paragraphs_of_the_same_chunks(tmp_path, cli):
    """Kappa over chunks is perfect when each label moved to a neighbouring paragraph of its chunk;
    span F1 is 0 for those records: both side by side, those records listed, a warning."""
    # max_chars 150 packs two paragraphs a chunk: 1–2, 3–4, 5
    config = 'corpus = "corpus"\nmax_chars = 150\n'
    a = [qline("m1", [quote(1)]), qline("m2", [quote(3)]), qline("m3", [quote(2)]), qline("ok", [quote(5)])]
    root = make_project(tmp_path / "p", CORPUS, a, config=config)
    b = root / "b.questions.jsonl"
    moved = [
        qline("m1", [quote(2)]),
        qline("m2", [quote(4)]),
        qline("m3", [quote(1)]),
        qline("ok", [quote(5)]),
    ]
    b.write_text("\n".join(moved) + "\n", encoding="utf-8")
    got = json.loads(cli(["agree", "--format", "json", root / "questions.jsonl", b]).stdout)
    assert got["kappa"] == 1.0 and got["span_f1"] == 0.25
    assert [(r["id"], r["chunks_agree"], r["disagree"]) for r in got["records"]] == [
        ("m1", True, True),
        ("m2", True, True),
        ("m3", True, True),
        ("ok", True, False),
    ]
    assert got["warnings"] and "below 0.7" in got["warnings"][0]
    text = cli(["agree", root / "questions.jsonl", b]).stdout
    headline = text.splitlines()[0]
    assert "Cohen's kappa 1.000 (good)" in headline and "F1 0.250 (low: below 0.7)" in headline
    assert "warning: mean span F1 0.250 is below 0.7" in text
    assert "disagreements: 3 of 4 records" in text
    assert "m1  kappa 1.000  span F1 0.000 (same chunks)" in text and "ok  kappa" not in text


def test_agree_of_the_example_set_with_itself_is_perfect(cli, examples):
    got = json.loads(
        cli(["agree", "--format", "json", examples / "questions.jsonl", examples / "questions.jsonl"]).stdout
    )
    assert (got["kappa"], got["band"], got["span_f1"]) == (1.0, "good", 1.0)
    assert got["n_records"] == 73 and got["n_items"] == 73 * 29
    assert all(r["agree"] for r in got["records"])


def test_kappa_matches_scikit_learn_on_random_tables():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = random.Random(7)
    for _ in range(200):
        a = [rng.random() < 0.3 for _ in range(rng.randint(2, 60))]
        b = [x if rng.random() < 0.7 else not x for x in a]
        table = Counts(
            sum(x and y for x, y in zip(a, b)),
            sum(x and not y for x, y in zip(a, b)),
            sum(y and not x for x, y in zip(a, b)),
            sum(not x and not y for x, y in zip(a, b)),
        )
        ours = cohen_kappa(table)
        theirs = metrics.cohen_kappa_score(a, b)
        assert (ours is None) == (theirs != theirs) and (ours is None or abs(ours - theirs) < 1e-12)


# --- sample -----------------------------------------------------------------------------------


def log_lines() -> list[str]:
    short = [f"hut {i} opening" for i in range(10)]  # 3 words
    medium = [f"how do I book hut number {i} for two nights" for i in range(20)]  # 10 words
    long_ = [
        f"what should a family with two children pack for a four day hut tour in september {i}"
        for i in range(4)
    ]  # 18 words
    return short + medium + long_


def test_sample_stratified_keeps_the_length_mix_and_says_shortfalls(cli, examples):
    log = examples / "log.txt"
    log.write_text("\n".join(log_lines()) + "\n", encoding="utf-8")
    proc = cli(["sample", log, "--n", "10", "--strategy", "stratified", "--seed", "3"], cwd=examples)
    assert proc.returncode == 0, proc.stderr
    recs = [json.loads(x) for x in proc.stdout.splitlines()]
    words = [len(r["query"].split()) for r in recs]
    assert (sum(w <= 5 for w in words), sum(6 <= w <= 15 for w in words), sum(w > 15 for w in words)) == (
        3,
        5,
        2,
    )
    assert proc.stderr == ""
    # 30 asks for 9 / 15 / 6, but only 4 long queries exist: fewer, said on stderr
    proc = cli(["sample", log, "--n", "30", "--strategy", "stratified", "--seed", "3"], cwd=examples)
    words = [len(json.loads(x)["query"].split()) for x in proc.stdout.splitlines()]
    assert (sum(w <= 5 for w in words), sum(6 <= w <= 15 for w in words), sum(w > 15 for w in words)) == (
        9,
        15,
        4,
    )
    assert "stratum > 15 words: 4 of the 6 wanted" in proc.stderr


def test_sample_is_reproducible_dedupes_and_continues_the_id_scheme(cli, examples):
    existing = example_records(examples)
    log = examples / "log.txt"
    lines = log_lines() + ["HUT 1   Opening", existing[0]["query"].upper(), "  " + existing[1]["query"]]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["sample", log, "--n", "40", "--seed", "11"]
    first, again = cli(args, cwd=examples), cli(args, cwd=examples)
    assert first.returncode == 0 and first.stdout == again.stdout
    recs = [json.loads(x) for x in first.stdout.splitlines()]
    queries = [r["query"] for r in recs]
    assert len(recs) == 34 and len({q.casefold() for q in queries}) == 34  # deduped, folded
    assert not {q.casefold() for q in queries} & {r["query"].casefold() for r in existing}
    assert "only 34 distinct new queries for the 40 wanted" in first.stderr
    assert [r["id"] for r in recs] == [f"ex{n:03d}" for n in range(74, 108)]
    assert all(r["expected_answer"] == "" and r["locators"] == [] for r in recs)
    other = cli(["sample", log, "--n", "5", "--seed", "12"], cwd=examples).stdout
    assert other != cli(["sample", log, "--n", "5", "--seed", "11"], cwd=examples).stdout


def test_sample_hard_cases_from_a_jsonl_log(cli, examples):
    log = examples / "log.jsonl"
    rows = [{"query": f"is hut {i} open in october"} for i in range(6)]
    rows[1]["rephrased"] = rows[4]["rephrased"] = True
    rows.append({"query": "IS HUT 2 OPEN IN OCTOBER", "rephrased": True})  # a repeat makes its first hard
    log.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    proc = cli(
        ["sample", log, "--n", "5", "--strategy", "hard-cases", "--seed", "1", "--format", "json"],
        cwd=examples,
    )
    assert proc.returncode == 0, proc.stderr
    assert [r["query"] for r in json.loads(proc.stdout)] == [f"is hut {i} open in october" for i in (1, 2, 4)]
    assert "only 3 hard cases" in proc.stderr


def test_sample_out_writes_a_new_file_and_never_an_input(cli, examples):
    log = examples / "log.txt"
    log.write_text("\n".join(log_lines()) + "\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in examples.rglob("*") if p.is_file()}
    for target in (
        log,
        examples / "questions.jsonl",
        examples / "golden-set.v1.jsonl",
        examples / "x.questions.jsonl",
        examples / "golden-lsp.toml",
        examples / "corpus" / "01-planning-a-hut-tour.md",
    ):
        proc = cli(["sample", log, "--n", "3", "--out", target], cwd=examples)
        assert proc.returncode == 2 and "refusing to write" in proc.stderr and "an input" in proc.stderr
    assert {p: p.read_bytes() for p in examples.rglob("*") if p.is_file()} == before
    proc = cli(["sample", log, "--n", "3", "--seed", "5", "--out", examples / "new.jsonl"], cwd=examples)
    assert proc.returncode == 0 and proc.stdout == ""
    assert (examples / "new.jsonl").read_text(encoding="utf-8") == cli(
        ["sample", log, "--n", "3", "--seed", "5"], cwd=examples
    ).stdout


def test_sample_bad_log_line_is_located(cli, examples):
    log = examples / "log.jsonl"
    log.write_text('{"query": "fine"}\n{"text": "no query"}\n', encoding="utf-8")
    proc = cli(["sample", log, "--n", "1"], cwd=examples)
    assert proc.returncode == 2 and "log.jsonl:2:" in proc.stderr and "'query'" in proc.stderr


def test_sample_never_reuses_an_id_or_query_the_committed_artifact_holds(cli, examples):
    q = examples / "questions.jsonl"
    lines = q.read_text(encoding="utf-8").split("\n")
    deleted = next(json.loads(x) for x in lines if x.startswith('{"id": "ex073"'))
    q.write_text("\n".join(x for x in lines if not x.startswith('{"id": "ex073"')), encoding="utf-8")
    log = examples / "log.txt"
    log.write_text(deleted["query"] + "\nwhere is the nearest hut\n", encoding="utf-8")
    recs = [
        json.loads(x)
        for x in cli(["sample", log, "--n", "5", "--seed", "1"], cwd=examples).stdout.splitlines()
    ]
    assert [(r["id"], r["query"]) for r in recs] == [("ex074", "where is the nearest hut")]


def test_stats_json_carries_full_precision_and_the_text_rounds(tmp_path, cli):
    root = make_project(tmp_path / "p")
    assert cli(["build"], cwd=root).returncode == 0
    artifact = [
        json.loads(x) for x in (root / "golden-set.v1.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    lengths = [s["char_end"] - s["char_start"] for r in artifact for s in r["answer_spans"]]
    mean = sum(lengths) / len(lengths)
    assert mean != round(mean, 1)  # the sample set's mean needs more than one decimal
    stats = json.loads(cli(["stats", "--format", "json"], cwd=root).stdout)
    assert stats["span_chars"]["mean"] == mean
    text = cli(["stats"], cwd=root).stdout
    assert re.search(rf"mean chars\s+{mean:.1f}\n", text)
