"""The readings ``eval`` adds after its metrics when asked: the baseline file, the shipped k, the reranker check.

Each is computed in ``golden_lsp.evaluate`` (``baseline``, ``shipped``); this module holds their
options and turns each into its JSON part, its text lines and whether it fails the run, so that
``evaluate.py`` only appends them.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.findings.diagnostics import plural
from ..core.goldenset.config import Config, ConfigError

if TYPE_CHECKING:
    from ..evaluate.evaluation import Comparison, Evaluation


def add_reading_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--write-baseline",
        type=Path,
        metavar="FILE",
        help="write every metric@k with the set's fingerprint and rules (the guide's baseline file)",
    )
    p.add_argument(
        "--baseline-file",
        type=Path,
        metavar="FILE",
        help="exit 1 when a metric@k dropped from FILE's value by more than --max-drop",
    )
    p.add_argument(
        "--max-drop",
        action="append",
        default=[],
        metavar="D|METRIC@K=D",
        help="the largest allowed drop against --baseline-file (default 0.02; repeat per metric)",
    )
    p.add_argument(
        "--shipped-k",
        type=int,
        metavar="K",
        help="read the evaluation at the k you ship: ceiling, class-(c) gap, bimodal signal (also [eval] shipped_k)",
    )
    p.add_argument(
        "--target-correctness",
        type=float,
        metavar="T",
        help="with --shipped-k: the recall T needs, and whether",
    )
    p.add_argument(
        "--faithfulness",
        metavar="F|FILE",
        help='a number, or {"faithfulness": {"value": F, ...}} (grade --oracle)',
    )
    p.add_argument(
        "--reranks-baseline",
        type=int,
        metavar="DEPTH",
        help="this run reranks --compare's top DEPTH: exit 1 if it raised any query's recall@DEPTH",
    )
    p.add_argument(
        "--allow-other-baseline",
        action="store_true",
        help="check against a baseline file written for another set or rule",
    )


def readings(
    args: argparse.Namespace, ev: Evaluation, config: Config, comparisons: list[tuple[str, Comparison]]
) -> list[tuple[str, dict, list[str], bool]]:
    """The optional readings after the metrics: (JSON key, JSON, text lines, failed) each."""
    out: list[tuple[str, dict, list[str], bool]] = []
    shipped_k = args.shipped_k if args.shipped_k is not None else config.eval.get("shipped_k")
    if shipped_k is not None:
        from ..evaluate.shipped import read_faithfulness, read_shipped

        faith = read_faithfulness(args.faithfulness) if args.faithfulness is not None else None
        reading = read_shipped(ev, shipped_k, args.target_correctness, faith, config.eval.get("bands"))
        out.append(("shipped", reading.data, reading.lines, False))
    elif args.target_correctness is not None or args.faithfulness is not None:
        raise ConfigError("--target-correctness and --faithfulness need --shipped-k K (or [eval] shipped_k)")
    if args.reranks_baseline is not None:
        from ..evaluate.shipped import rerank_violations

        cmp = next((c for role, c in comparisons if role == "compare"), None)
        if cmp is None:
            raise ConfigError(
                "--reranks-baseline DEPTH needs --compare RUN_B (the run whose candidates were reranked)"
            )
        raised = rerank_violations(cmp, args.reranks_baseline)
        d = args.reranks_baseline
        text = (
            f"error: {ev.run.name} claims to rerank the top {d} of {cmp.b.label}, yet raised recall@{d} on "
            f"{plural(len(raised), 'query', 'queries')} ({', '.join(raised[:5])}{', …' if len(raised) > 5 else ''}): "
            "a reranker only reorders its candidates, so the measurement is wrong (other candidates, "
            "another chunking, or a run that is not a reranking)"
            if raised
            else f"reranking check: recall@{d} of {ev.run.name} ≤ that of {cmp.b.label} on every paired query — consistent"
        )
        out.append(
            ("reranks_baseline", {"depth": d, "raised": raised, "failed": bool(raised)}, [text], bool(raised))
        )
    if args.write_baseline is not None:
        from ..evaluate.baseline import write_baseline

        write_baseline(ev, args.write_baseline)
        out.append(
            (
                "baseline_written",
                {"path": str(args.write_baseline)},
                [f"baseline written to {args.write_baseline}"],
                False,
            )
        )
    if args.baseline_file is not None:
        from ..evaluate.baseline import check_baseline

        chk = check_baseline(ev, args.baseline_file, args.max_drop, args.allow_other_baseline)
        out.append(("baseline_file", chk.json(), chk.text(), bool(chk.drops)))
    elif args.max_drop:
        raise ConfigError("--max-drop needs --baseline-file FILE")
    return out
