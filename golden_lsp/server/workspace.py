"""The server's index of golden sets: one per config, each with a live corpus.

Questions files in one workspace may belong to different golden sets (each uses the config found
from its own folder), so sets are keyed by their config and built once; a corpus file the author
edits replaces just that document in every set that contains it. A set is loaded lean — the
corpus read as the command line's map over its files (``docindex.load_indexed``: the warm cache
first, worker processes for the rest), each text let go once its quotes' facts are known — so
the server holds the texts of open buffers and of the few documents recently asked for
(``held.HELD``), not the corpus. Nothing here speaks LSP: the protocol layer hands in paths and
texts and reads back ``GoldenSet``s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.corpus.document import DocumentChanged
from ..core.corpus.index import Corpus
from ..core.engine.docindex import AUTO
from ..core.goldenset.config import Config, ConfigError, config_for
from ..core.goldenset.project import GoldenSet

QUESTIONS_NAME = "questions.jsonl"
QUESTIONS_SUFFIX = ".questions.jsonl"
#: settings an editor may override (``questions`` is the file being edited)
EDITOR_OVERRIDES = ("corpus", "glob", "artifact", "manifest", "max_chars", "hit_rule")


def document_path(fs_path: str) -> Path | None:
    """The path of a document named by a URI, or None when it can be no document: a path whose
    symlinks loop cannot be resolved, read or compared with the set's files."""
    path = Path(fs_path)
    try:
        path.resolve()
    except (RuntimeError, OSError):  # RuntimeError: a symlink loop (Python < 3.13)
        return None
    return path


