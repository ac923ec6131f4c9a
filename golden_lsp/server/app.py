"""The language server: LSP requests wired to the core and to the feature modules.

This module only routes: it keeps the open buffers, schedules a debounced analysis per questions
file, republishes when a corpus document changes, and hands each request to a feature module
(``hover``, ``navigation``, ``actions``, ``inlay``, ``labels``, ``anchor``, ``completion``,
``candidates``, ``symbols``) with a ``View`` of a questions file or a ``CorpusView`` of a chapter.
Diagnostics are pulled (``textDocument/diagnostic``) by clients that support it and pushed to the
others. Every handler is guarded: an exception is logged to the client and the server carries on.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import traceback
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.uris import from_fs_path, to_fs_path

from .. import __version__
from ..core.config import ConfigError
from ..core.diagnostics import plural
from ..core.hints import PREPARED_TEXTS
from ..core.hints import prepare_hints as prepare_document_hints
from ..core.project import GoldenSet
from . import actions, anchor, candidates, completion, hover, inlay, labels, navigation, progress, symbols
from .convert import SOURCE, Converted, editor_counts
from .positions import Buffer
from .protocol import Encoded, StrictProtocol, serve_stdio
from .view import CorpusView, Source, View
from .watch import CorpusWatcher
from .workspace import GoldenSets, document_path

#: seconds of quiet after a keystroke in a questions file before re-analysing it: changes sent
#: together (a paste, several cursors) arrive within it; a keystroke's analysis costs a few ms
DEBOUNCE = 0.005
#: the same for a corpus chapter: long enough to take a burst of key repeats as one edit (the
#: republish runs on the loop, so keys typed while it runs are applied together afterwards and
#: work never queues up); every millisecond of it is latency of the republish
#: the pause before each document ``prepare_hints`` prepares (requests go first)
HINTS_IDLE = 0.005
CORPUS_DEBOUNCE = 0.02
STATUS_NOTIFICATION = "golden-lsp/status"
REPORT_COMMAND = "golden-lsp.report"
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
        super().__init__(
            "golden-lsp",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=BufferedProtocol,
        )
        self.buffers: dict[str, Buffer] = {}
        #: the LSP form of each file's last diagnostics (a keystroke converts its line's only)
        self.converted = Converted(self.protocol.encode)
        self.sets = GoldenSets()
        self.encoding: str = types.PositionEncodingKind.Utf16
        #: bumped whenever the corpus or config changes under the open documents
        self.generation = 0
        self._views: dict[str, tuple[int | None, int, View]] = {}
        self._timers: dict[object, asyncio.TimerHandle] = {}
        self._config_errors: dict[str, str] = {}
        #: the server's own watch over corpus folders, when the client watches no files
        self.watcher: CorpusWatcher | None = None
        #: views of questions files that are not open, from their saved text: path → (key, view)
        self._disk_views: dict[Path, tuple[tuple, View]] = {}
        #: the core line the author last edited in each open questions file ("Add as locator to")
        self.last_edited: dict[str, int] = {}
        self.inlay_hints_enabled = True
        #: the client pulls diagnostics (textDocument/diagnostic); else they are pushed
        self.pull_diagnostics = False
        self._tasks: set[asyncio.Future] = set()
        #: open questions files analysed with changed spans since their last publish (the labels a
        #: chapter shows changed: its code lenses are refreshed)
        self._labels_changed: set[str] = set()

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
        view = View(uri, path, buf, golden, golden.check(buf.lines, path))
        self._views[uri] = (buf.version, self.generation, view)
        if view.analysis.spans_changed:
            self._labels_changed.add(uri)
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
        self.converted.forget(uri)
        self.last_edited.pop(uri, None)
        self._labels_changed.discard(uri)

    def disk_view(self, golden: GoldenSet, path: Path) -> View:
        """A questions file that is not open, analysed from its saved text (re-read when it changes)."""
        st = path.stat()
        key = (self.generation, st.st_mtime_ns, st.st_size, id(golden), id(golden.corpus))
        cached = self._disk_views.get(path)
        if cached is None or cached[0] != key:
            text = golden.read_questions(path)
            view = View(
                from_fs_path(str(path)),
                path,
                Buffer(text, None, self.encoding),
                golden,
                golden.check(text, path),
            )
            cached = self._disk_views[path] = key, view
        return cached[1]

    def questions_view(self, uri: str) -> View | None:
        """The view of a questions file, open or saved; None when it cannot be analysed."""
        if uri in self.buffers:
            return self.request_view(uri)
        path = self.path_of(uri)
        if path is None or not path.is_file() or not self.sets.is_questions_file(path):
            return None
        try:
            return self.disk_view(self.sets.golden_set_for(path), path)
        except (ConfigError, OSError):
            return None

    def set_views(self, golden: GoldenSet) -> list[View]:
        """The analysed questions files of a set: each open one, and its configured one from disk."""
        views, seen = [], set()
        for uri in list(self.buffers):
            path = self.path_of(uri)
            if path is None or not self.sets.is_questions_file(path):
                continue
            try:
                if self.sets.golden_set_for(path) is golden and (view := self.view(uri)) is not None:
                    views.append(view)
                    seen.add(path.resolve())
            except ConfigError:
                continue
        home = golden.questions_path
        if home.resolve() not in seen and home.is_file():
            try:
                views.append(self.disk_view(golden, home))
            except (ConfigError, OSError):
                pass
        return views

    def all_views(self) -> list[View]:
        """The analysed questions files of every golden set the server knows."""
        for uri in list(self.buffers):  # every open questions file's set is known
            if self.is_questions(uri):
                self.request_view(uri)
        return [v for golden in self.sets.known() for v in self.set_views(golden)]

    def corpus_view(self, uri: str) -> CorpusView | None:
        """An open corpus file with, per golden set containing it, the set's analysed questions."""
        buf = self.buffers.get(uri)
        path = self.path_of(uri)
        if buf is None or path is None or path.suffix != ".md":
            return None
        if self.sets.corpus_buffers.get(path) != buf.text:  # an edit still in its debounce
            self.corpus_buffer_changed(path, buf.text)
        sources = []
        for golden in self.sets.sets_containing(path):
            doc = golden.corpus.docs.get(golden.corpus.doc_id_for(path) or "")
            if doc is not None:
                sources.append(Source(doc, self.set_views(golden)))
        return CorpusView(uri, path, buf, sources) if sources else None

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

    def background(self, work: Coroutine) -> None:
        """Run a coroutine on the server's loop, keeping a reference until it is done."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

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
        if self.watcher is not None:
            self.watcher.watch(self.sets.corpus_roots())
        if not self.pull_diagnostics:
            self.protocol.notify_encoded(
                types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, self.converted.publish_params(view)
            )
        self.protocol.notify(
            STATUS_NOTIFICATION,
            {"uri": uri, **editor_counts(view.analysis), "corpus": str(view.golden.corpus.root)},
        )
        if uri in self._labels_changed:
            self._labels_changed.discard(uri)
            if any(self.path_of(u) in self.sets.corpus_buffers for u in self.buffers):
                self.refresh(code_lens=True)  # the labels a chapter shows changed

    @staticmethod
    def config_error_diagnostic(message: str) -> types.Diagnostic:
        return types.Diagnostic(
            types.Range(types.Position(0, 0), types.Position(0, 0)),
            f"golden-lsp cannot check this file: {message}",
            types.DiagnosticSeverity.Error,
            code="config-error",
            source=SOURCE,
        )

    async def first_publish(self, uri: str) -> None:
        """The first analysis of a set not indexed yet, reported as work-done progress."""
        path = self.path_of(uri)

        def work() -> str | None:
            self.publish(uri)
            try:
                golden = self.sets.golden_set_for(path)
            except ConfigError:  # published as the file's config-error
                return None
            self.prepare_hints(golden)
            return f"{len(golden.corpus.docs)} documents, {golden.corpus.n_chunks} chunks"

        try:
            await progress.with_progress(self, "golden-lsp", f"indexing the corpus of {path.name}", work)
        except Exception:
            self.log_error(f"indexing for {uri} failed:\n{traceback.format_exc()}")

    def prepare_hints(self, golden: GoldenSet) -> None:
        """In idle time after a set's first analysis, one document per turn of the event loop (a
        request waits for one document at most), build what a keystroke's not-found hint needs
        (``resolve.prepare_hints``): the largest documents first, as many as are kept."""
        docs = sorted(golden.corpus.docs.values(), key=lambda d: -d.chars)[:PREPARED_TEXTS]

        def step() -> None:
            while docs:
                doc = docs.pop(0)
                if golden.corpus.docs.get(doc.doc_id) is doc:  # not replaced by an edit since
                    prepare_document_hints(doc.text)
                    break
            if docs:
                self.later(("prepare", id(golden)), HINTS_IDLE, step)

        self.later(("prepare", id(golden)), HINTS_IDLE, step)

    def _publish_config_error(self, uri: str, message: str) -> None:
        buf = self.buffers[uri]
        if not self.pull_diagnostics:
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri, [self.config_error_diagnostic(message)], version=buf.version
                )
            )
        self.protocol.notify(STATUS_NOTIFICATION, {"uri": uri, "records": 0, "errors": 1, "warnings": 0})
        if self._config_errors.get(uri) != message:
            self._config_errors[uri] = message
            self.window_show_message(
                types.ShowMessageParams(types.MessageType.Warning, f"golden-lsp: {message}")
            )

    def republish_all(self) -> None:
        self.generation += 1
        for uri in list(self.buffers):
            if self.is_questions(uri):
                self.schedule(uri, 0)
        self.refresh(diagnostics=True, inlay_hints=True, code_lens=True)

    def refresh(self, diagnostics: bool = False, inlay_hints: bool = False, code_lens: bool = False) -> None:
        """Ask the client to re-request what it shows, for each kind it supports refreshing."""
        caps = self.client_capabilities.workspace if self.client_capabilities else None
        wanted = (
            (diagnostics and self.pull_diagnostics, "diagnostics", types.WORKSPACE_DIAGNOSTIC_REFRESH),
            (inlay_hints, "inlay_hint", types.WORKSPACE_INLAY_HINT_REFRESH),
            (code_lens, "code_lens", types.WORKSPACE_CODE_LENS_REFRESH),
        )
        for on, name, method in wanted:
            support = getattr(caps, name, None) if caps else None
            if on and support is not None and support.refresh_support:
                self.protocol.send_request(method, None)

    def corpus_buffer_changed(self, path: Path, text: str) -> None:
        if self.sets.buffer_changed(path, text):
            self.republish_all()

    def corpus_file_changed(self, path: Path) -> None:
        if self.sets.file_changed(path):
            self.republish_all()

    def files_changed(self, paths: list[Path | None]) -> None:
        """Files changed on disk, as the client's or the server's own watcher reported them."""
        for path in paths:
            if path is None:
                continue
            if path.name in CONFIG_NAMES:
                self.sets.reload()
                self.republish_all()
            elif path.suffix == ".md" and path not in self.sets.corpus_buffers:
                self.corpus_file_changed(path)
            elif path.suffix in (".json", ".jsonl") and self.sets.is_derived_file(path):
                self.republish_all()

    def watch_status(self, message: str, ok: bool) -> None:
        if ok:
            self.window_log_message(types.LogMessageParams(types.MessageType.Info, f"golden-lsp: {message}"))
        else:
            self.log_error(message)


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
        if isinstance(options.get("inlayHints"), bool):
            ls.inlay_hints_enabled = options["inlayHints"]
    text_caps, workspace_caps = params.capabilities.text_document, params.capabilities.workspace
    # pull only from a client the server can ask to pull again when the corpus changes (Neovim
    # pulls but declares no workspace/diagnostic/refresh: it is pushed to)
    refresh = workspace_caps.diagnostics if workspace_caps else None
    ls.pull_diagnostics = (
        text_caps is not None
        and text_caps.diagnostic is not None
        and refresh is not None
        and bool(refresh.refresh_support)
    )


@server.feature(types.INITIALIZED)
@guarded
async def initialized(ls: GoldenServer, params: types.InitializedParams) -> None:
    caps = ls.client_capabilities.workspace
    watched = caps.did_change_watched_files if caps else None
    if watched and watched.dynamic_registration:
        await ls.client_register_capability_async(
            types.RegistrationParams(
                [
                    types.Registration(
                        "golden-lsp-watch",
                        types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        types.DidChangeWatchedFilesRegistrationOptions(
                            [types.FileSystemWatcher(g) for g in WATCHED]
                        ),
                    )
                ]
            )
        )
    else:
        ls.watcher = CorpusWatcher(
            asyncio.get_running_loop(), functools.partial(on_watched, ls), ls.watch_status
        )


@guarded
def on_watched(ls: GoldenServer, paths: list[str]) -> None:
    """A batch of changes seen by the server's own watcher."""
    ls.files_changed([document_path(p) for p in paths])


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
@guarded
def did_change_configuration(ls: GoldenServer, params: types.DidChangeConfigurationParams) -> None:
    settings = params.settings if isinstance(params.settings, dict) else {}
    settings = settings.get("goldenLsp", settings)
    if isinstance(settings, dict) and isinstance(settings.get("inlayHints"), bool):
        ls.inlay_hints_enabled = settings["inlayHints"]
        ls.refresh(inlay_hints=True)
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
        if ls.sets.is_loaded(path):
            ls.schedule(doc.uri, 0)
        else:
            ls.background(ls.first_publish(doc.uri))
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
        change = params.content_changes[-1] if params.content_changes else None
        if isinstance(change, types.TextDocumentContentChangePartial):
            ls.last_edited[uri] = buf.core_location(change.range.start)[0]
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
    ls.files_changed([ls.path_of(change.uri) for change in params.changes])


