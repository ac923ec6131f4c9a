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
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.uris import to_fs_path

from .. import __version__
from ..config import ConfigError
from . import actions, hover, navigation
from .convert import SOURCE, editor_counts, to_lsp
from .positions import Buffer
from .protocol import StrictProtocol, serve_stdio
from .view import View
from .workspace import GoldenSets, document_path

#: seconds of quiet after a keystroke in a questions file before re-analysing it
DEBOUNCE = 0.015
#: the same for a corpus chapter: re-chunking a large chapter per keystroke would queue work
CORPUS_DEBOUNCE = 0.05
STATUS_NOTIFICATION = "golden-lsp/status"
WATCHED = ("**/*.md", "**/golden-lsp.toml", "**/pyproject.toml", "**/*.jsonl", "**/*.json")
CONFIG_NAMES = ("golden-lsp.toml", "pyproject.toml")

log = logging.getLogger(__name__)


def _user_handler_only(method: str) -> Callable:
    @lsp_method(method)
    def forward(self: LanguageServerProtocol, params: Any):
        if (handler := self.fm.features.get(method)) is not None:
            yield handler, (params,), None
    return forward


class BufferedProtocol(StrictProtocol):
    """pygls' protocol minus its document store: golden-lsp keeps documents in its own buffers
    (``positions.Buffer``), so pygls would only hold and re-split a second copy per keystroke."""

    lsp_text_document__did_open = _user_handler_only(types.TEXT_DOCUMENT_DID_OPEN)
    lsp_text_document__did_change = _user_handler_only(types.TEXT_DOCUMENT_DID_CHANGE)
    lsp_text_document__did_close = _user_handler_only(types.TEXT_DOCUMENT_DID_CLOSE)


class GoldenServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("golden-lsp", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
                         protocol_cls=BufferedProtocol)
        self.buffers: dict[str, Buffer] = {}
        self.sets = GoldenSets()
        self.encoding: str = types.PositionEncodingKind.Utf16
        #: bumped whenever the corpus or config changes under the open documents
        self.generation = 0
        self._views: dict[str, tuple[int | None, int, View]] = {}
        self._timers: dict[object, asyncio.TimerHandle] = {}
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
        return document_path(fs) if fs else None

    def is_questions(self, uri: str) -> bool:
        path = self.path_of(uri)
        return path is not None and self.sets.is_questions_file(path)

    def view(self, uri: str) -> View | None:
        """The analysed view of an open questions file (analysed now if out of date)."""
        buf = self.buffers.get(uri)
        path = self.path_of(uri)
        if buf is None or path is None or not self.sets.is_questions_file(path):
            return None
        cached = self._views.get(uri)
        if cached and cached[0] == buf.version and cached[1] == self.generation:
            return cached[2]
        golden = self.sets.golden_set_for(path)
        view = View(uri, path, buf, golden, golden.check(buf.text, path))
        self._views[uri] = (buf.version, self.generation, view)
        return view

    def request_view(self, uri: str) -> View | None:
        """The view a request works on; None when the file cannot be analysed (the reason was
        published as its config-error diagnostic)."""
        try:
            return self.view(uri)
        except ConfigError:
            return None

    def forget(self, uri: str) -> None:
        self.buffers.pop(uri, None)
        self._views.pop(uri, None)

    def later(self, key: object, delay: float, fn: Callable, *args: Any) -> None:
        """Run ``fn(*args)`` after ``delay`` seconds, replacing what was pending under ``key``."""
        timer = self._timers.pop(key, None)
        if timer is not None:
            timer.cancel()

        def run() -> None:
            self._timers.pop(key, None)
            try:
                fn(*args)
            except Exception:
                self.log_error(f"{getattr(fn, '__name__', fn)} failed:\n{traceback.format_exc()}")

        self._timers[key] = asyncio.get_running_loop().call_later(delay, run)

    def schedule(self, uri: str, delay: float = DEBOUNCE) -> None:
        self.later(uri, delay, self.publish, uri)

    def publish(self, uri: str) -> None:
        if uri not in self.buffers:
            return
        try:
            view = self.view(uri)
        except ConfigError as exc:
            self._publish_config_error(uri, str(exc))
            return
        if view is None:
            return
        self._config_errors.pop(uri, None)
        diagnostics = [to_lsp(view, d) for d in view.analysis.diagnostics]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri, diagnostics, version=view.buffer.version))
        self.protocol.notify(STATUS_NOTIFICATION, {"uri": uri, **editor_counts(view.analysis)})

    def _publish_config_error(self, uri: str, message: str) -> None:
        buf = self.buffers[uri]
        diag = types.Diagnostic(types.Range(types.Position(0, 0), types.Position(0, 0)),
                                f"golden-lsp cannot check this file: {message}",
                                types.DiagnosticSeverity.Error, code="config-error", source=SOURCE)
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

    def corpus_buffer_changed(self, path: Path, text: str) -> None:
        if self.sets.buffer_changed(path, text):
            self.republish_all()

    def corpus_file_changed(self, path: Path) -> None:
        if self.sets.file_changed(path):
            self.republish_all()


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
        ls.sets.set_overrides(options.get("overrides"))


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
        ls.sets.set_overrides(settings.get("overrides", settings.get("config")))
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
        ls.corpus_buffer_changed(path, doc.text)


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
        ls.later(path, CORPUS_DEBOUNCE, ls.corpus_buffer_changed, path, buf.text)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
