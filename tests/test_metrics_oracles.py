"""Our vectorised metrics against trec_eval (pytrec_eval through ir-measures), ties included."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from eval_support import KS, ours, random_case

from golden_lsp.evaluate.metrics import interval_union, iou, ranked_iou
from golden_lsp.evaluate.runs import trec_order

ir_measures = pytest.importorskip("ir_measures")
from ir_measures import AP, RR, P, R, Rprec, Success, nDCG  # noqa: E402

TREC = ir_measures.providers.registry["pytrec_eval"]
MEASURES = {"hit": Success, "recall": R, "ndcg": nDCG, "precision": P, "map": AP}


def trec_eval_values(qrels: dict, run: dict, ks: tuple[int, ...] = KS) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for metric in TREC.iter_calc([m @ k for m in MEASURES.values() for k in ks], qrels, run):
        name = next(n for n, m in MEASURES.items() if metric.measure.NAME == m.NAME)
        out.setdefault(metric.query_id, {})[f"{name}@{metric.measure['cutoff']}"] = metric.value
    # trec_eval's recip_rank and Rprec have no cutoff (pytrec_eval ignores RR's): MRR@k and
    # rprec@k are RR and Rprec of the top k
    for k in ks:
        top = {q: {d: docs[d] for d in trec_order(list(docs.items()))[:k]} for q, docs in run.items()}
        for metric in TREC.iter_calc([RR, Rprec], qrels, top):
            name = "mrr" if metric.measure.NAME == RR.NAME else "rprec"
            out.setdefault(metric.query_id, {})[f"{name}@{k}"] = metric.value
    return out


@pytest.mark.parametrize("seed", range(8))
def test_random_runs_with_ties_agree_with_trec_eval(seed):
    qrels, run = random_case(seed)
    expected = trec_eval_values(qrels, run)
    got = ours(qrels, run)
    for qid, values in got.items():
        for name, value in values.items():
            # trec_eval leaves out queries the run does not rank at all: they score 0 here
            want = expected.get(qid, {}).get(name, 0.0)
            assert value == pytest.approx(want, abs=1e-6), (seed, qid, name)


@pytest.mark.parametrize("seed", range(8))
def test_map_and_rprec_equal_trec_evals_to_1e_12(seed):
    # deeper rankings than the relevant docs, so that R < k and R > k both occur
    qrels, run = random_case(seed + 100, n_docs=40)
    ks = (1, 2, 3, 5, 10, 20, 40)
    expected = trec_eval_values(qrels, run, ks)
    got = ours(qrels, run, ks)
    for qid, values in got.items():
        for name, value in values.items():
            if name.startswith(("map@", "rprec@")):
                want = expected.get(qid, {}).get(name, 0.0)
                assert value == pytest.approx(want, abs=1e-12, rel=0), (seed, qid, name)


def test_map_and_rprec_on_a_crafted_ranking():
    # relevant a, b, c; ranked a x b y: AP@4 = (1/1 + 2/3) / 3, Rprec (R = 3) = 2/3, Rprec@2 = 1/3
    qrels, run = {"q": {"a": 1, "b": 1, "c": 1}}, {"q": {"a": 4.0, "x": 3.0, "b": 2.0, "y": 1.0}}
    got = ours(qrels, run, ks=(2, 4))["q"]
    assert got["map@4"] == pytest.approx((1 + 2 / 3) / 3, abs=1e-15)
    assert got["map@2"] == pytest.approx(1 / 3, abs=1e-15)
    assert got["rprec@4"] == pytest.approx(2 / 3, abs=1e-15)
    assert got["rprec@2"] == pytest.approx(1 / 3, abs=1e-15)


def test_ties_break_as_trec_eval_does_by_docno_descending_in_float32():
    # 1.0 + 1e-9 equals 1.0 as a C float, so trec_eval sees a tie and ranks "b" before "a"
    assert trec_order([("a", 1.0 + 1e-9), ("b", 1.0)]) == ["b", "a"]
    assert trec_order([("a", 2.0), ("c", 1.0), ("b", 1.0)]) == ["a", "c", "b"]
    qrels, run = {"q": {"a": 1}}, {"q": {"a": 1.0 + 1e-9, "b": 1.0}}
    assert ours(qrels, run)["q"]["precision@1"] == trec_eval_values(qrels, run)["q"]["precision@1"] == 0.0


def test_iou_counts_characters_once():
    assert interval_union([(5, 9), (0, 3), (2, 4), (9, 9)]) == [(0, 4), (5, 9)]
    # retrieved [0, 10) ∪ [5, 20) vs span [15, 25): intersection 5, union 25
    assert iou({"d": [(0, 10), (5, 20)]}, {"d": [(15, 25)]}) == pytest.approx(5 / 25)
    assert iou({"e": [(0, 10)]}, {"d": [(0, 10)]}) == 0.0
    assert iou({}, {}) == 0.0


@pytest.mark.parametrize("seed", range(20))
def test_ranked_iou_of_disjoint_chunks_equals_the_scalar_iou_at_every_k(seed):
    # random disjoint chunks over 3 documents, random rankings (unknown IDs included) and spans
    # (overlapping each other, across documents): the array path against the interval unions
    rng = np.random.default_rng(seed)
    chunks = {}
    for d in range(3):
        cuts = np.unique(rng.integers(0, 400, 12))
        for lo, hi in itertools.pairwise(cuts):
            chunks[f"d{d}#{lo}"] = (d, int(lo), int(hi))
    ids = [*chunks, "unknown"]
    ks, n, kmax = (1, 2, 5, 10, 30), 25, 30
    ranked = np.full((n, kmax, 3), -1, dtype=np.int64)
    spans_at = np.full((n, 4, 3), -1, dtype=np.int64)
    for q in range(n):
        ranking = list(rng.permutation(ids)[: rng.integers(0, kmax + 1)])
        spans: dict[int, list[tuple[int, int]]] = {}
        for _ in range(rng.integers(1, 4)):
            lo = int(rng.integers(0, 390))
            spans.setdefault(int(rng.integers(0, 3)), []).append((lo, lo + int(rng.integers(1, 60))))
        union = [(d, lo, hi) for d, pieces in spans.items() for lo, hi in interval_union(pieces)]
        spans_at[q, : len(union)] = union
        for r, cid in enumerate(ranking):
            if cid in chunks:
                ranked[q, r] = chunks[cid]
        got = ranked_iou(ranked[q : q + 1], spans_at[q : q + 1], ks)[0]
        for j, k in enumerate(ks):
            top: dict[int, list[tuple[int, int]]] = {}
            for cid in ranking[:k]:
                if cid in chunks:
                    top.setdefault(chunks[cid][0], []).append(chunks[cid][1:])
            assert got[j] == pytest.approx(iou(top, spans), abs=1e-12), (seed, q, k)
    assert np.allclose(ranked_iou(ranked, spans_at, ks)[-1], got, atol=0, rtol=0)
