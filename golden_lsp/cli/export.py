"""``export``: the resolved set in a format an evaluation tool reads (golden_lsp/export.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.findings.diagnostics import Severity, plural
from ..core.io.files import display
from ..core.labels.questions import SPLITS
from ..practice.export import FOLDER_FORMATS, FORMATS, export
from .common import USAGE_ERROR, add_set_options, golden_set, write_files
from .formats import format_text


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="write the set for ragas, DeepEval, ranx, trec_eval, BEIR or Chroma")
    p.add_argument("path", nargs="?", type=Path, help="questions file, or a folder holding a config")
    p.add_argument("--format", required=True, choices=list(FORMATS), dest="export_format")
    p.add_argument("--out", type=Path, help="file to write (default: standard output); a folder for beir")
    p.add_argument("--split", choices=SPLITS, help="only the records of this split")
    add_set_options(p)
    p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    fmt = args.export_format
    if fmt in FOLDER_FORMATS and args.out is None:
        sys.stderr.write(f"golden-lsp: --format {fmt} writes a folder: give it with --out\n")
        return USAGE_ERROR
    golden = golden_set(args, args.path)
    # like build, export reads questions and corpus only: a stale artifact does not change it
    analysis = golden.analyze()
    if analysis.has_errors:
        errors = [d for d in analysis.diagnostics if d.severity is Severity.ERROR]
        sys.stderr.write(format_text(errors))
        sys.stderr.write(
            f"golden-lsp: nothing exported: {plural(len(errors), 'error')} in {display(analysis.path)} "
            "(an export would label what check rejects)\n"
        )
        return 1
    result = export(golden, analysis, fmt, args.split)
    if args.out is None:
        sys.stdout.write(result.files[""])
        where = "standard output"
    else:
        files = {args.out / name if name else args.out: text for name, text in result.files.items()}
        golden.refuse_outputs(
            {f"{fmt} export {name}".rstrip(): args.out / name if name else args.out for name in result.files}
        )
        write_files(files, "export")
        where = display(args.out)
    split = f" of split {args.split}" if args.split else ""
    queries = plural(result.n_queries, "query", "queries")
    sys.stderr.write(f"golden-lsp: exported {queries}{split} as {fmt} to {where}\n")
    if result.left_out:
        sys.stderr.write(
            f"golden-lsp: {plural(result.left_out, 'unanswerable record')} left out: {fmt} cannot hold "
            "a query without a relevant chunk\n"
        )
    for note in result.notes:
        sys.stderr.write(f"golden-lsp: {note}\n")
    for warning in result.warnings:
        sys.stderr.write(f"golden-lsp: warning: {warning}\n")
    return 0
