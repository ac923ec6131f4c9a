"""Where a golden set's parts live: ``golden-lsp.toml`` or ``[tool.golden-lsp]`` in pyproject.

A team commits one config beside its questions file, so the CLI in CI and the server in every
editor find the same corpus, glob, artifact paths, ``max_chars`` and hit rule without flags. The
config is found by walking up from the questions file (or the working directory; for a
``--questions`` file outside any set, from the working directory next); paths in it are relative
to the config file; any key can be overridden (CLI flags, editor settings).
"""

from __future__ import annotations

import difflib
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from ..findings.diagnostics import DOCS_URL, FINDINGS, Finding
from ..io.errors import ConfigError
from ..io.files import NotRegularFile, display, read_regular
from ..labels.questions import DEFAULT_QUERY_TYPES
from ..labels.scoring import DEFAULT_HIT_RULE, parse_hit_rule
from ..text.chunker import DEFAULT_MAX_CHARS

CONFIG_NAME = "golden-lsp.toml"
DEFAULT_QUESTIONS = "questions.jsonl"
DEFAULT_ARTIFACT = "golden-set.v1.jsonl"
DEFAULT_MANIFEST = "golden-set.v1.manifest.json"
PATH_KEYS = ("corpus", "questions", "artifact", "manifest")
KEYS = PATH_KEYS + (
    "glob",
    "max_chars",
    "hit_rule",
    "query_types",
    "required_query_types",
    "severity",
    "judge",
    "pii_region",
    "owner",
    "retention_days",
    "eval",
)
#: the keys of ``[eval]`` (``golden-lsp eval``'s defaults for this set)
EVAL_KEYS = ("shipped_k", "bands")
#: a band table's key: METRIC@K
_METRIC_AT = re.compile(r"[a-z]+@[1-9][0-9]*")
#: the keys of ``[judge]`` (the LLM judge, ``golden-lsp judge``); the two paths resolve like the others
JUDGE_KEYS = ("provider", "model", "command", "prompt", "proposals", "timeout")
JUDGE_PATH_KEYS = ("prompt", "proposals")
DEFAULT_PROPOSALS = "proposals.jsonl"
#: the judge's audit, written beside the proposals file (``golden-lsp judge --audit``; the report reads it)
AUDIT_NAME = "audit.json"
#: the answer grader's audit (``golden-lsp grade --human``), beside the relevance judge's
GRADE_AUDIT_NAME = "grade_audit.json"
#: what ``[severity]`` may set a code to; "off" silences it
LEVELS = ("error", "warning", "info", "off")


class NoCorpus(ConfigError):
    """No corpus folder is configured (no config found, or one without ``corpus``): the command
    line says to pass ``--corpus``, the editor offers to write the config."""


@dataclass(frozen=True)
class Config:
    corpus: Path | None = None
    glob: str = "*.md"
    questions: Path | None = None
    artifact: Path | None = None
    manifest: Path | None = None
    max_chars: int = DEFAULT_MAX_CHARS
    hit_rule: str = DEFAULT_HIT_RULE
    #: the vocabulary of ``query_type``, and the types the set must contain
    query_types: tuple[str, ...] = DEFAULT_QUERY_TYPES
    required_query_types: tuple[str, ...] = ()
    #: code → "error" | "warning" | "info" | "off", for this set (``[severity]``, --select/--ignore)
    severity: dict[str, str] = field(default_factory=dict)
    #: codes a run lists one finding per item however many there are (the codes ``--select``
    #: names: doc-unlabelled is otherwise one finding above ``setrules.MAX_UNLABELLED_LISTED``)
    in_full: tuple[str, ...] = ()
    #: the country (ISO 3166 code) whose nationally written phone numbers ``query-pii`` finds too
    pii_region: str | None = None
    #: who answers for the set (a person or a team; ``stats`` and the report show it)
    owner: str | None = None
    #: days a record drawn from traffic (with ``sampled_at``) may be kept: ``retention-expired`` after
    retention_days: int | None = None
    #: ``[judge]``: provider, model, command (strings), prompt and proposals (resolved paths)
    judge: dict[str, Any] = field(default_factory=dict)
    #: ``[eval]``: shipped_k (the k the product ships, read by ``eval --shipped-k``) and bands
    #: (``[eval.bands]``: METRIC@K → [[lower bound, label], …] ascending, the team's starting bands)
    eval: dict[str, Any] = field(default_factory=dict)
    #: the config file these values came from, if any
    source: Path | None = None
    #: keys given explicitly (in the file or as overrides), as opposed to defaults
    explicit: frozenset[str] = field(default_factory=frozenset)
    #: keys set by overrides (CLI flags, editor settings), in order: what a build command must repeat
    overridden: tuple[str, ...] = ()

    def with_overrides(self, overrides: dict[str, Any], base: Path) -> Config:
        """Apply overrides (CLI flags, editor settings); relative paths resolve against ``base``."""
        values = _validated({k: v for k, v in overrides.items() if v is not None}, base, "override")
        overridden = self.overridden + tuple(k for k in values if k not in self.overridden)
        return _checked(
            replace(self, **values, explicit=self.explicit | values.keys(), overridden=overridden), "override"
        )

    def questions_path(self) -> Path:
        if self.questions is not None:
            return self.questions
        base = self.source.parent if self.source else Path.cwd()
        return base / DEFAULT_QUESTIONS

    def artifact_path(self) -> Path:
        return self.artifact or self.questions_path().parent / DEFAULT_ARTIFACT

    def manifest_path(self) -> Path:
        return self.manifest or self.questions_path().parent / DEFAULT_MANIFEST

    def proposals_path(self) -> Path:
        """Where ``golden-lsp judge`` writes its proposals: ``[judge] proposals``, else beside the
        questions file."""
        return self.judge.get("proposals") or self.questions_path().parent / DEFAULT_PROPOSALS

    def audit_path(self) -> Path:
        return self.proposals_path().parent / AUDIT_NAME

    def grade_audit_path(self) -> Path:
        return self.proposals_path().parent / GRADE_AUDIT_NAME

    def corpus_path(self) -> Path:
        if self.corpus is None:
            raise NoCorpus("no corpus: set 'corpus' in golden-lsp.toml or pass --corpus DIR")
        return self.corpus


