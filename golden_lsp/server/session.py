"""The session: the documents the client has open, the views made of them, and when those go stale.

Every handler and the scheduler ask the same questions — the analysed view of this questions
file, the views a chapter is labelled by — and the answers go stale for two kinds of reason: the
document's own text (its buffer's version), and anything outside it that a view reads (a corpus
chapter edited or changed on disk, a config file, the editor's overrides, a built artifact). The
session holds the open buffers (``positions.Buffer``), the golden sets (``workspace.GoldenSets``)
and the views (``view.View``, ``view.CorpusView``), and caches each view under stable keys: an open
questions file's by its URI, buffer version and the generation; a saved one's by its path, the
generation, the file's mtime and size, and the set it was analysed with. Every change of the second
kind goes through one method, ``invalidate``: it bumps the generation, so each cached view is made
again when next asked for, and calls ``on_invalidated`` (the scheduler's republish). State that
depends on what is outside a buffer belongs under the generation, and an event that changes it
calls ``invalidate``. Nothing here sends a message: when anything goes to the client is the
scheduler's (``scheduler.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from ..core.check.model import Analysis
from ..core.corpus.document import DocumentChanged
from ..core.goldenset.config import ConfigError
from ..core.goldenset.project import CONFIG_NAMES, GoldenSet
from .client import ClientSupport
from .positions import Buffer
from .view import CorpusView, Source, View
from .workspace import GoldenSets, document_path


def path_of(uri: str) -> Path | None:
    """The path of a document named by ``uri``; None when it can be no file of a golden set."""
    fs = to_fs_path(uri)
    return document_path(fs) if fs else None


#: how many corpus files found changed behind the server's back one analysis or request reads
#: again before it gives up (each is read again once, and then holds its new text)
REREADS = 8


class _Analysed(NamedTuple):
    """A cached view, good while ``key`` still holds."""

    key: tuple
    view: View


class Session:
    """The open documents and the views of them, for one client (see the module's docstring)."""

    def __init__(self) -> None:
        self.buffers: dict[str, Buffer] = {}
        self.sets = GoldenSets()
        self.encoding: str = types.PositionEncodingKind.Utf16
        #: what the client takes, from its ``initialize``
        self.client = ClientSupport()
        #: bumped by ``invalidate``: whenever what a view shows changed outside its own buffer
        self.generation = 0
        #: what follows each invalidation (set by the server: the scheduler's republish)
        self.on_invalidated: Callable[[], None] = lambda: None
        #: the core line the author last edited in each open document ("Add as locator to" reads
        #: those of questions files)
        self.last_edited: dict[str, int] = {}
        self._views: dict[str, _Analysed] = {}
        #: questions files that are not open, analysed from their saved text
        self._saved_views: dict[Path, _Analysed] = {}
        #: open questions files analysed with changed spans since their last publish (the labels a
        #: chapter shows changed: its code lenses are refreshed)
        self._labels_changed: set[str] = set()

    # --- the client's documents -----------------------------------------------------------

    def is_questions(self, uri: str) -> bool:
        path = path_of(uri)
        return path is not None and self.sets.is_questions_file(path)

    def questions_uris(self) -> list[str]:
        """The open questions files."""
        return [uri for uri in self.buffers if self.is_questions(uri)]

    def open(self, uri: str, text: str, version: int) -> None:
        """A document was opened; an open chapter's text wins over its file (an invalidation when
        any set reads it)."""
        self.buffers[uri] = buf = Buffer(text, version, self.encoding)
        path = path_of(uri)
        if path is not None and path.suffix == ".md":
            self.corpus_changed(path, text)
            held = self.sets.corpus_buffers.get(path)
            if held is not None and held is not text:  # the same text, held once (``buffer_changed``)
                buf.share(held)

    def edit(
        self, uri: str, version: int, changes: Sequence[types.TextDocumentContentChangeEvent]
    ) -> Buffer | None:
        """Apply a client's changes to an open document; its buffer (None: it is not open)."""
        buf = self.buffers.get(uri)
        if buf is None:
            return None
        for change in changes:
            buf.apply(change)
        buf.version = version
        last = changes[-1] if changes else None
        if isinstance(last, types.TextDocumentContentChangePartial):
            self.last_edited[uri] = buf.core_location(last.range.start)[0]
        return buf

    def close(self, uri: str) -> None:
        """A document was closed: it is forgotten; a chapter's unsaved text goes, and the file on
        disk counts again."""
        self.buffers.pop(uri, None)
        self._views.pop(uri, None)
        self.last_edited.pop(uri, None)
        self._labels_changed.discard(uri)
        path = path_of(uri)
        if path is not None and path in self.sets.corpus_buffers:
            self.corpus_changed(path)

    # --- views ----------------------------------------------------------------------------

    def view(self, uri: str) -> View | None:
        """The analysed view of an open questions file (analysed now if out of date); raises
        ConfigError when its set cannot be made."""
        buf = self.buffers.get(uri)
        path = path_of(uri)
        if buf is None or path is None or not self.sets.is_questions_file(path):
            return None
        key = (buf.version, self.generation)
        cached = self._views.get(uri)
        if cached is not None and cached.key == key:
            return cached.view
        golden = self.sets.golden_set_for(path, buf.lines)
        view = View(uri, path, buf, golden, self._check(golden, buf.lines, path))
        self._views[uri] = _Analysed((buf.version, self.generation), view)
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

    def _saved_view(self, golden: GoldenSet, path: Path) -> View:
        """A questions file that is not open, analysed from its saved text (again when it changes)."""
        st = path.stat()
        key = (self.generation, st.st_mtime_ns, st.st_size)
        cached = self._saved_views.get(path)
        if cached is None or cached.key != key or cached.view.golden is not golden:
            text = golden.read_questions(path)
            view = View(
                from_fs_path(str(path)),
                path,
                Buffer(text, None, self.encoding),
                golden,
                self._check(golden, text, path),
            )
            key = (self.generation, st.st_mtime_ns, st.st_size)
            cached = self._saved_views[path] = _Analysed(key, view)
        return cached.view

    def _check(self, golden: GoldenSet, text: str | list[str], path: Path) -> Analysis:
        """``golden.check``, each corpus file found changed behind the server's back (no watcher
        told it: ``DocumentChanged``) read again as a changed file first (``corpus_changed``)."""
        for _ in range(REREADS):
            try:
                return golden.check(text, path)
            except DocumentChanged as exc:
                self.corpus_changed(exc.path)
        return golden.check(text, path)

    def questions_view(self, uri: str) -> View | None:
        """The view of a questions file, open or saved; None when it cannot be analysed."""
        if uri in self.buffers:
            return self.request_view(uri)
        path = path_of(uri)
        if path is None or not path.is_file() or not self.sets.is_questions_file(path):
            return None
        try:
            return self._saved_view(self.sets.golden_set_for(path), path)
        except (ConfigError, OSError):
            return None

    def set_views(self, golden: GoldenSet) -> list[View]:
        """The analysed questions files of a set: each open one, and its configured one from disk."""
        views, seen = [], set()
        for uri in list(self.buffers):
            path = path_of(uri)
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
                views.append(self._saved_view(golden, home))
            except (ConfigError, OSError):
                pass
        return views

    def all_views(self) -> list[View]:
        """The analysed questions files of every golden set the session knows."""
        for uri in self.questions_uris():  # every open questions file's set is known
            self.request_view(uri)
        return [v for golden in self.sets.known() for v in self.set_views(golden)]

    def corpus_view(self, uri: str) -> CorpusView | None:
        """An open corpus file with, per golden set containing it, the set's analysed questions."""
        buf = self.buffers.get(uri)
        path = path_of(uri)
        if buf is None or path is None or path.suffix != ".md":
            return None
        if self.sets.corpus_buffers.get(path) != buf.text:  # an edit still in its debounce
            self.corpus_changed(path, buf.text)
        sources = []
        for golden in self.sets.sets_containing(path):
            doc = golden.corpus.docs.get(golden.corpus.doc_id_for(path) or "")
            if doc is not None:
                sources.append(Source(doc, self.set_views(golden)))
        return CorpusView(uri, path, buf, sources) if sources else None

    def chapter_labels_changed(self, uri: str) -> bool:
        """Whether the spans of ``uri`` changed since this was last asked, while a chapter is open
        (whose code lenses then name other records)."""
        if uri not in self._labels_changed:
            return False
        self._labels_changed.discard(uri)
        return any(path_of(u) in self.sets.corpus_buffers for u in self.buffers)

    # --- invalidation ---------------------------------------------------------------------

    def invalidate(self) -> None:
        """What views show changed outside their buffers: every cached view is stale."""
        self.generation += 1
        self.on_invalidated()

    def corpus_changed(self, path: Path, text: str | None = None) -> None:
        """A corpus file changed: its open buffer's ``text``, or (None) the file on disk."""
        touched = self.sets.file_changed(path) if text is None else self.sets.buffer_changed(path, text)
        if touched:
            self.invalidate()

    def files_changed(self, paths: Sequence[Path | None]) -> None:
        """Files changed on disk, as the client's or the server's own watcher reported them (or
        saved in the editor): a config, a chapter that is not open or whose file is gone (renamed
        or deleted while open), an artifact or manifest."""
        for path in paths:
            if path is None:
                continue
            if path.name in CONFIG_NAMES:
                self.sets.reload()
                self.invalidate()
            elif path.suffix == ".md" and (path not in self.sets.corpus_buffers or self.sets.orphaned(path)):
                self.corpus_changed(path)
            elif path.suffix in (".json", ".jsonl") and self.sets.is_derived_file(path):
                self.invalidate()
