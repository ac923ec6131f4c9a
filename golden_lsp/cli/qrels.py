"""``qrels``: the TREC qrels of a golden set for any chunking, under the set's hit rule."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.findings.diagnostics import plural
from ..core.goldenset.config import ConfigError
from ..core.io.files import display
from ..evaluate.chunkings import qrels_text
from .common import add_set_options
from .evalshared import add_chunks_option, load_targets, write_output


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("qrels", help="write TREC qrels (qid 0 chunk_id 1) of the answer-bearing chunks")
    p.add_argument("path", nargs="?", type=Path, help="questions file or folder holding a config")
    add_chunks_option(p)
    p.add_argument("--out", type=Path, help="write here instead of standard output")
    add_set_options(p)
    p.set_defaults(run=_qrels)


def _qrels(args: argparse.Namespace) -> int:
    golden, tg = load_targets(args)
    for t in tg.answerable:
        if any(c.isspace() for c in t.query_id):
            raise ConfigError(f"query id {t.query_id!r} holds whitespace: TREC qrels cannot carry it")
    text = qrels_text([(t.query_id, t.relevant) for t in tg.answerable])
    if args.out is None:
        sys.stdout.write(text)
    else:
        write_output(args.out, text, golden, args.chunks)
    empty = sum(1 for t in tg.answerable for b in t.bearing if not b)
    sys.stderr.write(
        f"golden-lsp: qrels of {plural(len(tg.answerable), 'answerable record')} over {tg.chunking.name} "
        f"(hit rule {tg.hit_rule}); {plural(empty, 'span')} without a bearing chunk; {len(tg.unanswerable)} "
        f"unanswerable and {tg.excluded} excluded records have none"
        + (f"; wrote {display(args.out)}" if args.out else "")
        + "\n"
    )
    return 0
