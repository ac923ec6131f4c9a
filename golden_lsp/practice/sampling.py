"""Drawing new questions from real traffic: a query log sampled into skeleton records.

A golden set written by someone who has read the corpus asks what the corpus says; one drawn from
what users actually asked tests what retrieval must do. This module reads a query log (one query
per line, or JSONL with ``query`` and an optional ``rephrased: true`` — the user re-asked at once,
a hard case), folds case and whitespace to drop repeats and queries already in the set, and draws
N of them at random, keeping the log's length mix (stratified: 30 % of at most 5 words, 50 % of
6–15, 20 % longer) or among the hard cases. The same seed draws the same sample. The result is
skeleton records with fresh ids that continue the set's id scheme, ready to author in the editor.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..core.check.rules import folded
from ..core.goldenset.config import ConfigError
from ..core.labels.ids import free_ids
from ..core.labels.jsonline import split_lines

STRATEGIES = ("random", "stratified", "hard-cases")
#: (name, the largest word count, share of N); the last stratum takes what the others leave
STRATA = (("≤ 5 words", 5, 0.3), ("6–15 words", 15, 0.5), ("> 15 words", None, 0.2))


@dataclass(frozen=True)
class LoggedQuery:
    query: str
    rephrased: bool = False
    #: 1-based line of its first occurrence in the log
    line: int = 0

    @property
    def words(self) -> int:
        return len(self.query.split())


def read_log(text: str, where: str) -> list[LoggedQuery]:
    """The log's queries in order, duplicates kept. JSONL when the first query line is a JSON object;
    a bad line then raises ConfigError naming ``where`` and the line."""
    # lines as an editor counts them: a U+2028 inside a JSON string does not end one
    lines = [(no, line) for no, line in enumerate(split_lines(text), 1) if line.strip()]
    jsonl = bool(lines) and _object(lines[0][1]) is not None
    out = []
    for no, line in lines:
        if not jsonl:
            out.append(LoggedQuery(line.strip(), False, no))
            continue
        obj = _object(line)
        if obj is None or not isinstance(obj.get("query"), str) or not obj["query"].strip():
            raise ConfigError(
                f"{where}:{no}: each line of a JSONL log must be an object with a non-empty string 'query'"
            )
        if not isinstance(obj.get("rephrased", False), bool):
            raise ConfigError(f"{where}:{no}: 'rephrased' must be true or false")
        out.append(LoggedQuery(obj["query"].strip(), obj.get("rephrased", False), no))
    return out


def _object(line: str) -> dict | None:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def candidates(logged: Iterable[LoggedQuery], existing: Iterable[str]) -> list[LoggedQuery]:
    """The log's distinct queries (case and whitespace folded), first occurrence kept, hard when any
    occurrence was rephrased, without those already in the set."""
    taken = {folded(q) for q in existing}
    seen: dict[str, LoggedQuery] = {}
    for q in logged:
        key = folded(q.query)
        if key in taken:
            continue
        first = seen.get(key)
        if first is None:
            seen[key] = q
        elif q.rephrased and not first.rephrased:
            seen[key] = LoggedQuery(first.query, True, first.line)
    return list(seen.values())


def stratum(q: LoggedQuery) -> int:
    return next(i for i, (_, most, _) in enumerate(STRATA) if most is None or q.words <= most)


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
    return sorted(picked, key=lambda q: q.line), notes


def skeletons(picked: list[LoggedQuery], used_ids: Iterable[str]) -> list[dict[str, Any]]:
    """Records to author: a fresh id continuing the set's numbering (never one of ``used_ids``: the
    set's and the committed artifact's), the query, an empty expected answer and no locators yet."""
    return [
        {"id": rid, "query": q.query, "expected_answer": "", "locators": []}
        for q, rid in zip(picked, free_ids(used_ids))
    ]
