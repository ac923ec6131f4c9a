"""``import``: a ragas, DeepEval, dataset or Chroma test set as a questions file (golden_lsp/importer.py).

Creating a set's questions file from an import is the main use, so ``--out`` may name the set's
questions file while it does not exist yet; an existing one is an input, never overwritten, and
``--append`` adds the imported records to its end instead (fresh ids, no query asked twice).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.check.rules import folded, with_severities
from ..core.findings.diagnostics import plural
from ..core.goldenset.config import ConfigError
from ..core.goldenset.project import GoldenSet
from ..core.io.files import display
from ..core.io.shown import shown
from ..core.text.canon import editor_text
from ..practice.foreign import READERS
from ..practice.importer import Existing, import_samples
from .common import add_set_options, appended, golden_set, read_input, rewrite_file, write_files
from .formats import format_text


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help="anchor another tool's test set to quotes: a questions file to check")
    p.add_argument("file", type=Path, help="the file to import")
    p.add_argument("--from", required=True, choices=list(READERS), dest="source_format")
    p.add_argument(
        "--out",
        type=Path,
        help="questions file to write (default: standard output); never an existing questions file "
        "unless --append",
    )
    p.add_argument(
        "--append",
        action="store_true",
        help="add the imported records to the end of the questions file --out names (fresh ids; a "
        "sample whose query the file already asks is skipped)",
    )
    add_set_options(p)
    p.set_defaults(run=_run)


def _existing(golden: GoldenSet, out: Path) -> tuple[str, Existing]:
    """The questions file appended to, as it is on disk, and the ids and queries it holds (with
    the committed artifact's ids, when it is the set's own file)."""
    if not out.exists():
        return "", Existing(frozenset(golden.committed_queries()), {})
    raw = read_input(out, "questions file to append to")
    analysis = golden.analyze(editor_text(raw), out)
    records = [r.record for r in analysis.records if r.record is not None]
    ids = {r.id for r in records if isinstance(r.id, str)}
    if out.resolve() == golden.questions_path.resolve():
        ids |= set(golden.committed_queries())
    queries = {folded(r.query): r.id or "?" for r in records if isinstance(r.query, str)}
    return raw, Existing(frozenset(ids), queries)


def _run(args: argparse.Namespace) -> int:
    if args.append and args.out is None:
        raise ConfigError("--append needs --out QUESTIONS_FILE: the questions file to add the records to")
    golden = golden_set(args, None)  # the corpus to anchor in: --config, else found from here
    text = read_input(args.file, "file to import")
    before, existing = "", None
    if args.out is not None:
        what = "questions file to append to" if args.append else "questions file to write"
        golden.refuse_outputs(
            {what: args.out}, {args.file: "file to import"}, questions=True, append=args.append
        )
        if args.append:
            before, existing = _existing(golden, args.out)
    result = import_samples(golden.corpus, args.source_format, args.file, text, existing)
    sys.stderr.write(format_text(with_severities(result.diagnostics, golden.config.severity)))
    for found, record_id in result.skipped:
        at = found.one_based()
        sys.stderr.write(
            shown(
                f"{display(args.file)}:{at.line}:{at.column}: note: sample skipped: "
                f"{display(args.out)} already asks its query (record {record_id})"
            )
            + "\n"
        )
    written = result.records - len(result.skipped)
    if args.out is None:
        sys.stdout.writelines(result.lines)
        where = "standard output"
    elif args.append and not written:
        where = f"{display(args.out)} (nothing to append: left as it was)"
    else:
        if args.append:
            rewrite_file(args.out, before, appended(before, result.lines), "import")
        else:
            write_files({args.out: result.lines}, "import")
        where = display(args.out) + (" (appended)" if before else "")
    skipped = f", {len(result.skipped)} skipped (query already there)" if args.append else ""
    sys.stderr.write(
        f"golden-lsp: imported {plural(written, 'sample')} to {where}: {plural(result.anchored, 'context')} "
        f"anchored, {result.ambiguous} ambiguous, {result.not_found} not found{skipped}\n"
    )
    return 0
