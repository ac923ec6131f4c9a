"""The strata of a stratified sample from query logs, and how many queries each one gets.

"Queries come from traffic … stratified by intent, by frequency, and deliberately over-sampling
the tail": a sample that keeps the traffic's mix of intents, topics, tenants, lengths and of
frequent and rare queries measures what users meet, and one that over-samples the rare ones sees
the failures an aggregate hides. A query's stratum is the value of each field named (joined as
``intent=billing · frequency=tail``):

- any field of the log's JSONL lines (``intent``, ``tenant``, ``topic``…), ``(none)`` where absent;
- ``length``: at most 5 words, 6–15, more (the guide's bands);
- ``frequency``: **head**, **torso** or **tail**, from the query's count across the logs. Distinct
  queries are ranked by count; a count is head when the queries seen more often than it make up
  less than half of the traffic (the log lines), torso when they make up less than 80 %, and tail
  otherwise — so all queries of one count share a stratum, and a log where every query occurs
  once is all head (nothing in it is rarer than anything else);
- ``topic`` when no line of the logs has a ``topic`` field: topic clusters of the query text
  (``topics.py`` states the method).

Each stratum's share of the sample is its share of the traffic (its log lines, not its distinct
queries: the sample keeps the mix users produce), the tail's weight multiplied by the tail factor
(``--tail-factor``, default 2) when ``frequency`` is a stratum; the shares are rounded to whole
queries by largest remainder, and a stratum with fewer distinct queries than its share gives the
rest to the others in proportion to their weights.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class LoggedQuery(Protocol):
    """What a stratum is made of: a distinct query of the logs (``sampling.LoggedQuery``)."""

    @property
    def query(self) -> str: ...
    @property
    def count(self) -> int: ...
    @property
    def fields(self) -> dict[str, Any]: ...
    @property
    def words(self) -> int: ...


LENGTHS = ((5, "≤ 5 words"), (15, "6–15 words"), (None, "> 15 words"))
#: the cumulative traffic shares that end the head and the torso
HEAD_SHARE, TORSO_SHARE = 0.5, 0.8
DEFAULT_TAIL_FACTOR = 2.0
SEPARATOR = " · "
NONE = "(none)"


@dataclass(frozen=True)
class Allocation:
    """One stratum: its traffic and distinct queries in the logs, its weight, and its queries in
    the sample — the share it was given, and how many were drawn."""

    name: str
    lines: int
    distinct: int
    weight: float
    wanted: int
    drawn: int

    def as_json(self) -> dict[str, Any]:
        return {
            "stratum": self.name,
            "log_lines": self.lines,
            "log_distinct": self.distinct,
            "weight": self.weight,
            "wanted": self.wanted,
            "drawn": self.drawn,
        }


def frequency_bands(counts: Sequence[int]) -> list[str]:
    """head, torso or tail for each count (of each distinct query), as the module says."""
    total = sum(counts)
    by_count = Counter(counts)
    before: dict[int, int] = {}  # the traffic of the queries seen more often than this count
    seen = 0
    for count in sorted(by_count, reverse=True):
        before[count] = seen
        seen += count * by_count[count]
    out = []
    for count in counts:
        share = before[count] / total
        out.append("head" if share < HEAD_SHARE else "torso" if share < TORSO_SHARE else "tail")
    return out


def _length(q: LoggedQuery) -> str:
    return next(name for most, name in LENGTHS if most is None or q.words <= most)


def _value(value: Any) -> str:
    if value is None:
        return NONE
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def stratum_names(pool: Sequence[LoggedQuery], fields: list[str], topics: int, seed: int | None) -> list[str]:
    """Each query's stratum: ``field=value`` for every field named, joined."""
    columns: list[list[str]] = []
    for name in fields:
        if name == "length":
            values = [_length(q) for q in pool]
        elif name == "frequency":
            values = frequency_bands([q.count for q in pool])
        elif name == "topic" and not any("topic" in q.fields for q in pool):
            from .topics import clusters

            values = clusters([q.query for q in pool], topics, seed)
        else:
            values = [_value(q.fields.get(name)) for q in pool]
        columns.append([f"{name}={v}" for v in values])
    return [SEPARATOR.join(parts) for parts in zip(*columns)] if columns else [""] * len(pool)


def is_tail(name: str) -> bool:
    return "frequency=tail" in name.split(SEPARATOR)


def largest_remainder(total: int, weights: list[float]) -> list[int]:
    """``total`` split in proportion to ``weights``, in whole numbers (ties to the first)."""
    whole = sum(weights)
    if whole <= 0 or total <= 0:
        return [0] * len(weights)
    quotas = [total * w / whole for w in weights]
    out = [int(q) for q in quotas]
    order = sorted(range(len(weights)), key=lambda i: (-(quotas[i] - out[i]), i))
    for i in order[: total - sum(out)]:
        out[i] += 1
    return out


def allocate(pool: Sequence[LoggedQuery], names: list[str], n: int, tail_factor: float) -> list[Allocation]:
    """Each stratum's share of ``n`` (largest first by traffic), as the module says."""
    lines: Counter[str] = Counter()
    distinct: Counter[str] = Counter()
    for q, name in zip(pool, names):
        lines[name] += q.count
        distinct[name] += 1
    order = sorted(lines, key=lambda s: (-lines[s], s))
    weights = [lines[s] * (tail_factor if is_tail(s) else 1.0) for s in order]
    wanted = largest_remainder(n, weights)
    drawn = [min(w, distinct[s]) for w, s in zip(wanted, order)]
    while True:
        left = n - sum(drawn)
        room = [i for i, s in enumerate(order) if drawn[i] < distinct[s]]
        if left <= 0 or not room:
            break
        extra = largest_remainder(left, [weights[i] for i in room])
        if not any(extra):
            extra[0] = left  # weights of zero: the first stratum with room takes the rest
        for i, more in zip(room, extra):
            drawn[i] = min(distinct[order[i]], drawn[i] + more)
    return [
        Allocation(s, lines[s], distinct[s], w, want, got)
        for s, w, want, got in zip(order, weights, wanted, drawn)
    ]
