"""Why a quote is not found, for the author: the hint of a ``quote-not-found`` finding.

The author mostly meant a passage that is there: the same words across a line break, with other
whitespace, quotes or dashes, in another Unicode normalisation or case, or else one close to it
(rapidfuzz). That place is offered as a hint or a fix to a person, never as a silent relabel. It
is kept apart from resolution (``resolve.py``): most of the code, none of the builder's semantics.
The searches give what searching the whole document would, without its cost: the loose pattern is
tried only where its literal occurs, and a search in any case reads the document in lower case a
chunk at a time or, for one quote, through the document's index of the words lower case changes
(kept by ``textcache``); ``not_found_hints`` does it once for all the missing quotes of a document.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice

import ahocorasick

from .quoteindex import MAX_QUOTE_CHARS
from .resolve import count_at_most, line_bounds, occurrences
from .textcache import once, per_text

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
#: characters whose ``str.lower()`` is not one character chosen by the character alone: İ lowers
#: to two, Σ to σ or ς by its neighbours (final sigma). A document holding one is lowered whole
#: (as before); any other is lowered a chunk of _CHUNK characters at a time, which gives the same.
_LOWER_BY_CONTEXT = "\u0130\u03a3"
_CHUNK = 1 << 16
#: up to this many words are found in a chunk by ``str.find``, more by an Aho–Corasick automaton
_FEW_WORDS = 6
#: the longest literal a loose pattern is anchored by, and the most places it is tried at: past
#: that, the pattern runs over the whole document
_MAX_LITERAL, _MAX_LITERAL_HITS = 64, 10_000


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
class _Loose:
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


def _loose(quote: str) -> _Loose:
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
    return _Loose(pattern, best[1], best[2], best[3], best[4], tuple(lengths))


def _space_run_start(text: str, end: int) -> int:
    """Where the run of white space that ends at ``end`` starts (``str.rstrip`` on slices)."""
    while end > 0:
        lo = max(0, end - 256)
        kept = len(text[lo:end].rstrip())
        if kept:
            return lo + kept
        end = lo
    return 0


def _match_starts(text: str, loose: _Loose, at: int) -> list[int]:
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


def _first_two_loose(text: str, loose: _Loose, hits: list[int] | None) -> list[re.Match[str]]:
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


def _first_two_exact(text: str, needle: str) -> list[int]:
    """The first two non-overlapping occurrences of ``needle`` (as ``re.finditer`` finds them)."""
    first = text.find(needle)
    if first == -1:
        return []
    second = text.find(needle, first + len(needle))
    return [first] if second == -1 else [first, second]


def _find_any_case(text: str, needles: dict[str, int]) -> dict[str, list[tuple[int, int]]]:
    """The first ``limit`` [start, end) of each needle ignoring case, the plain way: ``str.find``
    on the lower-case document, or an IGNORECASE regex where lowering changes a length."""
    low = None
    out = {}
    for needle, limit in needles.items():
        if len(needle.lower()) == len(needle):
            if low is None:
                low = text.lower()
            if len(low) == len(text):
                out[needle] = [(at, at + len(needle)) for at in occurrences(low, needle.lower(), limit)]
                continue
        out[needle] = [m.span() for m in islice(re.finditer(re.escape(needle), text, re.IGNORECASE), limit)]
    return out


#: every cased character beyond the BMP lies in this range (the tests check it against the
#: Unicode database): a document holding one is searched through chunks instead of an index
_ASTRAL_CASED = "\U00010400-\U0001e921"
_NON_SPACE_RUN = re.compile(r"\S*")


@once
def _cased_pattern() -> re.Pattern[str]:
    """A character of the BMP that lower case changes, or a cased one beyond it."""
    return re.compile(
        "[" + "".join(re.escape(c) for c in map(chr, range(0x10000)) if c.lower() != c) + _ASTRAL_CASED + "]"
    )


@dataclass(frozen=True)
class _CaseIndex:
    """The runs of non-space text of a document that lower case changes, in lower case: where
    a search in any case can find what ``str.find`` of the lower-case needle does not. Flat
    arrays, to stay small beside the text (0.7 MB for the 10 MB generated document)."""

    #: the distinct runs, with "\\n" between (a needle's piece never spans it)
    joined: str
    #: where run k begins in ``joined``, and its places in the text: ``starts[first[k]:first[k + 1]]``
    offsets: array
    first: array
    starts: array


@per_text(64)
def _case_index(text: str) -> _CaseIndex | None:
    """The document's ``_CaseIndex`` (cached like ``longest_line``: small beside the text); None
    when its lower case is not made character by character or it has cased letters beyond the BMP."""
    if any(c in text for c in _LOWER_BY_CONTEXT):
        return None
    starts: dict[str, list[int]] = {}
    end = 0
    for m in _cased_pattern().finditer(text):
        at = m.start()
        if at < end:
            continue  # in the run just indexed
        if ord(text[at]) > 0xFFFF:
            return None
        start = at
        while start > 0 and not text[start - 1].isspace():
            start -= 1
        rest = _NON_SPACE_RUN.match(text, at)
        assert rest is not None  # \S* matches everywhere
        end = rest.end()
        starts.setdefault(text[start:end].lower(), []).append(start)
    offsets, first, flat, pos = array("q"), array("q", [0]), array("q"), 0
    for run, places in starts.items():
        offsets.append(pos)
        pos += len(run) + 1
        flat.extend(places)
        first.append(len(flat))
    return _CaseIndex("\n".join(starts), offsets, first, flat)


def _find_any_case_indexed(text: str, index: _CaseIndex, needle: str, limit: int) -> list[tuple[int, int]]:
    """The first ``limit`` occurrences of ``needle`` in any case: where it occurs in lower case,
    and where one of its pieces (white space has no case, so a piece is all of a run's part in
    the match) lies in a run that lower case changes — each such place checked."""
    low = needle.lower()
    found = set(occurrences(text, low, limit))
    for piece in _NON_SPACE_RUN.finditer(low):
        if not piece.group():
            continue
        for at in occurrences(index.joined, piece.group()):
            k = bisect_right(index.offsets, at) - 1
            shift = at - index.offsets[k] - piece.start()
            for start in index.starts[index.first[k] : index.first[k + 1]]:
                i = start + shift
                if i >= 0 and text[i : i + len(low)].lower() == low:
                    found.add(i)
    return [(i, i + len(low)) for i in sorted(found)[:limit]]


def _find_any_case_within(
    text: str, needle: str, limit: int, complete: list[tuple[str, list[tuple[int, int]]]]
) -> list[tuple[int, int]] | None:
    """The first ``limit`` occurrences of ``needle`` in any case, when a shorter needle of
    ``complete`` (lower case, with all its occurrences) lies in its lower case: each occurrence
    holds one of it there, so only those places are checked. None when no such needle is known."""
    low = needle.lower()
    for part, spans in complete:
        shift = low.find(part)
        if shift != -1:
            return [
                (i, i + len(low))
                for i in (start - shift for start, _ in spans)
                if i >= 0 and text[i : i + len(low)].lower() == low
            ][:limit]
    return None


def _chunk_hits(low: str, words: list[str], automaton) -> Iterator[tuple[int, str]]:
    """(start, word) of every occurrence of each word in ``low``, ascending for each word."""
    if automaton is None:
        for word in words:
            for at in occurrences(low, word):
                yield at, word
    else:
        for end, word in automaton.iter(low):
            yield end - len(word) + 1, word


class _Search:
    """Occurrences in one document that the hints of many quotes need, found together in one
    pass over the document in lower case, a chunk at a time (never a lower-case copy of it all):
    the loose patterns' literals (each place checked in the document as it is) and the needles
    any case is allowed for. Many words share an Aho–Corasick automaton; a few are found by
    ``str.find``. For one quote (``indexed``), the needles in any case are found instead by
    ``str.find`` of their lower case plus the document's cached ``_CaseIndex``. A document with
    İ or Σ, whose lower case is not made character by character, is lowered whole, as before."""

    def __init__(self, text: str, indexed: bool = False):
        self.text = text
        #: search in any case through the document's cached ``_CaseIndex`` (a quote at a time)
        self.indexed = indexed
        self.literal: dict[str, list[int] | None] = {}
        self.any_case: dict[str, list[tuple[int, int]]] = {}

    def scan(self, literals: list[str], needles: dict[str, int]) -> None:
        text = self.text
        literals = [literal for literal in dict.fromkeys(literals) if literal not in self.literal]
        needles = {needle: limit for needle, limit in needles.items() if needle not in self.any_case}
        index = (
            _case_index(text) if self.indexed and needles else None
        )  # None: İ or Σ in the text, or no index
        # one literal alone is found by str.find, with no lower case made
        lowered = (len(literals) > 1 or bool(needles)) and (
            index is not None or not any(c in text for c in _LOWER_BY_CONTEXT)
        )
        for literal in literals:
            if not lowered or len(literal.lower()) != len(literal):
                hits = occurrences(text, literal, _MAX_LITERAL_HITS + 1)
                self.literal[literal] = hits if len(hits) <= _MAX_LITERAL_HITS else None
        literals = [literal for literal in literals if literal not in self.literal]
        # the automaton takes no needle past MAX_QUOTE_CHARS (see quoteindex): those are found the plain way
        fast = {
            needle: limit
            for needle, limit in needles.items()
            if lowered
            and len(needle.lower()) == len(needle)
            and (index is not None or len(needle) <= MAX_QUOTE_CHARS)
        }
        if index is not None:
            complete: list[tuple[str, list[tuple[int, int]]]] = []  # needles found everywhere they occur
            for needle, limit in sorted(fast.items(), key=lambda item: len(item[0])):
                spans = _find_any_case_within(text, needle, limit, complete)
                if spans is None:
                    spans = _find_any_case_indexed(text, index, needle, limit)
                self.any_case[needle] = spans
                if len(spans) < limit:
                    complete.append((needle.lower(), spans))
            fast = {}
        plain = {
            needle: limit
            for needle, limit in needles.items()
            if needle not in fast and needle not in self.any_case
        }
        if plain:
            self.any_case.update(_find_any_case(text, plain))
        self._scan_lowered(literals, fast)

    def _scan_lowered(self, literals: list[str], fast: dict[str, int]) -> None:
        """The places of ``literals`` and the first occurrences of the ``fast`` needles in any
        case, in one pass over the document in lower case, a chunk at a time."""
        text = self.text
        words: dict[str, tuple[list[str], list[tuple[str, int]]]] = {}
        for literal in literals:
            words.setdefault(literal.lower(), ([], []))[0].append(literal)
        for needle, limit in fast.items():
            words.setdefault(needle.lower(), ([], []))[1].append((needle, limit))
        if not words:
            return
        automaton = None
        if len(words) > _FEW_WORDS:
            automaton = ahocorasick.Automaton()
            for word in words:
                automaton.add_word(word, word)
            automaton.make_automaton()
        at_literal: dict[str, list[int]] = {literal: [] for literal in literals}
        spans_of: dict[str, list[tuple[int, int]]] = {needle: [] for needle in fast}
        overlap = max(map(len, words)) - 1

        def wanted(word: str) -> bool:
            exact, any_case = words[word]
            return any(len(at_literal[literal]) <= _MAX_LITERAL_HITS for literal in exact) or any(
                len(spans_of[needle]) < limit for needle, limit in any_case
            )

        open_words = list(words)
        for lo in range(0, len(text), _CHUNK):
            open_words = [word for word in open_words if wanted(word)]
            if not open_words:
                break  # every needle has its occurrences, every literal too many
            low = text[lo : lo + _CHUNK + overlap].lower()
            for at, word in _chunk_hits(low, open_words, automaton):
                if at >= _CHUNK:
                    continue  # it starts in the next chunk, which reports it
                start = lo + at
                exact, any_case = words[word]
                for literal in exact:
                    hits = at_literal[literal]
                    if len(hits) <= _MAX_LITERAL_HITS and text.startswith(literal, start):
                        hits.append(start)
                for needle, limit in any_case:
                    spans = spans_of[needle]
                    if len(spans) < limit:
                        spans.append((start, start + len(word)))
        for literal, hits in at_literal.items():
            self.literal[literal] = hits if len(hits) <= _MAX_LITERAL_HITS else None
        self.any_case.update(spans_of)


@dataclass(frozen=True)
class _Plan:
    """What a quote's hint searches for."""

    quote: str
    loose: _Loose
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
    return _Plan(quote, _loose(quote), composed, needles, words)


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
    ``str.find`` of the lower case plus the document's cached ``_CaseIndex``, made only when the
    quote gets that far.
    """
    if not _searchable(text, quote):
        return None
    plan = _plan(quote)
    search = _Search(text, indexed=True)
    search.scan([plan.loose.literal] if plan.loose.literal else [], {})
    return _hint(text, plan, search)


def prepare_hints(text: str) -> None:
    """Build now what a not-found hint in ``text`` needs (its case index, kept like
    ``longest_line``), so the first keystroke that breaks a quote there does not pay for it: the
    language server calls this in idle time, a document at a time."""
    _case_index(text)


#: how many documents ``prepare_hints`` may keep prepared at once
PREPARED_TEXTS = _case_index.texts


def not_found_hints(text: str, quotes: Iterable[str]) -> dict[str, Hint | None]:
    """``not_found_hint`` of each quote of one document, with one pass over the document for all
    of them (a cold check of many not-found quotes)."""
    quotes = list(dict.fromkeys(quotes))
    plans = [_plan(quote) for quote in quotes if _searchable(text, quote)]
    search = _Search(text)
    needles: dict[str, int] = {}
    for plan in plans:
        for needle, limit in plan.needles.items():
            needles[needle] = max(needles.get(needle, 0), limit)
    search.scan([plan.loose.literal for plan in plans if plan.loose.literal], needles)
    hints: dict[str, Hint | None] = dict.fromkeys(quotes)
    hints.update((plan.quote, _hint(text, plan, search)) for plan in plans)
    return hints


def _hint(text: str, plan: _Plan, search: _Search) -> Hint | None:
    loose = plan.loose
    found: list = _first_two_loose(text, loose, search.literal[loose.literal] if loose.literal else None)
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


def closest_passage(text: str, plan: _Plan, search: _Search) -> Hint | None:
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
            best = Hint(a, b, "closest", text[a:b], score=found.score)
    return best
