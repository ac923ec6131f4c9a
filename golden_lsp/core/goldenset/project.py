"""A configured golden set: its config, corpus index and analyzer, and the two jobs on it.

``check`` and ``build`` are defined once here and called by the CLI and by the language server
alike, so "the same findings in the editor as in CI" holds by construction: both run this code on
the same inputs (the server's check merely passes the unsaved buffer instead of the file on disk;
a build always reads the saved file, as CI will).
"""

from __future__ import annotations

import dataclasses
import shlex
from datetime import date
from pathlib import Path

from ..check.rules import SetRules, with_severities
from ..check.setrules import id_reused
from ..corpus.document import BrokenDoc, CorpusConfigError, CorpusDoc, DocumentChanged
from ..corpus.index import Corpus, glob_would_match, load_corpus
from ..engine import diskcache
from ..engine.analysis import LIMIT, Analysis, Analyzer, cold_quotes
from ..engine.docindex import load_indexed
from ..io.files import (
    NotRegularFile,
    display,
    finish_interrupted,
    kind,
    locked,
    read_regular,
    write_atomically,
)
from ..labels.facts import Found
from ..labels.jsonline import is_skipped, split_lines
from ..labels.scoring import parse_hit_rule
from ..text.canon import NotUtf8Error, decode_strict, editor_text
from .artifact import CommittedFiles, artifact_text, corpus_commit, manifest, manifest_text, staleness
from .config import DEFAULT_QUESTIONS, Config, ConfigError, key_lines
from .passages import passage_changes, passages_path, passages_text