def _validated(values: dict[str, Any], base: Path, where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key not in KEYS:
            raise ConfigError(f"{where}: unknown key {key!r} (known: {', '.join(KEYS)})")
        if key in PATH_KEYS or key == "glob":
            if not isinstance(value, (str, Path)) or not str(value):
                raise ConfigError(f"{where}: {key!r} must be a non-empty string")
            out[key] = (base / Path(value)).resolve() if key in PATH_KEYS else str(value)
        elif key in ("query_types", "required_query_types"):
            if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v for v in value):
                raise ConfigError(f"{where}: {key!r} must be a list of non-empty strings")
            out[key] = tuple(value)
        elif key == "severity":
            out[key] = _severity_table(value, where)
        elif key == "judge":
            out[key] = _judge_table(value, base, where)
        elif key == "eval":
            out[key] = _eval_table(value, where)
        elif key == "pii_region":
            if not isinstance(value, str) or not re.fullmatch(r"[A-Z]{2}", value):
                raise ConfigError(
                    f"{where}: 'pii_region' must be a two-letter country code such as \"US\", not {value!r}"
                )
            out[key] = value
        elif key in ("max_chars", "retention_days"):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"{where}: {key!r} must be a positive integer, not {value!r}")
            out[key] = value
        elif key == "owner":
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{where}: 'owner' must be a non-empty string (a person or a team)")
            out[key] = value
        else:
            try:
                parse_hit_rule(str(value))
            except ValueError as exc:
                raise ConfigError(f"{where}: {exc}") from None
            out[key] = str(value)
    return out


