"""Quote continuations: what the corpus says after the words typed so far, good quotes first.

While the author types a quote, the corpus knows every way the typed words go on. Each
occurrence of the typed text is extended word by word along its line (each extension ending on
its last word's last letter or digit) until it is a quote golden-lsp would write itself — unique
with a margin, balanced, not a fragment: the quote policy (``quotepolicy.py``). Those come first
(shortest first), then the other unique extensions, then the shorter ones that still occur
several times, each with its count, so the first suggestion is always a quote that resolves and,
where the line allows one, a good one. Every occurrence of an extension is an occurrence of the
typed text, so extensions are counted among those (no scan of the document) when they are not
too many.
"""

from __future__ import annotations

import re

from ..core.labels.quotepolicy import acceptable, is_word_char
from ..core.labels.resolve import count_at_most, occurrences

_WORD = re.compile(r"\s*\S+")
#: occurrences of the typed text followed, and the count reported exactly up to
MAX_STARTS, MAX_COUNT = 30, 10
#: up to this many occurrences of the typed text, extensions are counted among them
POOL = 2000
MAX_WORDS = 16


def continuations(text: str, typed: str, limit: int = 20) -> list[tuple[str, int]]:
    """(quote, occurrences capped at MAX_COUNT) extending ``typed``, best first."""
    if not typed.strip():
        return []
    found: dict[str, int] = {}
    pool = occurrences(text, typed, POOL + 1)

    def count(quote: str) -> int:
        if len(pool) > POOL:
            return count_at_most(text, quote, MAX_COUNT)
        return min(sum(1 for s in pool if text.startswith(quote, s)), MAX_COUNT)

    good: set[str] = set()
    for start in pool[:MAX_STARTS]:
        at = start + len(typed)
        line_end = text.find("\n", at)
        line_end = len(text) if line_end == -1 else line_end
        for n, m in enumerate(_WORD.finditer(text, at, line_end)):
            end = m.end()
            while end > at and not is_word_char(text[end - 1]):
                end -= 1  # a quote ends on a word: the token's trailing punctuation and markers left out
            quote = text[start : end if end > at else m.end()]
            if quote not in found:
                found[quote] = count(quote)
                if found[quote] == 1 and acceptable(text, start, start + len(quote)):
                    good.add(quote)
            if quote in good or n + 1 >= MAX_WORDS:
                break
    ranked = sorted(
        found.items(),
        key=lambda qc: (qc[0] not in good, qc[1] != 1, qc[1] if qc[1] != 1 else 0, len(qc[0])),
    )
    return ranked[:limit]
