"""Code actions: lengthen an ambiguous quote, take the corpus text for a near miss or a typo, name
the doc meant, re-anchor a label the corpus change broke (``reanchor.py``), rebuild.

Every edit replaces exactly one JSON string token — the quote, or the doc — with a correctly
escaped JSON string, so a fix can never touch another field or another line. The quotes come from
the picker (``quotepick``): ``lengthen``, the shortest extension on the line that is unique and
still points at the occurrence the author picked; ``quote_around``, the closest passage to a
typo'd quote as a quote (whole words, unique, on its line) — offered, never preferred, since the
closest passage is a guess. A doc the corpus does not hold gets one fix per close doc ID.
"""

from __future__ import annotations

import json

from lsprotocol import types

from ..core.check.rules import MAX_LISTED_OCCURRENCES, short
from ..core.findings.diagnostics import BROKEN_LABEL, Range
from ..core.labels.quotepick import lengthen, quote_around
from . import reanchor
from .convert import EDITOR_HINTS, to_lsp
from .reanchor import Reanchoring
from .view import View

BUILD_COMMAND = "golden-lsp.build"


def _string_edit(view: View, line: int, node, new_text: str) -> types.WorkspaceEdit:
    """Replace one JSON string token (a quote or a doc) with ``new_text``, escaped."""
    rng = view.range(Range.on_line(line, node.start, node.end))
    return types.WorkspaceEdit(
        changes={view.uri: [types.TextEdit(rng, json.dumps(new_text, ensure_ascii=False))]}
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
        elif d.code == "quote-not-found" and d.data.get("hint") == "closest":
            out.extend(_closest_action(view, d, line))
        elif d.code == "unknown-doc" and d.data.get("suggestions"):
            out.extend(_doc_actions(view, d, line))
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


def _locator_at(view: View, line: int, column: int, field: str = "quote"):
    """The locator on ``line`` whose quote (or doc) starts at ``column``."""
    rec = view.analysis.record_at(line)
    if rec is None:
        return None
    for resolved in rec.result.resolved:
        node = resolved.locator.quote_node if field == "quote" else resolved.locator.doc_node
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
        row, col = doc.positions.raw_position(at)
        why = (
            "the quote spans lines"
            if "\n" in quote
            else f"no quote on line {row + 1} holds this occurrence, occurs only once and has a word "
            "of its own"
        )
        actions.append(
            types.CodeAction(
                title=f"Lengthen to the occurrence at {row + 1}:{col + 1}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[lsp_diag],
                edit=_string_edit(view, line, resolved.locator.quote_node, new) if new is not None else None,
                disabled=types.CodeActionDisabled(why) if new is None else None,
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
                edit=_string_edit(view, line, node, text),
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
            edit=_string_edit(view, line, node, d.data["replacement"]),
        )
    ]


def _closest_action(view: View, d, line: int) -> list[types.CodeAction]:
    """ "Use the closest passage" for a quote not found as it is (a typo): the passage as a quote."""
    resolved = _locator_at(view, line, d.range.column)
    doc = view.golden.corpus.docs.get(d.data.get("doc_id", ""))
    where = d.related[0] if d.related else None
    if resolved is None or doc is None or where is None or where.offsets is None:
        return []
    found = quote_around(doc.text, *where.offsets)
    if found is None:
        return []
    quote = doc.text[found[0] : found[1]]
    row, col = doc.positions.raw_position(found[0])
    return [
        types.CodeAction(
            title=f"Use the closest passage at {row + 1}:{col + 1}: {short(quote)!r}",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[to_lsp(view, d)],
            edit=_string_edit(view, line, resolved.locator.quote_node, quote),
        )
    ]


def _doc_actions(view: View, d, line: int) -> list[types.CodeAction]:
    """ "Change doc to <id>" for each doc ID close to one the corpus does not hold."""
    resolved = _locator_at(view, line, d.range.column, field="doc")
    if resolved is None:
        return []
    suggestions = d.data["suggestions"]
    lsp_diag = to_lsp(view, d)
    return [
        types.CodeAction(
            title=f"Change doc to {doc_id!r}",
            kind=types.CodeActionKind.QuickFix,
            is_preferred=len(suggestions) == 1,
            diagnostics=[lsp_diag],
            edit=_string_edit(view, line, resolved.locator.doc_node, doc_id),
        )
        for doc_id in suggestions
    ]
