"""Whole-process time of one evaluation: ``golden-lsp eval`` beside ranx and ir-measures.

A CI step pays a metrics library's start-up on every call, so the choice of library for the CLI
is measured here, from outside, as the user runs it. The same BM25 run and qrels of the example
set are scored by (a) ``golden-lsp eval`` — every metric at 6 cutoffs, bootstrap intervals and
breakdowns — (b) ranx (numba JIT) and (c) ir-measures (pytrec_eval), each in a fresh process, and
printed as median seconds with the ratio to (a). (b) and (c) compute only the five IR metrics.

    python benchmarks/eval_startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
KS = (1, 3, 5, 10, 20, 50)

RANX = f"""
import sys, ranx
q = ranx.Qrels.from_file(sys.argv[1], kind="trec"); r = ranx.Run.from_file(sys.argv[2], kind="trec")
ranx.evaluate(q, r, [f"{{m}}@{{k}}" for m in ("hit_rate", "recall", "mrr", "ndcg", "precision") for k in {KS}])
"""
IR_MEASURES = f"""
import sys, ir_measures
from ir_measures import P, R, RR, Success, nDCG
q = list(ir_measures.read_trec_qrels(sys.argv[1])); r = list(ir_measures.read_trec_run(sys.argv[2]))
ir_measures.calc_aggregate([m @ k for m in (P, R, RR, Success, nDCG) for k in {KS}], q, r)
"""


def timed(cmd: list[str], runs: int) -> float:
    subprocess.run(cmd, check=True, capture_output=True)  # warm-up (numba writes its cache here)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        run, qrels = Path(tmp) / "bm25.trec", Path(tmp) / "qrels.txt"
        subprocess.run(
            [py, "-m", "golden_lsp", "retrieve", str(EXAMPLES), "--out", str(run)],
            check=True,
            capture_output=True,
        )
        qrels.write_text(
            subprocess.run(
                [py, "-m", "golden_lsp", "qrels", str(EXAMPLES)], check=True, capture_output=True, text=True
            ).stdout
        )
        ours = timed([py, "-m", "golden_lsp", "eval", str(EXAMPLES), "--run", str(run)], args.runs)
        rows = [("golden-lsp eval (numpy, + bootstrap 2000, breakdowns)", ours)]
        for name, code in (("ranx.evaluate (numba)", RANX), ("ir-measures (pytrec_eval)", IR_MEASURES)):
            try:
                rows.append((name, timed([py, "-c", code, str(qrels), str(run)], args.runs)))
            except subprocess.CalledProcessError as exc:
                rows.append(
                    (f"{name}: not installed ({exc.stderr.decode().strip().splitlines()[-1]})", float("nan"))
                )
    print(f"{'command':<60} {'median s':>9} {'× golden-lsp':>13}")
    for name, secs in rows:
        print(f"{name:<60} {secs:>9.2f} {secs / ours:>13.1f}")


if __name__ == "__main__":
    main()
