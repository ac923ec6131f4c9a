"""The language server's handlers: each LSP request and notification wired to a plain function.

Every handler is a function of this module, registered on the one ``GoldenServer`` and guarded
(an exception is logged to the client and the server carries on; a corpus file found changed
behind the server's back, ``DocumentChanged``, is read again and the handler run again). A request's handler takes the
view it works on from the session (``session.py``: a ``View`` of a questions file, a
``CorpusView`` of a chapter) and hands it to a feature module (``hover``, ``navigation``,
``actions``, ``inlay``, ``labels``, ``anchor``, ``completion``, ``candidates``, ``proposals``,
``symbols``); a document notification updates the session and tells the scheduler
(``scheduler.py``) what to publish; what the client takes (``client.py``: hover format, code
action literals, related information, the status notification) is read at ``initialize`` and
fits every answer; a change of files or settings goes through the session, whose invalidation has
the scheduler republish. Everything sent unasked — diagnostics (pushed, or pulled through
``textDocument/diagnostic`` by clients that support it), status, refresh requests, progress — is
the scheduler's.
"""

from __future__ import annotations

import asyncio
import functools
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path

from ..core.corpus.document import DocumentChanged
from ..core.findings.diagnostics import plural
from ..core.goldenset.config import ConfigError
from ..core.goldenset.project import CONFIG_NAMES
from ..core.io.shown import shown
from . import (
    actions,
    anchor,
    candidates,
    completion,
    hover,
    inlay,
    labels,
    navigation,
    newconfig,
    proposals,
    symbols,
)
from .base import BaseServer
from .client import APPLY_EDIT_COMMAND, ClientSupport, fit_code_actions
from .convert import SOURCE, editor_counts
from .markup import Markup
from .protocol import Encoded, serve_stdio
from .reanchor import Reanchoring
from .scheduler import Scheduler
from .session import REREADS, Session, path_of
from .workspace import document_path

REPORT_COMMAND = "golden-lsp.report"
WATCHED = ("**/*.md", "**/golden-lsp.toml", "**/pyproject.toml", "**/*.jsonl", "**/*.json")


class GoldenServer(BaseServer):
    """The pygls server the handlers are registered on: its session (what is open and analysed)
    and its scheduler (when it goes to the client)."""

    def __init__(self) -> None:
        super().__init__()
        self.session = Session()
        self.scheduler = Scheduler(self, self.session)
        self.session.on_invalidated = self.scheduler.republish_all
        self.inlay_hints_enabled = True
        #: the old corpora and relocators of the re-anchoring quick fix and hover
        self.reanchoring = Reanchoring()
        #: the reasons last shown for disabled code actions a client cannot show (not repeated while
        #: a client without triggerKind asks again and again, as lsp-mode's modeline does)
        self.reasons_shown: list[str] = []


server = GoldenServer()


def guarded(fn: Callable) -> Callable:
    """Log any exception to the client and answer ``None``: the server never dies on input. A
    released document whose file changed behind the server's back (no watcher told it) is read
    again as a changed file, and the handler runs again on the corpus with it: the server never
    goes deaf on a stale text. (Handlers read corpus texts only in what they answer, after any
    change they make to the session, so running one again repeats no change.)"""
    if asyncio.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def run_async(ls: GoldenServer, *args: Any) -> Any:
            for attempt in range(REREADS):
                try:
                    return await fn(ls, *args)
                except Exception as exc:
                    if not _read_again(ls, fn, exc, attempt):
                        return None
            return None

        return run_async

    @functools.wraps(fn)
    def run(ls: GoldenServer, *args: Any) -> Any:
        for attempt in range(REREADS):
            try:
                return fn(ls, *args)
            except Exception as exc:
                if not _read_again(ls, fn, exc, attempt):
                    return None
        return None

    return run


