"""Find candidate passages: on a record with a query and no locators, the top five blocks.

Each action is "Anchor at <doc>:<line> — <first words>" and fills ``locators`` with a unique
quote at the start of that block (``candidates.CandidateIndex``, BM25 over the corpus's blocks).
It is a search aid: the author still reads the span before keeping the label.
"""

from __future__ import annotations

from lsprotocol import types

from ..assist.anchor import add_locator_edits
from ..assist.candidates import CandidateIndex
from ..core.rules import short
from ..core.search import SearchUnavailable
from .anchor import line_edits
from .view import View

TOP = 5
FIRST_WORDS = 8
INDEX = CandidateIndex()


def code_actions(view: View, request: types.Range) -> list[types.CodeAction]:
    out: list[types.CodeAction] = []
    for rec in view.records_in(request):
        record = rec.record
        if record is None or not record.query or not record.query.strip():
            continue
        if record.node.value.get("locators") != []:
            continue
        try:
            ranked = INDEX.rank(view.golden.corpus, record.query, TOP)
        except SearchUnavailable:
            return out
        for c in ranked:
            doc = view.golden.corpus.docs[c.doc_id]
            at = doc.positions.raw_position(c.start)[0] + 1
            words = short(" ".join(doc.text[c.start : c.end].split()[:FIRST_WORDS]), 60)
            edits = add_locator_edits(record, c.doc_id, c.quote)
            if edits is not None:  # always: ``locators`` is a list, the empty one
                out.append(
                    types.CodeAction(
                        f"Anchor at {c.doc_id}:{at} — {words}",
                        kind=types.CodeActionKind.Refactor,
                        edit=line_edits(view, rec.line, edits),
                    )
                )
    return out
