"""Quote → answer span: exact occurrence and the enclosing-block rule.

A locator resolves only when its quote occurs exactly once (every start position counts, so
overlapping repeats are ambiguous too); then the span grows to the table row, list item or
paragraph around it (SPEC §4), and the rule that applied is named so hover can show it. This is
the builder's semantics and nothing else: why a quote that does not resolve is missing is
``hints.py``'s business, and writing a quote that resolves is ``quotepick.py``'s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


def line_bounds(t: str, p: int) -> tuple[int, int]:
    """[start, end) of the line holding offset ``p``, its line break included."""
    return t.rfind("\n", 0, p) + 1, (t.find("\n", p) + 1) or len(t)


def enclosing_block(t: str, start: int, end: int) -> tuple[int, int, str]:
    """SPEC §4: the table row, list item or paragraph around [start, end)."""
    prev = t.rfind("\n\n", 0, start)
    block_lo = prev + 2 if prev != -1 else 0
    nxt = t.find("\n\n", end)
    block_hi = nxt + 1 if nxt != -1 else len(t)
    first_lo = line_bounds(t, start)[0]
    last_hi = line_bounds(t, max(start, end - 1))[1]
    if _TABLE_ROW.match(t[first_lo:last_hi]):
        return first_lo, last_hi, TABLE_ROW
    owner = None
    pos = first_lo
    while pos >= block_lo:
        ls, le = line_bounds(t, pos)
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
        ls, le = line_bounds(t, pos)
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
