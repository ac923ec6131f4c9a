"""The one quote picker: the quote a person would have chosen for a place, a passage or a repair.

Every feature that writes or suggests a quote — "Anchor here" and candidate passages
(``assist.anchor``), the "Lengthen" and not-found fixes, accepting a judge's proposal, ``golden-lsp
import``, ``init`` and ``migrate`` — calls this module, so they all write the same kind of quote
for the same place, and one that meets the quote policy (``quotepolicy.py``): a distinctive,
readable phrase on one line, on whole words, its Markdown balanced, unique in the document with a
margin. The candidates are the runs of whole words of a line (a word is a whitespace-separated
token from its first to its last letter or digit; a link's ``](`` splits its token; a list bullet
or a token of markers is none) within ``WINDOW`` of the place; they are ranked by the policy's
``cost`` — computed from word counts, never by searching the document — and checked in that order,
the first that breaks no rule taken. A quote is a pointer, not a span: what it expands to is
``resolve.span_at``'s, which the caller checks. When there is no quote, ``no_quote_reason`` says
why. Lengthening is remembered per text (``text/memo.py``): editors ask for code actions on every
cursor move.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..text.memo import per_text
from .quotepolicy import (
    COMMON,
    MANY,
    MIN_CHARS,
    MIN_WORDS,
    STOP_WORDS,
    WORD,
    acceptable,
    cost,
    is_word_char,
    problems,
    rank,
    word_bag,
    word_count,
)
from .resolve import count_at_most, occurrences

#: characters searched on either side of the place a quote must hold (a longer quote is no quote)
WINDOW = 400
#: the most candidates checked against the document before the picker gives up
MAX_CHECKED = 200
#: how many words a quote may reach beyond the words it must hold, on either side
REACH = 8
#: what a quote's ends cost when they cut a clause (``_clause_start``, ``_clause_end``)
CUT = 0.5
_CLAUSE_PUNCTUATION = ".,;:!?()|—–"
_MARKERS = "*_`~[]\"'’”"
_TOKEN = re.compile(r"\S+")
_BULLET = re.compile(r"[ \t]*(?:[-*+]|\d+\.)[ \t]")


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
            while s < e and not is_word_char(text[s]):
                s += 1
            while e > s and not is_word_char(text[e - 1]):
                e -= 1
            if s < e and lo <= s and e <= hi:
                out.append((s, e))
    return out


@per_text(16)
def _count(text: str, word: str) -> int:
    """How many times ``word`` occurs in the document, up to ``COMMON`` (remembered per text)."""
    return word_count(text, word, COMMON)


@dataclass(frozen=True)
class _Wanted:
    """What the quote is for: words it must hold (indexes into the line's words), a place it
    should be near, and the words of the expected answer and of the quote it replaces."""

    hold: tuple[int, int] | None = None
    near: int | None = None
    answer: frozenset[str] = frozenset()
    prefer: frozenset[str] = frozenset()


def _candidates(
    text: str, words: list[tuple[int, int]], wanted: _Wanted, penalty: float
) -> Iterator[tuple[float, int, int]]:
    """(cost, start, end) of each run of whole ``words`` the quote may be: holding ``wanted.hold``
    and at most ``REACH`` words beyond it on either side, or else at most ``MANY`` + 6 words. A run
    costs a little more for each word between it and ``wanted.near``, and for each end that cuts
    a clause (a person quotes from a clause's start to its end: after and before punctuation)."""
    n = len(words)
    near = None
    if wanted.near is not None:
        near = next((k for k, (_, e) in enumerate(words) if e > wanted.near), n - 1)
    starts = [_clause_start(text, s) for s, _ in words]
    ends = [_clause_end(text, e) for _, e in words]
    counts: dict[str, int] = {}

    def count(word: str) -> int:
        if word not in counts:
            counts[word] = _count(text, word)
        return counts[word]

    for i in range(n):
        if wanted.hold is not None and not wanted.hold[0] - REACH <= i <= wanted.hold[0]:
            continue
        lo_j = i if wanted.hold is None else wanted.hold[1]
        hi_j = min(n, (i + MANY + 6) if wanted.hold is None else wanted.hold[1] + REACH + 1)
        for j in range(lo_j, hi_j):
            a, b = words[i][0], words[j][1]
            extra = penalty + (0 if starts[i] else CUT) + (0 if ends[j] else CUT)
            if near is not None and not i <= near <= j:
                extra += 0.25 * min(abs(i - near), abs(j - near))
            yield cost(text[a:b], count, wanted.answer, wanted.prefer) + extra, a, b


def _clause_start(text: str, at: int) -> bool:
    """A clause starts at the word at ``at``: only markers, a bullet or white space since the
    line's start, or punctuation that ends a clause before it."""
    k = at - 1
    while k >= 0 and text[k] in _MARKERS:
        k -= 1
    while k >= 0 and text[k] in " \t":
        k -= 1
    return (
        k < 0
        or text[k] == "\n"
        or text[k] in _CLAUSE_PUNCTUATION
        or _BULLET.fullmatch(text[_line(text, at)[0] : k + 1] + " ") is not None
    )


def _clause_end(text: str, at: int) -> bool:
    """A clause ends at the word ending at ``at``: punctuation after it, or the line's end."""
    k = at
    while k < len(text) and text[k] in _MARKERS:
        k += 1
    return k >= len(text) or text[k] == "\n" or text[k] in _CLAUSE_PUNCTUATION


def _short_line(text: str, words: list[tuple[int, int]]) -> bool:
    """The words a quote may take here are fewer than ``MIN_WORDS`` and ``MIN_CHARS`` characters."""
    if not words:
        return True
    whole = text[words[0][0] : words[-1][1]]
    return len(WORD.findall(whole)) < MIN_WORDS and len(whole) < MIN_CHARS


def _first_acceptable(
    text: str,
    ranked: list[tuple[float, int, int]],
    lines: dict[int, tuple[bool, tuple[int, int]]],
    once: Callable[[int, int], bool] | None = None,
) -> tuple[int, int] | None:
    """The first of ``ranked`` that breaks no rule (``lines``: for each line's start, whether it
    is short, and the run of all its words)."""
    for n, (_, a, b) in enumerate(ranked):
        if n >= MAX_CHECKED:
            break
        short, whole = lines[_line(text, a)[0]]
        if acceptable(text, a, b, short, once, (a, b) == whole):
            return a, b
    return None


def _once_among(text: str, start: int, end: int) -> Callable[[int, int], bool]:
    """Whether ``text[a:b]`` (which holds ``text[start:end]``) occurs once, probing only where
    ``text[start:end]`` occurs (an extension can occur nowhere else: no probe scans the document)."""
    starts = _all_occurrences(text, text[start:end])

    def once(a: int, b: int) -> bool:
        candidate, shift, n = text[a:b], start - a, 0
        for s in starts:
            if s >= shift and text.startswith(candidate, s - shift):
                n += 1
                if n > 1:
                    return False
        return n == 1

    return once


@per_text(8)
def _all_occurrences(text: str, needle: str) -> tuple[int, ...]:
    return tuple(occurrences(text, needle))


def _pick(
    text: str,
    lines: list[int],
    lo: int,
    hi: int,
    wanted: _Wanted,
    hold: tuple[int, int] | None = None,
    passage: tuple[int, int] | None = None,
) -> tuple[int, int] | None:
    """The best acceptable quote on the lines at ``lines`` (a place on each, the first preferred),
    inside [lo, hi); with ``hold`` ([start, end) on the first line), holding every word it touches.
    It may be short only where the line of ``passage`` (default [lo, hi)) is."""
    candidates: list[tuple[float, int, int]] = []
    short: dict[int, tuple[bool, tuple[int, int]]] = {}
    once = None
    plo, phi = passage or (lo, hi)
    for k, pos in enumerate(lines):
        words = _words(text, lo, hi, pos)
        own = _words(text, plo, phi, pos) if passage else words
        short[_line(text, pos)[0]] = _short_line(text, own), (own[0][0], own[-1][1]) if own else (0, 0)
        here = wanted
        if hold is not None:
            found = _around(words, *hold)
            if found is None:
                return None
            here = _Wanted(found, wanted.near, wanted.answer, wanted.prefer)
            once = _once_among(text, words[found[0]][0], words[found[1]][1])
        candidates.extend(_candidates(text, words, here, 1.0 if k else 0.0))
        if hold is not None:
            break
    return _first_acceptable(text, rank(candidates), short, once)


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
    text: str, start: int, end: int, lo: int = 0, hi: int | None = None, prefer: str = ""
) -> tuple[int, int] | None:
    """[start, end) of the best quote holding every word that [start, end) touches on ``start``'s
    line, inside [lo, hi); None when there is none (``no_quote_reason`` says why). ``prefer``: the
    quote it replaces, whose words it keeps where it can."""
    hi = len(text) if hi is None else hi
    start = min(max(start, 0), max(len(text) - 1, 0))
    return _pick(text, [start], lo, hi, _Wanted(prefer=word_bag(prefer)), (start, max(end, start + 1)))


def unique_quote_at(
    text: str,
    pos: int,
    lo: int = 0,
    hi: int | None = None,
    answer: str = "",
    prefer: str = "",
    passage: tuple[int, int] | None = None,
) -> tuple[int, int] | None:
    """[start, end) of the best quote on ``pos``'s line inside [lo, hi), as near ``pos`` as the
    policy allows; None when the line holds none.

    This is how golden-lsp writes a new label (anchor here, import, init, accept, migrate): a
    phrase around the place the author pointed at that a builder resolves to that place only,
    sharing what it can with the record's expected ``answer`` (or, for a repair, with the quote
    it replaces: ``prefer``). It is shorter than the policy's minimum only where the line of its
    ``passage`` (default [lo, hi): a selection's block, say) is. The caller still checks what the
    quote expands to (``span_at``).
    """
    hi = len(text) if hi is None else hi
    pos = min(max(pos, 0), max(len(text) - 1, 0))
    wanted = _Wanted(near=pos, answer=word_bag(answer), prefer=word_bag(prefer))
    return _pick(text, [pos], lo, hi, wanted, passage=passage)


def passage_quote(
    text: str, lo: int, hi: int, near: int | None = None, answer: str = "", prefer: str = ""
) -> tuple[int, int] | None:
    """[start, end) of the best quote anywhere in the passage [lo, hi) (on one of its lines, the
    line of ``near`` preferred): what a fix proposes for a closest passage, and the same quote
    ``migrate`` writes for a passage it relocated a label to."""
    starts = list(line_starts(text, lo, hi))
    if near is not None and lo <= near < hi:
        own = _line(text, near)[0]
        starts = [near] + [s for s in starts if _line(text, s)[0] != own]
    return _pick(
        text, starts[:64], lo, hi, _Wanted(near=near, answer=word_bag(answer), prefer=word_bag(prefer))
    )


def line_starts(text: str, lo: int, hi: int) -> Iterator[int]:
    """The first non-blank place of each line of [lo, hi)."""
    pos = lo
    while pos < hi:
        end = text.find("\n", pos, hi)
        end = hi if end == -1 else end
        stripped = len(text[pos:end]) - len(text[pos:end].lstrip())
        if pos + stripped < end:
            yield pos + stripped
        pos = end + 1


@per_text(8)
def lengthen(text: str, quote: str, at: int) -> str | None:
    """The best quote holding the quote at ``at`` (an ambiguous or fragile one), on its line;
    None when the line holds none (a quote across lines would be the quote-multiline warning).
    Remembered: editors ask for code actions on every cursor move."""
    if "\n" in quote:
        return None
    found = quote_around(text, at, at + len(quote), prefer=quote)
    if found is None or not found[0] <= at < at + len(quote) <= found[1]:
        return None  # (a quote of a list bullet or markers holds no word to grow from)
    return text[found[0] : found[1]]


def no_quote_reason(text: str, start: int, end: int, lo: int = 0, hi: int | None = None) -> str:
    """Why ``quote_around`` finds no quote for [start, end) inside [lo, hi), in words for the
    author: no words there, only stop words, or what each quote of the words around it breaks."""
    hi = len(text) if hi is None else hi
    start = min(max(start, 0), max(len(text) - 1, 0))
    words = _words(text, lo, hi, start)
    if not words:
        return "there are no words here to quote"
    a, b = words[0][0], words[-1][1]
    stretch = text[a:b]
    if not any(w.lower() not in STOP_WORDS for w in WORD.findall(stretch)):
        return f"{stretch!r} holds only common words, which point at nothing"
    if count_at_most(text, stretch, 2) > 1:
        other = next(s for s in occurrences(text, stretch, 2) if s != a)
        return f"every quote of the words here also occurs at line {text.count(chr(10), 0, other) + 1}"
    why = problems(text, a, b, _short_line(text, words))
    return f"no quote of the words here is a good pointer: {why[0]}" if why else "no quote here is unique"
