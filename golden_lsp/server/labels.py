"""The corpus side: who labels this passage — code lenses, hover and references.

In a chapter nothing shows which text is already labelled, so an author cannot see that a passage
is labelled twice or not at all. Every golden set containing the chapter has analysed questions
files (open, or read from disk), and each analysis indexes its resolved spans by document
(``Analysis.spans_by_doc``); these features only read that index: a code lens above each
labelled block naming its records (clicking it opens the record), a hover listing the records
and their queries, and references — from a block in the corpus or from a quote in a questions
file — listing every record whose span overlaps.
"""

from __future__ import annotations

from lsprotocol import types

from ..core.model import LabelledSpan
from ..core.resolve import enclosing_block
from .view import CorpusView, View

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


def code_lenses(cv: CorpusView) -> list[types.CodeLens]:
    by_line: dict[int, list[tuple[View, LabelledSpan]]] = {}
    for source in cv.sources:
        for view in source.views:
            for span in view.analysis.spans_by_doc.get(source.doc.doc_id, ()):
                line = source.doc.positions.raw_position(span.start)[0]
                by_line.setdefault(line, []).append((view, span))
    lenses = []
    for line, labelled in sorted(by_line.items()):
        names = list(dict.fromkeys(record_name(span) for _, span in labelled))
        title = f"labelled by {', '.join(names)}"
        where = [record_argument(view, span) for view, span in labelled]
        at = types.Range(types.Position(line, 0), types.Position(line, 0))
        lenses.append(types.CodeLens(at, types.Command(title, OPEN_RECORD_COMMAND, arguments=where)))
    return lenses


def corpus_hover(cv: CorpusView, pos: types.Position) -> types.Hover | None:
    rows, at = [], None
    for source in cv.sources:
        offset = cv.offset(source.doc, pos)
        for view in source.views:
            for span in view.analysis.spans_overlapping(source.doc.doc_id, offset, offset):
                record = span.record.record
                query = f" — *{record.query}*" if record is not None and record.query else ""
                rule = f", {span.locator.span.rule}" if span.locator.span is not None else ""
                rows.append(f"- `{record_name(span)}`{query} ({view.path.name}:{span.record.line + 1}{rule})")
                at = at or cv.range(source.doc, span.start, span.end)
    if not rows:
        return None
    n = len(rows)
    text = f"**labelled by {n} record{'' if n == 1 else 's'}**\n\n" + "\n".join(rows)
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text), at)


def corpus_references(cv: CorpusView, pos: types.Position) -> list[types.Location]:
    """Every record whose span overlaps the block (table row, list item, paragraph) at ``pos``."""
    out = []
    for source in cv.sources:
        offset = cv.offset(source.doc, pos)
        lo, hi, _ = enclosing_block(source.doc.text, offset, min(offset + 1, len(source.doc.text)))
        for view in source.views:
            out += [
                record_location(view, span)
                for span in view.analysis.spans_overlapping(source.doc.doc_id, lo, hi)
            ]
    return out


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
