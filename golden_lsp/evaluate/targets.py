"""What an evaluation scores and how: the records as targets, and the settings of a run's scoring.

``evaluation.py`` builds these from a golden set (``targets``) and scores a run against them;
``judging.py`` reads a run against the same targets, rank by rank as array work. Both need the
shapes, neither owns them: they live here, below both.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property

from ..core.labels.resolve import Span
from ..core.labels.scoring import HitRule
from .chunkings import Chunking


@dataclass(frozen=True)
class Target:
    """One record as evaluation sees it: its query, facets and (if answerable) spans and bearing chunks."""

    query_id: str
    query: str
    hop: str
    query_type: str | None
    split: str | None
    docs: tuple[str, ...]
    spans: tuple[Span, ...] = ()
    bearing: tuple[frozenset[str], ...] = ()
    tags: tuple[str, ...] = ()
    #: the record's metadata to slice or select by (``recordmeta.flat_metadata``)
    meta: dict = field(default_factory=dict, compare=False, hash=False)

    @cached_property
    def relevant(self) -> frozenset[str]:
        return frozenset().union(*self.bearing)


@dataclass
class Targets:
    answerable: list[Target]
    unanswerable: list[Target]
    #: records left out because a finding other than no-bearing-chunk is an error on their line
    excluded: int
    chunking: Chunking
    hit_rule: HitRule
    fingerprint_parts: dict

    @cached_property
    def fingerprint(self) -> str:
        text = json.dumps(self.fingerprint_parts, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def all(self) -> list[Target]:
        return self.answerable + self.unanswerable


@dataclass(frozen=True)
class Settings:
    ks: tuple[int, ...]
    multi: str
    resamples: int
    seed: int

    def as_dict(self) -> dict:
        return {"k": list(self.ks), "multi": self.multi, "bootstrap": self.resamples, "seed": self.seed}