@guarded
def did_save(ls: GoldenServer, params: types.DidSaveTextDocumentParams) -> None:
    path = ls.path_of(params.text_document.uri)
    if path is not None and path.name in CONFIG_NAMES:
        ls.sets.reload()
        ls.republish_all()


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
@guarded
def did_close(ls: GoldenServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.forget(uri)
    path = ls.path_of(uri)
    if path is None:
        return
    if path in ls.sets.corpus_buffers:  # the unsaved text goes: the file on disk counts again
        ls.corpus_file_changed(path)
    if ls.sets.is_questions_file(path):
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
@guarded
def did_change_watched_files(ls: GoldenServer, params: types.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        path = ls.path_of(change.uri)
        if path is None:
            continue
        if path.name in CONFIG_NAMES:
            ls.sets.reload()
            ls.republish_all()
        elif path.suffix == ".md" and path not in ls.sets.corpus_buffers:
            ls.corpus_file_changed(path)
        elif path.suffix in (".json", ".jsonl") and ls.sets.is_derived_file(path):
            ls.republish_all()


@server.feature(types.TEXT_DOCUMENT_HOVER)
@guarded
def on_hover(ls: GoldenServer, params: types.HoverParams) -> types.Hover | None:
    view = ls.request_view(params.text_document.uri)
    target = view.target_at(params.position) if view else None
    return hover.hover(view, target) if target else None


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
@guarded
def on_definition(ls: GoldenServer, params: types.DefinitionParams) -> list[types.Location] | None:
    view = ls.request_view(params.text_document.uri)
    target = view.target_at(params.position) if view else None
    return navigation.definition(view, target) if target else None


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@guarded
def on_document_symbol(ls: GoldenServer, params: types.DocumentSymbolParams) -> list[types.DocumentSymbol] | None:
    view = ls.request_view(params.text_document.uri)
    return navigation.document_symbols(view) if view else None


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
@guarded
def on_code_action(ls: GoldenServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    view = ls.request_view(params.text_document.uri)
    return actions.code_actions(view, params.range) if view else None


def _questions_uri(ls: GoldenServer, args: tuple) -> str | None:
    """The questions file a command names, else the first open one."""
    if args and isinstance(args[0], str):
        return args[0]
    return next((u for u in ls.buffers if ls.is_questions(u)), None)


@server.command(actions.BUILD_COMMAND)
@guarded
def build(ls: GoldenServer, *args: Any) -> dict:
    """Build from the saved questions file, as CI will; unsaved edits are pointed out."""
    uri = _questions_uri(ls, args)
    path = ls.path_of(uri) if uri else None
    if path is None:
        return {"ok": False, "message": "no questions file to build"}
    try:
        golden = ls.sets.golden_set_for(path)
        if path.resolve() != golden.questions_path.resolve():
            return {"ok": False, "message": f"{path.name} is not the configured questions file of its set"}
        analysis, written = golden.build()
        unsaved = uri in ls.buffers and ls.buffers[uri].text != golden.read_questions()
    except ConfigError as exc:
        return {"ok": False, "message": str(exc)}
    counts = analysis.counts()
    message = (f"wrote {golden.config.artifact_path().name} ({counts['records']} records)" if written
               else f"nothing written: {counts['errors']} errors")
    if unsaved:
        message += " from the saved file; save to include your unsaved edits"
    ls.window_show_message(types.ShowMessageParams(
        types.MessageType.Info if written else types.MessageType.Error, f"golden-lsp: {message}"))
    ls.republish_all()
    return {"ok": written, "message": message}


@server.command("golden-lsp.check")
@guarded
def check(ls: GoldenServer, *args: Any) -> dict:
    uri = _questions_uri(ls, args)
    view = ls.request_view(uri) if uri else None
    if view is None:
        return {"records": 0, "errors": 0, "warnings": 0}
    return editor_counts(view.analysis)


def serve(tcp: tuple[str, int] | None = None) -> int:
    """Serve on stdio, or on ``tcp`` = (host, port) for debugging."""
    if tcp:
        server.start_tcp(*tcp)
        return 0
    return serve_stdio(server)