def _read_again(ls: GoldenServer, fn: Callable, exc: Exception, attempt: int) -> bool:
    """Whether the handler is run again after ``exc``: a corpus file that changed behind the
    server's back is read again first (up to ``REREADS`` of them); anything else is logged."""
    if isinstance(exc, DocumentChanged) and attempt + 1 < REREADS:
        try:
            ls.session.corpus_changed(exc.path)
            return True
        except Exception:  # it cannot be read now: logged below
            pass
    ls.log_error(f"{fn.__name__} failed:\n{traceback.format_exc()}")
    return False


# --- the session's life: initialisation, settings, watched files ------------------------------


@server.feature(types.INITIALIZE)
@guarded
def initialize(ls: GoldenServer, params: types.InitializeParams) -> None:
    ls.session.encoding = ls.workspace.position_encoding or types.PositionEncodingKind.Utf16
    ls.session.client = ClientSupport.of(params)
    ls.scheduler.converted.related_information = ls.session.client.related_information
    options = params.initialization_options or {}
    if isinstance(options, dict):
        ls.session.sets.set_overrides(options.get("overrides"))  # nothing is open: nothing is stale
        if isinstance(options.get("inlayHints"), bool):
            ls.inlay_hints_enabled = options["inlayHints"]
    text_caps, workspace_caps = params.capabilities.text_document, params.capabilities.workspace
    # pull only from a client the server can ask to pull again when the corpus changes (Neovim
    # pulls but declares no workspace/diagnostic/refresh: it is pushed to)
    refresh = workspace_caps.diagnostics if workspace_caps else None
    ls.scheduler.pull_diagnostics = (
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
        ls.scheduler.watch_corpus(functools.partial(on_watched, ls))


@guarded
def on_watched(ls: GoldenServer, paths: list[str]) -> None:
    """A batch of changes seen by the server's own watcher."""
    ls.session.files_changed([document_path(p) for p in paths])


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
@guarded
def did_change_watched_files(ls: GoldenServer, params: types.DidChangeWatchedFilesParams) -> None:
    ls.session.files_changed([path_of(change.uri) for change in params.changes])


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
@guarded
def did_change_configuration(ls: GoldenServer, params: types.DidChangeConfigurationParams) -> None:
    settings = params.settings if isinstance(params.settings, dict) else {}
    settings = settings.get("goldenLsp", settings)
    if isinstance(settings, dict) and isinstance(settings.get("inlayHints"), bool):
        ls.inlay_hints_enabled = settings["inlayHints"]
        ls.scheduler.refresh(inlay_hints=True)
    if isinstance(settings, dict) and ("overrides" in settings or "config" in settings):
        ls.session.sets.set_overrides(settings.get("overrides", settings.get("config")))
        ls.session.invalidate()


# --- documents --------------------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
@guarded
def did_open(ls: GoldenServer, params: types.DidOpenTextDocumentParams) -> None:
    doc = params.text_document
    ls.session.open(doc.uri, doc.text, doc.version)
    path = path_of(doc.uri)
    if path is not None and ls.session.sets.is_questions_file(path):
        ls.scheduler.opened(doc.uri, path)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
@guarded
def did_change(ls: GoldenServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    buf = ls.session.edit(uri, params.text_document.version, params.content_changes)
    path = path_of(uri) if buf is not None else None
    if buf is None or path is None:
        return
    ls.scheduler.edited()
    if ls.session.sets.is_questions_file(path):
        ls.scheduler.schedule(uri)
    elif path.suffix == ".md":
        ls.scheduler.corpus_edited(path, buf.text)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
@guarded
def did_save(ls: GoldenServer, params: types.DidSaveTextDocumentParams) -> None:
    path = path_of(params.text_document.uri)
    if path is not None and path.name in CONFIG_NAMES:
        ls.session.files_changed([path])


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
@guarded
def did_close(ls: GoldenServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.session.close(params.text_document.uri)
    ls.scheduler.closed(params.text_document.uri)


@server.feature(
    types.TEXT_DOCUMENT_DIAGNOSTIC,
    types.DiagnosticOptions(inter_file_dependencies=True, workspace_diagnostics=False, identifier=SOURCE),
)
@guarded
def on_diagnostic(
    ls: GoldenServer, params: types.DocumentDiagnosticParams
) -> types.DocumentDiagnosticReport | Encoded:
    return ls.scheduler.diagnostic_report(params.text_document.uri, params.previous_result_id)


# --- requests ---------------------------------------------------------------------------------


@server.feature(types.TEXT_DOCUMENT_HOVER)
@guarded
def on_hover(ls: GoldenServer, params: types.HoverParams) -> types.Hover | None:
    mu = Markup(ls.session.client.markdown_hover)
    if (cv := ls.session.corpus_view(params.text_document.uri)) is not None:
        return _shown_hover(labels.corpus_hover(cv, params.position, mu))
    view = ls.session.request_view(params.text_document.uri)
    target = view.target_at(params.position) if view else None
    return _shown_hover(hover.hover(view, target, mu, ls.reanchoring) if view and target else None)


def _shown_hover(found: types.Hover | None) -> types.Hover | None:
    """A hover whose text carries no control character but its line breaks (``core/io/shown.py``)."""
    if found is not None and isinstance(found.contents, types.MarkupContent):
        found.contents.value = shown(found.contents.value, lines=True)
    return found


@server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
@guarded
def on_inlay_hint(ls: GoldenServer, params: types.InlayHintParams) -> list[types.InlayHint] | None:
    view = ls.session.request_view(params.text_document.uri) if ls.inlay_hints_enabled else None
    if view is None:
        return None
    return [
        _shown_hint(h)
        for h in inlay.inlay_hints(view, params.range) + proposals.inlay_hints(view, params.range)
    ]


def _shown_hint(hint: types.InlayHint) -> types.InlayHint:
    """An inlay hint whose label and tooltip carry no control character (``core/io/shown.py``)."""
    if isinstance(hint.label, str):
        hint.label = shown(hint.label)
    else:
        for part in hint.label:
            part.value = shown(part.value)
    if isinstance(hint.tooltip, str):
        hint.tooltip = shown(hint.tooltip, lines=True)
    elif hint.tooltip is not None:
        hint.tooltip.value = shown(hint.tooltip.value, lines=True)
    return hint


@server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
@guarded
def on_code_lens(ls: GoldenServer, params: types.CodeLensParams) -> list[types.CodeLens] | None:
    cv = ls.session.corpus_view(params.text_document.uri)
    lenses = labels.code_lenses(cv) if cv else None
    for lens in lenses or ():
        if lens.command is not None:
            lens.command.title = shown(lens.command.title)
    return lenses


@server.feature(types.TEXT_DOCUMENT_REFERENCES)
@guarded
def on_references(ls: GoldenServer, params: types.ReferenceParams) -> list[types.Location] | None:
    if (cv := ls.session.corpus_view(params.text_document.uri)) is not None:
        return labels.corpus_references(cv, params.position)
    view = ls.session.request_view(params.text_document.uri)
    target = view.target_at(params.position) if view else None
    if view is None or target is None:
        return None
    return labels.quote_references(
        ls.session.set_views(view.golden), target, params.context.include_declaration
    )


@server.feature(
    types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=completion.TRIGGERS)
)
@guarded
def on_completion(ls: GoldenServer, params: types.CompletionParams) -> types.CompletionList | None:
    view = ls.session.request_view(params.text_document.uri)
    return completion.completions(view, params.position) if view else None


@server.feature(types.WORKSPACE_SYMBOL)
@guarded
def on_workspace_symbol(ls: GoldenServer, params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
    return symbols.workspace_symbols(ls.session.all_views(), params.query)


@server.feature(types.TEXT_DOCUMENT_DEFINITION)
@guarded
def on_definition(ls: GoldenServer, params: types.DefinitionParams) -> list[types.Location] | None:
    view = ls.session.request_view(params.text_document.uri)
    target = view.target_at(params.position) if view else None
    return navigation.definition(view, target) if view and target else None


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@guarded
def on_document_symbol(
    ls: GoldenServer, params: types.DocumentSymbolParams
) -> list[types.DocumentSymbol] | None:
    view = ls.session.request_view(params.text_document.uri)
    return navigation.document_symbols(view) if view else None


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.Refactor]),
)
@guarded
def on_code_action(
    ls: GoldenServer, params: types.CodeActionParams
) -> list[types.CodeAction | types.Command] | None:
    if (cv := ls.session.corpus_view(params.text_document.uri)) is not None:
        found = anchor.code_actions(cv, params.range, ls.session.last_edited)
    elif (view := ls.session.request_view(params.text_document.uri)) is not None:
        found = (
            actions.code_actions(view, params.range, ls.reanchoring)
            + candidates.code_actions(view, params.range)
            + proposals.code_actions(view, params.range)
        )
    elif (path := _unconfigured(ls, params.text_document.uri)) is not None:
        found = newconfig.code_actions(params.text_document.uri, path, ls.session.client.create_files)
    else:
        return None
    only = params.context.only
    found = [a for a in found if not only or any(_of_kind(a, k) for k in only)]
    answer, messages = fit_code_actions(ls.session.client, found, params.context, ls.protocol.unstructure)
    asked = params.context.trigger_kind == types.CodeActionTriggerKind.Invoked
    for message in messages if asked else [m for m in messages if m not in ls.reasons_shown]:
        ls.window_show_message(types.ShowMessageParams(types.MessageType.Info, f"golden-lsp: {message}"))
    ls.reasons_shown = messages
    return answer


