"""``golden-lsp power [PATH]``: the effect the gate can detect at the set's N, and the N a delta needs.

The computation is ``golden_lsp.evaluate.detect``; this command picks its source (no run: the
binomial worst case; ``--run``: that run's spread; ``--run`` and ``--baseline``: the paired
bootstrap of the two) and prints it per metric and k, in text or JSON, with the method, α and power.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from ..core.goldenset.config import ConfigError
from ..core.io.jsontext import dumps
from ..evaluate.evalspec import DEFAULT_KS, METRICS, MULTI_RULES, RUN_FORMATS
from .common import add_set_options
from .evalshared import add_chunks_option, load_targets
from .evaluate import _ks, _resamples


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "power",
        help="the minimum detectable effect of the eval gate at the set's N, and the N a delta needs",
    )
    p.add_argument("path", nargs="?", type=Path, help="questions file or folder holding a config")
    p.add_argument(
        "--run", type=Path, dest="run_file", metavar="RUN", help="a run (its spread); default: worst case"
    )
    p.add_argument(
        "--baseline", type=Path, metavar="RUN_B", help="with --run: the paired bootstrap of RUN − RUN_B"
    )
    p.add_argument("--run-format", choices=RUN_FORMATS, help="the runs' format (default: detected)")
    p.add_argument("--delta", type=float, default=0.02, help="the change whose N is asked (default 0.02)")
    p.add_argument("--power", type=float, default=0.8, help="the chance of detecting the MDE (default 0.8)")
    p.add_argument("--k", default=",".join(map(str, DEFAULT_KS)), help="cutoffs (default 1,3,5,10,20,50)")
    p.add_argument("--multi", choices=MULTI_RULES, default="any", help="multi-hop rule (default any)")
    p.add_argument(
        "--bootstrap", type=int, default=2000, metavar="N", help="bootstrap resamples (default 2000)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_chunks_option(p)
    add_set_options(p)
    p.set_defaults(run=_power)


def _power(args: argparse.Namespace) -> int:
    from ..evaluate import detect
    from ..evaluate.evaluation import compare, evaluate
    from ..evaluate.runs import read_run
    from ..evaluate.targets import Settings

    settings = Settings(_ks(args.k), args.multi, _resamples(args.bootstrap), args.seed)
    if args.baseline is not None and args.run_file is None:
        raise ConfigError("--baseline needs --run RUN")
    _, tg = load_targets(args)
    shape = (len(METRICS), len(settings.ks))
    if args.run_file is None:
        det = detect.worst_case(len(tg.answerable), shape, args.power, args.delta)
    else:
        ev = evaluate(tg, read_run(args.run_file, args.run_format), settings)
        if args.baseline is None:
            det = detect.from_run(ev.values, settings.resamples, settings.seed, args.power, args.delta)
        else:
            base = evaluate(tg, read_run(args.baseline, args.run_format), settings)
            cmp = compare(ev.scored(), base.scored(), settings.resamples, settings.seed)
            deltas = detect.paired_deltas(cmp)
            det = detect.from_pair(deltas, settings.resamples, settings.seed, args.power, args.delta)
    head = {
        "method": det.method,
        "alpha": detect.ALPHA,
        "power": det.power,
        "delta": det.delta,
        "n": det.n,
        "hit_rule": str(tg.hit_rule),
        "multi": settings.multi,
        "fingerprint": tg.fingerprint,
        "gate": "eval --gate fails when the metric dropped and the 95% paired bootstrap interval excludes 0",
    }
    cells = [
        {
            "metric": m,
            "k": k,
            "se": _float(det.se[i, j]),
            "mde": _float(det.mde[i, j]),
            "n_needed": None if math.isnan(det.n_needed[i, j]) else int(det.n_needed[i, j]),
        }
        for i, m in enumerate(METRICS)
        for j, k in enumerate(settings.ks)
    ]
    if args.format == "json":
        sys.stdout.write(dumps({**head, "metrics": cells}, indent=2) + "\n")
        return 0
    out = [
        f"golden-lsp power: what eval --gate detects at N={det.n} (hit rule {tg.hit_rule}, multi-hop rule "
        f"{settings.multi}), α = {detect.ALPHA} two-sided (the gate's 95% interval), power {det.power}",
        f"  method: {det.method}",
        f"  MDE = (z(1-α/2) + z(power)) * SE; N for Δ = {det.delta}: (z(1-α/2) + z(power))² σ² / Δ²",
    ]
    # the worst case is one number for every metric in [0, 1]
    for c in cells[:1] if det.method == detect.WORST_CASE else cells:
        name = "every metric@k" if det.method == detect.WORST_CASE else f"{c['metric']}@{c['k']}"
        mde = "n/a (no spread)" if c["mde"] is None else f"{c['mde']:.3f}"
        need = "n/a" if c["n_needed"] is None else f"{c['n_needed']:,}"
        out.append(f"  {name:<14} MDE {mde:<16} N for Δ={det.delta}: {need}")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def _float(x) -> float | None:
    return None if math.isnan(x) else float(x)
