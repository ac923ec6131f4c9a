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

from dataclasses import dataclass
from enum import Enum
from typing import Final

from .hints import Hint, not_found_hint
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
    #: for a quote occurring nowhere: why, for the author (None when nothing is close)
    hint: Hint | None = None
    #: for a "line break" hint: the text of each of ``hint.parts``
    part_texts: tuple[str, ...] = ()
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
        return QuoteFacts((start,), (lo, hi, rule), len(text[start:end].strip()), len(text[lo:hi].strip()))
    if starts:
        offsets = {o for s in starts[: limit - 1] for o in (s, s + len(quote))}
        return QuoteFacts(tuple(starts), positions={o: raw_position(o) for o in offsets})
    if hint is _UNSET:
        hint = not_found_hint(text, quote)
    if hint is None:
        return QuoteFacts(())
    offsets = {hint.start, hint.end, *(o for part in hint.parts for o in part)}
    return QuoteFacts(
        (),
        hint=hint,
        part_texts=tuple(text[a:b] for a, b in hint.parts),
        positions={o: raw_position(o) for o in offsets},
    )
