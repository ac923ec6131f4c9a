"""What one document says about one quote: everything the rules need that reads the document's text.

Resolving a locator reads its document in a few places — where the quote occurs, the block
around its one occurrence, how much text that span holds, why a missing quote is missing, and
the editor positions of all of those. ``QuoteFacts`` is exactly that, computed here from the
text and nowhere else, so the rules (``rules.py``) work from facts alone. That is what lets a
cold check compute the facts one document at a time (``docindex``: in this process or in
workers) and let go of each document's text before reading the next (the CLI holds one document
at a time, not the corpus), and lets the warm cache (``diskcache``) keep the facts themselves, so
a re-run over an unchanged corpus needs no document text at all. Facts are plain values of one
document's content (and, for positions, of its raw form): the same on every path, by construction.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from enum import Enum
from typing import Final

from .anycase import INDEX_FROM
from .hints import PREPARED_TEXTS as _HINTS_PREPARED
from .hints import Hint, not_found_hint, prepare_hints
from .quotepick import passage_quote, quote_around
from .quotepolicy import INDEXED_TEXTS, acceptable, prepare_quotes
from .resolve import enclosing_block, occurrences

#: every ``hints.Hint.kind``
HINT_KINDS = ("line break", "whitespace", "typography", "normalisation", "case", "closest")


class _Unset(Enum):
    UNSET = "unset"


#: ``QuoteFacts.hint`` before anyone looked (a quote that occurs needs no hint)
_UNSET: Final = _Unset.UNSET


@dataclass(frozen=True, slots=True)
class QuoteFacts:
    """One quote in one document."""

    #: its first start offsets (at most the limit it was found with)
    starts: tuple[int, ...]
    #: for a quote occurring once: (start, end, rule) of the enclosing block (SPEC §4)
    block: tuple[int, int, str] | None = None
    #: for a quote occurring once: the stripped length of the exact span and of the block
    exact_chars: int = 0
    block_chars: int = 0
    #: for a quote occurring once: the block's text (what ``check/meaning`` reads and the passages
    #: file digests, so neither needs the document's text back)
    block_text: str = ""
    #: for a quote occurring nowhere: why, for the author (None when nothing is close)
    hint: Hint | None = None
    #: for a quote occurring nowhere: the quotes a fix may write instead — [start, end) of each and
    #: its text, best first (``fixes_for``: one for each line of a "line break", else one)
    fixes: tuple[tuple[int, int], ...] = ()
    fix_texts: tuple[str, ...] = ()
    #: canonical offset → (line, column) in the raw file, for every offset a finding shows
    positions: dict[int, tuple[int, int]] | None = None

    def position(self, offset: int) -> tuple[int, int]:
        positions = self.positions
        assert positions is not None  # a finding shows offsets of facts that keep their positions
        return positions[offset]


#: (doc_id, quote) → the quote's facts in that document, found ahead of time for many quotes
Found = dict[tuple[str, str], QuoteFacts]


def quote_facts(
    text: str,
    raw_position,
    quote: str,
    limit: int,
    starts: list[int] | None = None,
    hint: Hint | _Unset | None = _UNSET,
) -> QuoteFacts:
    """The facts of ``quote`` in the canonical ``text`` (``raw_position``: the document's
    ``PositionMap.raw_position``). ``starts`` and ``hint`` may come from a batch search of the
    whole document; they are computed here when not given."""
    if starts is None:
        starts = occurrences(text, quote, limit)
    if len(starts) == 1:
        start = starts[0]
        end = start + len(quote)
        lo, hi, rule = enclosing_block(text, start, end)
        block = text[lo:hi]
        return QuoteFacts((start,), (lo, hi, rule), len(text[start:end].strip()), len(block.strip()), block)
    if starts:
        offsets = {o for s in starts[: limit - 1] for o in (s, s + len(quote))}
        return QuoteFacts(tuple(starts), positions={o: raw_position(o) for o in offsets})
    if hint is _UNSET:
        hint = not_found_hint(text, quote)
    if hint is None:
        return QuoteFacts(())
    fixes = fixes_for(text, quote, hint)
    offsets = {hint.start, hint.end, *(o for fix in fixes for o in fix)}
    return QuoteFacts(
        (),
        hint=hint,
        fixes=fixes,
        fix_texts=tuple(text[a:b] for a, b in fixes),
        positions={o: raw_position(o) for o in offsets},
    )


#: a document shorter than this is not worth preparing: a quote not found there costs a few ms
#: without its indexes (one pass in lower case, its words found one by one)
PREPARE_FROM = INDEX_FROM
#: how many documents ``prepare`` may keep prepared at once
PREPARED_TEXTS = min(_HINTS_PREPARED, INDEXED_TEXTS)


def prepare(text: str) -> Generator[None, None, None]:
    """Build, a step of a few ms at a time (yielding between steps), what makes the facts of a quote
    not found in a large ``text`` cheaper — its hint's case index, its fix's word index — so a
    keystroke that breaks a quote there costs ms: the language server runs the steps in idle
    time, and a keystroke waits for one step at most. The facts are the same without them."""
    if len(text) >= PREPARE_FROM:
        yield from prepare_hints(text)
        yield from prepare_quotes(text)


def fixes_for(text: str, quote: str, hint: Hint) -> tuple[tuple[int, int], ...]:
    """The quotes a fix of the missing ``quote`` may write, all from the one picker and so meeting
    the quote policy: for the closest passage, the best quote of its block (keeping the missing
    quote's words where it can: ``migrate`` writes the same one for the same passage); for the same
    words with other white space, quotes, case or normalisation, those words as the corpus has
    them when they make a good quote, else the best quote holding them; for words across a line
    break, one such quote on each line."""
    if hint.kind == "closest":
        lo, hi, _ = enclosing_block(text, hint.start, hint.start + 1)
        found = passage_quote(text, lo, hi, near=hint.start, prefer=quote)
        return () if found is None else (found,)
    places = hint.parts if hint.kind == "line break" else ((hint.start, hint.end),)
    out = []
    for a, b in places:
        found = (a, b) if acceptable(text, a, b) else quote_around(text, a, b, prefer=quote)
        if found is not None and found not in out:
            out.append(found)
    return tuple(out)
