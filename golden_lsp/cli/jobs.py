"""``check`` (the CI gate) and ``build`` (write the artifact and manifest, all or nothing)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from ..core.check.model import Analysis
from ..core.engine import packs
from ..core.engine.docindex import AUTO, AUTO_JOBS_MB, MAX_AUTO_JOBS
from ..core.findings.diagnostics import BROKEN_LABEL, Severity, plural
from ..core.goldenset.config import Config
from ..core.goldenset.passages import passages_path
from ..core.goldenset.project import GoldenSet
from ..core.goldenset.renames import renamed, with_renames
from ..core.io.files import display as _display
from .common import add_set_options, progress
from .common import golden_set as _common_golden_set
from .formats import FORMATS, REANCHORED_FORMATS, format_text

_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def register(sub: argparse._SubParsersAction) -> None:
    check = sub.add_parser(
        "check", help="report every finding; exit 1 on any error (also: golden-lsp --check)"
    )
    check.add_argument("paths", nargs="*", type=Path, help="questions files or folders holding a config")
    check.add_argument("--format", choices=sorted(FORMATS), default="text")
    add_set_options(check)
    _add_speed_options(check)
    check.set_defaults(run=_check)
    build = sub.add_parser("build", help="write the artifact and manifest, or nothing when there is an error")
    build.add_argument("path", nargs="?", type=Path, help="questions file or folder holding a config")
    add_set_options(build)
    _add_speed_options(build)
    build.set_defaults(run=_build)


def _add_speed_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--jobs",
        "-j",
        type=_jobs,
        default=AUTO,
        metavar="N",
        help="read, chunk and resolve documents in N processes (same output; default auto: "
        f"one per core, up to {MAX_AUTO_JOBS}, for a corpus of {AUTO_JOBS_MB} MB or more)",
    )
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the warm cache of chunks and quote facts",
    )


def _jobs(value: str) -> int:
    if value == "auto":
        return AUTO
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number or 'auto', not {value!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {n}")
    return n


def _golden_set(args: argparse.Namespace, target: Path | None):
    """The set, with the speed options applied (they change how fast, never what is found)."""
    if args.no_cache:
        packs.enabled = False
    return _common_golden_set(args, target, lean=True, jobs=args.jobs)


def _check(args: argparse.Namespace) -> int:
    targets: list[Path | None] = list(args.paths) or [None]
    checked: list[tuple[GoldenSet, Analysis]] = []
    for target in targets:
        with progress(f"checking {_display(target or Path.cwd())}"):
            golden = _golden_set(args, target)
            checked.append((golden, golden.check()))
        _tell_recovered(golden)
    if any(d.code == "unknown-doc" for _, a in checked for d in a.diagnostics):
        # a doc renamed: where its labels' quotes went (read only when a doc is unknown)
        checked = [
            (
                golden,
                dataclasses.replace(a, diagnostics=with_renames(a.diagnostics, renamed(golden.corpus, a))),
            )
            for golden, a in checked
        ]
    analyses = [a for _, a in checked]
    # errors first, then warnings, then notes, each in file and line order (a sort that keeps order)
    diags = sorted((d for a in analyses for d in a.diagnostics), key=lambda d: _RANK[d.severity])
    if args.format in REANCHORED_FORMATS and any(d.code in BROKEN_LABEL for d in diags):
        from .migrate import with_reanchoring  # the old corpus is read only for a broken label

        diags = with_reanchoring(checked, diags)
    sys.stdout.write(FORMATS[args.format](diags, analyses))
    if args.format == "text":
        for a in analyses:
            c = a.counts()
            sys.stderr.write(
                f"{_display(a.path)}: {plural(c['records'], 'record')}, "
                f"{plural(c['errors'], 'error')}, {plural(c['warnings'], 'warning')}\n"
            )
    return 1 if any(a.has_errors for a in analyses) else 0


def _build(args: argparse.Namespace) -> int:
    with progress(f"building {_display(args.path or Path.cwd())}"):
        golden = _golden_set(args, args.path)
        analysis, written = golden.build()
    _tell_recovered(golden)
    sys.stdout.write(format_text(analysis.diagnostics))
    config: Config = golden.config
    if not written:
        sys.stderr.write(f"golden-lsp: nothing written: {plural(analysis.counts()['errors'], 'error')}\n")
        return 1
    sys.stderr.write(
        f"golden-lsp: wrote {_display(config.artifact_path())} "
        f"({plural(analysis.counts()['records'], 'record')}), {_display(config.manifest_path())} and "
        f"{_display(passages_path(config.artifact_path()))}\n"
    )
    return 0


def _tell_recovered(golden: GoldenSet) -> None:
    for line in golden.recovered:
        sys.stderr.write(f"golden-lsp: {line}\n")
