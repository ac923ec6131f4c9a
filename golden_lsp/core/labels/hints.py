"""Why a quote is not found, for the author: the hint of a ``quote-not-found`` finding.

The author mostly meant a passage that is there: the same words across a line break, with other
whitespace, quotes or dashes, in another Unicode normalisation or case, or else one close to it
(rapidfuzz). That place is offered as a hint or a fix to a person, never as a silent relabel. It
is kept apart from resolution (``resolve.py``): most of the code, none of the builder's semantics.
The searches give what searching the whole document would, without its cost: the loose pattern is
tried only where its literal occurs (``loose.py``), and a search in any case never lowers the
whole document (``anycase.py``); ``not_found_hints`` does them once for all the missing quotes of
a document.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Generator, Iterable
from dataclasses import dataclass

from ..text.memo import per_text
from .anycase import Search, case_index, case_index_steps
from .loose import Loose, first_two_loose, loose_pattern
from .resolve import count_at_most, line_bounds


@dataclass(frozen=True)
class Hint:
    """Where a not-found quote's text does exist, and how it differs there."""

    start: int
    end: int
    #: "line break", "whitespace", "typography" (quotes/dashes), "normalisation" (NFD quote over
    #: the NFC corpus), "case", or "closest" (the most similar passage, a guess: no replacement)
    kind: str
    corpus_text: str
    #: for "line break": [start, end) of each line's part of the match that is a unique quote by
    #: itself, longest first — what a fix may write, since the whole match would span lines
    parts: tuple[tuple[int, int], ...] = ()
    #: for "closest": rapidfuzz's similarity, 0–100
    score: float = 100.0


#: the lowest similarity (rapidfuzz partial_ratio, 0–100) a "closest passage" hint is given at
MIN_SIMILARITY = 75
#: quotes longer than this get no fuzzy search (its cost grows with the quote's length squared)
MAX_FUZZY_QUOTE = 400
#: the longest words of a quote looked up as anchors for the fuzzy search, and occurrences per word
_ANCHOR_WORDS, _ANCHOR_OCCURRENCES = 4, 25


@per_text(64)
def longest_line(text: str) -> int:
    """The length of the document's longest line (cached: a document's text hashes once)."""
    return max(map(len, text.split("\n")))


def _has_line_of(text: str, length: int) -> bool:
    """Whether a line of ``text`` is at least ``length`` characters long (the first lines
    usually tell; else the cached longest line)."""
    start = 0
    for _ in range(64):
        end = text.find("\n", start)
        if end == -1:
            return len(text) - start >= length
        if end - start >= length:
            return True
        start = end + 1
    return longest_line(text) >= length


def _first_two_exact(text: str, needle: str) -> list[int]:
    """The first two non-overlapping occurrences of ``needle`` (as ``re.finditer`` finds them)."""
    first = text.find(needle)
    if first == -1:
        return []
    second = text.find(needle, first + len(needle))
    return [first] if second == -1 else [first, second]


@dataclass(frozen=True)
class _Plan:
    """What a quote's hint searches for."""

    quote: str
    loose: Loose
    composed: str
    #: needle → how many of its occurrences in any case are wanted
    needles: dict[str, int]
    #: the fuzzy search's anchor words (none for a quote too long for it)
    words: tuple[str, ...]


def _plan(quote: str) -> _Plan:
    composed = unicodedata.normalize("NFC", quote)
    needles = {composed: 2}
    words: tuple[str, ...] = ()
    if len(composed) <= MAX_FUZZY_QUOTE:
        words = tuple(
            sorted(set(re.findall(r"\w{3,}", composed)), key=lambda w: (-len(w), w))[:_ANCHOR_WORDS]
        )
        for word in words:
            needles[word] = max(needles.get(word, 0), _ANCHOR_OCCURRENCES)
    return _Plan(quote, loose_pattern(quote), composed, needles, words)