def _unconfigured(ls: GoldenServer, uri: str) -> Path | None:
    """The path of an open questions file that has no config (None for any other document)."""
    path = path_of(uri)
    if uri not in ls.session.buffers or path is None or not ls.session.sets.is_questions_file(path):
        return None
    try:
        ls.session.view(uri)
    except ConfigError as exc:
        return path if newconfig.unconfigured(exc, path, ls.session.sets) else None
    return None


def _of_kind(action: types.CodeAction, kind: str) -> bool:
    """Whether a code action is of ``kind`` or of one of its sub-kinds (``refactor.rewrite``)."""
    return action.kind is not None and (action.kind == kind or action.kind.startswith(f"{kind}."))


# --- commands ---------------------------------------------------------------------------------


@server.command(labels.OPEN_RECORD_COMMAND)
@guarded
async def open_record(ls: GoldenServer, *args: Any) -> bool:
    """Open the questions file at a record (the argument of a corpus code lens: {uri, line})."""
    where = args[0] if args and isinstance(args[0], dict) else {}
    uri, line = where.get("uri"), where.get("line")
    if not isinstance(uri, str) or not isinstance(line, int):
        return False
    view = ls.session.questions_view(uri)
    location = labels.open_record_location(view, line) if view is not None else None
    if location is None:
        return False
    result = await ls.window_show_document_async(
        types.ShowDocumentParams(location.uri, take_focus=True, selection=location.range)
    )
    return bool(result and result.success)


