"""The server's index of golden sets: one per config, each with a live corpus.

Questions files in one workspace may belong to different golden sets (each uses the config found
from its own folder), so sets are keyed by their config and built once; a corpus file the author
edits replaces just that document in every set that contains it. Nothing here speaks LSP: the
protocol layer hands in paths and texts and reads back ``GoldenSet``s and analyses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..config import ConfigError, config_for
from ..project import GoldenSet

QUESTIONS_NAME = "questions.jsonl"
QUESTIONS_SUFFIX = ".questions.jsonl"
#: settings an editor may override (``questions`` is the file being edited)
EDITOR_OVERRIDES = ("corpus", "glob", "artifact", "manifest", "max_chars", "hit_rule")


class Workspace:
    def __init__(self, overrides: dict[str, Any] | None = None):
        self.overrides = {k: v for k, v in (overrides or {}).items() if k in EDITOR_OVERRIDES}
        self._sets: dict[Path, GoldenSet] = {}
        #: corpus files open in the editor: their unsaved text wins over the disk
        self.corpus_buffers: dict[Path, str] = {}

    def set_overrides(self, overrides: dict[str, Any] | None) -> None:
        self.overrides = {k: v for k, v in (overrides or {}).items() if k in EDITOR_OVERRIDES}
        self._sets.clear()

    def reload(self) -> None:
        """Forget every set (a config file changed); they are rebuilt on demand."""
        self._sets.clear()

    @staticmethod
    def is_questions_file(path: Path) -> bool:
        if path.name == QUESTIONS_NAME or path.name.endswith(QUESTIONS_SUFFIX):
            return True
        if path.suffix != ".jsonl":
            return False
        try:
            config = config_for(path)
        except ConfigError:
            return False
        return config.questions is not None and config.questions == path.resolve()

    def golden_set_for(self, path: Path) -> GoldenSet:
        """The golden set a questions file belongs to; raises ConfigError with the reason."""
        config = config_for(path)
        base = config.source.parent if config.source else path.parent
        config = config.with_overrides(self.overrides, base)
        key = config.source or path.parent.resolve()
        golden = self._sets.get(key)
        if golden is None or golden.config != config:
            golden = GoldenSet(config)
            for doc_path, text in self.corpus_buffers.items():
                golden.set_corpus(golden.corpus.with_document(doc_path, text))
            self._sets[key] = golden
        return golden

    def sets(self) -> list[GoldenSet]:
        return list(self._sets.values())

    def corpus_changed(self, path: Path, text: str | None) -> list[GoldenSet]:
        """A corpus file's text changed (``None``: it is gone); returns the sets it touched."""
        touched = []
        for golden in self._sets.values():
            if golden.corpus.doc_id_for(path) is not None:
                golden.set_corpus(golden.corpus.with_document(path, text))
                touched.append(golden)
        return touched

    def is_corpus_file(self, path: Path) -> bool:
        return any(g.corpus.doc_id_for(path) is not None for g in self._sets.values())
