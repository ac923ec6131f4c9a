"""Judging a run against the answerable records: which ranks bear what, as array work.

``evaluation.py`` turns a golden set into records with spans and bearing chunks; this module
reads a run against them, for every query and rank at once (a million ranks of a 10,000-query
run are numpy operations, not a Python loop): every rank becomes the chunking's index of its
chunk, a chunk bears a record or a span when its (row, chunk) key is among theirs, a span's first
hit is the first true in its row, and the span IoU of every top k is ``metrics.ranked_iou``'s
cumulative sums. What cannot be summed — coverage and IoU when a chunk file's chunks overlap —
is read rank by rank, as it always was. ``tests/test_eval_arrays.py`` holds the scalar judge
this replaced, as the oracle.
"""

from __future__ import annotations

import numpy as np

from ..core.labels.resolve import Span
from ..core.labels.scoring import HitRule, union_coverage
from ..core.text.chunker import Chunk
from .chunkings import Chunking
from .metrics import Judged, interval_union, iou, ranked_iou
from .runs import Run, ranked_of
from .targets import Settings, Target, Targets


def _first_satisfied(
    rule: HitRule, ranking: list[str], by_id: dict[str, Chunk], span: Span, bearing: frozenset[str]
) -> int:
    """The first rank (1-based) at which the top chunks bear ``span`` under ``rule``; 0 if none."""
    tau = rule.tau
    if rule.name != "union_coverage" or tau is None:  # a per-chunk rule: the first bearing chunk
        return next((r for r, cid in enumerate(ranking, 1) if cid in bearing), 0)
    taken: list[Chunk] = []
    for r, cid in enumerate(ranking, 1):
        if cid in bearing:
            taken.append(by_id[cid])
            if union_coverage(taken, span) >= tau:
                return r
    return 0


def judge(tg: Targets, run: Run, settings: Settings) -> Judged:
    """The run judged over the answerable records, ranks cut at the largest cutoff — or sooner,
    at the deepest ranking of the run, past which no rank holds anything (so ``--k 1000000``
    over a run of 50 costs what ``--k 50`` does, and scores the same).

    Array work over all queries and ranks at once: every rank becomes the chunking's index of
    its chunk (-1 for an ID not in the chunking, or no rank), and a chunk bears a span or a
    record when its (row, chunk) key is among theirs."""
    kmax = max(settings.ks)
    ranked = run.ranked if run.ranked is not None else ranked_of(run.rankings)
    chunks = tg.chunking.chunks
    n, n_chunks = len(tg.answerable), max(len(chunks), 1)
    index = {c.chunk_id: i for i, c in enumerate(chunks)}  # a repeated ID: its last chunk, as by_id
    known = np.fromiter((index.get(cid, -1) for cid in ranked.ids), dtype=np.int64, count=len(ranked.ids))
    row_of = {q: i for i, q in enumerate(ranked.queries)}
    rows = np.fromiter((row_of.get(t.query_id, -1) for t in tg.answerable), dtype=np.int64, count=n)
    starts = np.where(rows >= 0, ranked.bounds[rows], 0)
    sizes = np.where(rows >= 0, np.minimum(ranked.bounds[rows + 1] - starts, kmax), 0)
    cols = np.arange(int(sizes.max(initial=0)))
    filled = cols[None, :] < sizes[:, None]
    #: (N, depth) the chunking's index of the chunk at each rank, -1 where none is
    at = np.where(filled, known[ranked.codes[np.where(filled, starts[:, None] + cols, 0)]], -1)
    rel = _bears(at, [[index[cid] for cid in t.relevant] for t in tg.answerable], n_chunks)
    n_rel = np.fromiter((len(t.relevant) for t in tg.answerable), dtype=np.int64, count=n)
    spans_of = np.fromiter((len(t.spans) for t in tg.answerable), dtype=np.int64, count=n)
    tau = tg.hit_rule.tau if tg.hit_rule.name == "union_coverage" else None
    if tau is None or tg.chunking.disjoint:
        # each span's first rank bearing it: its first bearing chunk under a per-chunk rule; under
        # union_coverage (disjoint chunks, so covered characters add up), the first rank where
        # the bearing chunks so far cover τ of it, as scoring.union_coverage divides
        bearing = [[index[cid] for cid in b] for t in tg.answerable for b in t.bearing]
        per_span = np.repeat(at, spans_of, axis=0)
        hits = _bears(per_span, bearing, n_chunks)
        if tau is not None:
            docs, table = _chunk_table(tg.chunking)
            span = np.asarray(
                [(docs.get(s.doc_id, -1), s.start, s.end) for t in tg.answerable for s in t.spans],
                dtype=np.int64,
            ).reshape(-1, 3)
            chunk = table[per_span]
            overlap = np.minimum(chunk[:, :, 2], span[:, None, 2]) - np.maximum(
                chunk[:, :, 1], span[:, None, 1]
            )
            covered = np.cumsum(np.where(hits, np.maximum(overlap, 0), 0), axis=1)
            length = (span[:, 2] - span[:, 1])[:, None]
            with np.errstate(invalid="ignore", divide="ignore"):
                hits = (length > 0) & (covered / np.where(length > 0, length, 1) >= tau)
        firsts = (
            np.where(hits.any(axis=1), hits.argmax(axis=1) + 1, 0)
            if hits.shape[1]
            else np.zeros(len(hits), dtype=np.int64)
        )
    else:  # union_coverage over chunks that overlap: rank by rank, as scoring.union_coverage
        by_id = tg.chunking.by_id
        firsts = np.asarray(
            [
                _first_satisfied(tg.hit_rule, run.rankings.get(t.query_id, [])[:kmax], by_id, s, b)
                for t in tg.answerable
                for s, b in zip(t.spans, t.bearing)
            ],
            dtype=np.int64,
        )
    offsets = np.concatenate([[0], np.cumsum(spans_of)[:-1]]).astype(np.int64)
    if settings.multi == "all":
        first_hit = np.where(
            np.minimum.reduceat(firsts, offsets) > 0, np.maximum.reduceat(firsts, offsets), 0
        )
    else:
        nearest = np.minimum.reduceat(np.where(firsts > 0, firsts, np.iinfo(np.int64).max), offsets)
        first_hit = np.where(nearest < np.iinfo(np.int64).max, nearest, 0)
    return Judged(rel, n_rel, first_hit, _ious(tg, run, at, settings.ks))