def _severity_table(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ConfigError(
            f'{where}: \'severity\' must be a table of code = "error" | "warning" | "info" | "off"'
        )
    for code, level in value.items():
        finding = named_finding(code, f"{where}: [severity]")
        if level not in LEVELS:
            raise ConfigError(f"{where}: [severity] {code} must be one of {', '.join(LEVELS)}, not {level!r}")
        if finding.blocking and level != "error":
            raise ConfigError(f"{where}: {code} makes its record unbuildable: it is always an error")
    return dict(value)


def _eval_table(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: 'eval' must be a table ([eval]: {', '.join(EVAL_KEYS)})")
    for key, v in value.items():
        if key not in EVAL_KEYS:
            raise ConfigError(f"{where}: [eval] unknown key {key!r} (known: {', '.join(EVAL_KEYS)})")
        if key == "bands":
            _bands_table(v, where)
        elif isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ConfigError(f"{where}: [eval] {key!r} must be a positive integer, not {v!r}")
    return dict(value)


def _bands_table(value: Any, where: str) -> None:
    """``[eval.bands]``: each METRIC@K a list of [lower bound, label] pairs, bounds ascending in
    [0, 1], labels short printable text."""
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: [eval.bands] must be a table of METRIC@K = [[lower bound, label], ...]")
    for name, rows in value.items():
        at = f"{where}: [eval.bands] {name!r}"
        if not _METRIC_AT.fullmatch(name):
            raise ConfigError(f'{at}: a key is METRIC@K (e.g. "hit@5", "mrr@10")')
        if not isinstance(rows, list) or not rows:
            raise ConfigError(f"{at}: must be a list of [lower bound, label] pairs")
        bounds = []
        for row in rows:
            if (
                not isinstance(row, list)
                or len(row) != 2
                or isinstance(row[0], bool)
                or not isinstance(row[0], (int, float))
                or not 0 <= row[0] <= 1
                or not isinstance(row[1], str)
                or not 0 < len(row[1]) <= 40
                or not row[1].isprintable()
            ):
                raise ConfigError(
                    f"{at}: each band is [lower bound in 0..1, a label of 1-40 printable characters]"
                )
            bounds.append(row[0])
        if bounds != sorted(set(bounds)):
            raise ConfigError(f"{at}: the lower bounds must be ascending and distinct")


def _judge_table(value: Any, base: Path, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: 'judge' must be a table ([judge]: {', '.join(JUDGE_KEYS)})")
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key not in JUDGE_KEYS:
            raise ConfigError(f"{where}: [judge] unknown key {key!r} (known: {', '.join(JUDGE_KEYS)})")
        if key == "timeout":
            if isinstance(item, bool) or not isinstance(item, (int, float)) or not 0 < item < float("inf"):
                raise ConfigError(f"{where}: [judge] 'timeout' must be a number of seconds above 0")
            out[key] = float(item)
            continue
        if not isinstance(item, str) or not item.strip():
            raise ConfigError(f"{where}: [judge] {key!r} must be a non-empty string")
        out[key] = (base / Path(item)).resolve() if key in JUDGE_PATH_KEYS else item
    return out


def named_finding(code: str, where: str) -> Finding:
    """The finding a setting names (``[severity]``, ``--select``, ``--ignore``); for a code that
    does not exist, a ConfigError from ``where`` with the closest codes and the page listing all."""
    finding = FINDINGS.get(code)
    if finding is None:
        close = difflib.get_close_matches(code, FINDINGS, n=3, cutoff=0.8)
        hint = f" (did you mean {', '.join(map(repr, close))}?)" if close else ""
        raise ConfigError(
            f"{where} names an unknown code {code!r}{hint}: the codes are at {DOCS_URL}findings/"
        )
    return finding


def _checked(config: Config, where: str) -> Config:
    """Checks across keys, once all of them are known."""
    unknown = [t for t in config.required_query_types if t not in config.query_types]
    if unknown:
        raise ConfigError(
            f"{where}: required_query_types {', '.join(unknown)} not in query_types "
            f"({', '.join(config.query_types)})"
        )
    return config


def find_config(start: Path) -> Path | None:
    """The nearest ``golden-lsp.toml`` (or pyproject with ``[tool.golden-lsp]``) at or above start."""
    folder = start if start.is_dir() else start.parent
    for d in (folder.resolve(), *folder.resolve().parents):
        candidate = d / CONFIG_NAME
        if candidate.exists():  # a FIFO or folder of that name is reported by load_config, not skipped
            return candidate
        pyproject = d / "pyproject.toml"
        if pyproject.exists() and "golden-lsp" in _read_toml(pyproject).get("tool", {}):
            return pyproject
    return None


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(read_regular(path).decode("utf-8"))
    except NotRegularFile as exc:
        raise ConfigError(f"{display(path)} {exc.strerror}") from None
    except OSError as exc:
        raise ConfigError(f"{display(path)}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{display(path)}: not UTF-8 (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{display(path)}: invalid TOML: {exc}") from None


def load_config(path: Path) -> Config:
    data = _read_toml(path)
    if path.name == "pyproject.toml":
        data = data.get("tool", {}).get("golden-lsp", {})
    values = _validated(data, path.parent, str(path))
    return _checked(Config(**values, source=path.resolve(), explicit=frozenset(values)), str(path))


def key_lines(path: Path) -> dict[str, int]:
    """The 0-based line of each top-level key of a config file (of ``[tool.golden-lsp]`` in a
    pyproject, whose header line is under ``""``): where a finding about a key or the set sits.
    Empty when the file cannot be read (its config would not have loaded)."""
    try:
        lines = read_regular(path).decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    out: dict[str, int] = {}
    table = "" if path.name != "pyproject.toml" else None
    for i, line in enumerate(lines):
        header = re.match(r"\s*\[([^\]]*)\]\s*(#.*)?$", line)
        if header:
            table = (
                "" if header.group(1).strip().strip('"') in ("tool.golden-lsp", 'tool."golden-lsp"') else None
            )
            if table == "" and path.name == "pyproject.toml":
                out.setdefault("", i)
            continue
        key = re.match(r"\s*([A-Za-z0-9_-]+)\s*=", line)
        if table == "" and key:
            out.setdefault(key.group(1), i)
    return out


def config_for(start: Path | None, config_file: Path | None = None, also: Path | None = None) -> Config:
    """The config for a questions file or folder: explicit file, else found from ``start``, else
    found from ``also`` (the working directory, for a ``--questions`` file kept outside any set),
    else defaults."""
    if config_file is not None:
        if not config_file.exists():
            raise ConfigError(f"config file not found: {display(config_file)}")
        return load_config(config_file)
    found = find_config(start or Path.cwd())
    if found is None and also is not None:
        found = find_config(also)
    return load_config(found) if found else Config()