@server.command(newconfig.CREATE_CONFIG_COMMAND)
@guarded
def create_config(ls: GoldenServer, *args: Any) -> dict:
    """Write a config beside an open questions file that has none (the config-error's quick fix):
    never a workspace check, for the file is one the user has open — a loose file outside any
    folder is what it exists for — and ``newconfig.create`` never replaces a config."""
    uri = args[0] if args and isinstance(args[0], str) else None
    path = _unconfigured(ls, uri) if uri else None
    if path is None:
        return {"ok": False, "message": "not an open questions file without a config"}
    written, message = newconfig.create(path)
    ls.window_show_message(
        types.ShowMessageParams(
            types.MessageType.Info if written else types.MessageType.Warning, f"golden-lsp: {message}"
        )
    )
    if written:
        ls.session.files_changed([path.parent / newconfig.CONFIG_NAME])
    return {"ok": written, "message": message}


@server.command(APPLY_EDIT_COMMAND)
@guarded
async def apply_edit(ls: GoldenServer, *args: Any) -> bool:
    """Apply a code action's edit (its one argument) for a client that takes commands only."""
    edit = (
        ls.protocol.structure(args[0], types.WorkspaceEdit)
        if len(args) == 1 and isinstance(args[0], dict)
        else None
    )
    if edit is None or not (edit.changes or edit.document_changes):
        return False
    paths = [path_of(u) for u in _edit_uris(edit)]
    if None in paths or _outside_workspace(ls, [p for p in paths if p is not None], "apply the edit"):
        return False
    result = await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit))
    return bool(result and result.applied)


