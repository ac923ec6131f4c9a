"""Core diagnostics → LSP diagnostics, the only translation between the CLI's and the editor's.

Codes, messages and severities are the CLI's own, with one editor-specific choice: a stale
artifact or manifest is a hint in the editor (with the build as its fix), because it is the
expected state while the author is still editing and only CI must refuse it.
"""

from __future__ import annotations

from lsprotocol import types

from ..model import Analysis
from ..diagnostics import Diagnostic, Severity
from .view import View

SOURCE = "golden-lsp"
EDITOR_HINTS = ("stale-artifact", "stale-manifest")
_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


def to_lsp(view: View, d: Diagnostic) -> types.Diagnostic:
    severity = types.DiagnosticSeverity.Hint if d.code in EDITOR_HINTS else _SEVERITY[d.severity]
    related = [types.DiagnosticRelatedInformation(view.related_location(r), r.message) for r in d.related]
    return types.Diagnostic(
        range=view.range(d.range) if d.path == view.path else types.Range(types.Position(0, 0), types.Position(0, 0)),
        message=d.message if d.path == view.path else f"{d.path}:{d.range.line + 1}:{d.range.column + 1}: {d.message}",
        severity=severity,
        code=d.code,
        source=SOURCE,
        related_information=related or None,
    )


class Converted:
    """Each questions file's last LSP diagnostics, kept with the core findings they came from.

    The engine hands back the very same ``Diagnostic`` object for a line whose text, number and
    documents did not change, so on a keystroke only the findings of the edited line (and the
    set-level ones) are converted again; a new corpus or position encoding converts everything.
    """

    def __init__(self) -> None:
        self._files: dict[str, tuple[object, str, dict[int, tuple[Diagnostic, types.Diagnostic]]]] = {}

    def diagnostics(self, view: View) -> list[types.Diagnostic]:
        corpus, encoding = view.golden.corpus, view.buffer.encoding
        kept = self._files.get(view.uri)
        before = kept[2] if kept is not None and kept[0] is corpus and kept[1] == encoding else {}
        now: dict[int, tuple[Diagnostic, types.Diagnostic]] = {}
        out = []
        for d in view.analysis.diagnostics:
            entry = before.get(id(d))
            if entry is None or entry[0] is not d:
                entry = d, to_lsp(view, d)
            now[id(d)] = entry
            out.append(entry[1])
        self._files[view.uri] = (corpus, encoding, now)
        return out

    def forget(self, uri: str) -> None:
        self._files.pop(uri, None)


def editor_counts(analysis: Analysis) -> dict[str, int]:
    """Records, errors and warnings as the editor shows them (stale-* are hints there)."""
    shown = [d.severity for d in analysis.diagnostics if d.code not in EDITOR_HINTS]
    return {"records": analysis.counts()["records"],
            "errors": shown.count(Severity.ERROR), "warnings": shown.count(Severity.WARNING)}