class GoldenSet:
    def __init__(self, config: Config, lean: bool = False, jobs: int = 1, first: list[str] | None = None):
        """``lean``: hold one corpus document's text at a time (a command-line check or build, the
        language server): the saved questions file is parsed first — or ``first``, the lines the
        first analysis will read (an editor's buffer) — and the corpus is read as one map over
        its files (in ``jobs`` processes) that finds every quote's facts and lets go of each text;
        a text asked for later is read again (``CorpusDoc.release``)."""
        self.config = config
        #: the questions file a lean set read to parse first, for its first analysis
        self._read: str | None = None
        parsed: dict[str, tuple] = {}
        found: Found = {}
        try:
            self.hit_rule = parse_hit_rule(config.hit_rule)
            if lean and first is None:
                try:
                    text = self.read_questions()
                except ConfigError:  # reported by the check itself, after anything wrong with the corpus
                    text = ""
                self._read = text  # what the first analysis reads (the same saved file, read once)
                first = split_lines(text)
            if lean:
                lines = [line for line in first or () if not is_skipped(line)]
                self.corpus, found = load_indexed(
                    config.corpus_path(),
                    config.glob,
                    config.max_chars,
                    cold_quotes(lines, parsed),
                    LIMIT,
                    jobs,
                )
            else:
                self.corpus = load_corpus(config.corpus_path(), config.glob, config.max_chars)
        except (ValueError, CorpusConfigError) as exc:
            raise ConfigError(str(exc)) from None
        home = config.source
        settings = SetRules(
            config.query_types,
            config.required_query_types,
            "doc-unlabelled" in config.in_full,
            home,
            tuple(key_lines(home).items()) if home is not None else (),
            config.pii_region,
            config.retention_days,
            date.today() if config.retention_days is not None else None,
        )
        self.analyzer = Analyzer(self.corpus, self.hit_rule, settings)
        self.analyzer.lean = lean
        self.analyzer.prime(found, parsed)
        self._committed = CommittedFiles()
        #: the last fresh manifest and what it was made of: (corpus, n_records, commit, manifest)
        self._manifest: tuple[Corpus, int, str, dict] | None = None
        #: what was done to the temporaries of an interrupted build (told once by the front end)
        self.recovered: list[str] = []
        self._looked_for_temporaries = False
        #: per questions file, the findings its last analysis re-levelled (``with_severities``)
        self._levelled: dict[Path, dict[int, tuple]] = {}

    @property
    def questions_path(self) -> Path:
        return self.config.questions_path()

    def set_corpus(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self.analyzer.set_corpus(corpus)

    def read_questions(self, path: Path | None = None) -> str:
        """The questions file as an editor shows it (without a leading BOM), so columns agree."""
        path = path or self.questions_path
        try:
            return editor_text(decode_strict(read_regular(path)))
        except FileNotFoundError:
            raise ConfigError(f"questions file not found: {display(path)}") from None
        except NotRegularFile as exc:
            raise ConfigError(f"questions file {display(path)} {exc.strerror}") from None
        except OSError as exc:
            raise ConfigError(f"cannot read questions file {display(path)}: {exc.strerror}") from None
        except NotUtf8Error as exc:
            raise ConfigError(f"questions file {display(path)} is {exc}") from None

    def analyze(self, text: str | list[str] | None = None, path: Path | None = None) -> Analysis:
        path = path or self.questions_path
        if text is None:
            text = self._read if self._read and path == self.questions_path else self.read_questions(path)
            self._read = None
        try:
            analysis = self.analyzer.analyze(path, text)
        except DocumentChanged:  # a released document's file changed: the server reads it again
            raise
        except CorpusConfigError as exc:
            raise ConfigError(str(exc)) from None
        finally:
            diskcache.flush()  # what the analysis learnt goes to the warm cache (no-op: nothing)
        if not self.config.severity:
            return analysis
        return dataclasses.replace(
            analysis,
            diagnostics=with_severities(
                analysis.diagnostics, self.config.severity, self._levelled.setdefault(path, {})
            ),
        )

    def build_command(self) -> str:
        """The command that rebuilds this set as it was configured here, overrides included, with
        paths relative to the working directory when under it (shell-quoted)."""
        return self.command_line("build")

    def command_line(self, command: str, *extra: str) -> str:
        """``golden-lsp COMMAND`` on this set as it was configured here (``--config`` and the
        overrides, paths relative to the working directory when under it), then ``extra``;
        shell-quoted."""
        words = ["golden-lsp", command]
        if self.config.source is not None:
            words += ["--config", display(self.config.source)]
        for key in self.config.overridden:
            value = getattr(self.config, key)
            if key == "severity":  # --select/--ignore change what is reported, not what is built
                continue
            if isinstance(value, Path):
                value = display(value)
            elif isinstance(value, (list, tuple)):
                value = ",".join(value)
            words += [f"--{key.replace('_', '-')}", str(value)]
        return shlex.join([*words, *extra])

    def fresh_manifest(self, analysis: Analysis, commit: str = "unknown") -> dict:
        """The manifest a build would write; made again only when the corpus object, the number of
        records or the commit changes (the hit rule is the set's own)."""
        n_records = analysis.counts()["records"]
        made = self._manifest
        if made is None or made[0] is not self.corpus or made[1:3] != (n_records, commit):
            made = (self.corpus, n_records, commit, manifest(self.corpus, n_records, self.hit_rule, commit))
            self._manifest = made
        return dict(made[3])

    def _kept(self, key: str, path: Path) -> Path | None:
        """A derived file is checked when configured explicitly or when it exists."""
        return path if key in self.config.explicit or path.exists() else None

    def recorded_commit(self) -> str | None:
        """The ``corpus_commit`` the committed manifest records: the commit the last build read
        the corpus at (None: no manifest, not JSON, or "unknown")."""
        try:
            committed = self._committed.get(self.config.manifest_path(), "manifest").parsed
        except ConfigError:  # not a regular file: the staleness check reports it
            return None
        commit = committed.get("corpus_commit") if isinstance(committed, dict) else None
        return commit if isinstance(commit, str) and commit not in ("", "unknown") else None

    def committed_queries(self) -> dict[str, object]:
        """``id`` → query of every record the committed artifact holds (empty when there is none)."""
        try:
            return self._committed.get(self.config.artifact_path(), "artifact").queries
        except ConfigError:  # not a regular file: the staleness check reports it
            return {}

    def finish_interrupted_build(self) -> None:
        """Finish or remove the artifact/manifest temporaries a killed build left (artifact first:
        the order ``build`` writes them in)."""
        self._looked_for_temporaries = True
        try:
            artifact = self.config.artifact_path()
            self.recovered += finish_interrupted(
                [artifact, self.config.manifest_path(), passages_path(artifact)]
            )
        except OSError as exc:
            raise ConfigError(
                f"cannot finish an interrupted build: {display(exc.filename or '')}: {exc.strerror or exc}"
            ) from None

    def check(self, text: str | list[str] | None = None, path: Path | None = None) -> Analysis:
        """Every finding for a questions file (its text, or its lines: an editor buffer's); for the
        configured one, staleness of the derived files (after finishing an interrupted build, the
        first time)."""
        analysis = self.analyze(text, path)
        if analysis.path.resolve() != self.questions_path.resolve():
            return analysis
        if not self._looked_for_temporaries:
            self.finish_interrupted_build()
        kept_manifest = self._kept("manifest", self.config.manifest_path())
        stale = staleness(
            analysis,
            self.fresh_manifest(analysis) if kept_manifest else {},  # none to compare: not made
            self._kept("artifact", self.config.artifact_path()),
            kept_manifest,
            self.build_command(),
            self._committed,
        )
        stale += id_reused(analysis, self.committed_queries())
        artifact = self._kept("artifact", self.config.artifact_path())
        if artifact is not None:
            stale += passage_changes(
                analysis,
                passages_path(artifact),
                self._committed,
                artifact,
                self.build_command(),
            )
        if not stale:
            return analysis
        stale = with_severities(stale, self.config.severity)
        diagnostics = sorted(
            analysis.diagnostics + stale, key=lambda d: (d.range.line, d.range.column, d.code)
        )
        return dataclasses.replace(analysis, diagnostics=diagnostics)

    def inputs(self, derived: bool = True) -> dict[Path, str]:
        """Every file this set reads, resolved, with what it is: corpus documents, the config, the
        questions file and (``derived``) the committed artifact and manifest."""
        docs: list[CorpusDoc | BrokenDoc] = [*self.corpus.docs.values(), *self.corpus.broken.values()]
        owners = {doc.path.resolve(): f"corpus document {doc.doc_id}" for doc in docs}
        if self.config.source is not None:
            owners[self.config.source.resolve()] = f"config file {self.config.source.name}"
        owners.setdefault(self.questions_path.resolve(), "questions file")
        if derived:
            owners.setdefault(self.config.artifact_path().resolve(), "artifact")
            owners.setdefault(self.config.manifest_path().resolve(), "manifest")
            owners.setdefault(passages_path(self.config.artifact_path()).resolve(), "passages")
        return owners

    def refuse_outputs(
        self,
        outputs: dict[str, Path],
        also: dict[Path, str] | None = None,
        action: str = "write",
        derived: bool = True,
        questions: bool = False,
        append: bool = False,
    ) -> None:
        """Raise ConfigError unless every output (what → path) is a new file of its own: no output
        of any command overwrites an input of the set (``inputs``), a command's other inputs
        (``also``), a file named like a config or a questions file, a file the corpus glob would
        read as a document, a folder or a FIFO, or another of the outputs. An output that is a
        questions file (``questions``) may create the set's questions file, and may be added to an
        existing one when asked to (``append``): only a questions file that exists is in its way."""
        owners = self.inputs(derived)
        own = self.questions_path.resolve()
        if questions and owners.get(own) == "questions file" and (append or not own.exists()):
            del owners[own]
        inputs = set(owners) | {p.resolve() for p in also or {}}
        owners.update((p.resolve(), what) for p, what in (also or {}).items())
        root = self.corpus.root.resolve()
        for what, path in outputs.items():
            resolved = path.resolve()
            other = owners.setdefault(resolved, what)
            named_questions = is_input_name(resolved.name) and (
                not questions or (not append and resolved.exists())
            )
            if other == what and (resolved.name in CONFIG_NAMES or named_questions):
                inputs.add(resolved)
                other = f"{'config' if resolved.name in CONFIG_NAMES else 'questions'} file {resolved.name}"
            if other == what and glob_would_match(root, self.corpus.glob, resolved):
                inputs.add(resolved)
                other = f"corpus (it matches {self.corpus.glob!r} under {display(self.corpus.root)})"
            if other == what and resolved.exists() and not resolved.is_file():  # never a blocking FIFO
                raise ConfigError(
                    f"refusing to {action}: the {what} {display(path)} is {kind(resolved.stat().st_mode)}"
                )
            if other != what:
                an_input = ", an input: an output never overwrites an input" if resolved in inputs else ""
                if questions and not append and other.startswith("questions file"):
                    an_input += " (--append adds to it)"
                raise ConfigError(
                    f"refusing to {action}: the {what} {display(path)} would overwrite the {other}{an_input}"
                )

    def _refuse_colliding_paths(self) -> None:
        """A build writes neither over an input nor both outputs to one file."""
        other = self.inputs(derived=False)[self.questions_path.resolve()]
        if other != "questions file":
            raise ConfigError(
                f"the questions file and the {other} are the same file: {display(self.questions_path)}"
            )
        artifact = self.config.artifact_path()
        self.refuse_outputs(
            {
                "artifact": artifact,
                "manifest": self.config.manifest_path(),
                "passages": passages_path(artifact),
            },
            action="build",
            derived=False,
        )

    def build(self) -> tuple[Analysis, bool]:
        """Write artifact and manifest from the saved questions file, or nothing on any error; one
        build of the set at a time (``files.locked``: the artifact's folder), so the pair is one build's."""
        self._refuse_colliding_paths()
        try:
            with locked(self.config.artifact_path()):
                return self._build()
        except OSError as exc:
            raise ConfigError(
                f"cannot write {display(exc.filename or self.config.artifact_path())}: {exc.strerror or exc}"
            ) from None

    def _build(self) -> tuple[Analysis, bool]:
        self.finish_interrupted_build()
        analysis = self.analyze()
        body = artifact_text(analysis)
        if body is None:
            return analysis, False
        m = self.fresh_manifest(analysis, corpus_commit(self.corpus.root))
        artifact = self.config.artifact_path()
        write_atomically(
            {
                artifact: body,
                self.config.manifest_path(): manifest_text(m),
                passages_path(artifact): passages_text(analysis),
            }
        )
        return analysis, True


#: names that are inputs wherever they are: a config, or a questions file the server analyses
CONFIG_NAMES = ("golden-lsp.toml", "pyproject.toml")


def is_input_name(name: str) -> bool:
    return name in CONFIG_NAMES or name == DEFAULT_QUESTIONS or name.endswith(".questions.jsonl")
