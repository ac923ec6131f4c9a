"""A label relocated: one locator from the corpus as it was to the corpus now, with one status.

Quotes survive re-chunking, but not a reworded paragraph, a renamed file or a copied section: then
a label breaks (quote not found, ambiguous, unknown doc) although the text it spanned is usually
still there, moved or slightly edited. The old text is not lost — the corpus is in git, and the
manifest records the commit a build was made from — so each locator is resolved against the old
corpus, its old span taken, and that span looked for in the current corpus. What is safe to
rewrite is told apart from what a person must look at, one status per locator (``STATUSES``):

- ``kept``: the quote still resolves, to the same span text; ``kept-changed``: it resolves but the
  span's text changed around it (review: the label may mean something else now);
- ``requoted`` (same document) and ``moved`` (another one): the old span's text occurs exactly
  once, and a new quote (the old one when it still points there) expands to exactly it;
- ``edited``: the old text is gone, but a block of the current corpus is at least ``threshold``
  similar to it (``fuzz.ratio`` of rapidfuzz: the normalised Indel similarity of the two texts,
  1 − (insertions + deletions) / total length), best in the same document first; review it;
- ``ambiguous``: the old text (or the best match) occurs more than once — nothing is guessed;
  ``lost``: nothing reaches the threshold;
- ``fact-changed``: a ``kept-changed`` or ``edited`` label whose passage lost a token its record's
  ``expected_answer`` relies on (a number, version, code span, identifier or quoted string:
  ``answertokens.fact_change``) — however similar the texts, the answer may now be false; never
  written without ``--rewrite-fact-changed`` (``with_answer``).

Everything here is pure: texts in (doc ID → canonical text, old and new), ``Relocation`` values
out; ``golden-lsp migrate``, ``check``'s CI formats and the editor's quick fix all call
``Relocator``, so they give the same answer for the same locator. A new quote always comes from
the one quote picker (``quotepick.passage_quote``) and is kept only when ``resolve.span_at``
expands it to the passage found. Thousands of locators stay fast: every old passage is looked for
in all documents in one Aho–Corasick pass per document (``quoteindex``), and a fuzzy search
compares only the blocks sharing one of the passage's rarest words (an index per document, kept
per text: ``text/memo.py``), never every block of the corpus.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import NamedTuple

from ..core.corpus.index import Corpus
from ..core.engine import quoteindex
from ..core.labels.answertokens import FactChange, fact_change
from ..core.labels.quotepick import line_starts, passage_quote, unique_quote_at
from ..core.labels.resolve import Span, enclosing_block, occurrences, span_at
from ..core.text.memo import per_text

STATUSES = ("kept", "kept-changed", "moved", "requoted", "edited", "fact-changed", "ambiguous", "lost")
#: the statuses whose new ``doc`` and ``quote`` are written (``--write``, the quick fix)
REWRITTEN = ("moved", "requoted", "edited")
DEFAULT_THRESHOLD = 0.8
#: the rarest words of an old passage (present in the searched text) around whose places the
#: blocks compared with it are taken, and the most places a word may have to be one of them
RARE_WORDS, WORD_PLACES = 8, 50
#: below this similarity (0–1) a passage is not even named as the closest one of a lost label
_FLOOR = 0.5
#: the lines of a passage tried for a quote after the preferred place
_LINES_TRIED = 64
_WORD = re.compile(r"\w+")
_WORD_CHAR = re.compile(r"\w")


@dataclass(frozen=True)
class Relocation:
    """Where one locator goes: its status, its doc and quote before and after, and why."""

    status: str
    old_doc: str | None
    doc: str | None
    old_quote: str | None
    quote: str | None
    #: how similar the new span's text is to the old one's, 0–1 (None: nothing to compare)
    similarity: float | None = None
    #: why, for people
    note: str = ""
    #: the old span in the old text of ``old_doc`` (None: the locator did not resolve there)
    old_span: Span | None = None
    old_text: str | None = None
    #: the new span's text, when it differs from the old one's (kept-changed, edited)
    new_text: str | None = None
    #: fact-changed: what the passage lost of what the answer relies on, and the status it had
    fact: FactChange | None = None
    was: str | None = None

    @property
    def rewritten(self) -> bool:
        return self.status in REWRITTEN

    def writes(self, fact_changed: bool = False) -> bool:
        """Its new doc and quote are written: a rewritten status, or (``fact_changed``: the person
        asked for it) a fact-changed one that was."""
        return self.rewritten or (fact_changed and self.was in REWRITTEN)

    def summary(self) -> str:
        """A few words a person reads in a quick fix's title or a CI message."""
        pct = _pct(self.similarity) if self.similarity is not None else ""
        if self.status == "moved":
            return f"moved to {self.doc}"
        if self.status == "edited":
            where = f" in {self.doc}" if self.doc != self.old_doc else ""
            return f"edited, {pct} similar{where}"
        if self.status == "kept-changed":
            return f"kept, its span changed ({pct} similar)"
        if self.status == "fact-changed":
            return f"the answer's facts changed: {self.fact}"
        return self.status


