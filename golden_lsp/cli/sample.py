"""``golden-lsp sample LOG --n N --strategy random|stratified|hard-cases``: skeleton records drawn
from a query log (``golden_lsp.sampling``), on stdout or into a new file."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .. import sampling
from ..artifact import write_atomically
from ..canon import NotUtf8Error, decode_strict
from ..config import ConfigError
from ..export import input_paths, refuse_inputs
from ..diagnostics import plural
from ..project import is_input_name
from .common import add_set_options, display, golden_set


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sample", help="draw new questions from a query log into skeleton records")
    p.add_argument("log", type=Path, help="one query per line, or JSONL with 'query' (and 'rephrased')")
    p.add_argument("--n", type=int, required=True, help="how many queries to draw")
    p.add_argument("--strategy", choices=sampling.STRATEGIES, default="random")
    p.add_argument("--seed", type=int, help="the same seed draws the same sample")
    p.add_argument("--out", type=Path, help="write the records here (never an input) instead of stdout")
    p.add_argument("--format", choices=("text", "json"), default="text",
                   help="text: questions.jsonl lines; json: a list of the records")
    add_set_options(p)
    p.set_defaults(run=_sample)


def _sample(args: argparse.Namespace) -> int:
    if args.n < 1:
        raise ConfigError("--n must be a positive number")
    golden = golden_set(args, None)
    try:
        log_text = decode_strict(args.log.read_bytes())
    except OSError as exc:
        raise ConfigError(f"cannot read {args.log}: {exc.strerror}") from None
    except NotUtf8Error as exc:
        raise ConfigError(f"query log {args.log} is {exc}") from None
    if args.out is not None:
        refuse_inputs([args.out], {**input_paths(golden), args.log.resolve(): "query log"})
        if is_input_name(args.out.name):
            raise ConfigError(f"refusing to write {args.out}: {args.out.name} is the name of a questions or "
                              "config file, an input")
    analysis = golden.analyze()
    records = [r.record for r in analysis.records if r.record is not None]
    committed = golden.committed_queries()  # deleted questions keep their ids and queries
    existing_ids = [r.id for r in records if r.id is not None] + list(committed)
    queries = [r.query for r in records if r.query is not None] + [q for q in committed.values() if isinstance(q, str)]
    pool = sampling.candidates(sampling.read_log(log_text, display(args.log)), queries)
    picked, notes = sampling.draw(pool, args.n, args.strategy, args.seed)
    for note in notes:
        sys.stderr.write(f"golden-lsp: {note}\n")
    out = sampling.skeletons(picked, existing_ids)
    if args.format == "json":
        text = json.dumps(out, ensure_ascii=False, indent=2) + "\n"
    else:
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out)
    if args.out is None:
        sys.stdout.write(text)
    else:
        try:
            write_atomically({args.out: text})
        except OSError as exc:
            raise ConfigError(f"cannot write {args.out}: {exc.strerror or exc}") from None
        sys.stderr.write(f"golden-lsp: wrote {plural(len(out), 'record')} to {display(args.out)}\n")
    return 0
