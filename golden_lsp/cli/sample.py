"""``golden-lsp sample LOG [PATH] --n N --strategy random|stratified|hard-cases``: skeleton records
drawn from a query log (``golden_lsp.practice.sampling``) for the set at ``PATH`` (its queries are
not drawn again, its ids not reused), on stdout or into a new file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.findings.diagnostics import plural
from ..core.goldenset.config import ConfigError
from ..core.io.files import display
from ..core.io.jsontext import dumps
from ..practice import sampling
from .common import add_set_options, golden_set, read_input, write_files


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sample", help="draw new questions from a query log into skeleton records")
    p.add_argument("log", type=Path, help="one query per line, or JSONL with 'query' (and 'rephrased')")
    p.add_argument("path", nargs="?", type=Path, help="questions file or folder holding a config")
    p.add_argument("--n", type=int, required=True, help="how many queries to draw")
    p.add_argument("--strategy", choices=sampling.STRATEGIES, default="random")
    p.add_argument("--seed", type=int, help="the same seed draws the same sample")
    p.add_argument("--out", type=Path, help="write the records here (never an input) instead of stdout")
    p.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text: questions.jsonl lines; json: a list of the records",
    )
    add_set_options(p)
    p.set_defaults(run=_sample)


def _sample(args: argparse.Namespace) -> int:
    if args.n < 1:
        raise ConfigError("--n must be a positive number")
    golden = golden_set(args, args.path)
    log_text = read_input(args.log, "query log")
    if args.out is not None:
        golden.refuse_outputs({"output": args.out}, {args.log: "query log"})
    analysis = golden.analyze()
    records = [r.record for r in analysis.records if r.record is not None]
    committed = golden.committed_queries()  # deleted questions keep their ids and queries
    existing_ids = [r.id for r in records if r.id is not None] + list(committed)
    queries = [r.query for r in records if r.query is not None] + [
        q for q in committed.values() if isinstance(q, str)
    ]
    pool = sampling.candidates(sampling.read_log(log_text, display(args.log)), queries)
    picked, notes = sampling.draw(pool, args.n, args.strategy, args.seed)
    for note in notes:
        sys.stderr.write(f"golden-lsp: {note}\n")
    out = sampling.skeletons(picked, existing_ids)
    text = dumps(out, indent=2) + "\n" if args.format == "json" else "".join(dumps(r) + "\n" for r in out)
    if args.out is None:
        sys.stdout.write(text)
    else:
        write_files({args.out: text}, "sample")
        sys.stderr.write(f"golden-lsp: wrote {plural(len(out), 'record')} to {display(args.out)}\n")
    return 0
