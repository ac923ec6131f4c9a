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


def editor_counts(analysis: Analysis) -> dict[str, int]:
    """Records, errors and warnings as the editor shows them (stale-* are hints there)."""
    shown = [d.severity for d in analysis.diagnostics if d.code not in EDITOR_HINTS]
    return {"records": analysis.counts()["records"],
            "errors": shown.count(Severity.ERROR), "warnings": shown.count(Severity.WARNING)}
