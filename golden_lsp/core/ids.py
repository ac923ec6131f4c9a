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
    return next(free_ids(*used))


def free_ids(*used: Iterable[str]) -> Iterator[str]:
    """``next_free_id`` of ``used``, then of ``used`` with that id, and so on: the ids of new
    records one after the other, exactly as one at a time, the set's numbering read once (N ids
    cost one pass over ``used``, not N)."""
    taken = {i for ids in used for i in ids if isinstance(i, str)}
    patterns: Counter[tuple[str, int]] = Counter()
    highest: dict[tuple[str, int], int] = {}

    def count(i: str) -> tuple[str, int] | None:
        m = _NUMBERED.match(i)
        if m is None:
            return None
        key = (m.group(1), len(m.group(2)))
        patterns[key] += 1
        highest[key] = max(highest.get(key, 0), int(m.group(2)))
        return key

    for i in taken:
        count(i)
    # the most common pattern, the first counted among equals (as ``Counter.most_common``)
    first_seen = {key: n for n, key in enumerate(patterns)}
    best = patterns.most_common(1)[0][0] if patterns else (DEFAULT_PREFIX, DEFAULT_WIDTH)
    while True:
        prefix, width = best
        n = highest.get(best, 0) + 1
        while f"{prefix}{n:0{width}d}" in taken:
            n += 1
        new = f"{prefix}{n:0{width}d}"
        yield new
        taken.add(new)
        key = count(new)  # only its pattern's count grew: the most common is it or stays
        if key is not None and key != best:
            first_seen.setdefault(key, len(first_seen))
            if (patterns[key], -first_seen[key]) > (patterns[best], -first_seen.get(best, len(first_seen))):
                best = key
