"""One pass per document for many quotes: the cold start of a large golden set.

Resolving a quote means finding every place it starts in its document. One ``str.find`` scan per
quote is right for a keystroke, but opening (or checking in CI) a set of 10,000 quotes over
2.5 MB documents would scan each document thousands of times. Here all the quotes of a document
are found in a single Aho–Corasick pass (pyahocorasick, a maintained C implementation), with the
same answer as ``resolve.occurrences``: every start offset, overlapping ones included, ascending,
cut after ``limit``. One automaton (``build``) also serves many texts (``find_with``): the
re-anchoring of a migration looks for many old passages in every document of the corpus.
"""

from __future__ import annotations

from collections.abc import Iterable

import ahocorasick

from ..labels.anycase import MAX_QUOTE_CHARS

#: below this many quotes for one document, separate scans are as fast as building an automaton
MIN_QUOTES = 8
#: shorter quotes match too often to be worth reporting through the automaton
MIN_QUOTE_CHARS = 4


def build(quotes: Iterable[str]) -> ahocorasick.Automaton:
    """One automaton of ``quotes`` (each ``batchable``), to find them in any number of texts."""
    automaton = ahocorasick.Automaton()
    for quote in quotes:
        if len(quote) > MAX_QUOTE_CHARS:
            raise ValueError(
                f"a quote of {len(quote)} characters is past MAX_QUOTE_CHARS: find it with str.find"
            )
        automaton.add_word(quote, quote)
    if len(automaton):
        automaton.make_automaton()
    return automaton


def find_with(automaton: ahocorasick.Automaton, text: str, limit: int) -> dict[str, list[int]]:
    """Start offsets in ``text`` of the quotes of ``automaton`` that occur in it (at most ``limit``
    each), in one pass; a quote that is not a key occurs nowhere in ``text``. The cost follows the
    text and its matches, never the number of quotes: one automaton of 10,000 quotes over 10,000
    documents stays linear (a migration's old passages looked for in every document)."""
    found: dict[str, list[int]] = {}
    if not len(automaton):
        return found
    for end, quote in automaton.iter(text):
        starts = found.get(quote)
        if starts is None:
            found[quote] = [end - len(quote) + 1]
        elif len(starts) < limit:
            starts.append(end - len(quote) + 1)
    return found


def find_all(text: str, quotes: Iterable[str], limit: int) -> dict[str, list[int]]:
    """Start offsets of each quote in ``text`` (at most ``limit`` each, ``[]`` when it does not
    occur), in one pass."""
    quotes = set(quotes)
    found: dict[str, list[int]] = {q: [] for q in quotes}
    found.update(find_with(build(quotes), text, limit))
    return found


def batchable(quote: str) -> bool:
    return MIN_QUOTE_CHARS <= len(quote) <= MAX_QUOTE_CHARS
