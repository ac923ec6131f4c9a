"""Retrieval metrics and their uncertainty, vectorised over queries with numpy.

Why not ranx or ir-measures here: the CLI runs once per CI step, and ranx's numba JIT costs
seconds per call before the first number (measured in the README), while the metrics a golden
set needs are a few cumulative sums over a queries × ranks relevance matrix. They are computed
here for every k at once and tested against ir-measures (trec_eval via pytrec_eval) and ranx on
crafted and random runs (``tests/test_metrics_oracles.py``). What no IR library offers is also
here: the multi-hop hit rule over spans, span IoU, seeded bootstrap intervals over queries, and
paired comparisons with a randomization test. Each metric is a function registered under its
name in ``evalspec.METRIC_TABLE`` (``@metric``), and ``per_query`` stacks them in its order.

Conventions: a query missing from the run has an empty ranking and scores 0 on everything;
``precision@k`` divides by k (as trec_eval's ``P_k``); ``ndcg@k`` uses binary gains and log2
discounts; ``mrr@k`` is 1/rank of the first rank at which the record hits under the multi rule
(under ``any`` with a per-chunk hit rule: the first bearing chunk), 0 beyond k; ``map@k`` is
trec_eval's ``map_cut_k`` (divided by all the bearing chunks) and ``rprec@k`` trec_eval's
``Rprec`` of the run cut at k.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .evalspec import METRICS

CONFIDENCE = 0.95


@dataclass
class Judged:
    """What the metrics need of a run over N queries, with ranks cut at K ≤ max(ks): nothing is
    ranked past K (a cutoff beyond it reads rank K)."""

    #: (N, K) bool: the chunk at rank r+1 bears some span of the query
    rel: np.ndarray
    #: (N,) bearing chunks of the query (the ideal ranking's length)
    n_rel: np.ndarray
    #: (N,) the first rank at which the record hits under the multi rule, 0 when not within K
    first_hit: np.ndarray
    #: (N, len(ks)) span IoU of the top-k chunks
    iou: np.ndarray


class Cutoffs:
    """A judged run at each cutoff: what the per-query metric functions read, each intermediate
    worked out once, when the first metric needs it."""

    def __init__(self, judged: Judged, ks: tuple[int, ...]) -> None:
        self.judged = judged
        self.ks = np.asarray(ks)
        self.n, self.kmax = judged.rel.shape

    def at_cutoffs(self, cumulative: np.ndarray) -> np.ndarray:
        """(N, len(ks)): a cumulative (N, K) sum read at each cutoff (at K for one beyond it)."""
        if not self.kmax:
            return np.zeros((self.n, len(self.ks)))
        return cumulative[:, np.minimum(self.ks, self.kmax) - 1]

    @cached_property
    def found(self) -> np.ndarray:
        """(N, len(ks)): bearing chunks in the top k."""
        return self.at_cutoffs(np.cumsum(self.judged.rel, axis=1))

    @cached_property
    def within(self) -> np.ndarray:
        """(N, len(ks)) bool: the record hits under the multi rule within the top k."""
        first = self.judged.first_hit[:, None]
        return (first > 0) & (first <= self.ks[None, :])


#: each metric's per-query function by name, (N, len(ks)) from the ``Cutoffs`` of a run
PER_QUERY: dict[str, Callable[[Cutoffs], np.ndarray]] = {}


def metric(name: str) -> Callable[[Callable[[Cutoffs], np.ndarray]], Callable[[Cutoffs], np.ndarray]]:
    """Register the per-query function of the metric ``name`` of ``evalspec.METRIC_TABLE``."""
    if name not in METRICS:
        raise ValueError(f"metric {name!r} is not in evalspec.METRIC_TABLE")

    def register(fn: Callable[[Cutoffs], np.ndarray]) -> Callable[[Cutoffs], np.ndarray]:
        PER_QUERY[name] = fn
        return fn

    return register


@metric("hit")
def _hit(c: Cutoffs) -> np.ndarray:
    return c.within.astype(float)


@metric("recall")
def _recall(c: Cutoffs) -> np.ndarray:
    n_rel = c.judged.n_rel[:, None].astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n_rel > 0, c.found / n_rel, 0.0)


@metric("mrr")
def _mrr(c: Cutoffs) -> np.ndarray:
    return np.where(c.within, 1.0 / np.maximum(c.judged.first_hit[:, None], 1), 0.0)


@metric("ndcg")
def _ndcg(c: Cutoffs) -> np.ndarray:
    def discount(n: int) -> np.ndarray:
        return 1.0 / np.log2(np.arange(2, n + 2))

    dcg = c.at_cutoffs(np.cumsum(c.judged.rel * discount(c.kmax), axis=1))
    ideal_n = np.minimum(c.judged.n_rel[:, None], c.ks[None, :])
    ideal_cum = np.concatenate([[0.0], np.cumsum(discount(int(ideal_n.max(initial=0))))])
    ideal = ideal_cum[ideal_n]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ideal > 0, dcg / np.where(ideal > 0, ideal, 1.0), 0.0)


@metric("precision")
def _precision(c: Cutoffs) -> np.ndarray:
    return c.found / c.ks[None, :]


@metric("iou")
def _iou(c: Cutoffs) -> np.ndarray:
    return c.judged.iou


@metric("map")
def _map(c: Cutoffs) -> np.ndarray:
    # average precision as trec_eval's map_cut_k: the precision at each bearing rank within k,
    # summed and divided by all the bearing chunks (those never ranked count as precision 0)
    rel = c.judged.rel
    precision_at = np.cumsum(rel, axis=1) / np.arange(1, c.kmax + 1)
    summed = c.at_cutoffs(np.cumsum(np.where(rel, precision_at, 0.0), axis=1))
    n_rel = c.judged.n_rel[:, None].astype(float)
    return np.where(n_rel > 0, summed / np.maximum(n_rel, 1.0), 0.0)


@metric("rprec")
def _rprec(c: Cutoffs) -> np.ndarray:
    # trec_eval's Rprec of the run cut at k: bearing chunks in the top min(R, k) over R
    n_rel = c.judged.n_rel[:, None]
    depth = np.minimum(np.minimum(n_rel, c.ks[None, :]), c.kmax)
    cumulative = np.concatenate([np.zeros((c.n, 1)), np.cumsum(c.judged.rel, axis=1)], axis=1)
    found = np.take_along_axis(cumulative, depth, axis=1)
    return np.where(n_rel > 0, found / np.maximum(n_rel, 1), 0.0)


def per_query(judged: Judged, ks: tuple[int, ...]) -> np.ndarray:
    """Every metric for every query and k: an (N, len(METRICS), len(ks)) array in the registry's order."""
    cutoffs = Cutoffs(judged, ks)
    return np.stack([PER_QUERY[name](cutoffs) for name in METRICS], axis=1)


