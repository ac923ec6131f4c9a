"""New labels written by golden-lsp: the quote for a place in the corpus, and the JSON that holds it.

"Anchor here" (from a selection or a paragraph in a chapter) and "Find candidate passages" (from a
ranked block) both end by writing a quote into the questions file. The quote is the picker's
(``quotepick``, so it meets the quote policy): the best quote inside the selection, else — the
selected words are too few or repeat elsewhere — the best one around the whole selection inside its
block; always on the selection's first line, inside the block around its start, so the span a
builder expands it to is that block and contains the place the author pointed at. When there is
none, ``no_anchor_reason`` says why, for the editor to show instead of silence. The edits are
computed on the line's text with the parsed record's source ranges, so they touch exactly the
characters they mean to.
"""

from __future__ import annotations

import json

from ..core.labels.questions import QuestionRecord
from ..core.labels.quotepick import no_quote_reason, quote_around, unique_quote_at
from ..core.labels.resolve import enclosing_block


def _place(text: str, start: int, end: int | None) -> tuple[int, int, int, int]:
    """The place a selection (or, ``end`` None or not after ``start``, the cursor) points at:
    start, end (past start) and the block around start."""
    start = min(start, max(len(text) - 1, 0))
    lo, hi, _ = enclosing_block(text, start, start + 1)
    return start, end if end is not None and end > start else start, lo, hi


def quote_at(text: str, start: int, end: int | None = None, answer: str = "") -> str | None:
    """The picker's quote for the selection [start, end), or the cursor at ``start`` in its block:
    inside the selection, else around it inside its block (sharing what it can with the record's
    expected ``answer``); None when there is none."""
    start, end, lo, hi = _place(text, start, end)
    found = unique_quote_at(text, start, start, end, answer, passage=(lo, hi)) if end > start else None
    if found is None:
        found = quote_around(text, start, max(end, start + 1), lo, hi)
    return None if found is None else text[found[0] : found[1]]


def no_anchor_reason(text: str, start: int, end: int | None = None) -> str:
    """Why ``quote_at`` finds no quote for the same place."""
    start, end, lo, hi = _place(text, start, end)
    return no_quote_reason(text, start, max(end, start + 1), lo, hi)


def locator_json(doc_id: str, quote: str) -> str:
    return json.dumps({"doc": doc_id, "quote": quote}, ensure_ascii=False)


def new_record_line(record_id: str, doc_id: str, quote: str) -> str:
    """A record for the author to complete: empty query and answer, one locator, single hop."""
    return json.dumps(
        {
            "id": record_id,
            "query": "",
            "expected_answer": "",
            "locators": [{"doc": doc_id, "quote": quote}],
            "hop": "single",
        },
        ensure_ascii=False,
    )


def add_locator_edits(record: QuestionRecord, doc_id: str, quote: str) -> list[tuple[int, int, str]] | None:
    """Column edits (start, end, new text) on the record's line appending a locator, and turning
    ``hop`` to multi when the record gains its second span; None when ``locators`` is not a list.
    A record without the member is like one with an empty list: the member is added."""
    item = locator_json(doc_id, quote)
    if "locators" not in record.node.members:
        end = record.node.end - 1
        return [(end, end, f'{", " if record.node.members else ""}"locators": [{item}]')]
    node = record.node.members["locators"][1]
    if not isinstance(node.value, list):
        return None
    edits = (
        [(node.items[-1].end, node.items[-1].end, ", " + item)]
        if node.items
        else [(node.start, node.end, f"[{item}]")]
    )
    if node.items and record.hop != "multi":
        edits.append(field_edit(record, "hop", "multi"))
    return edits


def field_edit(record: QuestionRecord, name: str, value: object) -> tuple[int, int, str]:
    """The column edit on the record's line setting the member ``name`` to ``value``: its value
    replaced when present, else the member appended before the closing brace."""
    text = json.dumps(value, ensure_ascii=False)
    if name in record.node.members:
        node = record.node.members[name][1]
        return (node.start, node.end, text)
    end = record.node.end - 1
    return (end, end, f"{', ' if record.node.members else ''}{json.dumps(name)}: {text}")
