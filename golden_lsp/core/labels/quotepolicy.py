"""The quote policy: what every quote golden-lsp writes or suggests must be, and which one is best.

A quote is a pointer a person reads and a builder resolves. One that is unique by accident — "via
the", "The default", "The **pool" — breaks at the next edit anywhere in the document and tells a
reader nothing of what it labels. So every quote golden-lsp writes or suggests (anchor here,
candidate passages, lengthen, the not-found fixes, import, accept, migrate, init) meets every rule
here (``problems``), and among those that do, the picker (``quotepick.py``) takes the cheapest by
``cost``. The rules:

- one line; it starts and ends on whole words, on a letter or digit (never on a Markdown marker);
- no unbalanced Markdown: code spans, emphasis, brackets and parentheses open and close inside it;
- it holds a word that is not a stop word, and does not end on a word that leads to others (an
  article, a preposition, a conjunction: "read it via the" is cut mid-phrase);
- at least ``MIN_WORDS`` words or ``MIN_CHARS`` characters, unless its passage is shorter;
- it occurs exactly once in the document, *with a margin*: no other place of the document is
  within ``margin(quote)`` edits of it (``near_twin``), so a small edit elsewhere cannot make it
  ambiguous, nor a reader mistake one place for the other — unless it is all its line has to
  offer (a short list item such as "In the pack"), which is then the best pointer there is.

And the preferences (``cost``): ``FEW`` to ``MANY`` words (distinctive beats long: a phrase, not
a sentence), the document's rarest words, the words the record's expected answer shares with the
passage, and — for a repair — the words of the quote it replaces, so that every repair of the same
label names the same quote.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Generator, Iterable, Iterator

from ..text.memo import finish, per_text
from .resolve import count_at_most, occurrences

#: the fewest words (or characters) a quote has, unless its whole passage is shorter
MIN_WORDS, MIN_CHARS = 3, 20
#: the number of words preferred: a phrase, not a sentence
FEW, MANY = 4, 10
#: a word occurring this many times or more in the document is as common as any other
COMMON = 8
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
#: the function words no phrase ends on: articles, determiners, prepositions, conjunctions, the
#: relative words ("shut down" or "look it up" may end on an adverb; "via the" is cut off)
_DANGLING = """a an the this that these those my our your his her its their some any each every no about above
    after against at before below between by during for from in into of on onto over per than
    through to toward towards under until upon via with within without and but or nor so yet because
    if while whereas although though which who whom whose what where when why how is are was were be
    been being am as"""
DANGLING = frozenset(_DANGLING.split())
WORD = re.compile(r"[^\W_]+")
#: a run of emphasis markers at a word's edge: opening (before a word) or closing (after one)
_OPENING = re.compile(r"(?<![^\W_])([*_~]+)(?=[^\W_])")
_CLOSING = re.compile(r"(?<=[^\W_])([*_~]+)(?![^\W_])")


#: a document this long may count its words once, into an index (``prepare_quotes``, in the
#: language server's idle time), instead of being searched for each word a quote holds (a 10 MB
#: document: a few ms a rare word)
LARGE = 256_000
#: the characters a step of building the word index reads (``prepare_quotes``): a few ms
STEP_CHARS = 1 << 16
_NON_WORD = re.compile(r"[\W_]")


def word_count(text: str, word: str, cap: int) -> int:
    """How many times ``word`` occurs in ``text``, up to ``cap``: as a substring, or, in a
    ``LARGE`` document, as a whole word — from its index when one was made (``prepare_quotes``),
    else by finding the word's occurrences that are whole words (the same count, never the cost
    of making the index on a keystroke)."""
    if len(text) < LARGE:
        return count_at_most(text, word, cap)
    known, index = _word_index.known(text)
    if known:
        assert index is not None
        return min(index[word], cap)
    return _whole_words(text, word, cap)


def _whole_words(text: str, word: str, cap: int) -> int:
    """How many of ``WORD.findall(text)`` are ``word``, up to ``cap``: its occurrences with no
    word character on either side (each such one is a whole run of word characters)."""
    if not WORD.fullmatch(word):
        return 0
    n, size, at = 0, len(word), text.find(word)
    while at != -1 and n < cap:
        end = at + size
        if (at == 0 or not text[at - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
            n += 1
        at = text.find(word, end)  # (one after a word character is no whole word: none is skipped)
    return n


def _word_index_steps(text: str) -> Generator[None, None, Counter[str]]:
    """Each word of the document and how many times it occurs, counted a step of ``STEP_CHARS``
    at a time (yielding between steps; each step ends before a character that is no word's)."""
    counts: Counter[str] = Counter()
    lo = 0
    while lo < len(text):
        cut = _NON_WORD.search(text, lo + STEP_CHARS)
        hi = len(text) if cut is None else cut.start()
        counts.update(WORD.findall(text, lo, hi))
        lo = hi
        if lo < len(text):
            yield
    return counts


@per_text(8)
def _word_index(text: str) -> Counter[str]:
    """Each word of a large document and how many times it occurs (remembered per text)."""
    return finish(_word_index_steps(text))


#: how many documents ``prepare_quotes`` may keep prepared at once
INDEXED_TEXTS = _word_index.texts


def prepare_quotes(text: str) -> Generator[None, None, None]:
    """Build, a step at a time (yielding between steps), what makes picking a quote in ``text``
    cheaper (a large document's word index): the language server runs the steps in idle time. A
    picked quote is the same with or without it."""
    if len(text) >= LARGE and not _word_index.known(text)[0]:
        _word_index.store(text, (yield from _word_index_steps(text)))


def is_word_char(c: str) -> bool:
    return c.isalnum() or unicodedata.category(c)[0] == "M"


def content_words(quote: str) -> list[str]:
    """The words of ``quote`` that are not stop words, in order."""
    return [w for w in WORD.findall(quote) if w.lower() not in STOP_WORDS]


def meaningful(quote: str) -> bool:
    """Whether a quote holds a word that is not a stop word."""
    return bool(content_words(quote))


def balanced(quote: str) -> bool:
    """Whether every Markdown marker of ``quote`` opens and closes inside it: code spans (an even
    number of backticks), brackets, parentheses, and each emphasis run (``**``, ``_``, ``~~``)
    opened before a word and closed, in order, by the same run after one."""
    if quote.count("`") % 2 or quote.count("[") != quote.count("]") or quote.count("(") != quote.count(")"):
        return False
    runs = sorted(
        [(m.start(), True, m.group(1)) for m in _OPENING.finditer(quote)]
        + [(m.start(), False, m.group(1)) for m in _CLOSING.finditer(quote)]
    )
    opened: list[str] = []
    for _, opening, run in runs:  # each closing run closes the last one opened
        if opening:
            opened.append(run)
        elif not opened or opened.pop() != run:
            return False
    return not opened


def margin(quote: str) -> int:
    """How many edits another place must be away from ``quote``: 1 below 20 characters, 2 below
    40, 3 from 40 on."""
    return max(1, min(3, 1 + len(quote) // 20))


def near_twin(text: str, a: int, b: int) -> int | None:
    """Where another place of ``text`` — from a word's start to a word's end, as a quote would be
    — lies within ``margin`` edits (Levenshtein) of the quote ``text[a:b]``, else None. A near twin shares at least one of the quote's rarer words intact
    (each edit breaks at most two words), so only the places of its ``2 × margin + 1`` rarest words
    (each occurring fewer than 64 times) are compared — never the whole document."""
    from rapidfuzz.distance import Levenshtein  # imported when a quote is written, not on a check

    quote = text[a:b]
    d = margin(quote)
    anchors = sorted(
        ((word_count(text, m.group(), 64), m.start(), m.group()) for m in WORD.finditer(quote)),
        key=lambda t: (t[0], -len(t[2])),
    )
    for count, offset, word in anchors[: 2 * d + 1]:
        if count >= 64:
            continue
        for p in occurrences(text, word):
            at = p - offset
            window = text[max(0, at - d) : at + len(quote) + d]
            if at == a or Levenshtein.distance(quote, window, score_cutoff=3 * d) > 3 * d:
                continue  # the quote itself, or too far to be within d edits anywhere there
            for s in range(at - d, at + d + 1):
                if s < 0 or (s > 0 and is_word_char(text[s - 1])):
                    continue  # a place starts on a word, as a quote does
                for e in range(s + len(quote) - d, s + len(quote) + d + 1):
                    if e > len(text) or (s < b and e > a) or (e < len(text) and is_word_char(text[e])):
                        continue  # out of the text, the quote itself, or inside a word
                    if Levenshtein.distance(quote, text[s:e], score_cutoff=d) <= d:
                        return s
    return None


def problems(text: str, a: int, b: int, short_ok: bool = False, whole: bool = False) -> list[str]:
    """Every rule ``text[a:b]`` breaks as a quote of ``text``, in words for a person (none: it is a
    quote golden-lsp may write). ``short_ok``: its passage is shorter than ``MIN_WORDS`` words
    and ``MIN_CHARS`` characters, so the quote may be too; ``whole``: it is all the words its
    line has to offer, so it needs no margin, only to be unique."""
    return list(_broken(text, a, b, short_ok, None, whole))


def acceptable(
    text: str,
    a: int,
    b: int,
    short_ok: bool = False,
    once: Callable[[int, int], bool] | None = None,
    whole: bool = False,
) -> bool:
    """``problems`` is empty: the rules checked cheapest first, stopping at the first broken.
    ``once(a, b)``: whether ``text[a:b]`` occurs exactly once, when the caller can tell without
    searching the document (a lengthening probes only where the quote it grows occurs)."""
    return next(_broken(text, a, b, short_ok, once, whole), None) is None


def _broken(
    text: str,
    a: int,
    b: int,
    short_ok: bool,
    once: Callable[[int, int], bool] | None = None,
    whole: bool = False,
) -> Iterator[str]:
    quote = text[a:b]
    if not quote:
        yield "it is empty"
        return
    if "\n" in quote:
        yield "it spans lines"
    if (
        not is_word_char(quote[0])
        or not is_word_char(quote[-1])
        or (a > 0 and is_word_char(text[a - 1]))
        or (b < len(text) and is_word_char(text[b]))
    ):
        yield "it does not start and end on whole words"
    if not balanced(quote):
        yield "it leaves Markdown markers unbalanced"
    words = WORD.findall(quote)
    if not meaningful(quote):
        yield "it holds only common words"
    elif words[-1].lower() in DANGLING:
        yield f"it ends on {words[-1]!r}, cut before the words it leads to"
    if not short_ok and len(words) < MIN_WORDS and len(quote) < MIN_CHARS:
        yield f"it is shorter than {MIN_WORDS} words or {MIN_CHARS} characters"
    if not (once(a, b) if once is not None else count_at_most(text, quote, 2) == 1):
        yield "it does not occur exactly once"
    elif not whole and (twin := near_twin(text, a, b)) is not None:
        yield f"a place at line {text.count(chr(10), 0, twin) + 1} differs from it by a few characters"


def word_bag(text: str) -> frozenset[str]:
    """The content words of ``text``, lower case: what an answer or a replaced quote contributes
    to the preference."""
    return frozenset(w.lower() for w in content_words(text))


def cost(
    quote: str,
    count: Callable[[str], int],
    answer: frozenset[str] = frozenset(),
    prefer: frozenset[str] = frozenset(),
) -> float:
    """How much less a person would choose ``quote`` than the best possible one (0 is ideal):
    outside ``FEW``–``MANY`` words, without a rare word of the document (``count``: how many
    times a word occurs there, at most ``COMMON``), with few content words, with a link target;
    less for each word it shares with the expected ``answer`` and with the quote it replaces
    (``prefer``)."""
    words = WORD.findall(quote)
    content = content_words(quote)
    n = len(words)
    total = 0.0
    if n < FEW:
        total += FEW - n
    elif n > MANY:
        total += 1.0 + (n - MANY)
    elif n > FEW + 4:
        total += 0.5 * (n - FEW - 4)
    rarest = min((count(w) for w in content), default=COMMON)
    total += 0.75 * (min(rarest, COMMON) - 1)
    total += 0.5 * max(0, 2 - len(set(content)))
    if "](" in quote or "://" in quote:
        total += 1.5
    bag = {w.lower() for w in content}
    total -= 0.75 * min(3, len(bag & answer))
    total -= 0.5 * min(4, len(bag & prefer))
    return total


def rank(candidates: Iterable[tuple[float, int, int]]) -> list[tuple[float, int, int]]:
    """Candidates (cost, start, end) best first: cheapest, then shortest, then earliest."""
    return sorted(candidates, key=lambda c: (round(c[0], 6), c[2] - c[1], c[1]))