def _quantiles(means: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    tail = (1 - CONFIDENCE) / 2 * 100
    return np.percentile(means, tail, axis=0), np.percentile(means, 100 - tail, axis=0)


#: draws per block of bootstrap resamples: a block's counts stay in the cache (one (R, N) array
#: of counts is random writes over R·N·8 bytes, 157 MB at R=2000, N=10,000: seconds)
BLOCK = 1 << 18


def _blocks(resamples: int, n: int) -> list[tuple[int, int]]:
    """(first resample, resamples) of each block of about ``BLOCK`` draws."""
    rows = max(1, BLOCK // n)
    return [(first, min(rows, resamples - first)) for first in range(0, resamples, rows)]


def bootstrap(values: np.ndarray, resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """95 % percentile intervals of the mean over queries (axis 0), one resampling for all columns.

    The resamples are drawn in blocks of rows from one generator, which draws the same indices
    as one (resamples, N) call; each block's counts (how often each resample drew each query)
    become every column's means as one matrix product."""
    n = values.shape[0]
    if n == 0 or resamples <= 0:
        nan = np.full(values.shape[1:], np.nan)
        return nan, nan
    flat = values.reshape(n, -1)
    rng = np.random.default_rng(seed)
    means = np.empty((resamples, flat.shape[1]))
    for first, block in _blocks(resamples, n):
        idx = rng.integers(0, n, size=(block, n))
        counts = np.bincount((idx + np.arange(block)[:, None] * n).ravel(), minlength=block * n)
        means[first : first + block] = counts.reshape(block, n).astype(float) @ flat
    lo, hi = _quantiles(means / n)
    return lo.reshape(values.shape[1:]), hi.reshape(values.shape[1:])


def randomization_p(deltas: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Two-sided paired randomization (sign-flip) test of mean delta = 0, per column; (hits+1)/(R+1)."""
    n = deltas.shape[0]
    flat = deltas.reshape(n, -1)
    if n == 0 or resamples <= 0:
        return np.full(deltas.shape[1:], np.nan)
    observed = np.abs(flat.mean(axis=0))
    rng = np.random.default_rng(seed + 1)
    flipped = np.empty((resamples, flat.shape[1]))
    for first, block in _blocks(resamples, n):  # the same signs as one (resamples, N) draw
        flipped[first : first + block] = rng.choice((-1.0, 1.0), size=(block, n)) @ flat
    flipped = np.abs(flipped / n)
    extreme = (flipped >= observed[None, :] - 1e-12).sum(axis=0)
    return ((extreme + 1) / (resamples + 1)).reshape(deltas.shape[1:])


def ranked_iou(chunks: np.ndarray, spans: np.ndarray, ks: tuple[int, ...]) -> np.ndarray:
    """(N, len(ks)) span IoU of the top-k chunks for every query and k at once, for chunks no two
    of which share a character (``Chunking.disjoint``; ``iou`` is the general case).

    ``chunks`` is (N, K, 3) int: each rank's (document code, start, end), code -1 where nothing
    countable is ranked, each chunk at most once a row (``runs.Ranked`` holds an ID once a query;
    a chunk ranked twice would count its characters twice); ``spans`` is (N, S, 3) likewise: each query's spans, already a disjoint
    union per document. The intersection of a top k is then the sum of its chunks'
    intersections with the spans, and its union the chunks' lengths plus the spans' less that."""
    n, kmax = chunks.shape[:2]
    if not kmax:
        return np.zeros((n, len(ks)))
    cdoc, cstart, cend = (chunks[:, :, i, None] for i in range(3))
    sdoc, sstart, send = (spans[:, None, :, i] for i in range(3))
    overlap = np.minimum(cend, send) - np.maximum(cstart, sstart)
    same = (cdoc == sdoc) & (cdoc >= 0)
    inter = np.where(same, np.maximum(overlap, 0), 0).sum(axis=2)
    length = np.where(chunks[:, :, 0] >= 0, chunks[:, :, 2] - chunks[:, :, 1], 0)
    span_length = np.where(spans[:, :, 0] >= 0, spans[:, :, 2] - spans[:, :, 1], 0).sum(axis=1)
    at = np.minimum(np.asarray(ks), kmax) - 1
    inter_k = np.cumsum(inter, axis=1)[:, at].astype(float)
    union_k = np.cumsum(length, axis=1)[:, at] + span_length[:, None] - inter_k
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(union_k > 0, inter_k / np.where(union_k > 0, union_k, 1), 0.0)


def interval_union(pieces: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Disjoint, sorted union of half-open intervals."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(p for p in pieces if p[1] > p[0]):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _length(pieces: list[tuple[int, int]]) -> int:
    return sum(hi - lo for lo, hi in pieces)


def iou(retrieved: dict[str, list[tuple[int, int]]], spans: dict[str, list[tuple[int, int]]]) -> float:
    """Characters of the retrieved chunks ∩ the spans over their union, per document, summed."""
    inter = union = 0
    for doc in retrieved.keys() | spans.keys():
        a = interval_union(retrieved.get(doc, []))
        b = interval_union(spans.get(doc, []))
        both = interval_union(a + b)
        la, lb, lu = _length(a), _length(b), _length(both)
        inter += la + lb - lu
        union += lu
    return inter / union if union else 0.0