@server.feature(types.TEXT_DOCUMENT_HOVER)
@guarded
def on_hover(ls: GoldenServer, params: types.HoverParams) -> types.Hover | None:
    if (cv := ls.corpus_view(params.text_document.uri)) is not None:
        return labels.corpus_hover(cv, params.position)
    view = ls.request_view(params.text_document.uri)
    target = view.target_at(params.position) if view else None
    return hover.hover(view, target) if target else None


@server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
@guarded
def on_inlay_hint(ls: GoldenServer, params: types.InlayHintParams) -> list[types.InlayHint] | None:
    view = ls.request_view(params.text_document.uri) if ls.inlay_hints_enabled else None
    return inlay.inlay_hints(view, params.range) if view else None


@server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
@guarded
def on_code_lens(ls: GoldenServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
    cv = ls.corpus_view(params.text_document.uri)
    return labels.code_lenses(cv) if cv else None


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
@guarded
def on_references(ls: GoldenServer, params: types.ReferenceParams) -> list[types.Location] | None:
    if (cv := ls.corpus_view(params.text_document.uri)) is not None:
        return labels.corpus_references(cv, params.position)
    view = ls.request_view(params.text_document.uri)
    target = view.target_at(params.position) if view else None
    return (
        labels.quote_references(ls.set_views(view.golden), target, params.context.include_declaration)
        if target
        else None
    )


@server.feature(
    types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=completion.TRIGGERS)
)
@guarded
def on_completion(ls: GoldenServer, params: types.CompletionParams) -> types.CompletionList | None:
    view = ls.request_view(params.text_document.uri)
    return completion.completions(view, params.position) if view else None


