"""Drawing new questions from real traffic: query logs sampled into skeleton records.

A golden set written by someone who has read the corpus asks what the corpus says; one drawn from
what users actually asked tests what retrieval must do. This module reads one or more query logs
(one query per line, or JSONL with ``query``, an optional ``rephrased: true`` — the user re-asked at
once, a hard case — and any other fields: ``request_id``, ``intent``, ``topic``, ``tenant``…), folds
case and whitespace to count each distinct query's occurrences across the logs (its frequency) and
to drop those already in the set, and draws N of them: at random, among the hard cases, keeping the
log's length mix (30 % of at most 5 words, 50 % of 6–15, 20 % longer), or stratified by any log
fields (``strata``) — the strata's shares of the sample follow their shares of the traffic, the tail
over-sampled by a stated factor. The same seed draws the same sample. The result is skeleton records
with fresh ids that continue the set's id scheme, each keeping where it came from (``source``, its
``request_id``, ``sampled_at``, its count in the logs and its stratum in ``meta``), ready to author in
the editor.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.check.pii import find as find_pii
from ..core.check.pii import redact
from ..core.check.rules import folded
from ..core.goldenset.config import ConfigError
from ..core.labels.ids import free_ids
from ..core.labels.jsonline import split_lines
from .strata import LENGTHS, Allocation, allocate, stratum_names

STRATEGIES = ("random", "stratified", "hard-cases")
#: (name, the largest word count, share of N); the last stratum takes what the others leave
STRATA = tuple((name, most, share) for (most, name), share in zip(LENGTHS, (0.3, 0.5, 0.2)))


@dataclass(frozen=True)
class LoggedQuery:
    query: str
    rephrased: bool = False
    #: 1-based line of its first occurrence in its log
    line: int = 0
    #: the log it came from (as the user named it), and the log's place among those given
    source: str = ""
    log: int = 0
    #: the other fields of its JSONL line (none for a plain-text log)
    fields: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    #: occurrences across the logs (case and whitespace folded): the query's frequency
    count: int = 1

    @property
    def words(self) -> int:
        return len(self.query.split())

    @property
    def order(self) -> tuple[int, int]:
        return self.log, self.line


def read_log(text: str, where: str, log: int = 0, source: str | None = None) -> list[LoggedQuery]:
    """The log's queries in order, duplicates kept, each of ``source`` (default ``where``). JSONL when
    the first query line is a JSON object; a bad line then raises ConfigError naming ``where`` and
    the line."""
    source = where if source is None else source
    # lines as an editor counts them: a U+2028 inside a JSON string does not end one
    lines = [(no, line) for no, line in enumerate(split_lines(text), 1) if line.strip()]
    jsonl = bool(lines) and _object(lines[0][1]) is not None
    out = []
    for no, line in lines:
        if not jsonl:
            out.append(LoggedQuery(line.strip(), False, no, source, log))
            continue
        obj = _object(line)
        if obj is None or not isinstance(obj.get("query"), str) or not obj["query"].strip():
            raise ConfigError(
                f"{where}:{no}: each line of a JSONL log must be an object with a non-empty string 'query'"
            )
        if not isinstance(obj.get("rephrased", False), bool):
            raise ConfigError(f"{where}:{no}: 'rephrased' must be true or false")
        rest = {k: v for k, v in obj.items() if k not in ("query", "rephrased")}
        out.append(LoggedQuery(obj["query"].strip(), obj.get("rephrased", False), no, source, log, rest))
    return out


def _object(line: str) -> dict | None:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def redacted(logged: list[LoggedQuery], region: str | None) -> tuple[list[LoggedQuery], int]:
    """The queries (and their other string fields) with their personal data replaced by typed
    placeholders (``core.pii``), before they are counted and compared; and how many identifiers
    were replaced."""
    out, n = [], 0
    for q in logged:
        found = find_pii(q.query, region)
        fields = dict(q.fields)
        for name, value in q.fields.items():  # a kept field (a user's note…) is redacted too
            if isinstance(value, str) and (in_field := find_pii(value, region)):
                fields[name] = redact(value, in_field)
                n += len(in_field)
        n += len(found)
        out.append(replace(q, query=redact(q.query, found), fields=fields))
    return out, n


def candidates(logged: Iterable[LoggedQuery], existing: Iterable[str]) -> list[LoggedQuery]:
    """The logs' distinct queries (case and whitespace folded), first occurrence kept with its count,
    hard when any occurrence was rephrased, without those already in the set."""
    taken = {folded(q) for q in existing}
    seen: dict[str, LoggedQuery] = {}
    for q in logged:
        key = folded(q.query)
        if key in taken:
            continue
        first = seen.get(key)
        if first is None:
            seen[key] = q
        else:
            seen[key] = replace(first, rephrased=first.rephrased or q.rephrased, count=first.count + 1)
    return list(seen.values())


def stratum(q: LoggedQuery) -> int:
    return next(i for i, (_, most, _) in enumerate(STRATA) if most is None or q.words <= most)


@dataclass(frozen=True)
class Draw:
    """A stratified draw: the queries, what to tell the user, each query's stratum, and the
    strata with their sizes in the logs and in the sample."""

    picked: list[LoggedQuery]
    notes: list[str]
    names: dict[tuple[int, int], str] = field(default_factory=dict)
    strata: list[Allocation] = field(default_factory=list)


def draw_by(
    pool: list[LoggedQuery], n: int, strata: list[str], seed: int | None, tail_factor: float, topics: int = 8
) -> Draw:
    """N queries (in log order) stratified by ``strata`` (log fields, or ``length``, ``frequency``,
    ``topic``: ``practice.strata``)."""
    rng = random.Random(seed)
    names = stratum_names(pool, strata, topics, seed)
    plan = allocate(pool, names, n, tail_factor if "frequency" in strata else 1.0)
    picked = []
    for a in plan:
        group = [q for q, name in zip(pool, names) if name == a.name]
        picked.extend(rng.sample(group, a.drawn))
    notes = [f"only {len(picked)} distinct new queries for the {n} wanted"] if len(picked) < n else []
    by_query = {q.order: name for q, name in zip(pool, names)}
    picked.sort(key=lambda q: q.order)
    return Draw(picked, notes, {q.order: by_query[q.order] for q in picked}, plan)


def draw(
    pool: list[LoggedQuery], n: int, strategy: str, seed: int | None
) -> tuple[list[LoggedQuery], list[str]]:
    """N queries by ``strategy`` (in log order) and the shortfalls to tell the user."""
    rng = random.Random(seed)
    notes: list[str] = []
    if strategy == "random":
        picked = rng.sample(pool, min(n, len(pool)))
    elif strategy == "hard-cases":
        hard = [q for q in pool if q.rephrased]
        picked = rng.sample(hard, min(n, len(hard)))
    else:
        wanted = [int(n * share + 0.5) for _, _, share in STRATA[:-1]]  # half up, not to even
        wanted.append(n - sum(wanted))
        groups: list[list[LoggedQuery]] = [[] for _ in STRATA]
        for q in pool:
            groups[stratum(q)].append(q)
        picked = []
        for (name, _, share), want, group in zip(STRATA, wanted, groups):
            if len(group) < want:
                notes.append(f"stratum {name}: {len(group)} of the {want} wanted ({share:.0%} of {n})")
            picked.extend(rng.sample(group, min(want, len(group))))
    if len(picked) < n and strategy != "stratified":
        what = "distinct new queries" if strategy == "random" else "hard cases (rephrased: true)"
        notes.append(f"only {len(picked)} {what} for the {n} wanted")
    return sorted(picked, key=lambda q: q.order), notes


def skeletons(picked: list[LoggedQuery], used_ids: Iterable[str]) -> list[dict[str, Any]]:
    """Records to author: a fresh id continuing the set's numbering (never one of ``used_ids``: the
    set's and the committed artifact's), the query, an empty expected answer and no locators yet."""
    return [
        {"id": rid, "query": q.query, "expected_answer": "", "locators": []}
        for q, rid in zip(picked, free_ids(used_ids))
    ]


def with_provenance(
    records: list[dict[str, Any]], drawn: Draw, sampled_at: str, keep: Iterable[str] = ()
) -> list[dict[str, Any]]:
    """The skeletons of ``drawn.picked`` with where each query came from: its log (``source``), the
    ``request_id`` of its first occurrence, ``sampled_at``, and in ``meta`` its count in the logs,
    its stratum and the log fields in ``keep``."""
    out = []
    for rec, q in zip(records, drawn.picked):
        rec = {**rec, "source": q.source}
        request_id = q.fields.get("request_id")
        if isinstance(request_id, (str, int)) and not isinstance(request_id, bool):
            rec["request_id"] = str(request_id)
        rec["sampled_at"] = sampled_at
        meta: dict[str, Any] = {"log_count": q.count}
        if q.order in drawn.names:
            meta["stratum"] = drawn.names[q.order]
        meta.update((name, q.fields[name]) for name in keep if name in q.fields)
        rec["meta"] = meta
        out.append(rec)
    return out
