"""Many needles found in a document in any case, in one pass, without a lower-case copy of it.

A not-found hint asks where a quote occurs in another case, and where the longest words of a
quote occur (the anchors of the closest-passage search); a cold check asks that of many quotes of
one document at once. Lowering a 10 MB document for each question would copy it each time, so
here the document is read in lower case a chunk at a time (many words share an Aho–Corasick
automaton, a few are found by ``str.find``), or, for one quote, through the document's index of
the runs of text that lower case changes (``case_index``, remembered per text). The answers are
exactly those of searching the whole lower-cased document; ``hints.py`` reads them.
"""

from __future__ import annotations

import functools
import re
from array import array
from bisect import bisect_right
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from itertools import islice

import ahocorasick

from ..text.memo import finish, per_text
from .resolve import occurrences

#: characters whose ``str.lower()`` is not one character chosen by the character alone: İ lowers
#: to two, Σ to σ or ς by its neighbours (final sigma). A document holding one is lowered whole
#: (as before); any other is lowered a chunk of _CHUNK characters at a time, which gives the same.
_LOWER_BY_CONTEXT = "\u0130\u03a3"
_CHUNK = 1 << 16
#: up to this many words are found in a chunk by ``str.find``, more by an Aho–Corasick automaton
_FEW_WORDS = 6
#: the most places a loose pattern's literal is looked up at (``loose.py``): past that, the pattern
#: runs over the whole document
_MAX_LITERAL_HITS = 10_000
#: longer needles are found by ``str.find``: an Aho–Corasick automaton is a trie as deep as its
#: longest word, and pyahocorasick frees it recursively (a 1 MB quote overflows the C stack). No
#: label is this long — a quote must sit on one line of the document (``quote-multiline``) — so
#: the cap costs nothing where it matters and keeps a pasted page from crashing the check and the
#: server (``engine/quoteindex.py`` keeps the same cap).
MAX_QUOTE_CHARS = 2000


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


@functools.cache
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


#: the characters a step of building a ``_CaseIndex`` reads (``case_index_steps``): a few ms
STEP_CHARS = 1 << 16
#: a document this long is searched in any case (a quote at a time) through its ``_CaseIndex``,
#: made when first needed if not prepared before (~15 ms a million characters; a search without
#: it costs ~5 ms a million characters, each time)
INDEX_FROM = 1_000_000


def case_index_steps(text: str) -> Generator[None, None, _CaseIndex | None]:
    """Build the document's ``_CaseIndex`` a step of ``STEP_CHARS`` at a time (yielding between
    steps; the index is the generator's return value): the same index as one pass, since a run
    found in one step ends where the next step's search goes on."""
    if any(c in text for c in _LOWER_BY_CONTEXT):
        return None
    yield
    starts: dict[str, list[int]] = {}
    end = 0
    cased = _cased_pattern()
    for lo in range(0, len(text), STEP_CHARS):
        yield
        for m in cased.finditer(text, lo, lo + STEP_CHARS):
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


@per_text(64)
def case_index(text: str) -> _CaseIndex | None:
    """The document's ``_CaseIndex`` (cached like ``longest_line``: small beside the text); None
    when its lower case is not made character by character or it has cased letters beyond the BMP.
    Built by ``hints.prepare_hints`` (in the language server's idle time, a step at a time), or
    by a search in a document of ``INDEX_FROM`` characters or more (``Search``)."""
    return finish(case_index_steps(text))


def _find_indexed(text: str, index: _CaseIndex, needle: str, limit: int) -> list[tuple[int, int]]:
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


def _find_within(
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


class Search:
    """Occurrences in one document that the hints of many quotes need, found together in one
    pass over the document in lower case, a chunk at a time (never a lower-case copy of it all):
    the loose patterns' literals (each place checked in the document as it is) and the needles
    any case is allowed for. Many words share an Aho–Corasick automaton; a few are found by
    ``str.find``. For one quote (``indexed``), the needles in any case are found instead by
    ``str.find`` of their lower case plus the document's cached ``_CaseIndex``: made when first
    needed for a document of ``INDEX_FROM`` characters or more (unless ``hints.prepare_hints``
    made it before), used when made already for a smaller one (else one pass). A document with
    İ or Σ, whose lower case is not made character by character, is lowered whole, as before."""

    def __init__(self, text: str, indexed: bool = False):
        self.text = text
        #: search in any case through the document's cached ``_CaseIndex`` when there is one (a
        #: quote at a time)
        self.indexed = indexed
        self.literal: dict[str, list[int] | None] = {}
        self.any_case: dict[str, list[tuple[int, int]]] = {}

    def scan(self, literals: list[str], needles: dict[str, int]) -> None:
        text = self.text
        literals = [literal for literal in dict.fromkeys(literals) if literal not in self.literal]
        needles = {needle: limit for needle, limit in needles.items() if needle not in self.any_case}
        # the index (None: İ or Σ in the text, or no index), made now for a large document (it
        # is searched again at the next keystroke), else only when made already: one pass over
        # a smaller text in lower case, a chunk at a time, costs less than making its index
        index = None
        if self.indexed and needles:
            index = case_index(text) if len(text) >= INDEX_FROM else case_index.known(text)[1]
        # one literal alone is found by str.find, with no lower case made
        lowered = (len(literals) > 1 or bool(needles)) and (
            index is not None or not any(c in text for c in _LOWER_BY_CONTEXT)
        )
        for literal in literals:
            if not lowered or len(literal.lower()) != len(literal):
                hits = occurrences(text, literal, _MAX_LITERAL_HITS + 1)
                self.literal[literal] = hits if len(hits) <= _MAX_LITERAL_HITS else None
        literals = [literal for literal in literals if literal not in self.literal]
        # the automaton takes no needle past MAX_QUOTE_CHARS (``MAX_QUOTE_CHARS``): those are found the plain way
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
                spans = _find_within(text, needle, limit, complete)
                if spans is None:
                    spans = _find_indexed(text, index, needle, limit)
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
