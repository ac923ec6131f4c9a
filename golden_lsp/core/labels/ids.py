"""The next free record id: the set's own numbering, continued past every id ever committed.

Labels are cited by id, so a new question must never take an id that the committed artifact
still holds (a deleted question's id is not free: reusing it would make two measurements look
like one). The set's numbering is read from its ids (the most common prefix and width, e.g.
``ex`` and 3 digits), so a new record looks like its neighbours.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator

_NUMBERED = re.compile(r"^(.*?)(\d+)$")
DEFAULT_PREFIX, DEFAULT_WIDTH = "q", 3


def next_free_id(*used: Iterable[str]) -> str:
    """One past the highest number of the set's most common ``<prefix><digits>`` pattern, never any
    of ``used`` (the ids of the questions file and of the committed artifact)."""
    return FreeIds(*used).take()


def free_ids(*used: Iterable[str]) -> Iterator[str]:
    """``next_free_id`` of ``used``, then of ``used`` with that id, and so on: the ids of new
    records one after the other, exactly as one at a time."""
    ids = FreeIds(*used)
    while True:
        yield ids.take()


class FreeIds:
    """The set's numbering read once (N new ids cost one pass over ``used``, not N): ``take`` the
    next free id, or ``add`` one taken otherwise (an imported record's own), each exactly as
    ``next_free_id`` of everything used so far would answer."""

    def __init__(self, *used: Iterable[str]):
        self._taken: set[str] = set()
        self._patterns: Counter[tuple[str, int]] = Counter()
        self._highest: dict[tuple[str, int], int] = {}
        for ids in used:
            for i in ids:
                if isinstance(i, str) and i not in self._taken:
                    self._taken.add(i)
                    self._count(i)
        # the most common pattern, the first counted among equals (as ``Counter.most_common``)
        self._first_seen = {key: n for n, key in enumerate(self._patterns)}
        most = self._patterns.most_common(1)
        self._best = most[0][0] if most else (DEFAULT_PREFIX, DEFAULT_WIDTH)

    def _count(self, i: str) -> tuple[str, int] | None:
        m = _NUMBERED.match(i)
        if m is None:
            return None
        key = (m.group(1), len(m.group(2)))
        self._patterns[key] += 1
        self._highest[key] = max(self._highest.get(key, 0), int(m.group(2)))
        return key

    def add(self, i: str) -> None:
        if i in self._taken:
            return
        self._taken.add(i)
        key = self._count(i)  # only its pattern's count grew: the most common is it or stays
        if key is None:
            return
        first, best = self._first_seen, self._best
        first.setdefault(key, len(first))
        if key != best and (self._patterns[key], -first[key]) > (
            self._patterns[best],
            -first.get(best, len(first)),
        ):
            self._best = key

    def take(self) -> str:
        prefix, width = self._best
        n = self._highest.get(self._best, 0) + 1
        while f"{prefix}{n:0{width}d}" in self._taken:
            n += 1
        new = f"{prefix}{n:0{width}d}"
        self.add(new)
        return new
