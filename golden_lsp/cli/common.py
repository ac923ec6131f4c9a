"""What every subcommand shares: the set options, finding the golden set, and paths for people.

Each command (check, build, and every later use of a set) addresses a golden set the same way —
``PATH`` or ``--config``, then flags overriding any config key — so that one flag means one thing
everywhere; this module is that one way.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from ..core.findings.diagnostics import FINDINGS
from ..core.goldenset.config import (
    DEFAULT_QUESTIONS,
    Config,
    ConfigError,
    NoCorpus,
    config_for,
    named_finding,
)
from ..core.goldenset.project import GoldenSet
from ..core.io.files import display, read_regular, write_outputs
from ..core.io.shown import shown
from ..core.text.canon import NotUtf8Error, decode_strict

USAGE_ERROR = 2
#: seconds of work before a progress line appears on a terminal (an env var, so tests can say 0)
PROGRESS_AFTER_ENV = "GOLDEN_LSP_PROGRESS_AFTER"


def add_set_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", type=Path, help="golden-lsp.toml or pyproject.toml to use")
    p.add_argument("--corpus", type=Path, help="corpus folder (Markdown documents)")
    p.add_argument("--glob", help="documents under the corpus folder (pathlib glob, default *.md)")
    p.add_argument("--questions", type=Path, help="questions file (questions.jsonl)")
    p.add_argument("--artifact", type=Path, help="artifact to write or check (golden-set.v1.jsonl)")
    p.add_argument("--manifest", type=Path, help="manifest to write or check")
    p.add_argument("--max-chars", type=int, dest="max_chars", help="chunker max_chars (default 1800)")
    p.add_argument(
        "--hit-rule",
        dest="hit_rule",
        help="any_overlap (default), span_containment, coverage>=τ, union_coverage>=τ",
    )
    p.add_argument(
        "--query-types",
        dest="query_types",
        type=_names,
        metavar="T,...",
        help="the query_type vocabulary (default factual,conceptual,comparison,procedural,"
        "multi-hop,unanswerable)",
    )
    p.add_argument(
        "--required-query-types",
        dest="required_query_types",
        type=_names,
        metavar="T,...",
        help="query types the set must contain",
    )
    p.add_argument(
        "--select",
        type=_names,
        metavar="CODE,...",
        help="report only these codes (and always those that make a record unbuildable)",
    )
    p.add_argument("--ignore", type=_names, metavar="CODE,...", help="silence these codes")


def _names(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def _severity(config: Config, select: list[str] | None, ignore: list[str] | None) -> dict[str, str] | None:
    """The set's severity table with --select/--ignore applied (checked by the config)."""
    if not select and not ignore:
        return None
    for code in (*(select or ()), *(ignore or ())):
        named_finding(code, "--select/--ignore")
    table = dict(config.severity)
    if select:
        table.update({f.code: "off" for f in FINDINGS.values() if f.code not in select and not f.blocking})
        for code in select:
            if table.get(code) == "off":
                del table[code]
    for code in ignore or ():
        if FINDINGS[code].blocking:
            raise ConfigError(f"--ignore {code}: it makes its record unbuildable, so it is always reported")
        table[code] = "off"
    return table


def golden_set(args: argparse.Namespace, target: Path | None, lean: bool = False, jobs: int = 1) -> GoldenSet:
    """The golden set a command addresses: config from --config or found from ``target``
    (``lean``: holding one document's text at a time, read in ``jobs`` processes, for a command
    that only analyses)."""
    if target is not None and not target.exists():
        raise ConfigError(f"no such file or folder: {target}")
    # a --questions file outside any set is checked against the set the command is run in
    outside = Path.cwd() if target is None and args.questions is not None else None
    config = config_for(target or (args.questions and args.questions.parent), args.config, outside)
    if target is not None and target.is_dir() and args.config is None and args.questions is None:
        _refuse_unread(target, config)
    overrides = {
        k: getattr(args, k)
        for k in ("corpus", "glob", "questions", "artifact", "manifest", "max_chars", "hit_rule")
    }
    if target is not None and target.is_file():
        overrides["questions"] = target
    elif target is not None and config.source is None and args.questions is None:
        overrides["questions"] = target / DEFAULT_QUESTIONS  # a folder without a config: its own file
    overrides["query_types"] = args.query_types
    overrides["required_query_types"] = args.required_query_types
    config = config.with_overrides(overrides, Path.cwd())
    severity = _severity(config, args.select, args.ignore)
    if severity is not None:
        config = config.with_overrides({"severity": severity}, Path.cwd())
    if args.select:  # what a run selects it lists in full
        config = dataclasses.replace(config, in_full=tuple(args.select))
    try:
        return GoldenSet(config, lean, jobs)
    except NoCorpus:
        if config.source is not None:
            raise
        where = display(target) if target is not None else "the working directory"
        raise NoCorpus(
            f"no corpus: no golden-lsp.toml in {where} or above: give the set's folder or "
            "questions file as PATH, its config with --config, or the corpus folder with --corpus DIR"
        ) from None


