"""The four hit rules of SPEC §5: which chunks count as bearing an answer span.

A golden set is only comparable across runs if "this chunk answers that question" is one pinned
rule, recorded in the manifest (``build_hit_rule``). The build uses a rule to choose each span's
answer-bearing chunks; retrieval evaluation will use the same rules on retrieved chunks.
Coverage is counted over characters, with overlapping chunks merged, so it never exceeds 1.0.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

DEFAULT_HIT_RULE = "any_overlap"

_RULE = re.compile(r"^(any_overlap|span_containment)$|^(coverage|union_coverage)>=([0-9]*\.?[0-9]+)$")


class Interval(Protocol):
    """Anything with [start, end) offsets: a chunk, a span (read-only, as frozen dataclasses are)."""

    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...


@dataclass(frozen=True)
class HitRule:
    name: str
    tau: float | None = None
    spelling: str = DEFAULT_HIT_RULE

    def __str__(self) -> str:
        return self.spelling


def parse_hit_rule(spelling: str) -> HitRule:
    """``any_overlap``, ``span_containment``, ``coverage>=τ`` or ``union_coverage>=τ``."""
    m = _RULE.match(spelling.strip())
    if m is None:
        raise ValueError(
            f"unknown hit rule {spelling!r}: use any_overlap, span_containment, coverage>=τ "
            "or union_coverage>=τ (0 < τ <= 1)"
        )
    if m.group(1):
        return HitRule(m.group(1), None, spelling.strip())
    tau = float(m.group(3))
    if not 0 < tau <= 1:
        raise ValueError(f"hit rule {spelling!r}: τ must be in (0, 1]")
    return HitRule(m.group(2), tau, spelling.strip())


def overlap(a: Interval, b: Interval) -> int:
    return max(0, min(a.end, b.end) - max(a.start, b.start))


def union_coverage(chunks: Iterable[Interval], span: Interval) -> float:
    """Fraction of the span's characters covered by the union of ``chunks``."""
    length = span.end - span.start
    if length <= 0:
        return 0.0
    pieces = sorted((max(c.start, span.start), min(c.end, span.end)) for c in chunks)
    covered = 0
    reach = span.start
    for lo, hi in pieces:
        lo = max(lo, reach)
        if hi > lo:
            covered += hi - lo
            reach = hi
    return covered / length


def chunk_hits(rule: HitRule, chunk: Interval, span: Interval) -> bool:
    """The per-chunk rules; ``union_coverage`` counts a chunk that overlaps at all."""
    if rule.name == "span_containment":
        return chunk.start <= span.start and chunk.end >= span.end
    if rule.name == "coverage":
        tau = rule.tau
        assert tau is not None  # parse_hit_rule gives every coverage rule its τ
        return overlap(chunk, span) / (span.end - span.start) >= tau
    return chunk.start < span.end and span.start < chunk.end


def bearing_chunks(rule: HitRule, candidates: list, span: Interval) -> list:
    """The chunks (of the span's document) that bear ``span`` under ``rule``.

    For ``union_coverage>=τ`` the overlapping chunks bear the span together when their union
    covers at least τ of it, and none does otherwise.
    """
    hits = [c for c in candidates if chunk_hits(rule, c, span)]
    if rule.name == "union_coverage":
        tau = rule.tau
        assert tau is not None  # parse_hit_rule gives every coverage rule its τ
        if union_coverage(hits, span) < tau:
            return []
    return hits
