"""Helpers for the evaluation tests: random runs with ties, and our metrics on plain rankings."""

from __future__ import annotations

import random

import numpy as np

from golden_lsp.evaluate.evalspec import METRICS
from golden_lsp.evaluate.metrics import Judged, per_query
from golden_lsp.evaluate.runs import trec_order

KS = (1, 3, 5, 10, 20)


def random_case(seed: int, n_queries: int = 40, n_docs: int = 30) -> tuple[dict, dict]:
    """qrels {qid: {doc: 1}} (1-4 relevant each) and a run {qid: {doc: score}} with many tied scores."""
    rng = random.Random(seed)
    docs = [f"d{i:02d}" for i in range(n_docs)]
    qrels, run = {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        qrels[qid] = dict.fromkeys(rng.sample(docs, rng.randint(1, 4)), 1)
        retrieved = rng.sample(docs, rng.randint(0, n_docs))
        run[qid] = {d: float(rng.randint(0, 5)) / 2 for d in retrieved}  # few distinct scores: ties
    return qrels, run


def ours(qrels: dict, run: dict, ks: tuple[int, ...] = KS) -> dict[str, dict[str, float]]:
    """Our per-query values, each relevant doc a single-span record (multi rule any)."""
    qids = list(qrels)
    kmax = max(ks)
    rel = np.zeros((len(qids), kmax), dtype=bool)
    first = np.zeros(len(qids), dtype=int)
    for i, q in enumerate(qids):
        ranking = trec_order(list(run.get(q, {}).items()))[:kmax]
        rel[i, : len(ranking)] = [d in qrels[q] for d in ranking]
        first[i] = next((r for r, d in enumerate(ranking, 1) if d in qrels[q]), 0)
    judged = Judged(rel, np.asarray([len(qrels[q]) for q in qids]), first, np.zeros((len(qids), len(ks))))
    values = per_query(judged, ks)
    names = ("hit", "recall", "mrr", "ndcg", "precision", "map", "rprec")
    return {
        q: {f"{m}@{k}": float(values[i, METRICS.index(m), j]) for m in names for j, k in enumerate(ks)}
        for i, q in enumerate(qids)
    }
