"""Inlay hints: each quote's resolution written after its closing ``"``.

A JSONL line is long and its quote usually sits off screen, so without hints the label is readable
only by hovering. The hint says in a few characters what the builder does with the quote —
``→ doc:line · rule · n chunks`` when it resolves, ``✗ not found`` / ``✗ 2×`` when it does not — and
only hints inside the requested range are made (editors ask for the visible lines).
"""

from __future__ import annotations

from lsprotocol import types

from ..core.model import ResolvedLocator
from ..core.rules import MAX_LISTED_OCCURRENCES
from .view import View


def label(view: View, resolved: ResolvedLocator) -> str | None:
    """The hint for one locator, None when there is nothing to say (a malformed locator)."""
    loc, span = resolved.locator, resolved.span
    if not loc.well_formed:
        return None
    corpus = view.golden.corpus
    if span is not None:
        line = corpus.docs[span.doc_id].positions.raw_position(span.start)[0] + 1
        n = len(resolved.chunks)
        return f"→ {span.doc_id}:{line} · {span.rule} · {n} chunk{'' if n == 1 else 's'}"
    if loc.doc in corpus.broken:
        return "✗ corpus file unreadable"
    if loc.doc not in corpus.docs:
        return "✗ unknown doc"
    if not loc.quote:
        return "✗ empty quote"
    if resolved.ambiguous_at:
        n = len(resolved.ambiguous_at)
        return f"✗ {n}×" if n <= MAX_LISTED_OCCURRENCES else f"✗ >{MAX_LISTED_OCCURRENCES}×"
    return "✗ not found"


def _before(a: types.Position, b: types.Position) -> bool:
    return (a.line, a.character) <= (b.line, b.character)


def inlay_hints(view: View, request: types.Range) -> list[types.InlayHint]:
    hints = []
    for rec in view.records_in(request):
        for resolved in rec.result.resolved:
            node = resolved.locator.quote_node
            text = label(view, resolved) if node is not None else None
            if text is None:
                continue
            pos = view.buffer.core_position(rec.line, node.end)
            if _before(request.start, pos) and _before(pos, request.end):
                hints.append(types.InlayHint(pos, text, padding_left=True))
    return hints
