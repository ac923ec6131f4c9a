"""``golden-lsp report``: the golden set, its coverage of the corpus and its retrieval curve as one
self-contained HTML page (``report.py``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.goldenset.config import ConfigError
from ..core.io.files import display
from .common import add_set_options, golden_set, tell
from .subsets import add_by_option

DEFAULT_OUT = "report.html"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report", help="write one self-contained HTML page: figures, findings, coverage, charts, curve"
    )
    p.add_argument("path", nargs="?", type=Path, help="questions file or folder holding a config")
    source = p.add_mutually_exclusive_group()
    source.add_argument(
        "--run", dest="run_file", type=Path, help="a retrieval run to draw the curve of (as eval)"
    )
    source.add_argument("--retriever", help="rank with a retriever first (bm25, or module:function), as eval")
    add_by_option(p)  # with a run: its slices, as eval --by
    p.add_argument(
        "--out", type=Path, default=Path(DEFAULT_OUT), help=f"the page to write (default {DEFAULT_OUT})"
    )
    add_set_options(p)
    p.set_defaults(run=_report)


def _report(args: argparse.Namespace) -> int:
    golden = golden_set(args, args.path)
    from ..practice.report import write_report  # the report extra is imported only to report

    out = args.out.resolve()
    try:
        recovered = write_report(golden, out, args.run_file, args.retriever, args.by)
    except RuntimeError as exc:  # a missing extra (report, search)
        raise ConfigError(str(exc)) from None
    tell(recovered)
    sys.stderr.write(f"golden-lsp: wrote {display(out)}\n")
    return 0
