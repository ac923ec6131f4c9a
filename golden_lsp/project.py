"""A configured golden set: its config, corpus index and analyzer, and the two jobs on it.

``check`` and ``build`` are defined once here and called by the CLI and by the language server
alike, so "the same findings in the editor as in CI" holds by construction: both run this code on
the same inputs (the server merely passes the unsaved buffer instead of the file on disk).
"""

from __future__ import annotations

import dataclasses
import shlex
from pathlib import Path

from .analysis import Analysis, Analyzer
from .artifact import corpus_commit, manifest, manifest_text, staleness, write_atomically
from .canon import NotUtf8Error, decode_strict
from .config import Config, ConfigError
from .corpus import Corpus, CorpusConfigError, load_corpus
from .scoring import parse_hit_rule


class GoldenSet:
    def __init__(self, config: Config):
        self.config = config
        try:
            self.hit_rule = parse_hit_rule(config.hit_rule)
            self.corpus: Corpus = load_corpus(config.corpus_path(), config.glob, config.max_chars)
        except (ValueError, CorpusConfigError) as exc:
            raise ConfigError(str(exc)) from None
        self.analyzer = Analyzer(self.corpus, self.hit_rule)

    @property
    def questions_path(self) -> Path:
        return self.config.questions_path()

    def set_corpus(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self.analyzer.set_corpus(corpus)

    def read_questions(self, path: Path | None = None) -> str:
        path = path or self.questions_path
        try:
            return decode_strict(path.read_bytes())
        except FileNotFoundError:
            raise ConfigError(f"questions file not found: {path}") from None
        except OSError as exc:
            raise ConfigError(f"cannot read questions file {path}: {exc.strerror}") from None
        except NotUtf8Error as exc:
            raise ConfigError(f"questions file {path} is {exc}") from None

    def analyze(self, text: str | None = None, path: Path | None = None) -> Analysis:
        path = path or self.questions_path
        return self.analyzer.analyze(path, self.read_questions(path) if text is None else text)

    def build_command(self) -> str:
        if self.config.source is not None:
            return f"golden-lsp build --config {shlex.quote(str(self.config.source))}"
        return "golden-lsp build"

    def fresh_manifest(self, analysis: Analysis, commit: str = "unknown") -> dict:
        return manifest(self.corpus, analysis.counts()["records"], self.hit_rule, commit)

    def _kept(self, key: str, path: Path) -> Path | None:
        """A derived file is checked when configured explicitly or when it exists."""
        return path if key in self.config.explicit or path.exists() else None

    def check(self, text: str | None = None, path: Path | None = None) -> Analysis:
        """Every finding for a questions file; for the configured one, staleness of the derived files."""
        analysis = self.analyze(text, path)
        if analysis.path.resolve() != self.questions_path.resolve():
            return analysis
        stale = staleness(analysis, self.fresh_manifest(analysis),
                          self._kept("artifact", self.config.artifact_path()),
                          self._kept("manifest", self.config.manifest_path()), self.build_command())
        if not stale:
            return analysis
        diagnostics = sorted(analysis.diagnostics + stale, key=lambda d: (d.range.line, d.range.column, d.code))
        return dataclasses.replace(analysis, diagnostics=diagnostics)

    def build(self, text: str | None = None) -> tuple[Analysis, bool]:
        """Write artifact and manifest, or nothing when there is any error."""
        analysis = self.analyze(text)
        body = analysis.artifact_text()
        if body is None:
            return analysis, False
        m = self.fresh_manifest(analysis, corpus_commit(self.corpus.root))
        try:
            write_atomically({self.config.artifact_path(): body, self.config.manifest_path(): manifest_text(m)})
        except OSError as exc:
            raise ConfigError(f"cannot write {exc.filename or self.config.artifact_path()}: "
                              f"{exc.strerror or exc}") from None
        return analysis, True
