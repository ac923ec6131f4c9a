"""A quote matched loosely: modulo white space, line breaks, typographic quotes and dashes.

The author of a quote that is not found mostly meant a passage that is there, written with other
white space, across a line break, or with straight quotes and hyphens where the corpus has curly
ones and dashes. Such a quote is a loose pattern (each word a run of non-space text, ``\\s+``
between), and to avoid running that pattern over a whole document it is anchored by its longest
literal: the pattern is tried only where that literal occurs, at the few places a match holding it
there could start. ``hints.py`` reads these matches; this module only finds them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import islice

_QUOTE_CLASSES = {
    "'": "['‘’‚‛′]",
    "‘": "['‘’‚‛′]",
    "’": "['‘’‚‛′]",
    '"': '["“”„‟″]',
    "“": '["“”„‟″]',
    "”": '["“”„‟″]',
}
_DASHES = "-‐‑‒–—―−"
_DASH = f"(?:--|[{_DASHES}])"


#: the longest literal a loose pattern is anchored by
_MAX_LITERAL = 64


def _loose_units(quote: str) -> list[list[tuple[str, str | None]]]:
    """Each word of ``quote`` as pattern units: (regular expression, the literal character it
    matches, or None for a class of quotes or a dash, which matches one or, as "--", two)."""
    words = []
    for word in quote.split():
        units: list[tuple[str, str | None]] = []
        i = 0
        while i < len(word):
            if word.startswith("--", i):
                units.append((_DASH, None))
                i += 2
                continue
            ch = word[i]
            if ch in _QUOTE_CLASSES:
                units.append((_QUOTE_CLASSES[ch], None))
            elif ch in _DASHES:
                units.append((_DASH, None))
            else:
                units.append((re.escape(ch), ch))
            i += 1
        words.append(units)
    return words


@dataclass(frozen=True)
class Loose:
    """A quote's loose pattern and the literal every match of it holds, to search only there.

    Words match whole runs of non-space text (the first a run's tail, the last its head) and
    ``\\s+`` a whole run of white space, so from where the literal occurs the match can only
    start where stepping back over ``word`` words' lengths and the white space between lands.
    """

    pattern: re.Pattern[str]
    #: a run of literal characters of word ``word``, after ``before`` units of which ``dashes`` are dashes
    literal: str | None
    word: int
    before: int
    dashes: int
    #: the shortest and longest text each word matches
    lengths: tuple[tuple[int, int], ...]


def loose_pattern(quote: str) -> Loose:
    words = _loose_units(quote)
    pattern = re.compile(r"\s+".join("".join(regex for regex, _ in units) for units in words))
    best: tuple[int, str | None, int, int, int] = (0, None, 0, 0, 0)
    lengths = []
    for k, units in enumerate(words):
        dashes = [regex == _DASH for regex, _ in units]
        lengths.append((len(units), len(units) + sum(dashes)))
        i = 0
        while i < len(units):
            if units[i][1] is None:
                i += 1
                continue
            j = i
            while j < len(units) and units[j][1] is not None:
                j += 1
            if j - i > best[0]:
                literal = "".join(ch or "" for _, ch in units[i:j])[:_MAX_LITERAL]  # all literal
                best = (j - i, literal, k, i, sum(dashes[:i]))
            i = j
    return Loose(pattern, best[1], best[2], best[3], best[4], tuple(lengths))


def _space_run_start(text: str, end: int) -> int:
    """Where the run of white space that ends at ``end`` starts (``str.rstrip`` on slices)."""
    while end > 0:
        lo = max(0, end - 256)
        kept = len(text[lo:end].rstrip())
        if kept:
            return lo + kept
        end = lo
    return 0


def _match_starts(text: str, loose: Loose, at: int) -> list[int]:
    """Every place a match of ``loose`` that holds its literal at ``at`` could start."""
    out: list[int] = []
    for word_start in range(max(0, at - loose.before - loose.dashes), at - loose.before + 1):
        pos = word_start
        for k in range(loose.word - 1, -1, -1):  # from word k + 1's start back to word k's
            if pos == 0 or not text[pos - 1].isspace():
                break
            end = _space_run_start(text, pos)
            shortest, longest = loose.lengths[k]
            if k == 0:  # the first word matches the tail of a run of non-space text
                out.extend(range(max(0, end - longest), end - shortest + 1))
                break
            pos = end
            while pos > 0 and end - pos <= longest and not text[pos - 1].isspace():
                pos -= 1
            if not shortest <= end - pos <= longest:
                break
        else:
            out.append(word_start)
    return out


def first_two_loose(text: str, loose: Loose, hits: list[int] | None) -> list[re.Match[str]]:
    """The first two matches of ``loose.pattern`` in ``text``, tried only where a match could
    start given ``hits``, the places of its literal (None: too many, or no literal)."""
    if hits is None:
        return list(islice(loose.pattern.finditer(text), 2))
    found: list[re.Match[str]] = []
    pos = 0
    for start in sorted({start for at in hits for start in _match_starts(text, loose, at)}):
        if start >= pos:
            m = loose.pattern.match(text, start)
            if m:
                found.append(m)
                if len(found) == 2:
                    break
                pos = m.end()
    return found