class _Block(NamedTuple):
    doc: str
    start: int
    end: int


@per_text(4096)
def _word_counts(text: str) -> Counter[str]:
    """How many times each word (``\\w+``) occurs in a document."""
    return Counter(_WORD.findall(text))


def _pct(similarity: float) -> str:
    """A similarity for people, in whole per cent rounded down: 99.6 % is not "100 %"."""
    return f"{math.floor(round(similarity * 100, 6))} %"


class Relocator:
    """Relocates locators from the ``old`` corpus to the ``new`` one (doc ID → canonical text)."""

    def __init__(self, old: Mapping[str, str], new: Mapping[str, str], threshold: float = DEFAULT_THRESHOLD):
        self.old, self.new, self.threshold = old, new, threshold
        #: how many times each word occurs in the whole current corpus (counted when first needed)
        self._all_words: Counter[str] | None = None
        #: (doc, start of a line) → the block a quote on that line expands to
        self._blocks: dict[tuple[str, int], _Block] = {}

    def relocate(self, doc: str, quote: str, exact: bool = False) -> Relocation:
        return self.relocate_all([(doc, quote, exact)])[0]

    def relocate_all(self, locators: Sequence[tuple[str, str, bool]]) -> list[Relocation]:
        """One ``Relocation`` per (doc, quote, exact), in order; each depends on its locator alone."""
        pairs = [(doc, quote) for doc, quote, _ in locators]
        before, now = _first_places(self.old, pairs), _first_places(self.new, pairs)
        out: list[Relocation | None] = []
        pending: dict[int, Span] = {}
        for i, (doc, quote, exact) in enumerate(locators):
            found = self._without_search(doc, quote, exact, before, now)
            if isinstance(found, Span):
                pending[i] = found
                out.append(None)
            else:
                out.append(found)
        old_texts = {i: self.old[span.doc_id][span.start : span.end] for i, span in pending.items()}
        places = _everywhere(sorted(set(old_texts.values())), self.new)
        for i, span in pending.items():
            doc, quote, exact = locators[i]
            text = old_texts[i]
            out[i] = self._exactly(doc, quote, exact, span, text, places[text]) or self._closest(
                doc, quote, exact, span, text
            )
        return [r for r in out if r is not None]

    def _without_search(
        self, doc: str, quote: str, exact: bool, before: _Places, now: _Places
    ) -> Relocation | Span:
        """The relocation when no search is needed (kept, kept-changed, or nothing to relocate
        from), else the old span to look for (``before`` and ``now``: where each quote occurs)."""
        old_span, why = _resolve(self.old, doc, quote, exact, before, "the old corpus")
        new_span, _ = _resolve(self.new, doc, quote, exact, now, "the corpus now")
        if old_span is None:
            if new_span is not None:
                return Relocation("kept", doc, doc, quote, quote, None, f"{why}; it resolves now")
            return Relocation("lost", doc, None, quote, None, None, f"{why}: nothing to relocate from")
        old_text = self.old[doc][old_span.start : old_span.end]
        if new_span is None:
            return old_span
        new_text = self.new[doc][new_span.start : new_span.end]
        base = Relocation("kept", doc, doc, quote, quote, 1.0, "", old_span, old_text)
        if new_text == old_text:
            return base
        from rapidfuzz import fuzz  # imported when a label changed: a clean migration never pays for it

        similarity = fuzz.ratio(old_text, new_text) / 100
        return _with(
            base,
            "kept-changed",
            new_text=new_text,
            similarity=similarity,
            note=f"the quote resolves, but its span's text changed ({_pct(similarity)} similar): review it",
        )

    def _exactly(
        self, doc: str, quote: str, exact: bool, span: Span, text: str, places: dict[str, list[int]]
    ) -> Relocation | None:
        """requoted, moved or ambiguous when the old span's text occurs as it was; None when it
        occurs nowhere (or cannot be quoted where it does)."""
        base = Relocation("ambiguous", doc, None, quote, None, 1.0, "", span, text)
        here = places.get(doc, [])
        if len(here) > 1:
            return _with(base, note=f"the old span's text now occurs {_times(here)} in {doc}: fix it by hand")
        if len(here) == 1:
            targets = [(doc, here[0])]
        else:
            targets = [(d, s) for d, starts in places.items() for s in starts]
            if len(targets) > 1:
                docs = ", ".join(dict.fromkeys(d for d, _ in targets))
                return _with(base, note=f"the old span's text now occurs {_times(targets)} (in {docs})")
        if not targets:
            return None
        target, start = targets[0]
        new_quote = (
            quote
            if exact
            else _quote_for(
                target,
                self.new[target],
                start,
                start + len(text),
                start + span.quote_start - span.start,
                quote,
            )
        )
        if new_quote is None:
            return None
        status = "requoted" if target == doc else "moved"
        if status == "moved":
            how = "the quote kept" if new_quote == quote else "a new quote"
            note = f"the old span's text is now in {target} ({how})"
        else:
            note = "the old span's text is still here: a new unique quote inside it"
        return _with(base, status, doc=target, quote=new_quote, note=note)

    def _closest(self, doc: str, quote: str, exact: bool, span: Span, text: str) -> Relocation:
        """edited (the best block at least ``threshold`` similar, in ``doc`` first), ambiguous (two
        equally good) or lost."""
        base = Relocation("lost", doc, None, quote, None, None, "", span, text)
        needle = quote if exact else text
        words = set(_WORD.findall(needle))
        best: list[tuple[float, _Block, str]] = []
        here = _word_counts(self.new[doc]) if doc in self.new else Counter()
        if doc in self.new:
            best = self._ranked(needle, exact, self._near(words, [doc], here.__getitem__))
        if not best or best[0][0] < self.threshold:
            if self._all_words is None:
                self._all_words = Counter()
                for other in self.new.values():
                    self._all_words.update(_word_counts(other))
            everywhere = self._all_words
            others = [d for d in self.new if d != doc]
            elsewhere = self._near(words, others, lambda w: everywhere[w] - here[w])
            best = sorted(best + self._ranked(needle, exact, elsewhere), key=_best_first)[:2]
        if not best or best[0][0] < self.threshold:
            closest = ""
            if best:
                taken = math.floor(best[0][0] * 100) / 100  # the --threshold that takes it
                closest = (
                    f" (the closest, in {best[0][1].doc}, is {_pct(best[0][0])} similar: "
                    f"--threshold {taken:g} would take it as edited, for review)"
                )
            return _with(
                base,
                similarity=best[0][0] if best else None,
                note=f"no passage is {_pct(self.threshold)} similar to the old span{closest}",
            )
        score, block, new_quote = best[0]
        if len(best) > 1 and best[1][0] == score:
            return _with(base, "ambiguous", similarity=score, note=f"two passages are {_pct(score)} similar")
        if not exact:
            new_quote = self._edited_quote(quote, block) or ""
        if not new_quote:
            return _with(
                base,
                similarity=score,
                note=f"the closest passage ({_pct(score)} similar, in {block.doc}) has no unique quote",
            )
        moved = f" in {block.doc}" if block.doc != doc else ""
        return _with(
            base,
            "edited",
            doc=block.doc,
            quote=new_quote,
            new_text=self.new[block.doc][block.start : block.end],
            similarity=score,
            note=f"the old span's text is gone; a passage{moved} is {_pct(score)} similar: review it",
        )

    def _ranked(self, needle: str, exact: bool, blocks: Sequence[_Block]) -> list[tuple[float, _Block, str]]:
        """The two blocks most similar to ``needle`` (at least ``_FLOOR``), best first; for an
        exact locator each with the quote that matches it best there."""
        from rapidfuzz import fuzz  # imported only when a passage is gone

        floor = min(_FLOOR, self.threshold) * 100
        scored: list[tuple[float, _Block, str]] = []
        for block in blocks:
            text = self.new[block.doc]
            if exact:
                found = _exact_match(needle, text, block, floor)
                if found is not None:
                    scored.append((found[0], block, found[1]))
            elif score := fuzz.ratio(needle, text[block.start : block.end], score_cutoff=floor):
                scored.append((score / 100, block, ""))
        return sorted(scored, key=_best_first)[:2]

    def _edited_quote(self, old_quote: str, block: _Block) -> str | None:
        """A unique quote expanding to ``block``: the old quote when it still does, else the
        picker's at the place the old quote aligns with best."""
        from rapidfuzz import fuzz

        text = self.new[block.doc]
        aligned = fuzz.partial_ratio_alignment(old_quote, text[block.start : block.end])
        at = block.start + (aligned.dest_start if aligned is not None else 0)
        return _quote_for(block.doc, text, block.start, block.end, at, old_quote)

    def _near(self, words: set[str], docs: Sequence[str], count: Callable[[str], int]) -> list[_Block]:
        """The blocks around the places, in ``docs``, of the ``RARE_WORDS`` rarest of ``words``
        there (``count``: how often a word occurs in them); a word occurring more than
        ``WORD_PLACES`` times picks no block, being too common to tell passages apart."""
        ranked = sorted((n, -len(w), w) for w in words if len(w) > 2 and 0 < (n := count(w)) <= WORD_PLACES)
        found: set[_Block] = set()
        for *_, word in ranked[:RARE_WORDS]:
            for d in docs:
                text = self.new[d]
                if not _word_counts(text)[word]:
                    continue
                for at in occurrences(text, word, 4 * WORD_PLACES):
                    end = at + len(word)
                    if (at and _WORD_CHAR.match(text, at - 1)) or _WORD_CHAR.match(text, end):
                        continue  # inside a longer word
                    line = (d, text.rfind("\n", 0, at) + 1)  # every word of a line has the line's block
                    if line not in self._blocks:
                        self._blocks[line] = _Block(d, *enclosing_block(text, at, end)[:2])
                    found.add(self._blocks[line])
        return sorted(found)


