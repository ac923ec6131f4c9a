"""Records handed to annotators, with a shared overlap that all of them label independently.

"Annotators should label the same 20 % of queries independently": agreement can only be measured
on records two people labelled without seeing each other's labels, and it only speaks for the whole
set when that overlap is drawn like the set — so the overlap is a stratified random draw (by the
stratum ``sample`` wrote, ``meta.stratum``, or any field named), each stratum's share of it its
share of the records, rounded by largest remainder. The overlap goes to every annotator; the other
records are shuffled and dealt out in turn, so each annotator gets an equal share. Every record
handed out names its annotator (``annotator``), and an overlap record says so (``meta.overlap``),
so ``agree`` and ``adjudicate`` find the double-annotated records by their ids across the files.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..core.goldenset.config import ConfigError
from ..core.labels.jsonline import is_skipped, split_lines
from .strata import NONE, largest_remainder

DEFAULT_OVERLAP = 0.2
DEFAULT_BY = "meta.stratum"


def read_records(text: str, where: str) -> list[dict[str, Any]]:
    """The JSON objects of a questions file (blank and ``//`` lines skipped); a line that is not
    an object with a string ``id`` raises a ConfigError naming ``where`` and the line."""
    out = []
    for no, line in enumerate(split_lines(text), 1):
        if is_skipped(line):
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            value = None
        if not isinstance(value, dict) or not isinstance(value.get("id"), str):
            raise ConfigError(f"{where}:{no}: each record must be a JSON object with a string 'id'")
        out.append(value)
    return out


def field_value(record: dict[str, Any], name: str) -> str:
    """A record's value of a field, or of ``meta.KEY``, as a stratum name."""
    value: Any = record
    for part in name.split(".") if name.startswith("meta.") else [name]:
        value = value.get(part) if isinstance(value, dict) else None
    if value is None:
        return NONE
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


@dataclass(frozen=True)
class Assignment:
    #: annotator → the records handed to them (in the input's order)
    files: dict[str, list[dict[str, Any]]]
    overlap: list[str]
    #: (stratum, records, in the overlap)
    strata: list[tuple[str, int, int]]


def assign(
    records: list[dict[str, Any]], names: Sequence[str], share: float, seed: int | None, by: str = DEFAULT_BY
) -> Assignment:
    """The overlap (``share`` of the records, stratified by ``by``) for everyone, the rest dealt out."""
    ids = [r["id"] for r in records]
    if len(set(ids)) != len(ids):
        raise ConfigError("the records' ids repeat: give each record its own id before assigning")
    rng = random.Random(seed)
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(records):
        groups.setdefault(field_value(r, by), []).append(i)
    order = sorted(groups, key=lambda s: (-len(groups[s]), s))
    sizes = largest_remainder(round(share * len(records)), [len(groups[s]) for s in order])
    shared: set[int] = set()
    for stratum, size in zip(order, sizes):
        shared.update(rng.sample(groups[stratum], size))
    rest = [i for i in range(len(records)) if i not in shared]
    rng.shuffle(rest)
    owner = {i: names[k % len(names)] for k, i in enumerate(rest)}
    files: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for i, r in enumerate(records):
        for name in names if i in shared else [owner[i]]:
            meta = dict(r.get("meta") or {}) if isinstance(r.get("meta"), dict) else {}
            if i in shared:
                meta["overlap"] = True
            files[name].append({**r, "annotator": name, **({"meta": meta} if meta else {})})
    return Assignment(
        files,
        [ids[i] for i in sorted(shared)],
        [(s, len(groups[s]), sum(i in shared for i in groups[s])) for s in order],
    )