@server.feature(types.WORKSPACE_SYMBOL)
@guarded
def on_workspace_symbol(ls: GoldenServer, params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
    return symbols.workspace_symbols(ls.all_views(), params.query)


@server.feature(
    types.TEXT_DOCUMENT_DIAGNOSTIC,
    types.DiagnosticOptions(inter_file_dependencies=True, workspace_diagnostics=False, identifier=SOURCE),
)
@guarded
def on_diagnostic(
    ls: GoldenServer, params: types.DocumentDiagnosticParams
) -> types.DocumentDiagnosticReport | Encoded:
    uri = params.text_document.uri
    # a client that pulls but cannot be told to pull again is pushed to: an empty pull report
    # keeps it from showing every finding twice, once stale
    if not ls.pull_diagnostics or uri not in ls.buffers or not ls.is_questions(uri):
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    try:
        view = ls.view(uri)
    except ConfigError as exc:
        return types.RelatedFullDocumentDiagnosticReport(items=[ls.config_error_diagnostic(str(exc))])
    result_id = f"{ls.generation}:{view.buffer.version}:{id(view)}"
    if params.previous_result_id == result_id:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id)
    return Encoded(ls.converted.full_report(view, result_id))


@server.command(labels.OPEN_RECORD_COMMAND)
@guarded
async def open_record(ls: GoldenServer, *args: Any) -> bool:
    """Open the questions file at a record (the argument of a corpus code lens: {uri, line})."""
    where = args[0] if args and isinstance(args[0], dict) else {}
    uri, line = where.get("uri"), where.get("line")
    view = ls.questions_view(uri) if isinstance(uri, str) and isinstance(line, int) else None
    location = labels.open_record_location(view, line) if view is not None else None
    if location is None:
        return False
    result = await ls.window_show_document_async(
        types.ShowDocumentParams(location.uri, take_focus=True, selection=location.range)
    )
    return bool(result and result.success)


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
@guarded
def on_definition(ls: GoldenServer, params: types.DefinitionParams) -> list[types.Location] | None:
    view = ls.request_view(params.text_document.uri)
    target = view.target_at(params.position) if view else None
    return navigation.definition(view, target) if target else None


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@guarded
def on_document_symbol(
    ls: GoldenServer, params: types.DocumentSymbolParams
) -> list[types.DocumentSymbol] | None:
    view = ls.request_view(params.text_document.uri)
    return navigation.document_symbols(view) if view else None


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.Refactor]),
)
@guarded
def on_code_action(ls: GoldenServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    if (cv := ls.corpus_view(params.text_document.uri)) is not None:
        found = anchor.code_actions(cv, params.range, ls.last_edited)
    elif (view := ls.request_view(params.text_document.uri)) is not None:
        found = actions.code_actions(view, params.range) + candidates.code_actions(view, params.range)
    else:
        return None
    only = params.context.only
    return [a for a in found if not only or any(a.kind == k or a.kind.startswith(f"{k}.") for k in only)]


def _questions_uri(ls: GoldenServer, args: tuple) -> str | None:
    """The questions file a command names, else the first open one."""
    if args and isinstance(args[0], str):
        return args[0]
    return next((u for u in ls.buffers if ls.is_questions(u)), None)


def _questions_target(ls: GoldenServer, args: tuple) -> tuple[str | None, Path | None]:
    """The URI and path of the questions file a command works on (both None when there is none)."""
    uri = _questions_uri(ls, args)
    path = ls.path_of(uri) if uri else None
    return (uri, path) if path is not None else (None, None)


@server.command(actions.BUILD_COMMAND)
@guarded
def build(ls: GoldenServer, *args: Any) -> dict:
    """Build from the saved questions file, as CI will; unsaved edits are pointed out."""
    uri, path = _questions_target(ls, args)
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
    message = (
        f"wrote {golden.config.artifact_path().name} ({plural(counts['records'], 'record')})"
        if written
        else f"nothing written: {plural(counts['errors'], 'error')}"
    )
    if unsaved:
        message += " from the saved file; save to include your unsaved edits"
    ls.window_show_message(
        types.ShowMessageParams(
            types.MessageType.Info if written else types.MessageType.Error, f"golden-lsp: {message}"
        )
    )
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


@server.command(REPORT_COMMAND)
@guarded
async def report(ls: GoldenServer, *args: Any) -> dict:
    """Write the set's HTML report (from the saved files, as the CLI would) and open it."""
    _, path = _questions_target(ls, args)
    if path is None:
        return {"ok": False, "message": "no questions file to report on"}
    from ..practice.report import report_path, write_report

    try:
        golden = ls.sets.golden_set_for(path)
        out = write_report(golden, report_path(golden))
    except (ConfigError, RuntimeError) as exc:  # RuntimeError: the report extra is missing
        ls.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"golden-lsp: {exc}"))
        return {"ok": False, "message": str(exc)}
    target = from_fs_path(str(out))
    window = ls.client_capabilities.window
    if window is not None and window.show_document is not None and window.show_document.support:
        await ls.window_show_document_async(types.ShowDocumentParams(target, external=True))
    return {"ok": True, "uri": target}


def serve(tcp: tuple[str, int] | None = None) -> int:
    """Serve on stdio, or on ``tcp`` = (host, port) for debugging."""
    if tcp:
        server.start_tcp(*tcp)
        return 0
    return serve_stdio(server)