def with_answer(r: Relocation, answer: str | None) -> Relocation:
    """``r``, or ``fact-changed`` when its passage changed and lost a token ``answer`` relies on."""
    if not answer or r.old_text is None or r.new_text is None:
        return r
    change = fact_change(answer, r.old_text, r.new_text)
    if change is None:
        return r
    return _with(
        r,
        "fact-changed",
        fact=change,
        was=r.status,
        note=f"the passage no longer says what the answer relies on ({change}): re-read it and the "
        f"record's expected_answer ({r.status}, {_pct(r.similarity or 0)} similar; --rewrite-fact-changed "
        "writes its new quote anyway)",
    )


def _best_first(scored: tuple[float, _Block, str]) -> tuple:
    return -scored[0], scored[1]


def _with(base: Relocation, status: str | None = None, **changes) -> Relocation:
    return dataclasses.replace(base, status=status or base.status, **changes)


def _times(places: Sequence) -> str:
    return "twice" if len(places) == 2 else f"{len(places)} times"


_Places = dict[tuple[str, str], list[int]]


def _first_places(texts: Mapping[str, str], pairs: Iterable[tuple[str, str]]) -> _Places:
    """The first two places of each (doc, quote) in its document: one Aho–Corasick pass per
    document for many quotes (``quoteindex``), ``str.find`` for a few."""
    by_doc: dict[str, set[str]] = {}
    for doc, quote in pairs:
        if doc in texts and quote:
            by_doc.setdefault(doc, set()).add(quote)
    out: _Places = {}
    for doc, quotes in by_doc.items():
        text = texts[doc]
        batched = (
            {q for q in quotes if quoteindex.batchable(q)} if len(quotes) >= quoteindex.MIN_QUOTES else set()
        )
        found = quoteindex.find_all(text, batched, 2) if batched else {}
        for quote in quotes:
            out[doc, quote] = found[quote] if quote in batched else occurrences(text, quote, 2)
    return out


