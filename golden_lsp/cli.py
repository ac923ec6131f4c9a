"""The command line: ``check`` (the CI gate), ``build`` (write the artifact) and ``serve``.

A thin front end over ``project.GoldenSet``: it turns flags into a config, runs the job, and
prints the core's diagnostics in the format CI wants (text, JSON, GitHub annotations). Exit codes
are a contract for CI: 0 no error, 1 findings with an error, 2 a usage or configuration problem,
always with a one-line reason.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Iterable

from . import __version__
from .analysis import Analysis
from .config import DEFAULT_QUESTIONS, Config, ConfigError, config_for
from .diagnostics import Diagnostic
from .project import GoldenSet

USAGE_ERROR = 2


def _display(path: Path) -> str:
    """A path as the user will want to click it: relative to the working directory if inside."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


def format_text(diags: Iterable[Diagnostic]) -> str:
    lines = []
    for d in diags:
        r = d.range.one_based()
        lines.append(f"{_display(d.path)}:{r.line}:{r.column}: {d.severity.value}[{d.code}] {d.message}")
        for rel in d.related:
            r = rel.range.one_based()
            lines.append(f"  {_display(rel.path)}:{r.line}:{r.column}: note: {rel.message}")
    return "".join(line + "\n" for line in lines)


def format_json(diags: Iterable[Diagnostic]) -> str:
    out = []
    for d in diags:
        item = {"path": _display(d.path), **asdict(d.range.one_based()), "severity": d.severity.value,
                "code": d.code, "message": d.message,
                "related": [{"path": _display(r.path), **asdict(r.range.one_based()), "message": r.message}
                            for r in d.related]}
        if "replacement" in d.data:
            item["fix"] = {"replacement": d.data["replacement"]}
        out.append(item)
    return json.dumps(out, ensure_ascii=False, indent=2) + "\n"


def _gh_escape(value: str, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return value.replace(":", "%3A").replace(",", "%2C") if prop else value


def format_github(diags: Iterable[Diagnostic]) -> str:
    kinds = {"error": "error", "warning": "warning"}
    lines = []
    for d in diags:
        r = d.range.one_based()
        props = (f"file={_gh_escape(_display(d.path), True)},line={r.line},col={r.column},"
                 f"endLine={r.end_line},endColumn={r.end_column},title={_gh_escape(d.code, True)}")
        lines.append(f"::{kinds.get(d.severity.value, 'notice')} {props}::{_gh_escape(d.message)}\n")
    return "".join(lines)


FORMATS = {"text": format_text, "json": format_json, "github": format_github}


def _add_set_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", type=Path, help="golden-lsp.toml or pyproject.toml to use")
    p.add_argument("--corpus", type=Path, help="corpus folder (Markdown documents)")
    p.add_argument("--glob", help="documents under the corpus folder (pathlib glob, default *.md)")
    p.add_argument("--questions", type=Path, help="questions file (questions.jsonl)")
    p.add_argument("--artifact", type=Path, help="artifact to write or check (golden-set.v1.jsonl)")
    p.add_argument("--manifest", type=Path, help="manifest to write or check")
    p.add_argument("--max-chars", type=int, dest="max_chars", help="chunker max_chars (default 1800)")
    p.add_argument("--hit-rule", dest="hit_rule",
                   help="any_overlap (default), span_containment, coverage>=τ, union_coverage>=τ")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="golden-lsp",
        description="Quote-anchored RAG golden sets: check, build, or serve the editor (no command: serve).")
    parser.add_argument("--version", action="version", version=f"golden-lsp {__version__}")
    sub = parser.add_subparsers(dest="command")
    check = sub.add_parser("check", help="report every finding; exit 1 on any error (also: golden-lsp --check)")
    check.add_argument("paths", nargs="*", type=Path, help="questions files or folders holding a config")
    check.add_argument("--format", choices=sorted(FORMATS), default="text")
    _add_set_options(check)
    build = sub.add_parser("build", help="write the artifact and manifest, or nothing when there is an error")
    _add_set_options(build)
    serve = sub.add_parser("serve", help="run the language server (the default)")
    serve.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead, for debugging")
    return parser


def _golden_set(args: argparse.Namespace, target: Path | None) -> GoldenSet:
    """The golden set a command addresses: config from --config or found from ``target``."""
    if target is not None and not target.exists():
        raise ConfigError(f"no such file or folder: {target}")
    config = config_for(target or (args.questions and args.questions.parent), args.config)
    overrides = {k: getattr(args, k) for k in ("corpus", "glob", "questions", "artifact", "manifest",
                                                "max_chars", "hit_rule")}
    if target is not None and target.is_file():
        overrides["questions"] = target
    elif target is not None and config.source is None and args.questions is None:
        overrides["questions"] = target / DEFAULT_QUESTIONS  # a folder without a config: its own file
    config = config.with_overrides(overrides, Path.cwd())
    return GoldenSet(config)


def _check(args: argparse.Namespace) -> int:
    targets: list[Path | None] = list(args.paths) or [None]
    analyses: list[Analysis] = [_golden_set(args, t).check() for t in targets]
    diags = [d for a in analyses for d in a.diagnostics]
    sys.stdout.write(FORMATS[args.format](diags))
    if args.format == "text":
        for a in analyses:
            c = a.counts()
            sys.stderr.write(f"{_display(a.path)}: {c['records']} records, {c['errors']} errors, "
                             f"{c['warnings']} warnings\n")
    return 1 if any(a.has_errors for a in analyses) else 0


def _build(args: argparse.Namespace) -> int:
    golden = _golden_set(args, None)
    analysis, written = golden.build()
    sys.stdout.write(format_text(analysis.diagnostics))
    config: Config = golden.config
    if not written:
        sys.stderr.write(f"golden-lsp: nothing written: {analysis.counts()['errors']} errors\n")
        return 1
    sys.stderr.write(f"golden-lsp: wrote {_display(config.artifact_path())} ({analysis.counts()['records']} "
                     f"records) and {_display(config.manifest_path())}\n")
    return 0


def _tcp_address(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (or ``:PORT`` for 127.0.0.1) as (host, port)."""
    host, sep, port = value.rpartition(":")
    if not sep or not (port.isascii() and port.isdigit()) or not 0 < int(port) < 65536:
        raise ConfigError(f"--tcp expects HOST:PORT with a port from 1 to 65535, not {value!r}")
    return host or "127.0.0.1", int(port)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--check" in argv:
        argv.remove("--check")
        argv.insert(0, "check")
    if not argv or argv[0] in ("--stdio", "--tcp"):
        argv.insert(0, "serve")
    args = _parser().parse_args(argv)
    if args.command == "serve":
        try:
            tcp = _tcp_address(args.tcp) if args.tcp is not None else None
        except ConfigError as exc:
            sys.stderr.write(f"golden-lsp: {exc}\n")
            return USAGE_ERROR
        from .server import serve  # the protocol layer is imported only to serve

        return serve(tcp)
    try:
        return _check(args) if args.command == "check" else _build(args)
    except ConfigError as exc:
        sys.stderr.write(f"golden-lsp: {exc}\n")
        return USAGE_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
