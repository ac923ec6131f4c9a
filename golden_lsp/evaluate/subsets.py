"""Scoring a subset of the set: a split, records matching fields, a seeded stratified sample.

A fast subset on pull requests and the full set nightly is how a team keeps its gate cheap; the
danger is comparing a subset's numbers with the full set's. So the subset is part of what was
measured: it enters the fingerprint (and the DuckDB run row), and two evaluations over different
subsets are refused comparison like two evaluations over different sets.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from ..core.goldenset.config import ConfigError
from .targets import Target, Targets


@dataclass(frozen=True)
class Subset:
    """Which records to score: ``split``, ``where`` (field, value) pairs all matching, and a sample
    of ``sample`` records drawn with ``seed``, stratified by the ``stratify`` fields."""

    split: str | None = None
    where: tuple[tuple[str, str], ...] = ()
    sample: int | None = None
    seed: int = 0
    stratify: tuple[str, ...] = ()

    @property
    def is_full(self) -> bool:
        return self.split is None and not self.where and self.sample is None

    def as_dict(self) -> dict:
        """The subset as the fingerprint and the DuckDB run row record it."""
        return {
            "split": self.split,
            "where": [list(w) for w in self.where],
            "sample": self.sample,
            "seed": self.seed if self.sample is not None else None,
            "stratify": list(self.stratify) if self.sample is not None else [],
        }


def parse_where(specs: list[str]) -> tuple[tuple[str, str], ...]:
    out = []
    for spec in specs:
        name, sep, value = spec.partition("=")
        if not sep or not name.strip():
            raise ConfigError(f"--where {spec!r}: expected FIELD=VALUE, e.g. tenant=acme or meta.lang=de")
        out.append((name.strip(), value))
    return tuple(out)


def field_values(t: Target, name: str) -> list[str]:
    """The values a record has for a field, as text: one for most, several for ``tags`` and
    ``document``, none when the record does not carry the field."""
    if name == "tags":
        return list(t.tags)
    if name in ("document", "doc_id"):
        return list(t.docs)
    v = getattr(t, name) if name in ("hop", "query_type", "split") else t.meta.get(name)
    if v is None:
        return []
    if isinstance(v, bool):
        return ["true" if v else "false"]
    return [str(v)]


def _stratum(t: Target, fields: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(",".join(field_values(t, f)) or "(none)" for f in fields)


def _sample(records: list[Target], subset: Subset) -> set[str]:
    """The query IDs of a proportional stratified sample (largest remainder), seeded."""
    n = subset.sample or 0
    if n >= len(records):
        return {t.query_id for t in records}
    strata: dict[tuple[str, ...], list[Target]] = {}
    for t in records:
        strata.setdefault(_stratum(t, subset.stratify), []).append(t)
    keys = sorted(strata)
    quota = {key: n * len(strata[key]) / len(records) for key in keys}
    take = {key: int(quota[key]) for key in keys}
    left = n - sum(take.values())
    for key in sorted(keys, key=lambda key: (-(quota[key] - take[key]), key))[:left]:
        take[key] += 1
    rng = random.Random(subset.seed)
    chosen: set[str] = set()
    for key in keys:
        chosen.update(t.query_id for t in rng.sample(strata[key], take[key]))
    return chosen


def select(tg: Targets, subset: Subset) -> Targets:
    """The targets of ``subset`` only, the subset recorded in the fingerprint."""
    if subset.is_full:
        return tg
    if subset.sample is not None and subset.sample < 1:
        raise ConfigError(f"--sample {subset.sample}: the sample size is a positive number of records")

    def keep(t: Target) -> bool:
        if subset.split is not None and t.split != subset.split:
            return False
        return all(value in field_values(t, name) for name, value in subset.where)

    records = [t for t in tg.all() if keep(t)]
    if not records:
        raise ConfigError(f"the subset {subset.as_dict()} holds no scorable record")
    if subset.sample is not None:
        chosen = _sample(records, subset)
        records = [t for t in records if t.query_id in chosen]
    ids = {t.query_id for t in records}
    return replace(
        tg,
        answerable=[t for t in tg.answerable if t.query_id in ids],
        unanswerable=[t for t in tg.unanswerable if t.query_id in ids],
        fingerprint_parts={**tg.fingerprint_parts, "subset": subset.as_dict()},
    )