def _resolve(
    texts: Mapping[str, str], doc: str, quote: str, exact: bool, places: _Places, where: str
) -> tuple[Span | None, str]:
    """The span of the locator in ``texts`` (``where``: "the old corpus"), or None and why not."""
    text = texts.get(doc)
    if text is None:
        return None, f"{doc} is not in {where}"
    if not quote:
        return None, "the quote is empty"
    starts = places[doc, quote]
    if len(starts) != 1:
        return None, f"the quote {'is not' if not starts else 'is ambiguous'} in {doc} in {where}"
    return span_at(doc, text, starts[0], quote, exact), ""


def _everywhere(needles: list[str], texts: Mapping[str, str]) -> dict[str, dict[str, list[int]]]:
    """Where each needle occurs in each text (the first two places per text): one Aho–Corasick pass
    per text for many needles, ``str.find`` for a few or for those too long for the automaton."""
    out: dict[str, dict[str, list[int]]] = {n: {} for n in needles}
    batched = [n for n in needles if quoteindex.batchable(n)] if len(needles) >= quoteindex.MIN_QUOTES else []
    automaton = quoteindex.build(batched)
    in_automaton = set(batched)
    alone = [n for n in needles if n not in in_automaton]
    for doc, text in texts.items():
        found = quoteindex.find_with(automaton, text, 2)
        found.update((n, occurrences(text, n, 2)) for n in alone)
        for needle, starts in found.items():
            if starts:
                out[needle][doc] = starts
    return out


