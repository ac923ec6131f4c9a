"""``init``: write a working skeleton golden set (``golden_lsp.practice.skeleton``) and say what it wrote."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.io.files import display
from ..practice.skeleton import init


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "init", help="start a golden set: config, a corpus chapter and one record (never overwrites)"
    )
    p.add_argument(
        "dir", nargs="?", type=Path, default=Path("."), help="folder to write into (default: here)"
    )
    p.add_argument(
        "--corpus",
        type=Path,
        metavar="EXISTING",
        help="use this existing corpus folder instead of writing a sample chapter",
    )
    p.set_defaults(run=_init)


def _init(args: argparse.Namespace) -> int:
    done = init(args.dir, args.corpus)
    for w in done:
        sys.stderr.write(f"golden-lsp: {'wrote' if w.written else 'kept existing'} {display(w.path)}\n")
    where = display(args.dir)
    sys.stderr.write(f"golden-lsp: next: golden-lsp check {where} && golden-lsp build {where}\n")
    return 0
