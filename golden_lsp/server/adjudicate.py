"""The adjudication file in the editor: on a disagreement, one code action per annotator that takes
that annotator's labels (``practice.adjudication``).

A record written by ``golden-lsp adjudicate`` keeps every annotator's labels in
``meta.adjudication.labels``; the person resolving it reads them on the line and in hover, and
takes one with a single action — the record's ``locators`` (and ``unanswerable``, ``hop`` and
``expected_answer``) replaced by that annotator's, the rest of the record as it is. The edit
replaces the record on its own line and nothing else; writing new locators instead uses the
ordinary authoring aids (completion, anchor here, candidate passages).
"""

from __future__ import annotations

from lsprotocol import types

from ..core.check.rules import short
from ..core.findings.diagnostics import Range
from ..core.io.jsontext import dumps
from ..practice.adjudication import take
from .convert import to_lsp
from .view import View


def take_actions(view: View, first: int, last: int) -> list[types.CodeAction]:
    """ "Take <name>'s labels" for each annotator of each disagreement on lines first..last."""
    out = []
    for rec in view.analysis.records:
        if not first <= rec.line <= last or rec.record is None:
            continue
        meta = rec.record.value.get("meta")
        found = meta.get("adjudication") if isinstance(meta, dict) else None
        labels = found.get("labels") if isinstance(found, dict) else None
        if not isinstance(labels, dict):
            continue
        diagnostics = [
            to_lsp(view, d) for d in rec.result.diagnostics if d.code == "no-locators" and d.path == view.path
        ]
        start, end = rec.record.span
        where = view.range(Range.on_line(rec.line, start, end))
        for name, theirs in labels.items():
            if not isinstance(theirs, dict):
                continue
            new = take(rec.record.value, theirs)
            if new == rec.record.value:
                continue  # already taken
            out.append(
                types.CodeAction(
                    title=f"Take {short(str(name), 30)}'s labels: {_summary(theirs)}",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=diagnostics or None,
                    edit=types.WorkspaceEdit(changes={view.uri: [types.TextEdit(where, dumps(new))]}),
                )
            )
    return out


def _summary(labels: dict) -> str:
    if labels.get("unanswerable") is True:
        return "unanswerable"
    quotes = [loc.get("quote") for loc in labels.get("locators") or [] if isinstance(loc, dict)]
    shown = [repr(short(q, 40)) for q in quotes if isinstance(q, str)]
    return ", ".join(shown) if shown else "no locators"
