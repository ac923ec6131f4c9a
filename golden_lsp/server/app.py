"""The language server: LSP requests wired to the core and to the feature modules.

This module only routes: it keeps the open buffers, schedules a debounced analysis per questions
file, republishes when a corpus document changes, and hands each request to ``hover``,
``navigation`` or ``actions`` with a ``View`` of the document. Every handler is guarded: an
exception is logged to the client and the server carries on.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import traceback
from pathlib import Path
from typing import Any, Callable

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__
from ..config import ConfigError
from . import actions, hover, navigation
from .convert import SOURCE, to_lsp
from .positions import Buffer
from .view import View
from .workspace import Workspace

#: seconds of quiet after a keystroke before re-analysing (keeps bursts from queueing work)
DEBOUNCE = 0.015
STATUS_NOTIFICATION = "golden-lsp/status"
WATCHED = ("**/*.md", "**/golden-lsp.toml", "**/pyproject.toml", "**/*.jsonl", "**/*.json")

log = logging.getLogger(__name__)


class GoldenServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("golden-lsp", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.buffers: dict[str, Buffer] = {}
        self.index = Workspace()
        self.encoding: str = types.PositionEncodingKind.Utf16
        #: bumped whenever the corpus or config changes under the open documents
        self.generation = 0
        self._views: dict[str, tuple[int | None, int, View]] = {}
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._config_errors: dict[str, str] = {}

    def report_server_error(self, error: Exception, source: Any) -> None:
        self.log_error(f"{type(error).__name__}: {error}")

    def log_error(self, message: str) -> None:
        try:
            self.window_log_message(types.LogMessageParams(types.MessageType.Error, f"golden-lsp: {message}"))
        except Exception:  # the client may be gone; never raise from the error path
            log.exception("cannot log to client")

    # --- documents ------------------------------------------------------------------------

    @staticmethod
    def path_of(uri: str) -> Path | None:
        fs = to_fs_path(uri)
        return Path(fs) if fs else None

    def is_questions(self, uri: str) -> bool:
        path = self.path_of(uri)
        return path is not None and self.index.is_questions_file(path)

    def view(self, uri: str) -> View | None:
        """The analysed view of an open questions file (analysed now if out of date)."""
        buf = self.buffers.get(uri)
        path = self.path_of(uri)
        if buf is None or path is None or not self.index.is_questions_file(path):
            return None
        cached = self._views.get(uri)
        if cached and cached[0] == buf.version and cached[1] == self.generation:
            return cached[2]
        golden = self.index.golden_set_for(path)
        view = View(uri, path, buf, golden, golden.check(buf.text, path))
        self._views[uri] = (buf.version, self.generation, view)
        return view

    def schedule(self, uri: str, delay: float = DEBOUNCE) -> None:
        timer = self._timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        loop = asyncio.get_running_loop()
        self._timers[uri] = loop.call_later(delay, self.publish, uri)

    def publish(self, uri: str) -> None:
        self._timers.pop(uri, None)
        if uri not in self.buffers:
            return
        try:
            view = self.view(uri)
        except ConfigError as exc:
            self._publish_config_error(uri, str(exc))
            return
        except Exception:
            self.log_error(f"analysis of {uri} failed:\n{traceback.format_exc()}")
            return
        if view is None:
            return
        self._config_errors.pop(uri, None)
        diagnostics = [to_lsp(view, d) for d in view.analysis.diagnostics]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri, diagnostics, version=view.buffer.version))
        self.protocol.notify(STATUS_NOTIFICATION, {"uri": uri, **status(view, diagnostics)})

    def _publish_config_error(self, uri: str, message: str) -> None:
        buf = self.buffers[uri]
        diag = types.Diagnostic(types.Range(types.Position(0, 0), types.Position(0, 0)),
                                f"golden-lsp cannot check this file: {message}",
                                types.DiagnosticSeverity.Error, code="corpus-error", source=SOURCE)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, [diag], version=buf.version))
        self.protocol.notify(STATUS_NOTIFICATION, {"uri": uri, "records": 0, "errors": 1, "warnings": 0})
        if self._config_errors.get(uri) != message:
            self._config_errors[uri] = message
            self.window_show_message(types.ShowMessageParams(types.MessageType.Warning, f"golden-lsp: {message}"))

    def republish_all(self) -> None:
        self.generation += 1
        for uri in list(self.buffers):
            if self.is_questions(uri):
                self.schedule(uri, 0)

    def corpus_text_changed(self, path: Path, text: str | None) -> None:
        if self.index.corpus_changed(path, text):
            self.republish_all()


def status(view: View, diagnostics: list[types.Diagnostic]) -> dict[str, int]:
    """Counts as the editor shows them (a stale artifact is a hint there, not an error)."""
    severities = [d.severity for d in diagnostics]
    return {"records": view.analysis.counts()["records"],
            "errors": severities.count(types.DiagnosticSeverity.Error),
            "warnings": severities.count(types.DiagnosticSeverity.Warning)}


server = GoldenServer()


def guarded(fn: Callable) -> Callable:
    """Log any exception to the client and answer ``None``: the server never dies on input."""
    if asyncio.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def run_async(ls: GoldenServer, *args: Any) -> Any:
            try:
                return await fn(ls, *args)
            except Exception:
                ls.log_error(f"{fn.__name__} failed:\n{traceback.format_exc()}")
                return None
        return run_async

    @functools.wraps(fn)
    def run(ls: GoldenServer, *args: Any) -> Any:
        try:
            return fn(ls, *args)
        except Exception:
            ls.log_error(f"{fn.__name__} failed:\n{traceback.format_exc()}")
            return None
    return run


@server.feature(types.INITIALIZE)
@guarded
def initialize(ls: GoldenServer, params: types.InitializeParams) -> None:
    ls.encoding = ls.workspace.position_encoding or types.PositionEncodingKind.Utf16
    options = params.initialization_options or {}
    if isinstance(options, dict):
        ls.index.set_overrides(options.get("overrides"))


@server.feature(types.INITIALIZED)
@guarded
async def initialized(ls: GoldenServer, params: types.InitializedParams) -> None:
    caps = ls.client_capabilities.workspace
    watched = caps.did_change_watched_files if caps else None
    if watched and watched.dynamic_registration:
        await ls.client_register_capability_async(types.RegistrationParams([types.Registration(
            "golden-lsp-watch", types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            types.DidChangeWatchedFilesRegistrationOptions([types.FileSystemWatcher(g) for g in WATCHED]))]))


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
@guarded
def did_change_configuration(ls: GoldenServer, params: types.DidChangeConfigurationParams) -> None:
    settings = params.settings if isinstance(params.settings, dict) else {}
    settings = settings.get("goldenLsp", settings)
    if isinstance(settings, dict) and ("overrides" in settings or "config" in settings):
        ls.index.set_overrides(settings.get("overrides", settings.get("config")))
        ls.republish_all()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
@guarded
def did_open(ls: GoldenServer, params: types.DidOpenTextDocumentParams) -> None:
    doc = params.text_document
    ls.buffers[doc.uri] = Buffer(doc.text, doc.version, ls.encoding)
    path = ls.path_of(doc.uri)
    if ls.is_questions(doc.uri):
        ls.schedule(doc.uri, 0)
    elif path is not None and path.suffix == ".md":
        ls.index.corpus_buffers[path] = doc.text
        ls.corpus_text_changed(path, doc.text)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
@guarded
def did_change(ls: GoldenServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    buf = ls.buffers.get(uri)
    if buf is None:
        return
    for change in params.content_changes:
        buf.apply(change)
    buf.version = params.text_document.version
    path = ls.path_of(uri)
    if ls.is_questions(uri):
        ls.schedule(uri)
    elif path is not None and path.suffix == ".md":
        ls.index.corpus_buffers[path] = buf.text
        ls.corpus_text_changed(path, buf.text)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
@guarded
def did_save(ls: GoldenServer, params: types.DidSaveTextDocumentParams) -> None:
    if ls.is_questions(params.text_document.uri):
        ls.republish_all()  # the saved file may be another set's artifact input


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
@guarded
def did_close(ls: GoldenServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.buffers.pop(uri, None)
    ls._views.pop(uri, None)
    path = ls.path_of(uri)
    if path is not None and ls.index.corpus_buffers.pop(path, None) is not None:
        ls.corpus_text_changed(path, _read_text(path))
    if path is not None and ls.index.is_questions_file(path):
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))


def _read_text(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
@guarded
def did_change_watched_files(ls: GoldenServer, params: types.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        path = ls.path_of(change.uri)
        if path is None:
            continue
        if path.name in ("golden-lsp.toml", "pyproject.toml"):
            ls.index.reload()
        elif path.suffix == ".md" and path not in ls.index.corpus_buffers:
            gone = change.type == types.FileChangeType.Deleted
            ls.index.corpus_changed(path, None if gone else _read_text(path))
    ls.republish_all()


@server.feature(types.TEXT_DOCUMENT_HOVER)
@guarded
def on_hover(ls: GoldenServer, params: types.HoverParams) -> types.Hover | None:
    view = ls.view(params.text_document.uri)
    target = view.target_at(params.position) if view else None
    return hover.hover(view, target) if target else None


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
@guarded
def on_definition(ls: GoldenServer, params: types.DefinitionParams) -> list[types.Location] | None:
    view = ls.view(params.text_document.uri)
    target = view.target_at(params.position) if view else None
    return navigation.definition(view, target) if target else None


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@guarded
def on_document_symbol(ls: GoldenServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol] | None:
    view = ls.view(params.text_document.uri)
    return navigation.document_symbols(view) if view else None


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
@guarded
def on_code_action(ls: GoldenServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    view = ls.view(params.text_document.uri)
    return actions.code_actions(view, params.range) if view else None


def _questions_uri(ls: GoldenServer, args: tuple) -> str | None:
    """The questions file a command names, else the first open one."""
    if args and isinstance(args[0], str):
        return args[0]
    return next((u for u in ls.buffers if ls.is_questions(u)), None)


@server.command(actions.BUILD_COMMAND)
@guarded
def build(ls: GoldenServer, *args: Any) -> dict:
    uri = _questions_uri(ls, args)
    path = ls.path_of(uri) if uri else None
    if path is None:
        return {"ok": False, "message": "no questions file to build"}
    try:
        golden = ls.index.golden_set_for(path)
        text = ls.buffers[uri].text if uri in ls.buffers else None
        if path.resolve() != golden.questions_path.resolve():
            return {"ok": False, "message": f"{path.name} is not the configured questions file of its set"}
        analysis, written = golden.build(text)
    except ConfigError as exc:
        return {"ok": False, "message": str(exc)}
    counts = analysis.counts()
    message = (f"wrote {golden.config.artifact_path().name} ({counts['records']} records)" if written
               else f"nothing written: {counts['errors']} errors")
    ls.window_show_message(types.ShowMessageParams(
        types.MessageType.Info if written else types.MessageType.Error, f"golden-lsp: {message}"))
    ls.republish_all()
    return {"ok": written, "message": message}


@server.command("golden-lsp.check")
@guarded
def check(ls: GoldenServer, *args: Any) -> dict:
    uri = _questions_uri(ls, args)
    view = ls.view(uri) if uri else None
    if view is None:
        return {"records": 0, "errors": 0, "warnings": 0}
    return status(view, [to_lsp(view, d) for d in view.analysis.diagnostics])


def serve(tcp: str | None = None) -> int:
    if tcp:
        host, _, port = tcp.rpartition(":")
        server.start_tcp(host or "127.0.0.1", int(port))
    else:
        server.start_io()
    return 0
