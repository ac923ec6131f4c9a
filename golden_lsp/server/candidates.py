"""Find candidate passages: on a record with a query and no locators, the top five blocks.

Each action is "Anchor at <doc>:<line> — <first words>" and fills ``locators`` with a unique
quote at the start of that block (``candidates.CandidateIndex``, BM25 over the corpus's blocks).
It is a search aid: the author still reads the span before keeping the label. The index is made
on the first request (never in idle time: bm25s and numpy alone are ~100 MB a server that is never
asked would hold), a document at a time, holding no text.
"""

from __future__ import annotations

from lsprotocol import types

from ..assist.anchor import add_locator_edits
from ..assist.candidates import CandidateIndex
from ..core.check.rules import short
from ..core.corpus.search import SearchUnavailable
from ..core.labels.questions import QuestionRecord
from .anchor import line_edits
from .view import View

TOP = 5
FIRST_WORDS = 8
INDEX = CandidateIndex()


def offered(record: QuestionRecord | None) -> bool:
    """Whether candidate passages are offered on ``record``: it has a query and no locators yet."""
    if record is None or not record.query or not record.query.strip():
        return False
    return record.value.get("locators") == []  # the decoded line: its position tree is not walked


def code_actions(view: View, request: types.Range) -> list[types.CodeAction]:
    out: list[types.CodeAction] = []
    for rec in view.records_in(request):
        record = rec.record
        query = record.query if record is not None and offered(record) else None
        if record is None or not query:
            continue
        try:
            ranked = INDEX.rank(view.golden.corpus, query, TOP)
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
