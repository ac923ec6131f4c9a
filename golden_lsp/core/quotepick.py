"""The one quote picker: the shortest whole-word quote that is unique in its document.

Every feature that writes a quote — "Anchor here" and candidate passages (``assist.anchor``),
the "Lengthen" code action, ``golden-lsp import`` and ``golden-lsp init`` — calls this module, so
they all write the same quote for the same place: the fewest whole words around it that occur
exactly once, found by bisection (uniqueness is monotone: a superstring of a unique string is
unique). Lengthening is cached per text (``textcache``) because editors ask for code actions on
every cursor move. A quote is a pointer, not a span: what it expands to is ``resolve.span_at``'s.
"""

from __future__ import annotations

from .resolve import count_at_most, occurrences
from .textcache import per_text


@per_text(8)
def lengthen(text: str, quote: str, at: int) -> str | None:
    """The shortest whole-word extension of the quote at ``at`` that occurs exactly once.

    It stays on the occurrence's line when the line allows, else grows across lines. Uniqueness
    is monotone (a superstring of a unique string is unique), so for each left boundary the
    right boundary is found by bisection. Cached: editors ask for code actions on every cursor
    move, and a document's text hashes once (Python caches a string's hash).
    """
    end = at + len(quote)
    line_lo = text.rfind("\n", 0, at) + 1
    line_hi = text.find("\n", end)
    line_hi = len(text) if line_hi == -1 else line_hi
    unique = _unique_among(text, at, _all_occurrences(text, quote))
    best = _shortest_unique(text, at, end, line_lo, line_hi, grow=True, unique=unique)
    if best is None:
        best = _shortest_unique(
            text, at, end, max(0, at - 2000), min(len(text), end + 2000), grow=True, unique=unique
        )
    return None if best is None else text[best[0] : best[1]]


@per_text(8)
def _all_occurrences(text: str, quote: str) -> tuple[int, ...]:
    return tuple(occurrences(text, quote))


def _unique_among(text: str, at: int, starts: tuple[int, ...]):
    """Whether ``text[a:b]`` (which holds the quote at ``at``) occurs once, probing only where the
    quote occurs: an extension can occur nowhere else, so no probe scans the document."""

    def unique(a: int, b: int) -> bool:
        candidate, shift, n = text[a:b], at - a, 0
        for s in starts:
            if s >= shift and text.startswith(candidate, s - shift):
                n += 1
                if n > 1:
                    return False
        return n == 1

    return unique


def unique_quote_at(text: str, pos: int, lo: int = 0, hi: int | None = None) -> tuple[int, int] | None:
    """[start, end) of the shortest whole-word quote that contains ``pos``, lies inside [lo, hi)
    and on ``pos``'s line, and occurs exactly once in ``text``; None when there is none.

    This is how golden-lsp writes a new label (anchor here, import): the quote is the fewest
    words around the place the author pointed at that a builder resolves to that place only. The
    caller still checks what the quote expands to (``span_at``): a quote is a pointer, not a span.
    """
    hi = len(text) if hi is None else hi
    line_lo = text.rfind("\n", 0, pos) + 1
    line_hi = text.find("\n", pos)
    line_hi = len(text) if line_hi == -1 else line_hi
    lo, hi = max(lo, line_lo), min(hi, line_hi)
    while lo < hi and text[lo].isspace():
        lo += 1
    while hi > lo and text[hi - 1].isspace():
        hi -= 1
    if not lo <= pos < hi:
        pos = lo  # the cursor sat on white space at the edge of the range: start at the first word
    if lo >= hi:
        return None
    if text[pos].isspace():
        while pos < hi and text[pos].isspace():
            pos += 1
    start, end = pos, pos
    while start > lo and not text[start - 1].isspace():
        start -= 1
    while end < hi and not text[end].isspace():
        end += 1
    return _shortest_unique(text, start, end, lo, hi, grow=False)


def _boundaries_left(text: str, at: int, lo: int) -> list[int]:
    out = [at]
    i = at
    while i > lo:
        # step over the (partial) word ending at i, then over the whitespace before it
        while i > lo and not text[i - 1].isspace():
            i -= 1
        if i != out[-1]:
            out.append(i)
        while i > lo and text[i - 1].isspace():
            i -= 1
    return out


def _boundaries_right(text: str, end: int, hi: int) -> list[int]:
    out = [end]
    i = end
    while i < hi:
        while i < hi and not text[i].isspace():
            i += 1
        if i != out[-1]:
            out.append(i)
        while i < hi and text[i].isspace():
            i += 1
    return out


def _shortest_unique(
    text: str, at: int, end: int, lo: int, hi: int, grow: bool, unique=None
) -> tuple[int, int] | None:
    """The shortest unique [a, b) with whole-word ends in [lo, hi) that contains [at, end);
    with ``grow`` it must be longer than [at, end) itself (which is known not to be unique).
    ``unique(a, b)`` tells whether ``text[a:b]`` occurs once (by default: scanning ``text``)."""
    if unique is None:

        def unique(a: int, b: int) -> bool:
            return count_at_most(text, text[a:b], 2) == 1

    lefts = _boundaries_left(text, at, lo)
    rights = _boundaries_right(text, end, hi)
    best: tuple[int, int] | None = None
    for a in lefts:
        if best is not None and end - a >= best[1] - best[0]:
            break  # every candidate further left is longer still
        if not unique(a, rights[-1]):
            continue
        lo_i, hi_i = 0, len(rights) - 1
        while lo_i < hi_i:
            mid = (lo_i + hi_i) // 2
            if unique(a, rights[mid]):
                hi_i = mid
            else:
                lo_i = mid + 1
        b = rights[lo_i]
        if (not grow or (a, b) != (at, end)) and (best is None or b - a < best[1] - best[0]):
            best = (a, b)
    return best