def _searchable(text: str, quote: str) -> bool:
    """A quote longer than two of the document's longest lines cannot be a one-line label
    (``quote-multiline``): it gets no search at all — a 1 MB quote is not compiled into a
    regular expression on every check."""
    words = quote.split()
    return bool(words) and _has_line_of(text, len(" ".join(words)) // 2)


def not_found_hint(text: str, quote: str) -> Hint | None:
    """Why ``quote`` is not in ``text``, for the author: the unique place where it matches modulo
    whitespace, quotes and dashes, Unicode normalisation or case; else the closest passage. None
    when it matches so in several places (no guess between them) or nothing is close.

    The work is capped by the document (``_searchable``), and no lower-case copy of it is made:
    the loose pattern is tried only where its literal occurs, and a search in any case is
    ``str.find`` of the lower case plus the document's ``_CaseIndex`` when ``prepare_hints`` made
    one, else one pass over the document in lower case, a chunk at a time.
    """
    if not _searchable(text, quote):
        return None
    plan = _plan(quote)
    search = Search(text, indexed=True)
    search.scan([plan.loose.literal] if plan.loose.literal else [], {})
    return _hint(text, plan, search)


def prepare_hints(text: str) -> Generator[None, None, None]:
    """Build, a step at a time (yielding between steps), what makes a not-found hint in ``text``
    cheaper (its case index, kept like ``longest_line``): the language server runs the steps in
    idle time. A hint is the same with or without it."""
    steps = case_index_steps(text)
    while not case_index.known(text)[0]:  # (a search may have made it meanwhile: no more steps)
        try:
            next(steps)
        except StopIteration as done:
            case_index.store(text, done.value)
            return
        yield


#: how many documents ``prepare_hints`` may keep prepared at once
PREPARED_TEXTS = case_index.texts


def not_found_hints(text: str, quotes: Iterable[str]) -> dict[str, Hint | None]:
    """``not_found_hint`` of each quote of one document, with one pass over the document for all
    of them (a cold check of many not-found quotes)."""
    quotes = list(dict.fromkeys(quotes))
    plans = [_plan(quote) for quote in quotes if _searchable(text, quote)]
    search = Search(text)
    needles: dict[str, int] = {}
    for plan in plans:
        for needle, limit in plan.needles.items():
            needles[needle] = max(needles.get(needle, 0), limit)
    search.scan([plan.loose.literal for plan in plans if plan.loose.literal], needles)
    hints: dict[str, Hint | None] = dict.fromkeys(quotes)
    hints.update((plan.quote, _hint(text, plan, search)) for plan in plans)
    return hints


def _hint(text: str, plan: _Plan, search: Search) -> Hint | None:
    loose = plan.loose
    found: list = first_two_loose(text, loose, search.literal[loose.literal] if loose.literal else None)
    if len(found) == 1:
        m = found[0]
        if "\n" in m.group():
            return Hint(m.start(), m.end(), "line break", m.group(), _line_parts(text, m.start(), m.end()))
        kind = "whitespace" if m.group().split() == plan.quote.split() else "typography"
        return Hint(m.start(), m.end(), kind, m.group())
    composed = plan.composed
    if not found and composed != plan.quote:
        found = _first_two_exact(text, composed)
        if len(found) == 1:
            return Hint(found[0], found[0] + len(composed), "normalisation", composed)
    if not found:
        search.scan([], plan.needles)
        starts = search.any_case[composed][:2]
        if len(starts) == 1:
            return Hint(starts[0][0], starts[0][1], "case", text[starts[0][0] : starts[0][1]])
        found = starts
    return None if found else closest_passage(text, plan, search)


def _line_parts(text: str, start: int, end: int) -> tuple[tuple[int, int], ...]:
    """Each line's piece of [start, end), stripped, that occurs exactly once; longest first."""
    parts = []
    lo = start
    while lo < end:
        hi = text.find("\n", lo, end)
        hi = end if hi == -1 else hi
        a, b = lo, hi
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b and count_at_most(text, text[a:b], 2) == 1:
            parts.append((a, b))
        lo = hi + 1
    return tuple(sorted(parts, key=lambda p: p[0] - p[1]))


def closest_passage(text: str, plan: _Plan, search: Search) -> Hint | None:
    """The passage most similar to the composed quote (rapidfuzz), searched only around the
    places where its longest words occur (any case) — never every substring of a 10 MB document."""
    quote = plan.composed
    if len(quote) > MAX_FUZZY_QUOTE:
        return None
    from rapidfuzz import fuzz  # imported when a quote is not found: a clean check never pays for it

    windows: set[tuple[int, int]] = set()
    for word in plan.words:
        for start, end in search.any_case[word][:_ANCHOR_OCCURRENCES]:
            line_lo, line_hi = line_bounds(text, start)
            windows.add((max(line_lo, start - len(quote)), min(line_hi, end + len(quote))))
    best: Hint | None = None
    for lo, hi in sorted(windows):
        found = fuzz.partial_ratio_alignment(quote, text[lo:hi], score_cutoff=MIN_SIMILARITY)
        if found is not None and (best is None or found.score > best.score):
            a, b = lo + found.dest_start, lo + found.dest_end
            while a < b and text[a].isspace():
                a += 1
            while b > a and text[b - 1].isspace():
                b -= 1
            # whole words: the alignment may begin or end inside one (a window is on one line)
            line_lo, line_hi = line_bounds(text, lo)
            while line_lo < a < b and text[a - 1].isalnum() and text[a].isalnum():
                a -= 1
            while a < b < min(line_hi, len(text)) and text[b].isalnum() and text[b - 1].isalnum():
                b += 1
            best = Hint(a, b, "closest", text[a:b], score=found.score)
    return best