def _bears(at: np.ndarray, bearing: list[list[int]], n_chunks: int) -> np.ndarray:
    """(rows, depth) bool: the chunk at each rank of ``at`` is one of its row's ``bearing``."""
    keys = np.fromiter(
        (row * n_chunks + c for row, cs in enumerate(bearing) for c in cs),
        dtype=np.int64,
    )
    ranked = np.arange(len(at), dtype=np.int64)[:, None] * n_chunks + at
    return np.isin(ranked, keys) & (at >= 0)


def _chunk_table(chunking: Chunking) -> tuple[dict[str, int], np.ndarray]:
    """Each document's code, and each chunk's (document code, start, end) by its index in the
    chunking, then a row of -1 (what index -1, no chunk, reads)."""
    codes: dict[str, int] = {}
    rows = [(codes.setdefault(c.doc_id, len(codes)), c.start, c.end) for c in chunking.chunks]
    return codes, np.asarray([*rows, (-1, -1, -1)], dtype=np.int64).reshape(-1, 3)


def _ious(tg: Targets, run: Run, at: np.ndarray, ks: tuple[int, ...]) -> np.ndarray:
    """(N, len(ks)) span IoU of the top k: array work for a disjoint chunking
    (``metrics.ranked_iou``), interval unions query by query for one whose chunks overlap."""
    if tg.chunking.disjoint:
        codes, table = _chunk_table(tg.chunking)
        unions = [
            [(codes.setdefault(d, len(codes)), lo, hi) for d, lo, hi in _span_union(t)] for t in tg.answerable
        ]
        spans_at = np.full((len(unions), max(map(len, unions), default=0), 3), -1, dtype=np.int64)
        for q, u in enumerate(unions):
            spans_at[q, : len(u)] = u
        return ranked_iou(table[at], spans_at, ks)
    by_id = tg.chunking.by_id
    ious = np.zeros((len(tg.answerable), len(ks)))
    for q, t in enumerate(tg.answerable):
        ranking = run.rankings.get(t.query_id, [])
        spans: dict[str, list[tuple[int, int]]] = {}
        for s in t.spans:
            spans.setdefault(s.doc_id, []).append((s.start, s.end))
        for j, k in enumerate(ks):
            got: dict[str, list[tuple[int, int]]] = {}
            for cid in ranking[:k]:
                c = by_id.get(cid)
                if c is not None:
                    got.setdefault(c.doc_id, []).append((c.start, c.end))
            ious[q, j] = iou(got, spans)
    return ious


def _span_union(t: Target) -> list[tuple[str, int, int]]:
    """A record's spans as a disjoint union per document."""
    by_doc: dict[str, list[tuple[int, int]]] = {}
    for s in t.spans:
        by_doc.setdefault(s.doc_id, []).append((s.start, s.end))
    return [(d, lo, hi) for d, pieces in by_doc.items() for lo, hi in interval_union(pieces)]
