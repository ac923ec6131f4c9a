"""Quote → answer span: exact occurrence, the enclosing-block rule, and help when it fails.

A locator resolves only when its quote occurs exactly once (every start position counts, so
overlapping repeats are ambiguous too); then the span grows to the table row, list item or
paragraph around it (SPEC §4), and the rule that applied is named so hover can show it. When a
quote does not resolve, this module also finds *why* for the author — the same words across a
line break, with other whitespace, quotes or dashes, in another Unicode normalisation or case, or
else the closest passage (rapidfuzz) — and how to lengthen an ambiguous quote until it is unique. Those are hints and fixes offered to a person, never a silent relabel.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice

_TABLE_ROW = re.compile(r"^\s*\|")
_LIST_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d+\.)\s")

EXACT, TABLE_ROW, LIST_ITEM, PARAGRAPH = "exact", "table row", "list item", "paragraph"


@dataclass(frozen=True)
class Span:
    doc_id: str
    start: int
    end: int
    #: which expansion produced the span: exact, table row, list item or paragraph
    rule: str
    quote_start: int
    quote_end: int


def occurrences(text: str, quote: str, limit: int | None = None) -> list[int]:
    """Every start offset of ``quote`` in ``text``, overlapping ones included."""
    found = []
    find = text.find
    pos = find(quote)
    while pos != -1:
        found.append(pos)
        if limit is not None and len(found) >= limit:
            break
        pos = find(quote, pos + 1)
    return found


def count_at_most(text: str, quote: str, limit: int) -> int:
    return len(occurrences(text, quote, limit))


def _line_bounds(t: str, p: int) -> tuple[int, int]:
    return t.rfind("\n", 0, p) + 1, (t.find("\n", p) + 1) or len(t)


def enclosing_block(t: str, start: int, end: int) -> tuple[int, int, str]:
    """SPEC §4: the table row, list item or paragraph around [start, end)."""
    prev = t.rfind("\n\n", 0, start)
    block_lo = prev + 2 if prev != -1 else 0
    nxt = t.find("\n\n", end)
    block_hi = nxt + 1 if nxt != -1 else len(t)
    first_lo = _line_bounds(t, start)[0]
    last_hi = _line_bounds(t, max(start, end - 1))[1]
    if _TABLE_ROW.match(t[first_lo:last_hi]):
        return first_lo, last_hi, TABLE_ROW
    owner = None
    pos = first_lo
    while pos >= block_lo:
        ls, le = _line_bounds(t, pos)
        m = _LIST_ITEM.match(t[ls:le])
        if m:
            owner = (ls, len(m.group(1)))
            break
        if ls <= block_lo:
            break
        pos = ls - 1
    if owner is None:
        return block_lo, block_hi, PARAGRAPH
    item_start, indent = owner
    pos = last_hi
    while pos < block_hi and pos < len(t):
        ls, le = _line_bounds(t, pos)
        m = _LIST_ITEM.match(t[ls:le])
        if m and len(m.group(1)) <= indent:
            return item_start, ls, LIST_ITEM
        pos = le
    return item_start, block_hi, LIST_ITEM


def span_at(doc_id: str, text: str, start: int, quote: str, exact: bool) -> Span:
    end = start + len(quote)
    if exact:
        return Span(doc_id, start, end, EXACT, start, end)
    lo, hi, rule = enclosing_block(text, start, end)
    return Span(doc_id, lo, hi, rule, start, end)


# --- help for quotes that do not resolve -------------------------------------------------

_QUOTE_CLASSES = {
    "'": "['‘’‚‛′]", "‘": "['‘’‚‛′]", "’": "['‘’‚‛′]",
    '"': '["“”„‟″]', "“": '["“”„‟″]', "”": '["“”„‟″]',
}
_DASH = "(?:--|[-‐‑‒–—―−])"


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


@lru_cache(maxsize=64)
def longest_line(text: str) -> int:
    """The length of the document's longest line (cached: a document's text hashes once)."""
    return max(map(len, text.split("\n")))


def _loose_pattern(quote: str) -> re.Pattern[str] | None:
    words = quote.split()
    if not words:
        return None
    parts = []
    for word in words:
        i = 0
        out = []
        while i < len(word):
            if word.startswith("--", i):
                out.append(_DASH)
                i += 2
                continue
            ch = word[i]
            if ch in _QUOTE_CLASSES:
                out.append(_QUOTE_CLASSES[ch])
            elif ch in "-‐‑‒–—―−":
                out.append(_DASH)
            else:
                out.append(re.escape(ch))
            i += 1
        parts.append("".join(out))
    return re.compile(r"\s+".join(parts))


def _first_two(pattern: re.Pattern[str], text: str) -> list[re.Match[str]]:
    return list(islice(pattern.finditer(text), 2))


def not_found_hint(text: str, quote: str) -> Hint | None:
    """Why ``quote`` is not in ``text``, for the author: the unique place where it matches modulo
    whitespace, quotes and dashes, Unicode normalisation or case; else the closest passage. None
    when it matches so in several places (no guess between them) or nothing is close.

    The work is capped by the document: a quote longer than two of its longest lines cannot be
    a one-line label (``quote-multiline``), so it gets no search at all — a 1 MB quote is not
    compiled into a regular expression on every check.
    """
    if not quote.split() or len(" ".join(quote.split())) > 2 * longest_line(text) + 1:
        return None
    found = _first_two(_loose_pattern(quote), text)
    if len(found) == 1:
        m = found[0]
        if "\n" in m.group():
            return Hint(m.start(), m.end(), "line break", m.group(), _line_parts(text, m.start(), m.end()))
        kind = "whitespace" if m.group().split() == quote.split() else "typography"
        return Hint(m.start(), m.end(), kind, m.group())
    composed = unicodedata.normalize("NFC", quote)
    if not found and composed != quote:
        found = _first_two(re.compile(re.escape(composed)), text)
        if len(found) == 1:
            return Hint(found[0].start(), found[0].end(), "normalisation", composed)
    if not found:
        starts = _find_any_case(text, composed, 2)
        if len(starts) == 1:
            return Hint(starts[0][0], starts[0][1], "case", text[starts[0][0]:starts[0][1]])
        found = starts
    return None if found else closest_passage(text, composed)


@lru_cache(maxsize=8)
def _lowered(text: str) -> str | None:
    """The document in lower case when that keeps every offset (almost always), for fast finds."""
    low = text.lower()
    return low if len(low) == len(text) else None


def _find_any_case(text: str, needle: str, limit: int) -> list[tuple[int, int]]:
    """The first ``limit`` [start, end) where ``needle`` occurs ignoring case: ``str.find`` on the
    cached lower-case document (an IGNORECASE regex is ten times slower on a large one)."""
    low = _lowered(text)
    if low is None or len(needle.lower()) != len(needle):
        return [m.span() for m in islice(re.finditer(re.escape(needle), text, re.IGNORECASE), limit)]
    return [(at, at + len(needle)) for at in occurrences(low, needle.lower(), limit)]


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


def closest_passage(text: str, quote: str) -> Hint | None:
    """The passage most similar to ``quote`` (rapidfuzz), searched only around the places where
    its longest words occur (any case) — never every substring of a 10 MB document."""
    if len(quote) > MAX_FUZZY_QUOTE:
        return None
    from rapidfuzz import fuzz  # imported when a quote is not found: a clean check never pays for it

    words = sorted({w for w in re.findall(r"\w{3,}", quote)}, key=lambda w: (-len(w), w))[:_ANCHOR_WORDS]
    windows: set[tuple[int, int]] = set()
    for word in words:
        for start, end in _find_any_case(text, word, _ANCHOR_OCCURRENCES):
            line_lo, line_hi = _line_bounds(text, start)
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
            best = Hint(a, b, "closest", text[a:b], score=found.score)
    return best


@lru_cache(maxsize=1024)
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
        best = _shortest_unique(text, at, end, max(0, at - 2000), min(len(text), end + 2000), grow=True,
                                unique=unique)
    return None if best is None else text[best[0]:best[1]]


@lru_cache(maxsize=64)
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


def _shortest_unique(text: str, at: int, end: int, lo: int, hi: int, grow: bool,
                     unique=None) -> tuple[int, int] | None:
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
