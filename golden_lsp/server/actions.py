"""Code actions: lengthen an ambiguous quote, take the corpus text for a near miss, re-anchor a
label the corpus change broke (``reanchor.py``), rebuild.

Every edit replaces exactly one JSON string token — the quote — with a correctly escaped JSON
string, so a fix can never touch another field or another line. The lengthened quote comes from
``quotepick.lengthen``: the shortest whole-word extension that is unique and still points at the
occurrence the author picked.
"""

from __future__ import annotations

import json

from lsprotocol import types

from ..core.diagnostics import BROKEN_LABEL, Range
from ..core.quotepick import lengthen
from ..core.rules import MAX_LISTED_OCCURRENCES, short
from . import reanchor
from .convert import EDITOR_HINTS, to_lsp
from .reanchor import Reanchoring
from .view import View

BUILD_COMMAND = "golden-lsp.build"


def _quote_edit(view: View, line: int, node, new_quote: str) -> types.WorkspaceEdit:
    rng = view.range(Range.on_line(line, node.start, node.end))
    return types.WorkspaceEdit(
        changes={view.uri: [types.TextEdit(rng, json.dumps(new_quote, ensure_ascii=False))]}
    )


def code_actions(
    view: View, request: types.Range, reanchoring: Reanchoring | None = None
) -> list[types.CodeAction]:
    out: list[types.CodeAction] = []
    first, lo = view.buffer.core_location(request.start)
    last, hi = view.buffer.core_location(request.end)
    for d in view.analysis.diagnostics:
        line = d.range.line
        if d.path != view.path or not first <= line <= last:
            continue
        if (
            line == first == last
            and (d.range.end_column < lo or d.range.column > hi)
            and d.code not in EDITOR_HINTS
        ):
            continue
        if d.code in BROKEN_LABEL and reanchoring is not None:
            out.extend(reanchor.actions(view, d, reanchoring))
        if d.code == "quote-ambiguous":
            out.extend(_lengthen_actions(view, d, line))
        elif d.code == "quote-not-found" and "replacement" in d.data:
            out.extend(_replacement_action(view, d, line))
        elif d.code in EDITOR_HINTS:
            out.append(
                types.CodeAction(
                    title="Build the golden set (golden-lsp build)",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[to_lsp(view, d)],
                    command=types.Command("Build the golden set", BUILD_COMMAND, arguments=[view.uri]),
                )
            )
    return out


def _locator_at(view: View, line: int, column: int):
    rec = view.analysis.record_at(line)
    if rec is None:
        return None
    for resolved in rec.result.resolved:
        node = resolved.locator.quote_node
        if node is not None and node.start == column:
            return resolved
    return None


def _lengthen_actions(view: View, d, line: int) -> list[types.CodeAction]:
    resolved = _locator_at(view, line, d.range.column)
    if resolved is None:
        return []
    doc = view.golden.corpus.docs.get(resolved.locator.doc)
    if doc is None:
        return []
    quote = resolved.locator.quote
    lsp_diag = to_lsp(view, d)
    actions = []
    for at in resolved.ambiguous_at[:MAX_LISTED_OCCURRENCES]:
        new = lengthen(doc.text, quote, at)
        if new is None:
            continue
        row, col = doc.positions.raw_position(at)
        actions.append(
            types.CodeAction(
                title=f"Lengthen to the occurrence at {row + 1}:{col + 1}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[lsp_diag],
                edit=_quote_edit(view, line, resolved.locator.quote_node, new),
            )
        )
    return actions


def _replacement_action(view: View, d, line: int) -> list[types.CodeAction]:
    """ "Use the corpus text" for a near miss. Across a line break the whole text would be a quote
    spanning lines (quote-multiline), so each line's unique part is offered instead, the longest
    preferred: the author chooses which half labels the answer."""
    resolved = _locator_at(view, line, d.range.column)
    if resolved is None:
        return []
    node = resolved.locator.quote_node
    lsp_diag = to_lsp(view, d)
    if d.data.get("hint") == "line break":
        return [
            types.CodeAction(
                title=f"Use the corpus text on one line at {where}: {short(text)!r}",
                kind=types.CodeActionKind.QuickFix,
                is_preferred=i == 0,
                diagnostics=[lsp_diag],
                edit=_quote_edit(view, line, node, text),
            )
            for i, (text, where) in enumerate(d.data["replacements"])
        ]
    where = d.related[0].range if d.related else None
    at = f" at {where.line + 1}:{where.column + 1}" if where else ""
    return [
        types.CodeAction(
            title=f"Use the corpus text{at}",
            kind=types.CodeActionKind.QuickFix,
            is_preferred=True,
            diagnostics=[lsp_diag],
            edit=_quote_edit(view, line, node, d.data["replacement"]),
        )
    ]