class GoldenSets:
    def __init__(self) -> None:
        self.overrides: dict[str, Any] = {}
        self._sets: dict[Path, GoldenSet] = {}
        self._configs: dict[Path, Config] = {}
        #: corpus files open in the editor: their unsaved text wins over the disk
        self.corpus_buffers: dict[Path, str] = {}
        #: folder of a corpus file → the questions file its own config names (None: none)
        self._named: dict[Path, Path | None] = {}

    def set_overrides(self, overrides: dict[str, Any] | None) -> None:
        self.overrides = {k: v for k, v in (overrides or {}).items() if k in EDITOR_OVERRIDES}
        self.reload()

    def reload(self) -> None:
        """Forget every config and set (a config file changed); they are rebuilt on demand."""
        self._sets.clear()
        self._configs.clear()
        self._named.clear()

    def config_for(self, path: Path) -> Config:
        """The config of a questions file, editor overrides applied (cached until ``reload``)."""
        config = self._configs.get(path)
        if config is None:
            config = config_for(path)
            base = config.source.parent if config.source else path.parent
            config = config.with_overrides(self.overrides, base)
            if config.questions is None:  # no config names it: the file being edited is the set's
                config = config.with_overrides({"questions": path}, base)
            self._configs[path] = config
        return config

    def is_questions_file(self, path: Path) -> bool:
        if path.name == QUESTIONS_NAME or path.name.endswith(QUESTIONS_SUFFIX):
            return True
        if path.suffix != ".jsonl":
            return False
        try:
            return self.config_for(path).questions == path.resolve()
        except ConfigError:
            return False

    def _loaded(self, config: Config) -> tuple[Path, GoldenSet | None]:
        key = config.source or config.questions_path().resolve()
        golden = self._sets.get(key)
        return key, golden if golden is not None and golden.config == config else None

    def is_loaded(self, path: Path) -> bool:
        """Whether the set of a questions file is indexed already (or cannot be: a config error)."""
        try:
            return self._loaded(self.config_for(path))[1] is not None
        except ConfigError:
            return True

    def golden_set_for(self, path: Path, first: list[str] | None = None) -> GoldenSet:
        """The golden set a questions file belongs to; raises ConfigError with the reason.
        ``first``: the lines of ``path`` the set's first analysis reads (an open buffer), whose
        quotes a set loaded now looks for as it reads the corpus."""
        config = self.config_for(path)
        key, golden = self._loaded(config)
        if golden is None:
            golden = GoldenSet(config, lean=True, jobs=AUTO, first=first)
            for doc_path, text in self.corpus_buffers.items():
                if doc_path.is_file():  # (a buffer whose file is gone is no document)
                    golden.set_corpus(golden.corpus.with_document(doc_path, text))
            self._sets[key] = golden
        return golden

    def sets_containing(self, path: Path) -> list[GoldenSet]:
        """Every golden set whose corpus holds the file ``path``: the sets already known, and the
        set of the config found from the file's own folder when that config names a questions file
        (so a chapter opened on its own still knows who labels it)."""
        folder = path.parent
        if folder not in self._named:
            try:
                named = config_for(path).with_overrides(self.overrides, folder).questions
            except ConfigError:
                named = None
            self._named[folder] = named
        named = self._named[folder]
        if named is not None and named.is_file():
            try:
                self.golden_set_for(named)
            except ConfigError:
                pass
        return [g for g in self._sets.values() if g.corpus.doc_id_for(path) is not None]

    def buffer_changed(self, path: Path, text: str) -> bool:
        """An open corpus file's text changed; True when any set's corpus changed with it. A buffer
        whose file is gone (deleted, or renamed on disk while open) is no corpus document, as it is
        none for ``check``: what it held leaves the corpus, and its edits count for nothing."""
        if not path.is_file():
            self.corpus_buffers.pop(path, None)
            return self._update(
                path, lambda corpus: corpus.with_file(path) if _holds(corpus, path) else corpus
            )
        self.corpus_buffers[path] = text

        def change(corpus):
            doc = corpus.docs.get(corpus.doc_id_for(path) or "")
            try:
                if doc is not None and doc.pin(text):  # open as on disk: its text is held while it is
                    # one copy of the text, not the client's beside the document's (10 MB of
                    # Markdown is 40 MB in memory with an emoji in it)
                    self.corpus_buffers[path] = doc.raw
                    return corpus
            except DocumentChanged:  # the file changed behind our back: the buffer wins anyway
                pass
            return corpus.with_document(path, text)

        return self._update(path, change)

    def file_changed(self, path: Path) -> bool:
        """A corpus file changed on disk (or its editor buffer was closed): re-read it."""
        self.corpus_buffers.pop(path, None)
        return self._update(path, lambda corpus: corpus.with_file(path))

    def _update(self, path: Path, change) -> bool:
        touched = False
        for golden in self._sets.values():
            if golden.corpus.doc_id_for(path) is not None:
                corpus = change(golden.corpus)
                if corpus is not golden.corpus:
                    golden.set_corpus(corpus)
                    touched = True
        return touched

    def orphaned(self, path: Path) -> bool:
        """Whether ``path`` is an open corpus buffer whose file is gone."""
        return path in self.corpus_buffers and not path.is_file()

    def corpus_roots(self) -> set[Path]:
        """The corpus folders of the sets loaded so far."""
        return {golden.corpus.root for golden in self.known()}

    def known(self) -> list[GoldenSet]:
        """Every golden set built so far (from an open questions file or an open corpus file)."""
        return list(self._sets.values())

    def is_derived_file(self, path: Path) -> bool:
        """An artifact or manifest of a known set (its change makes staleness worth re-checking),
        or its judge's proposals (the hints and actions that show them change)."""
        resolved = path.resolve()
        return any(
            resolved
            in (
                g.config.artifact_path().resolve(),
                g.config.manifest_path().resolve(),
                g.config.proposals_path().resolve(),
            )
            for g in self._sets.values()
        )


def _holds(corpus: Corpus, path: Path) -> bool:
    """Whether ``corpus`` has a document (or a broken file) at ``path``."""
    doc_id = corpus.doc_id_for(path)
    return doc_id is not None and (doc_id in corpus.docs or doc_id in corpus.broken)
