"""The one quote picker: the shortest quote on one line that is unique and means something.

Every feature that writes a quote — "Anchor here" and candidate passages (``assist.anchor``),
the "Lengthen" and "Use the closest passage" code actions, ``golden-lsp import`` and ``golden-lsp
init`` — calls this module, so they all write the same kind of quote for the same place: the
fewest whole words around it that occur exactly once in the document, on one line, starting and
ending on a letter or digit (never on Markdown's markers: ``*``, ``**``, ``_``, backticks, heading
hashes, list bullets, table pipes, link brackets) and holding at least one word that is not a
stop word (``"And"`` or ``"On the"`` may happen to be unique, and point a reader at nothing). A
quote's edges are the first and last letter or digit of whitespace-separated tokens (a link's
``](`` splits its token), so it never starts or ends inside a word. Both conditions are monotone —
a superstring of a unique string is unique, and keeps every word — so for each left edge the
right one is found by bisection. Lengthening is cached per text (``textcache``) because editors
ask for code actions on every cursor move. When there is no quote, ``no_quote_reason`` says why.
A quote is a pointer, not a span: what it expands to is ``resolve.span_at``'s.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from ..text.memo import per_text
from .resolve import count_at_most, occurrences

#: characters searched on either side of the place a quote must hold (a longer quote is no quote)
WINDOW = 400
#: function words of English: a quote of these only is a fragment, not a pointer
_STOP_WORDS = """a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing don down during each else etc few
    for from further had has have having he her here hers herself him himself his how i if in into
    is it its itself just me might more most must my myself no nor not now of off on once only or
    other our ours ourselves out over own same shall she should so some such than that the their
    theirs them themselves then there these they this those through thus to too under until up us
    very was we were what when where which while who whom why will with would yet you your yours
    yourself yourselves s t"""
STOP_WORDS = frozenset(_STOP_WORDS.split())
_TOKEN = re.compile(r"\S+")
_BULLET = re.compile(r"[ \t]*(?:[-*+]|\d+\.)[ \t]")
_WORD = re.compile(r"[^\W_]+")


def _is_word_char(c: str) -> bool:
    return c.isalnum() or unicodedata.category(c)[0] == "M"


def meaningful(quote: str) -> bool:
    """Whether a quote holds a word that is not a stop word."""
    return any(w.lower() not in STOP_WORDS for w in _WORD.findall(quote))


def _line(text: str, pos: int) -> tuple[int, int]:
    """[start, end) of the line holding ``pos``, its line break excluded."""
    hi = text.find("\n", pos)
    return text.rfind("\n", 0, pos) + 1, len(text) if hi == -1 else hi


def _words(text: str, lo: int, hi: int, around: int) -> list[tuple[int, int]]:
    """[start, end) of each word a quote may begin or end at, inside [lo, hi) on ``around``'s line
    and within ``WINDOW`` of it: each token's first to last letter or digit; a list item's
    bullet, and a token of markers only, are none."""
    line_lo, line_hi = _line(text, around)
    bullet = _BULLET.match(text, line_lo, line_hi)
    a, b = max(line_lo, around - WINDOW), min(line_hi, around + WINDOW)
    out = []
    for m in _TOKEN.finditer(text, max(a, bullet.end() if bullet else a), b):
        ts, te = m.span()
        if (ts == a and a != line_lo) or (te == b and b != line_hi):
            continue  # cut by the window: not a whole token
        cut = text.find("](", ts, te)
        parts = [(ts, cut + 1), (cut + 1, te)] if cut != -1 else [(ts, te)]
        for ps, pe in parts:
            s, e = ps, pe
            while s < e and not _is_word_char(text[s]):
                s += 1
            while e > s and not _is_word_char(text[e - 1]):
                e -= 1
            if s < e and lo <= s and e <= hi:
                out.append((s, e))
    return out


def _document_unique(text: str) -> Callable[[int, int], bool]:
    return lambda a, b: count_at_most(text, text[a:b], 2) == 1


def _shortest(
    text: str, starts: list[int], ends: list[int], unique: Callable[[int, int], bool]
) -> tuple[int, int] | None:
    """The shortest [a, b), a from ``starts`` (nearest first) and b from ``ends`` (nearest first),
    whose text is unique (``unique(a, b)``) and meaningful."""

    def good(a: int, b: int) -> bool:
        return meaningful(text[a:b]) and unique(a, b)

    best: tuple[int, int] | None = None
    for a in starts:
        if not ends or (best is not None and ends[0] - a >= best[1] - best[0]):
            break  # every candidate further left is longer still
        if not good(a, ends[-1]):
            continue
        lo_i, hi_i = 0, len(ends) - 1
        while lo_i < hi_i:
            mid = (lo_i + hi_i) // 2
            if good(a, ends[mid]):
                hi_i = mid
            else:
                lo_i = mid + 1
        if best is None or ends[lo_i] - a < best[1] - best[0]:
            best = (a, ends[lo_i])
    return best


def _around(words: list[tuple[int, int]], start: int, end: int) -> tuple[int, int] | None:
    """The indexes of the first and last word overlapping [start, end) (the nearest word when
    none does: the next one on the line, else the one before)."""
    inside = [i for i, (s, e) in enumerate(words) if s < end and e > start] or [
        i for i, (s, e) in enumerate(words) if e > start and s >= start
    ][:1]
    if not inside and words:
        inside = [len(words) - 1]
    return (inside[0], inside[-1]) if inside else None


def quote_around(
    text: str, start: int, end: int, lo: int = 0, hi: int | None = None
) -> tuple[int, int] | None:
    """[start, end) of the shortest quote holding every word that [start, end) touches on
    ``start``'s line, inside [lo, hi); None when there is none (``no_quote_reason`` says why)."""
    hi = len(text) if hi is None else hi
    start = min(max(start, 0), max(len(text) - 1, 0))
    words = _words(text, lo, hi, start)
    found = _around(words, start, max(end, start + 1))
    if found is None:
        return None
    first, last = found
    return _shortest(
        text,
        [s for s, _ in reversed(words[: first + 1])],
        [e for _, e in words[last:]],
        _document_unique(text),
    )


