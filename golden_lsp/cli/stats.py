"""``golden-lsp stats [PATH]``: the set's figures as text, JSON or Markdown (``golden_lsp.practice.stats``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.findings.diagnostics import plural
from ..core.io.jsontext import dumps
from ..practice import stats
from .common import add_set_options, golden_set


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("stats", help="the set's figures: records, hop mix, spans, documents, types, splits")
    p.add_argument("path", nargs="?", type=Path, help="questions file or folder holding a config")
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    add_set_options(p)
    p.set_defaults(run=_stats)


def _stats(args: argparse.Namespace) -> int:
    golden = golden_set(args, args.path)
    analysis = golden.check()
    figures = stats.with_owner(stats.set_stats(analysis, golden.corpus), golden.config.owner)
    if args.format == "json":
        sys.stdout.write(dumps(figures, indent=2) + "\n")
    else:
        render = stats.format_text if args.format == "text" else stats.format_markdown
        sys.stdout.write(render(figures, golden.hit_rule, stats.shape_findings(analysis)))
    errors = analysis.counts()["errors"]
    if errors:
        sys.stderr.write(
            f"golden-lsp: {plural(errors, 'error')} in the set: the figures count only what resolves "
            "(see golden-lsp check)\n"
        )
    return 0