def _quote_for(doc: str, text: str, lo: int, hi: int, at: int, keep: str | None) -> str | None:
    """A quote unique in ``text`` that expands to exactly [lo, hi): ``keep`` (the old quote) when it
    does, else the picker's best quote of the passage near ``at``, keeping the old quote's words
    where it can (``quotepick.passage_quote``: the same quote ``check``'s fix names for the same
    passage), else the best on each line of the passage; None when none does."""
    if keep:
        starts = occurrences(text, keep, 2)
        if len(starts) == 1 and _expands(doc, text, starts[0], keep) == (lo, hi):
            return keep
    best = passage_quote(text, lo, hi, near=at, prefer=keep or "")
    tried = set()
    each_line = (unique_quote_at(text, pos, lo, hi, prefer=keep or "") for pos in line_starts(text, lo, hi))
    for n, found in enumerate(chain([best], each_line)):
        if n > _LINES_TRIED:
            break
        if found is None or found in tried:
            continue
        tried.add(found)
        quote = text[found[0] : found[1]]
        if _expands(doc, text, found[0], quote) == (lo, hi):
            return quote
    return None


def _expands(doc: str, text: str, at: int, quote: str) -> tuple[int, int]:
    span = span_at(doc, text, at, quote, exact=False)
    return span.start, span.end


def _exact_match(quote: str, text: str, block: _Block, floor: float) -> tuple[float, str] | None:
    """For an exact locator: the words of ``block`` on one line most similar to its old quote, when
    unique in ``text``, and their similarity (0–1, ``fuzz.ratio``)."""
    from rapidfuzz import fuzz

    aligned = fuzz.partial_ratio_alignment(quote, text[block.start : block.end], score_cutoff=floor)
    if aligned is None:
        return None
    a, b = block.start + aligned.dest_start, block.start + aligned.dest_end
    while a > block.start and not text[a - 1].isspace():
        a -= 1
    while b < block.end and not text[b].isspace():
        b += 1
    new = text[a:b].strip()
    if not new or "\n" in new or len(occurrences(text, new, 2)) != 1:
        return None
    score = fuzz.ratio(quote, new) / 100
    return (score, new) if score * 100 >= floor else None


class _Texts(Mapping[str, str]):
    """doc ID → canonical text of a corpus's readable documents, each read when asked for (a
    released one read back, held while recently used: ``held.HELD``), none kept here."""

    def __init__(self, corpus: Corpus):
        self.docs = corpus.docs

    def __getitem__(self, doc_id: str) -> str:
        return self.docs[doc_id].text

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self.docs  # without reading it

    def __iter__(self) -> Iterator[str]:
        return iter(self.docs)

    def __len__(self) -> int:
        return len(self.docs)


def texts_of(corpus: Corpus) -> Mapping[str, str]:
    """doc ID → canonical text of every readable document of a corpus: the ``new`` of a
    ``Relocator``, read document by document (a lean corpus is not brought back into memory)."""
    return _Texts(corpus)
