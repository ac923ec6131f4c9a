"""The scheduler: when what the session knows goes to the client, and what runs in the meantime.

Work the client did not ask for — diagnostics after a keystroke, the status line, code lenses
refreshed after a chapter changed, hints prepared for later keystrokes — must neither run once per
keystroke nor hold up the next request. The scheduler owns all of that timing and every message
sent unasked: tasks debounced by key (``later``: a questions file's publish, a chapter's edit, one
step of hint preparation), coroutines run in the background (``background``: a set's first
indexing, under work-done progress), the publish of a questions file (``publish``: diagnostics
pushed as cached JSON text, ``convert.Converted``, and the ``golden-lsp/status`` notification to a
client that opted in),
the answer to a diagnostic pull (``diagnostic_report``, the same cached text), refresh requests
for what the client shows (``refresh``: diagnostics, inlay hints and code lenses, each only where
the client supports it), preparation of not-found hints in idle time, and the server's own watch
over corpus folders for a client that watches no files. It reads the session and never changes
what a view shows: invalidating is the session's (``session.py``), and ``republish_all`` is what
follows each invalidation.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import traceback
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any

from lsprotocol import types

from ..core.corpus.document import CorpusDoc, DocumentChanged
from ..core.engine.held import HELD
from ..core.goldenset.config import ConfigError
from ..core.goldenset.project import GoldenSet
from ..core.labels import facts
from ..core.labels.facts import PREPARED_TEXTS
from ..core.labels.facts import prepare as prepare_document_hints
from . import progress
from .base import BaseServer
from .convert import SOURCE, Converted, editor_counts, full_report
from .newconfig import editor_message
from .protocol import Encoded
from .session import Session, path_of
from .watch import CorpusWatcher

#: seconds of quiet after a keystroke in a questions file before re-analysing it: changes sent
#: together (a paste, several cursors) arrive within it; a keystroke's analysis costs a few ms
DEBOUNCE = 0.005
#: the same for a corpus chapter: long enough to take a burst of key repeats as one edit (the
#: republish runs on the loop, so keys typed while it runs are applied together afterwards and
#: work never queues up); every millisecond of it is latency of the republish
CORPUS_DEBOUNCE = 0.02
#: the pause before each step of ``_prepare_hints`` (a step takes a few ms; requests go first)
HINTS_IDLE = 0.001
#: seconds without an edit before idle work reads a let-go text back (one piece of work, ~8 ms a
#: MB): keys typed one after another never wait behind it
IDLE_AFTER_EDIT = 0.3
STATUS_NOTIFICATION = "golden-lsp/status"


def config_error_diagnostic(message: str) -> types.Diagnostic:
    """The one diagnostic of a questions file whose set cannot be made."""
    return types.Diagnostic(
        types.Range(types.Position(0, 0), types.Position(0, 0)),
        f"golden-lsp cannot check this file: {message}",
        types.DiagnosticSeverity.Error,
        code="config-error",
        source=SOURCE,
    )


def _holds(doc: CorpusDoc, text: str) -> bool:
    """Whether ``doc`` holds ``text`` now (not let go of since, nor read back again)."""
    return (doc.pinned or HELD.holds(doc)) and doc.text is text


class Scheduler:
    """What goes to the client unasked, and when (see the module's docstring)."""

    def __init__(self, server: BaseServer, session: Session) -> None:
        self.server = server
        self.session = session
        #: the LSP form of each file's last diagnostics (a keystroke converts its line's only)
        self.converted = Converted(server.protocol.encode)
        #: the client pulls diagnostics (textDocument/diagnostic); else they are pushed
        self.pull_diagnostics = False
        #: the server's own watch over corpus folders, when the client watches no files
        self.watcher: CorpusWatcher | None = None
        self._timers: dict[object, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Future] = set()
        #: the config error last shown to the author for each questions file (shown once)
        self._config_errors: dict[str, str] = {}
        #: the params of the last publication of each questions file (one the same is not sent)
        self._published: dict[str, str] = {}
        #: the set's findings that sit in other files (a chapter, the config): the URI of each
        #: such file → the questions file whose analysis placed them → their JSON texts
        self._elsewhere: dict[str, dict[str, list[str]]] = {}
        #: the result id and JSON text of each file's last pull report: a pull whose diagnostics
        #: are the same text keeps the id (the client is answered "unchanged")
        self._reports: dict[str, tuple[str, str]] = {}
        self._report_ids = itertools.count(1)
        #: the event loop's time of the last edit of an open document (``edited``)
        self._last_edit = float("-inf")

    # --- timing ---------------------------------------------------------------------------

    def later(self, key: object, delay: float, fn: Callable, *args: Any) -> None:
        """Run ``fn(*args)`` after ``delay`` seconds, replacing what was pending under ``key``."""
        self._cancel(key)

        def run() -> None:
            self._timers.pop(key, None)
            try:
                fn(*args)
            except Exception:
                self.server.log_error(f"{getattr(fn, '__name__', fn)} failed:\n{traceback.format_exc()}")

        self._timers[key] = asyncio.get_running_loop().call_later(delay, run)

    def _cancel(self, key: object) -> None:
        timer = self._timers.pop(key, None)
        if timer is not None:
            timer.cancel()

    def background(self, work: Coroutine) -> None:
        """Run a coroutine on the server's loop, keeping a reference until it is done."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def edited(self) -> None:
        """An open document was edited: idle work waits for ``IDLE_AFTER_EDIT`` of quiet."""
        self._last_edit = asyncio.get_running_loop().time()

    def schedule(self, uri: str, delay: float = DEBOUNCE) -> None:
        """Publish a questions file after ``delay`` seconds of quiet."""
        self.later(uri, delay, self.publish, uri)

    def opened(self, uri: str, path: Path) -> None:
        """A questions file was opened: published now, or, when its set is not indexed yet, once
        it is (the first analysis, shown as work-done progress)."""
        if self.session.sets.is_loaded(path):
            self.schedule(uri, 0)
        else:
            self.background(self._first_publish(uri, path))

    def corpus_edited(self, path: Path, text: str) -> None:
        """An open chapter was edited: the session takes its text after ``CORPUS_DEBOUNCE``."""
        self.later(path, CORPUS_DEBOUNCE, self.session.corpus_changed, path, text)

    async def _first_publish(self, uri: str, path: Path) -> None:
        """The first analysis of a set not indexed yet, reported as work-done progress."""

        def work() -> str | None:
            self.publish(uri)
            try:
                golden = self.session.sets.golden_set_for(path)
            except ConfigError:  # published as the file's config-error
                return None
            self._prepare_hints(golden, uri)
            return f"{len(golden.corpus.docs)} documents, {golden.corpus.n_chunks} chunks"

        try:
            await progress.with_progress(
                self.server, "golden-lsp", f"indexing the corpus of {path.name}", work
            )
        except Exception:
            self.server.log_error(f"indexing for {uri} failed:\n{traceback.format_exc()}")

    def _prepare_hints(self, golden: GoldenSet, uri: str) -> None:
        """In idle time after a set's first analysis, build what makes a keystroke's not-found
        hint in a large document cheaper (``facts.prepare``: its case and word indexes) for the
        documents a keystroke can break a quote in — the open chapters and those the questions
        file ``uri`` quotes, the largest first, as many as are kept, and no more than the read-back
        texts held (``held.HELD``): a document's indexes are let go with its text, so preparing one
        whose text is then let go again is work lost. The corpus's other documents are not read.

        The work goes a step of a few ms per turn of the event loop, so a keystroke waits for one
        step at most; only reading a let-go text back is one piece (~8 ms a MB), so it waits until
        the author paused (``IDLE_AFTER_EDIT``). A keystroke that needs a document before its
        steps are done gets the same facts: it makes the case index itself (once, ending the steps
        that would make it) and counts the words it needs one by one."""
        view = self.session.request_view(uri)
        records = view.analysis.records if view is not None else []
        quoted = {doc_id for rec in records for doc_id, _ in rec.result.deps}  # what each line read
        docs = golden.corpus.docs
        wanted = [d for d in docs.values() if d.pinned] + [docs[d] for d in quoted if d in docs]
        chars = 0
        chosen: list[CorpusDoc] = []
        by_size = sorted({id(d): d for d in wanted}.values(), key=lambda d: -d.chars)
        for doc in [d for d in by_size if d.chars >= facts.PREPARE_FROM][:PREPARED_TEXTS]:
            chars += doc.chars if not doc.pinned else 0  # (at least a byte each)
            if chars > HELD.budget and chosen:
                break
            chosen.append(doc)
        key = ("prepare", golden.questions_path)
        #: the document being prepared, its text and its remaining steps
        current: list[tuple[CorpusDoc, str, Iterator[None]]] = []

        def step() -> None:
            if current:
                doc, text, steps = current[0]
                if golden.corpus.docs.get(doc.doc_id) is not doc or not _holds(doc, text):
                    current.clear()  # replaced by an edit or let go since: its work is lost
                elif next(steps, StopIteration) is StopIteration:
                    current.clear()
            chosen[:] = [d for d in chosen if golden.corpus.docs.get(d.doc_id) is d]  # not replaced
            while not current and chosen:
                # a held text first; reading one back is one piece of work: it waits for a pause
                doc = next((d for d in chosen if d.pinned or HELD.holds(d)), chosen[0])
                wait = self._last_edit + IDLE_AFTER_EDIT - asyncio.get_running_loop().time()
                if not (doc.pinned or HELD.holds(doc)) and wait > 0:
                    self.later(key, wait, step)
                    return
                chosen[:] = [d for d in chosen if d is not doc]
                try:
                    text = doc.text
                except DocumentChanged:  # changing under us (perhaps half written): left
                    continue  # to the watcher's event, or to the next request that reads it
                current.append((doc, text, iter(prepare_document_hints(text))))
                break
            if current:
                self.later(key, HINTS_IDLE, step)

        self.later(key, HINTS_IDLE, step)

    # --- publishing -----------------------------------------------------------------------

    def publish(self, uri: str) -> None:
        """Send an open questions file's diagnostics (unless the client pulls them) and status (to a
        client that asked for it)."""
        session = self.session
        if uri not in session.buffers:
            return
        try:
            view = session.view(uri)
        except ConfigError as exc:
            self._place_elsewhere(uri, {})
            self._publish_config_error(uri, editor_message(exc, path_of(uri), session.sets))
            return
        if view is None:
            return
        self._config_errors.pop(uri, None)
        if self.watcher is not None:
            self.watcher.watch(session.sets.corpus_roots())
        protocol = self.server.protocol
        if not self.pull_diagnostics:
            params = self.converted.publish_params(view)
            if self._published.get(uri) != params:  # a republish that changes nothing is not sent
                self._published[uri] = params
                protocol.notify_encoded(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, params)
        else:
            self.converted.encoded(view)  # (what sits in other files is known once converted)
        self._place_elsewhere(uri, self.converted.elsewhere(view))
        if session.client.status_notifications:
            protocol.notify(
                STATUS_NOTIFICATION,
                {
                    "uri": uri,
                    "version": view.buffer.version,
                    **editor_counts(view.analysis),
                    "corpus": str(view.golden.corpus.root),
                },
            )
        if session.chapter_labels_changed(uri):
            self.refresh(code_lens=True)

    def _place_elsewhere(self, source: str, placed: dict[str, list[str]]) -> None:
        """The findings the analysis of ``source`` places in other files (``placed``, by URI) go to
        those files, with what other questions files place there; a file whose findings changed
        is published again (pushed, or the client asked to pull again)."""
        changed = False
        for target in set(placed) | {t for t, by in self._elsewhere.items() if source in by}:
            by = self._elsewhere.setdefault(target, {})
            before = self._elsewhere_text(target)
            if placed.get(target):
                by[source] = placed[target]
            else:
                by.pop(source, None)
            text = self._elsewhere_text(target)
            if not by:
                del self._elsewhere[target]
            if text == before:
                continue
            changed = True
            if not self.pull_diagnostics:
                params = f'{{"uri": {json.dumps(target)}, "diagnostics": {text}}}'
                self.server.protocol.notify_encoded(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, params)
        if changed and self.pull_diagnostics:
            self.refresh(diagnostics=True)

    def _elsewhere_text(self, target: str) -> str:
        """The JSON text of the diagnostics list of a file the set's findings sit in."""
        items = [text for by in self._elsewhere.get(target, {}).values() for text in by]
        return f"[{', '.join(items)}]"

    def _publish_config_error(self, uri: str, message: str) -> None:
        buf = self.session.buffers[uri]
        self._published.pop(uri, None)
        if not self.pull_diagnostics:
            self.server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri, [config_error_diagnostic(message)], version=buf.version)
            )
        if self.session.client.status_notifications:
            self.server.protocol.notify(
                STATUS_NOTIFICATION, {"uri": uri, "records": 0, "errors": 1, "warnings": 0}
            )
        if self._config_errors.get(uri) != message:
            self._config_errors[uri] = message
            self.server.window_show_message(
                types.ShowMessageParams(types.MessageType.Warning, f"golden-lsp: {message}")
            )

    def diagnostic_report(
        self, uri: str, previous_result_id: str | None
    ) -> types.DocumentDiagnosticReport | Encoded:
        """The answer to a diagnostic pull: unchanged when the diagnostics are the same text as the
        report the client holds (whatever was typed or changed since), else the full report from
        the cached text."""
        if uri in self._elsewhere and not self.session.is_questions(uri):
            return Encoded(full_report(str(next(self._report_ids)), self._elsewhere_text(uri)))
        try:
            view = self.session.view(uri) if self.pull_diagnostics else None
        except ConfigError as exc:
            message = editor_message(exc, path_of(uri), self.session.sets)
            return types.RelatedFullDocumentDiagnosticReport(items=[config_error_diagnostic(message)])
        if view is None:
            # a client that pulls but cannot be told to pull again is pushed to: an empty pull
            # report keeps it from showing every finding twice, once stale
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        items = self.converted.encoded(view)
        kept = self._reports.get(uri)
        if kept is None or kept[1] != items:
            kept = self._reports[uri] = (str(next(self._report_ids)), items)
        if previous_result_id == kept[0]:
            return types.RelatedUnchangedDocumentDiagnosticReport(kept[0])
        return Encoded(full_report(kept[0], items))

    def closed(self, uri: str) -> None:
        """A document was closed: what was pending for it is dropped (a chapter's edit still in its
        debounce would bring the unsaved text back), its kept diagnostics go, and a questions
        file's are cleared."""
        self._cancel(uri)
        self._cancel(path_of(uri))
        self._place_elsewhere(uri, {})
        self.converted.forget(uri)
        self._published.pop(uri, None)
        self._reports.pop(uri, None)
        if self.session.is_questions(uri):
            self.server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri, []))

    def republish_all(self) -> None:
        """What follows an invalidation: every open questions file is published again, and the
        client is asked to request again what it shows."""
        for uri in self.session.questions_uris():
            self.schedule(uri, 0)
        self.refresh(diagnostics=True, inlay_hints=True, code_lens=True)

    def refresh(self, diagnostics: bool = False, inlay_hints: bool = False, code_lens: bool = False) -> None:
        """Ask the client to re-request what it shows, for each kind it supports refreshing."""
        caps = self.server.client_capabilities.workspace if self.server.client_capabilities else None
        wanted = (
            (diagnostics and self.pull_diagnostics, "diagnostics", types.WORKSPACE_DIAGNOSTIC_REFRESH),
            (inlay_hints, "inlay_hint", types.WORKSPACE_INLAY_HINT_REFRESH),
            (code_lens, "code_lens", types.WORKSPACE_CODE_LENS_REFRESH),
        )
        for on, name, method in wanted:
            support = getattr(caps, name, None) if caps else None
            if on and support is not None and support.refresh_support:
                self.server.protocol.send_request(method, None)

    # --- the server's own watch -----------------------------------------------------------

    def watch_corpus(self, on_change: Callable[[list[str]], None]) -> None:
        """Watch the corpus folders of the loaded sets (from the next publish on): ``on_change``
        gets each batch of changed paths, on the loop."""
        self.watcher = CorpusWatcher(asyncio.get_running_loop(), on_change, self._watch_status)

    def _watch_status(self, message: str, ok: bool) -> None:
        if ok:
            self.server.window_log_message(
                types.LogMessageParams(types.MessageType.Info, f"golden-lsp: {message}")
            )
        else:
            self.server.log_error(message)
