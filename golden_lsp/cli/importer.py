"""``import``: a ragas, DeepEval, dataset or Chroma test set as a questions file (golden_lsp/importer.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.files import display
from ..core.rules import with_severities
from ..practice.importer import READERS, import_samples
from .common import add_set_options, golden_set, read_input, write_files
from .formats import format_text


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help="anchor another tool's test set to quotes: a questions file to check")
    p.add_argument("file", type=Path, help="the file to import")
    p.add_argument("--from", required=True, choices=list(READERS), dest="source_format")
    p.add_argument("--out", type=Path, help="questions file to write (default: standard output)")
    add_set_options(p)
    p.set_defaults(run=_run)


def _run(args: argparse.Namespace) -> int:
    golden = golden_set(args, None)  # the corpus to anchor in: --config, else found from here
    text = read_input(args.file, "file to import")
    if args.out is not None:
        golden.refuse_outputs(
            {"questions file to write": args.out}, {args.file: "file to import"}, questions=True
        )
    result = import_samples(golden.corpus, args.source_format, args.file, text)
    sys.stderr.write(format_text(with_severities(result.diagnostics, golden.config.severity)))
    if args.out is None:
        sys.stdout.writelines(result.lines)
        where = "standard output"
    else:
        write_files({args.out: result.lines}, "import")
        where = display(args.out)
    sys.stderr.write(
        f"golden-lsp: imported {result.records} samples to {where}: {result.anchored} contexts "
        f"anchored, {result.ambiguous} ambiguous, {result.not_found} not found\n"
    )
    return 0
