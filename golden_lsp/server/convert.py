"""Core diagnostics → LSP diagnostics, the only translation between the CLI's and the editor's.

Codes, messages and severities are the CLI's own, with one editor-specific choice: a stale
artifact or manifest is a hint in the editor (with the build as its fix), because it is the
expected state while the author is still editing and only CI must refuse it. A finding sits in
the file the CLI names: the set's findings in a chapter or the config go to that file, not to the
questions file (``Converted.elsewhere``). What was converted
is kept per file (``Converted``), as LSP objects and as JSON text, so a keystroke converts and
serialises only the findings that changed.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from lsprotocol import types
from pygls.uris import from_fs_path

from ..core.check.model import Analysis
from ..core.corpus.index import Corpus
from ..core.engine.analysis import changed_docs
from ..core.findings.diagnostics import Diagnostic, Severity
from ..core.io.shown import shown
from .view import View

SOURCE = "golden-lsp"
EDITOR_HINTS = ("stale-artifact", "stale-manifest")
_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


def to_lsp(view: View, d: Diagnostic, related_information: bool = True) -> types.Diagnostic:
    """The LSP diagnostic of a finding, in the questions file of ``view`` or in the file it sits in
    (a chapter, the config: the set's findings, at a line's start); its related locations only
    for a client that takes them."""
    severity = types.DiagnosticSeverity.Hint if d.code in EDITOR_HINTS else _SEVERITY[d.severity]
    related = [
        types.DiagnosticRelatedInformation(view.related_location(r), shown(r.message))
        for r in (d.related if related_information else ())
    ]
    r = d.range
    return types.Diagnostic(
        range=view.range(r)
        if d.path == view.path
        else types.Range(types.Position(r.line, r.column), types.Position(r.end_line, r.end_column)),
        message=shown(d.message),
        severity=severity,
        code=d.code,
        source=SOURCE,
        related_information=related or None,
    )


class Converted:
    """Each questions file's last LSP diagnostics, kept with the core findings they came from.

    The engine hands back the very same ``Diagnostic`` object for a line whose text, number and
    documents did not change, so on a keystroke only the findings of the edited lines (and the
    set-level ones that changed) are converted again; after a corpus edit, only the findings
    pointing into a changed document; a new position encoding converts everything. Each kept
    diagnostic also keeps its JSON text (``encode``, made when first sent), so a push or a pull
    sends the cached parts as they are instead of serialising hundreds of diagnostics per keystroke.
    """

    def __init__(self, encode: Callable[[types.Diagnostic], str]) -> None:
        self._encode = encode
        #: the client takes related information (set once, at ``initialize``)
        self.related_information = True
        #: uri → (corpus, encoding, id(core finding) → [finding, LSP diagnostic, JSON text or None])
        self._files: dict[str, tuple[Corpus, str, dict[int, list]]] = {}
        #: uri → its findings' entries that sit in other files, by the URI of each such file
        self._placed: dict[str, dict[str, list[list]]] = {}

    def _entries(self, view: View) -> list[list]:
        """The entries of the findings of ``view`` that sit in its own file (those that sit in
        another are kept apart, ``elsewhere``)."""
        own: list[list] = []
        placed: dict[str, list[list]] = {}
        for entry in self._all_entries(view):
            d = entry[0]
            if d.path == view.path:
                own.append(entry)
            else:
                placed.setdefault(from_fs_path(str(d.path)) or str(d.path), []).append(entry)
        self._placed[view.uri] = placed
        return own

    def elsewhere(self, view: View) -> dict[str, list[str]]:
        """The JSON texts of the findings of ``view`` that sit in other files (a chapter, the
        config), by the URI of each, as of the last ``encoded`` of ``view``."""
        out = {}
        for uri, entries in self._placed.get(view.uri, {}).items():
            for entry in entries:
                if entry[2] is None:
                    entry[2] = self._encode(entry[1])
            out[uri] = [e[2] for e in entries]
        return out

    def _all_entries(self, view: View) -> list[list]:
        corpus, encoding = view.golden.corpus, view.buffer.encoding
        kept = self._files.get(view.uri)
        before = kept[2] if kept is not None and kept[1] == encoding else {}
        changed = changed_docs(kept[0], corpus) if kept is not None and kept[0] is not corpus else set()
        now: dict[int, list] = {}
        out = []
        for d in view.analysis.diagnostics:
            entry = before.get(id(d))
            if (
                entry is None
                or entry[0] is not d
                or (changed and any(r.doc_id in changed for r in d.related))
            ):
                entry = [d, to_lsp(view, d, self.related_information), None]
            now[id(d)] = entry
            out.append(entry)
        self._files[view.uri] = (corpus, encoding, now)
        return out

    def encoded(self, view: View) -> str:
        """The JSON text of the list of ``view``'s LSP diagnostics."""
        entries = self._entries(view)
        for entry in entries:
            if entry[2] is None:
                entry[2] = self._encode(entry[1])
        return f"[{', '.join(e[2] for e in entries)}]"

    def publish_params(self, view: View) -> str:
        """The JSON text of the ``textDocument/publishDiagnostics`` params of ``view``."""
        version = "" if view.buffer.version is None else f', "version": {view.buffer.version}'
        return f'{{"uri": {json.dumps(view.uri)}, "diagnostics": {self.encoded(view)}{version}}}'

    def forget(self, uri: str) -> None:
        self._files.pop(uri, None)
        self._placed.pop(uri, None)


def full_report(result_id: str, items: str) -> str:
    """The JSON text of a full ``textDocument/diagnostic`` report (a pull) of the diagnostics
    ``items`` (``Converted.encoded``)."""
    return f'{{"kind": "full", "resultId": {json.dumps(result_id)}, "items": {items}}}'


def editor_counts(analysis: Analysis) -> dict[str, int]:
    """Records, errors and warnings as the editor shows them (stale-* are hints there)."""
    shown = [d.severity for d in analysis.diagnostics if d.code not in EDITOR_HINTS]
    return {
        "records": analysis.counts()["records"],
        "errors": shown.count(Severity.ERROR),
        "warnings": shown.count(Severity.WARNING),
    }
