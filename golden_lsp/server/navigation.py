"""Go to definition (quote → the corpus span) and document symbols (one per record).

Definition answers "where does this label point?": the resolved span in the corpus file, or every
occurrence when the quote is ambiguous, so the author can pick one. The outline lists the golden
set as ``id — query`` so a 10,000-line file stays navigable.
"""

from __future__ import annotations

from lsprotocol import types
from pygls.uris import from_fs_path

from ..core.findings.diagnostics import Range, plural
from .hover import practice_summary
from .view import Target, View


def definition(view: View, target: Target) -> list[types.Location] | None:
    if target.kind not in ("quote", "doc") or target.locator is None:
        return None
    loc = target.locator.locator
    doc = view.golden.corpus.docs.get(loc.doc or "")
    if doc is None:
        return None
    uri = from_fs_path(str(doc.path))
    span = target.locator.span
    if target.kind == "doc":
        return [types.Location(uri, view.corpus_range(doc, 0, 0))]
    if span is not None:
        return [types.Location(uri, view.corpus_range(doc, span.start, span.end))]
    n = len(loc.quote or "")
    return [
        types.Location(uri, view.corpus_range(doc, at, at + n)) for at in target.locator.ambiguous_at
    ] or None


def document_symbols(view: View) -> list[types.DocumentSymbol]:
    symbols = []
    for rec in view.analysis.records:
        r = rec.record
        if r is None:
            continue
        name = f"{r.id or '?'} — {r.query or ''}".strip(" —") or "record"
        s, e = r.field_range("id")
        symbols.append(
            types.DocumentSymbol(
                name=name,
                kind=types.SymbolKind.Object,
                range=view.range(Range.on_line(rec.line, 0, r.node.end)),
                selection_range=view.range(Range.on_line(rec.line, s, e)),
                detail=" · ".join([r.hop, plural(len(r.locators), "locator"), *practice_summary(r)]),
            )
        )
    return symbols