def _edit_uris(edit: types.WorkspaceEdit) -> list[str]:
    """Every document an edit changes, creates, renames (both names) or deletes."""
    uris = list(edit.changes or ())
    for change in edit.document_changes or ():
        if isinstance(change, types.TextDocumentEdit):
            uris.append(change.text_document.uri)
        elif isinstance(change, types.RenameFile):
            uris += [change.old_uri, change.new_uri]
        else:
            uris.append(change.uri)
    return uris


def _outside_workspace(ls: GoldenServer, paths: list[Path], what: str) -> str | None:
    """Why a command may not write ``paths`` (None when it may): the commands that write act only
    inside the workspace folders the client opened (its root when it names no folder), never on a
    set elsewhere whose URI a command was given. The refusal is also shown to the user."""
    folders = [path_of(f.uri) for f in ls.workspace.folders.values()]
    if not folders and ls.workspace.root_uri:
        folders = [path_of(ls.workspace.root_uri)]
    roots = [f.resolve() for f in folders if f is not None]
    outside = [p for p in paths if not any(p.resolve().is_relative_to(r) for r in roots)]
    if not outside:
        return None
    where = ", ".join(str(r) for r in roots) or "none opened"
    message = shown(f"refusing to {what}: {outside[0]} is outside the workspace folders ({where})")
    ls.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"golden-lsp: {message}"))
    return message


def _questions_uri(ls: GoldenServer, args: tuple) -> str | None:
    """The questions file a command names, else the first open one."""
    if args and isinstance(args[0], str):
        return args[0]
    return next(iter(ls.session.questions_uris()), None)


def _questions_target(ls: GoldenServer, args: tuple) -> tuple[str | None, Path | None]:
    """The URI and path of the questions file a command works on (both None when there is none)."""
    uri = _questions_uri(ls, args)
    path = path_of(uri) if uri else None
    return (uri, path) if path is not None else (None, None)


@server.command(actions.BUILD_COMMAND)
@guarded
def build(ls: GoldenServer, *args: Any) -> dict:
    """Build from the saved questions file, as CI will; unsaved edits are pointed out."""
    uri, path = _questions_target(ls, args)
    if path is None:
        return {"ok": False, "message": "no questions file to build"}
    try:
        golden = ls.session.sets.golden_set_for(path)
        if path.resolve() != golden.questions_path.resolve():
            return {"ok": False, "message": f"{path.name} is not the configured questions file of its set"}
        outputs = [path, golden.config.artifact_path(), golden.config.manifest_path()]
        if (refused := _outside_workspace(ls, outputs, "build")) is not None:
            return {"ok": False, "message": refused}
        analysis, written = golden.build()
        buf = ls.session.buffers.get(uri or "")
        unsaved = buf is not None and buf.text != golden.read_questions()
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
    ls.session.invalidate()  # the artifact and manifest are new: staleness is checked again
    return {"ok": written, "message": message}


@server.command("golden-lsp.check")
@guarded
def check(ls: GoldenServer, *args: Any) -> dict:
    uri = _questions_uri(ls, args)
    view = ls.session.request_view(uri) if uri else None
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
        golden = ls.session.sets.golden_set_for(path)
        if (refused := _outside_workspace(ls, [golden.questions_path], "report on the set")) is not None:
            return {"ok": False, "message": refused}
        out = report_path(golden)
        write_report(golden, out)
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
