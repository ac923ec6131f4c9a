"""The corpus side: who labels this passage — code lenses, hover and references.

In a chapter nothing shows which text is already labelled, so an author cannot see that a passage
is labelled twice or not at all. Every golden set containing the chapter has analysed questions
files (open, or read from disk), and each analysis indexes its resolved spans by document
(``Analysis.spans_by_doc``); these features only read that index, and all three name the same
records for a block (table row, list item, paragraph): every record whose span overlaps it — an
``exact`` quote's span inside a paragraph as well as the paragraph's own. A code lens above each
labelled block names its records (clicking it opens the record), a hover on a block lists them
with their queries, and references — from a block in the corpus or from a quote in a questions
file — list every record whose span overlaps.
"""

from __future__ import annotations

from lsprotocol import types

from ..core.check.model import LabelledSpan
from ..core.labels.resolve import enclosing_block, line_bounds
from .markup import Markup
from .view import CorpusView, Source, View

OPEN_RECORD_COMMAND = "golden-lsp.openRecord"


def record_location(view: View, span: LabelledSpan) -> types.Location:
    """Where a labelled span's record states it: its quote in the questions file (a span is
    resolved from a quote: the start of the record's line stands in for none)."""
    node = span.locator.locator.quote_node
    start, end = (node.start, node.end) if node is not None else (0, 0)
    return view.location(span.record.line, start, end)


def record_name(span: LabelledSpan) -> str:
    record = span.record.record
    return record.id if record is not None and record.id else f"line {span.record.line + 1}"


def record_argument(view: View, span: LabelledSpan) -> dict:
    """A record as a command argument: its file and line (positions are made only when opened)."""
    return {"uri": view.uri, "line": span.record.line}


def open_record_location(view: View, line: int) -> types.Location | None:
    """Where ``golden-lsp.openRecord`` puts the cursor: the record's first quote, else its start."""
    rec = view.analysis.record_at(line)
    if rec is None or rec.record is None:
        return None
    node = next((r.locator.quote_node for r in rec.result.resolved if r.locator.quote_node is not None), None)
    return view.location(line, node.start, node.end) if node is not None else view.location(line, 0, 0)


def _block_at(text: str, offset: int) -> tuple[int, int] | None:
    """[start, end) of the block (table row, list item, paragraph) holding ``offset``; None on a
    blank line."""
    offset = min(offset, max(len(text) - 1, 0))
    ls, le = line_bounds(text, offset)
    if not text[ls:le].strip():
        return None
    lo, hi, _ = enclosing_block(text, offset, offset + 1)
    return lo, hi


def _blocks_over(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The blocks [start, end) overlaps, in order (one for a span a quote expanded to; an exact
    span may cross several)."""
    out: list[tuple[int, int]] = []
    pos = start
    while pos < max(end, start + 1) and pos < len(text):
        block = _block_at(text, pos)
        line_end = line_bounds(text, pos)[1]
        if block is not None and block not in out:
            out.append(block)
        pos = max(line_end, block[1] if block is not None else 0)
    return out


def _labelled(cv: CorpusView, lo: int, hi: int) -> list[tuple[Source, View, LabelledSpan]]:
    """Every span overlapping the block [lo, hi), with its set's document and questions file."""
    return [
        (source, view, span)
        for source in cv.sources
        for view in source.views
        for span in view.analysis.spans_overlapping(source.doc.doc_id, lo, hi)
    ]


def code_lenses(cv: CorpusView) -> list[types.CodeLens]:
    doc = cv.sources[0].doc
    blocks = {
        block
        for source in cv.sources
        for view in source.views
        for span in view.analysis.spans_by_doc.get(source.doc.doc_id, ())
        for block in _blocks_over(doc.text, span.start, span.end)
    }
    by_line: dict[int, list[tuple[View, LabelledSpan]]] = {}
    for lo, hi in sorted(blocks):
        line = doc.positions.raw_position(lo)[0]
        by_line.setdefault(line, []).extend((view, span) for _, view, span in _labelled(cv, lo, hi))
    lenses = []
    for line, labelled in by_line.items():
        names = list(dict.fromkeys(record_name(span) for _, span in labelled))
        title = f"labelled by {', '.join(names)}"
        where = list(
            {(view.uri, span.record.line): record_argument(view, span) for view, span in labelled}.values()
        )
        at = types.Range(types.Position(line, 0), types.Position(line, 0))
        lenses.append(types.CodeLens(at, types.Command(title, OPEN_RECORD_COMMAND, arguments=where)))
    return lenses


def corpus_hover(cv: CorpusView, pos: types.Position, mu: Markup) -> types.Hover | None:
    """The records labelling the block at ``pos``, one row each with its query."""
    doc = cv.sources[0].doc
    block = _block_at(doc.text, cv.offset(doc, pos))
    rows: dict[tuple[str, int], str] = {}
    for _, view, span in _labelled(cv, *block) if block is not None else ():
        record = span.record.record
        query = f" — {mu.em(record.query)}" if record is not None and record.query else ""
        rule = f", {span.locator.span.rule}" if span.locator.span is not None else ""
        key = (view.uri, span.record.line)
        if key not in rows:
            rows[key] = (
                f"- {mu.code(record_name(span))}{query} ({view.path.name}:{span.record.line + 1}{rule})"
            )
    if block is None or not rows:
        return None
    n = len(rows)
    text = f"{mu.strong(f'labelled by {n} record' + ('' if n == 1 else 's'))}\n\n" + "\n".join(rows.values())
    lo, hi = block
    return types.Hover(mu.content(text), cv.range(doc, lo, hi - (doc.text[hi - 1] == "\n")))


def corpus_references(cv: CorpusView, pos: types.Position) -> list[types.Location]:
    """Every record whose span overlaps the block (table row, list item, paragraph) at ``pos``."""
    doc = cv.sources[0].doc
    block = _block_at(doc.text, cv.offset(doc, pos))
    return [record_location(view, span) for _, view, span in _labelled(cv, *block)] if block else []


def quote_references(views: list[View], target, include_declaration: bool) -> list[types.Location] | None:
    """Every record of the set whose span overlaps the span of the quote under the cursor."""
    if target is None or target.kind != "quote" or target.locator is None or target.locator.span is None:
        return None
    span = target.locator.span
    out = []
    for view in views:
        for other in view.analysis.spans_overlapping(span.doc_id, span.start, span.end):
            if not include_declaration and other.locator is target.locator:
                continue
            out.append(record_location(view, other))
    return out
