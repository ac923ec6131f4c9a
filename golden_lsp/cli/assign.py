"""``golden-lsp assign FILE --annotators A,B[,...] --out-dir DIR``: the records handed to each
annotator, with a stratified shared overlap for double annotation (``practice.assignment``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.findings.diagnostics import plural
from ..core.goldenset.config import ConfigError
from ..core.io.files import display
from ..core.io.jsontext import dumps
from ..core.io.shown import shown
from ..practice.assignment import DEFAULT_BY, DEFAULT_OVERLAP, assign, read_records
from .common import read_input, write_files


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "assign",
        help="hand records to annotators, with a shared overlap (default 20 %%) for double annotation",
    )
    p.add_argument("file", type=Path, help="the records to label (a questions file, e.g. written by sample)")
    p.add_argument("--annotators", required=True, metavar="NAME,...", help="two or more annotators' names")
    p.add_argument(
        "--overlap",
        type=float,
        default=DEFAULT_OVERLAP,
        help=f"the share of the records every annotator labels (default {DEFAULT_OVERLAP:g})",
    )
    p.add_argument(
        "--by",
        default=DEFAULT_BY,
        metavar="FIELD",
        help=f"stratify the overlap by this record field or meta.KEY (default {DEFAULT_BY}, written by sample)",
    )
    p.add_argument(
        "--seed", type=int, help="the same seed draws the same overlap and hands out the same records"
    )
    p.add_argument(
        "--out-dir",
        type=Path,
        required=True,
        help="one NAME.questions.jsonl per annotator is written here (new files)",
    )
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(run=_assign)


def _assign(args: argparse.Namespace) -> int:
    names = [n.strip() for n in args.annotators.split(",")]
    if len(names) < 2 or not all(names) or len(set(names)) != len(names):
        raise ConfigError(f"--annotators needs two or more distinct names, not {args.annotators!r}")
    if any(not n.replace("-", "").replace("_", "").replace(".", "").isalnum() for n in names):
        raise ConfigError("an annotator's name is letters, digits, '-', '_' and '.' (it names their file)")
    if not 0 < args.overlap <= 1:
        raise ConfigError("--overlap is a share of the records, above 0 and at most 1")
    records = read_records(read_input(args.file, "records file"), display(args.file))
    if not records:
        raise ConfigError(f"no records in {display(args.file)}")
    done = assign(records, names, args.overlap, args.seed, args.by)
    outputs = {args.out_dir / f"{name}.questions.jsonl": recs for name, recs in done.files.items()}
    taken = [display(p) for p in outputs if p.exists() or p.resolve() == args.file.resolve()]
    if taken:
        raise ConfigError(f"refusing to write over {', '.join(taken)}: an annotator's file is never replaced")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    write_files({p: "".join(dumps(r) + "\n" for r in recs) for p, recs in outputs.items()}, "assign")
    if args.format == "json":
        result = {
            "annotators": {
                name: {"file": display(path), "n_records": len(done.files[name])}
                for name, path in zip(done.files, outputs)
            },
            "overlap": done.overlap,
            "by": args.by,
            "strata": [{"stratum": s, "n_records": n, "n_overlap": k} for s, n, k in done.strata],
        }
        sys.stdout.write(dumps(result, indent=2) + "\n")
        return 0
    out = [
        f"overlap: {plural(len(done.overlap), 'record')} of {len(records)} for every annotator "
        f"(stratified by {args.by})"
    ]
    width = max(len(shown(s)) for s, _, _ in done.strata)
    out.extend(f"  {shown(s):<{width}}  {n} records, {k} in the overlap" for s, n, k in done.strata)
    out.extend(
        f"{name}: {plural(len(done.files[name]), 'record')} in {display(path)}"
        for name, path in zip(done.files, outputs)
    )
    sys.stdout.write("\n".join(out) + "\n")
    return 0