def unique_quote_at(text: str, pos: int, lo: int = 0, hi: int | None = None) -> tuple[int, int] | None:
    """[start, end) of the shortest quote holding the word at ``pos`` (the next word on the line
    when ``pos`` is on none), inside [lo, hi) and on ``pos``'s line; None when there is none.

    This is how golden-lsp writes a new label (anchor here, import, init): the fewest words around
    the place the author pointed at that a builder resolves to that place only. The caller still
    checks what the quote expands to (``span_at``): a quote is a pointer, not a span.
    """
    return quote_around(text, pos, pos + 1, lo, hi)


@per_text(8)
def lengthen(text: str, quote: str, at: int) -> str | None:
    """The shortest extension of the quote at ``at`` that occurs exactly once, on its line; None
    when the line holds none (a quote across lines would be the quote-multiline warning).

    Uniqueness is probed only where the quote occurs (an extension can occur nowhere else, so no
    probe scans the document). Cached: editors ask for code actions on every cursor move, and a
    document's text hashes once (Python caches a string's hash).
    """
    end = at + len(quote)
    if "\n" in quote:
        return None
    words = _words(text, 0, len(text), at)
    found = _shortest(
        text,
        [s for s, _ in reversed(words) if s <= at],
        [e for _, e in words if e >= end],
        _unique_among(text, at, _all_occurrences(text, quote)),
    )
    return None if found is None else text[found[0] : found[1]]


@per_text(8)
def _all_occurrences(text: str, quote: str) -> tuple[int, ...]:
    return tuple(occurrences(text, quote))


def _unique_among(text: str, at: int, starts: tuple[int, ...]) -> Callable[[int, int], bool]:
    """Whether ``text[a:b]`` (which holds the quote at ``at``) occurs once, probing only where the
    quote occurs."""

    def unique(a: int, b: int) -> bool:
        candidate, shift, n = text[a:b], at - a, 0
        for s in starts:
            if s >= shift and text.startswith(candidate, s - shift):
                n += 1
                if n > 1:
                    return False
        return n == 1

    return unique


def no_quote_reason(text: str, start: int, end: int, lo: int = 0, hi: int | None = None) -> str:
    """Why ``quote_around`` finds no quote for [start, end) inside [lo, hi), in words for the
    author: no words there, only stop words, or where else the words around it occur."""
    hi = len(text) if hi is None else hi
    start = min(max(start, 0), max(len(text) - 1, 0))
    words = _words(text, lo, hi, start)
    if not words:
        return "there are no words here to quote"
    stretch = text[words[0][0] : words[-1][1]]
    if not meaningful(stretch):
        return f"{stretch!r} holds only common words, which point at nothing"
    other = next(s for s in occurrences(text, stretch, 2) if s != words[0][0])
    return f"every quote of the words here also occurs at line {text.count(chr(10), 0, other) + 1}"