def _refuse_unread(folder: Path, config: Config) -> None:
    """A folder given whose questions file the config found walking up does not name is refused:
    checking that config's set instead would pass on a file nobody read (a CI gate never may)."""
    if config.source is None or config.source.parent == folder.resolve():
        return
    named = config.questions_path().resolve()
    own = [folder / DEFAULT_QUESTIONS, *sorted(folder.glob("*.questions.jsonl"))]
    stray = [p for p in own if p.is_file() and p.resolve() != named]
    if stray:
        raise ConfigError(
            f"{display(folder)} holds {display(stray[0])}, but the config found above it, "
            f"{display(config.source)}, checks {display(named)}: check the file itself "
            f"(golden-lsp check {display(stray[0])}), or give {display(folder)} a golden-lsp.toml of its own"
        )


@contextmanager
def progress(message: str) -> Iterator[None]:
    """Show ``golden-lsp: message…`` on stderr while the block runs longer than a second, when
    stderr is a terminal (never in CI logs or pipes); the line is erased when the block ends."""
    stream = sys.stderr
    if not stream.isatty():
        yield
        return
    try:
        delay = float(os.environ.get(PROGRESS_AFTER_ENV, "1"))
    except ValueError:
        delay = 1.0
    lock = threading.Lock()
    state = {"done": False, "shown": False}

    def show() -> None:
        with lock:
            if not state["done"]:
                stream.write(f"golden-lsp: {message}\u2026")
                stream.flush()
                state["shown"] = True

    timer = threading.Timer(delay, show)
    timer.daemon = True
    if delay <= 0:
        show()
    else:
        timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            if state["shown"]:
                stream.write("\r\033[K")
                stream.flush()


def read_input(path: Path, what: str) -> str:
    """A command's own input file (a log, a file to import) as strict UTF-8 text; a located
    ConfigError when it is missing, not a regular file (a FIFO never blocks) or not UTF-8."""
    try:
        return decode_strict(read_regular(path))
    except OSError as exc:
        raise ConfigError(f"cannot read {what} {display(path)}: {exc.strerror}") from None
    except NotUtf8Error as exc:
        raise ConfigError(f"{what} {display(path)} is {exc}") from None


def appended(before: str, lines: list[str]) -> list[str]:
    """What a questions file holds once ``lines`` (each ending in ``\n``) are added to its text
    ``before``: its own line ends kept (CRLF stays CRLF), a last line without its end given one."""
    newline = "\r\n" if "\r\n" in before else "\n"
    glue = newline if before and not before.endswith(("\n", "\r")) else ""
    lines = lines if newline == "\n" else [line.replace("\n", newline) for line in lines]
    return [before + glue, *lines] if before else lines


def tell(lines: Iterable[str]) -> None:
    """Say each line on stderr, as golden-lsp says things there."""
    sys.stderr.writelines(f"golden-lsp: {shown(line)}\n" for line in lines)


def rewrite_file(path: Path, before: str, text: str | Sequence[str], what: str) -> None:
    """The questions file ``path``, read as ``before``, replaced by ``text``: ``write_files`` with
    it re-checked (refused when read-only or changed since it was read)."""
    write_files({path: text}, what, {path: before})


def write_files(
    files: Mapping[Path, str | Sequence[str]], what: str, read: Mapping[Path, str] | None = None
) -> None:
    """A command's outputs written all or nothing (``files.write_outputs``), after finishing or
    removing what a killed earlier ``what`` left of them, which is told; a ConfigError naming the
    file when one cannot be written. ``read``: those of them that were read (a questions file
    appended to) and their text then, each refused as ``files.unchanged`` says."""
    try:
        tell(write_outputs(files, what, read))
    except OSError as exc:
        raise ConfigError(
            f"cannot write {display(exc.filename or next(iter(files)))}: {exc.strerror or exc}"
        ) from None
