"""New labels written by golden-lsp: the quote for a place in the corpus, and the JSON that holds it.

"Anchor here" (from a selection or a paragraph in a chapter) and "Find candidate passages" (from a
ranked block) both end by writing a quote into the questions file. The quote is the shortest
whole-word text around the place the author pointed at that is unique in the document and on one
line (``quotepick.unique_quote_at``), and it is kept only when the span a builder expands it to
contains that place — a quote is a pointer, and a pointer elsewhere would be a silent mislabel.
The edits are computed on the line's text with the parsed record's source ranges, so they touch
exactly the characters they mean to.
"""

from __future__ import annotations

import json

from ..core.questions import QuestionRecord
from ..core.quotepick import unique_quote_at
from ..core.resolve import enclosing_block, span_at


def quote_at(doc_id: str, text: str, start: int, end: int | None = None) -> str | None:
    """A unique quote inside the selection [start, end), or inside the block around ``start`` when
    the selection is empty, whose span contains ``start``; None when there is none."""
    start = min(start, max(len(text) - 1, 0))
    if end is None or end <= start:
        lo, hi, _ = enclosing_block(text, start, start + 1)
    else:
        lo, hi = start, end
    found = unique_quote_at(text, start, lo, hi)
    if found is None:
        return None
    quote = text[found[0] : found[1]]
    span = span_at(doc_id, text, found[0], quote, exact=False)
    return quote if span.start <= start < span.end else None


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
    ``hop`` to multi when the record gains its second span; None when ``locators`` is not a list."""
    node = record.node.members.get("locators", (None, None))[1]
    if node is None or not isinstance(node.value, list):
        return None
    item = locator_json(doc_id, quote)
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
