"""The next free record id: the set's own numbering, continued past every id ever committed.

Labels are cited by id, so a new question must never take an id that the committed artifact
still holds (a deleted question's id is not free: reusing it would make two measurements look
like one). The set's numbering is read from its ids (the most common prefix and width, e.g.
``ex`` and 3 digits), so a new record looks like its neighbours.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

_NUMBERED = re.compile(r"^(.*?)(\d+)$")
DEFAULT_PREFIX, DEFAULT_WIDTH = "q", 3


def next_free_id(*used: Iterable[str]) -> str:
    """One past the highest number of the set's most common ``<prefix><digits>`` pattern, never any
    of ``used`` (the ids of the questions file and of the committed artifact)."""
    taken = {i for ids in used for i in ids if isinstance(i, str)}
    patterns: Counter[tuple[str, int]] = Counter()
    highest: dict[tuple[str, int], int] = {}
    for i in taken:
        m = _NUMBERED.match(i)
        if m:
            key = (m.group(1), len(m.group(2)))
            patterns[key] += 1
            highest[key] = max(highest.get(key, 0), int(m.group(2)))
    prefix, width = patterns.most_common(1)[0][0] if patterns else (DEFAULT_PREFIX, DEFAULT_WIDTH)
    n = highest.get((prefix, width), 0) + 1
    while f"{prefix}{n:0{width}d}" in taken:
        n += 1
    return f"{prefix}{n:0{width}d}"
