"""Code actions: lengthen an ambiguous quote, take the corpus text for a near miss or a typo, name
the doc meant, re-anchor a label the corpus change broke (``reanchor.py``), rebuild.

Every edit replaces exactly one JSON string token — the quote, or the doc — with a correctly
escaped JSON string, so a fix can never touch another field or another line. The quotes come from
the one picker (``quotepick``), so they meet the quote policy: ``lengthen``, the best quote on the
line that holds the occurrence the author picked; for a quote not found, the finding's own
``replacements`` (the corpus text as it is, or the closest passage's best quote — offered, never
preferred, since the closest passage is a guess), the very ones ``check --format json`` gives as
``fix``. A doc the corpus does not hold gets one fix per close doc ID.
"""

from __future__ import annotations

import json

from lsprotocol import types

from ..core.check.rules import MAX_LISTED_OCCURRENCES, short
from ..core.findings.diagnostics import BROKEN_LABEL, Range
from ..core.goldenset.renames import renamed
from ..core.labels.quotepick import lengthen
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
        elif d.code == "unknown-doc":
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
    """The fixes of a quote not found as it is, each a quote the picker chose (the finding's
    ``replacements``, as ``check --format json`` gives them): "Use the corpus text" for a near
    miss (across a line break, one per line — the whole text would span lines, quote-multiline —
    the author choosing which half labels the answer), "Use the closest passage" for a typo."""
    resolved = _locator_at(view, line, d.range.column)
    if resolved is None:
        return []
    node = resolved.locator.quote_node
    lsp_diag = to_lsp(view, d)
    how = {"line break": "Use the corpus text on one line", "closest": "Use the closest passage"}
    return [
        types.CodeAction(
            title=f"{how.get(d.data.get('hint', ''), 'Use the corpus text')} at {where}: {short(text)!r}",
            kind=types.CodeActionKind.QuickFix,
            is_preferred=i == 0 and d.data.get("hint") != "closest",
            diagnostics=[lsp_diag],
            edit=_string_edit(view, line, node, text),
        )
        for i, (text, where) in enumerate(d.data["replacements"])
    ]


def _doc_actions(view: View, d, line: int) -> list[types.CodeAction]:
    """ "Change doc to <id>" for a doc the corpus does not hold: first, preferred, the document
    every quote labelled with it occurs once in (renamed without history: ``renames.renamed``,
    which reads the corpus, so only when asked for), then each doc ID close to it."""
    resolved = _locator_at(view, line, d.range.column, field="doc")
    if resolved is None:
        return []
    unknown = d.data.get("doc_id", resolved.locator.doc)
    target = renamed(view.golden.corpus, view.analysis, only=unknown).get(unknown)
    choices = [c for c in [target, *d.data.get("suggestions", [])] if c is not None]
    lsp_diag = to_lsp(view, d)
    return [
        types.CodeAction(
            title=f"Change doc to {doc_id!r}"
            + (" (every quote of it is there: renamed?)" if doc_id == target else ""),
            kind=types.CodeActionKind.QuickFix,
            is_preferred=doc_id == target or (target is None and len(choices) == 1),
            diagnostics=[lsp_diag],
            edit=_string_edit(view, line, resolved.locator.doc_node, doc_id),
        )
        for doc_id in dict.fromkeys(choices)
    ]
