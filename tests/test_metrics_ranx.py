"""Our metrics against ranx on random runs — the one module that imports ranx.

ranx compiles its metrics with numba on first use: importing and running it costs seconds (the
README's measurement), which is why the CLI does not use it and why only this module pays it.
The runs here have distinct scores: ranx does not break ties as trec_eval does.
"""

from __future__ import annotations

import random

import pytest
from eval_support import KS, ours, random_case

ranx = pytest.importorskip("ranx")

NAMES = {"hit": "hit_rate", "recall": "recall", "mrr": "mrr", "ndcg": "ndcg", "precision": "precision"}


@pytest.mark.parametrize("seed", range(4))
def test_random_runs_agree_with_ranx(seed):
    qrels, run = random_case(seed)
    rng = random.Random(seed)
    run = {q: {d: s + rng.random() / 100 for d, s in docs.items()} for q, docs in run.items() if docs}
    qrels = {q: v for q, v in qrels.items() if q in run}
    metrics = [f"{NAMES[m]}@{k}" for m in NAMES for k in KS]
    scores = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), metrics, return_mean=False)
    got = ours(qrels, run)
    qids = list(qrels)
    for m, name in NAMES.items():
        for k in KS:
            column = scores[f"{name}@{k}"]
            for i, q in enumerate(sorted(qids)):
                assert got[q][f"{m}@{k}"] == pytest.approx(float(column[i]), abs=1e-6), (seed, q, m, k)
