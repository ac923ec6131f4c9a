"""``retrieve``: rank the chunks for every query (BM25 or the user's function) and write a run."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.findings.diagnostics import plural
from ..core.io.files import display
from ..evaluate.runs import run_text
from .common import add_set_options
from .evalshared import add_chunks_option, load_targets, write_output


def add_retriever_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--retriever",
        metavar="bm25|MODULE:FUNCTION",
        help="bm25 (the search extra), or your fn(query: str, k: int) -> list[str] of chunk IDs",
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("retrieve", help="rank the chunks for every query and write a run file")
    p.add_argument("path", nargs="?", type=Path, help="questions file or folder holding a config")
    add_retriever_option(p)
    p.add_argument("--k", type=int, default=50, help="chunks per query (default 50)")
    p.add_argument(
        "--out",
        type=Path,
        required=True,
        help="the run: JSONL when it ends in .jsonl, else TREC (qid Q0 docno rank score tag)",
    )
    add_chunks_option(p)
    add_set_options(p)
    p.set_defaults(run=_retrieve)


def _retrieve(args: argparse.Namespace) -> int:
    from ..evaluate.retrieval import retrieve

    golden, tg = load_targets(args)
    spec = args.retriever or "bm25"
    ids, scores = retrieve(spec, golden.corpus, tg.chunking, tg.all(), args.k)
    fmt = "jsonl" if args.out.suffix == ".jsonl" else "trec"
    write_output(
        args.out, run_text(ids, scores, fmt, f"golden-lsp-{spec.replace(':', '.')}"), golden, args.chunks
    )
    sys.stderr.write(
        f"golden-lsp: wrote {display(args.out)} ({fmt}): top {args.k} of "
        f"{plural(len(tg.chunking.chunks), 'chunk')} ({tg.chunking.name}) for "
        f"{plural(len(ids), 'query', 'queries')} by {spec}\n"
    )
    return 0
