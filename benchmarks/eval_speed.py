"""``golden-lsp eval`` at scale: 10,000 questions × a depth-100 run, beside ir-measures and the code before.

A production evaluation scores a full set against a deep run on every nightly job, so its time
is measured here as the user pays it: a fresh process reading the questions, the corpus and a
TREC run of ~1 M lines. The set is ``benchmarks/corpora.py``'s 50 MB tier (10,000 questions,
seeded); the run is BM25's top 100 for every query (``golden-lsp retrieve --k 100``), into which
each record's bearing chunks are planted at seeded ranks (the generated queries share no words
with their answers, so BM25 alone would hit nothing and leave every hit branch unmeasured): a
first bearing chunk at rank 1 for ~40 % of the queries, deeper for the rest, absent for ~10 %.

Timed side by side in one run, each the median of ``--runs`` fresh processes after a warm-up
(so every row reads a warm check cache and a warm page cache), interleaved so that a burst of
load on the machine falls on every row alike, as wall time and as CPU time (user + system, which
a busy machine disturbs less; DuckDB reads a run on every core, so (a)'s CPU can exceed its wall):

- (a) ``golden-lsp eval`` with every metric, k ∈ {1,5,10,20,50,100}, bootstrap intervals and
  breakdowns, as a user runs it;
- (b) ir-measures (pytrec_eval) computing the same IR metrics at the same k, without intervals:
  Success, R, RR, nDCG, P, AP and Rprec (reading the qrels and the run itself);
- (c) the same eval command of the code before this change: a ``git worktree`` of ``--before``
  (default 2dc2e2d), or the checkout named by ``--against DIR``;
- (d) (a) with MAP and R-precision taken out of the metric table (issue 32: no new metric
  costs the evaluation more than 10 %).

Each row is printed beside its target: (a)/(b) ≤ 1.0, (a)/(d) ≤ 1.10. Before timing, (a) and (c)
are checked to print the same numbers: their JSON per-query values, means and interval bounds,
of the whole set and of every breakdown group, agree to 1e-12.

With ``--readers``, it times instead the TREC run readers it chose between, each in a fresh
process from its imports to the run ranked (query codes, ID codes, order): the array path in
Python (``str.split``), DuckDB's CSV reader (the one ``eval`` uses on a plain run) and
``pyarrow.csv`` (not a dependency: measured when importable).

    python benchmarks/eval_speed.py [--runs 3] [--work DIR] [--before 2dc2e2d | --against DIR]
    python benchmarks/eval_speed.py --readers [--runs 3] [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpora import generate

ROOT = Path(__file__).resolve().parents[1]
KS = (1, 5, 10, 20, 50, 100)
K_ARG = ",".join(map(str, KS))
#: where each record's first bearing chunk is planted: rank 1, 2–5, 6–20, 21–100, nowhere
PLANT = ((0.40, 1, 1), (0.25, 2, 5), (0.15, 6, 20), (0.10, 21, 100), (0.10, 0, 0))

IR_MEASURES = f"""
import sys, ir_measures
from ir_measures import AP, P, R, RR, Rprec, Success, nDCG
q = list(ir_measures.read_trec_qrels(sys.argv[1])); r = list(ir_measures.read_trec_run(sys.argv[2]))
ir_measures.calc_aggregate([m @ k for m in (Success, R, RR, nDCG, P, AP) for k in {KS}] + [Rprec], q, r)
"""
#: the eval command with map and rprec left out of the metric table (before anything reads it)
WITHOUT_NEW = """
import os, sys
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as eval sets it before numpy loads
import golden_lsp.cli, golden_lsp.evaluate.evaluation, golden_lsp.evaluate.metrics
from golden_lsp.evaluate import evalspec
table = tuple(m for m in evalspec.METRIC_TABLE if m.name not in ("map", "rprec"))
for name, module in list(sys.modules.items()):
    if name.startswith("golden_lsp") and hasattr(module, "METRICS"):
        module.METRIC_TABLE, module.METRICS = table, tuple(m.name for m in table)
sys.argv[0] = "golden-lsp"
sys.exit(golden_lsp.cli.main())
"""


READERS = {
    "Python, str.split (runs._read_trec_arrays)": """
import sys
from golden_lsp.evaluate.runs import _read_trec_arrays
_read_trec_arrays(open(sys.argv[1], "rb").read().decode("utf-8-sig"))
""",
    "DuckDB read_csv (runs._read_trec_duckdb)": """
import sys
from pathlib import Path
from golden_lsp.evaluate.runs import _read_trec_duckdb
assert _read_trec_duckdb(Path(sys.argv[1]), Path(sys.argv[1]).read_bytes()) is not None
""",
    "pyarrow.csv, dictionary-encoded": """
import sys
import numpy as np
import pyarrow as pa, pyarrow.compute as pc, pyarrow.csv as csv
names = ["qid", "q0", "docno", "rank", "score", "tag"]
t = csv.read_csv(sys.argv[1], read_options=csv.ReadOptions(column_names=names),
    parse_options=csv.ParseOptions(delimiter=" "),
    convert_options=csv.ConvertOptions(column_types={"score": pa.float64()}))
q = pc.dictionary_encode(t["qid"]).combine_chunks(); d = pc.dictionary_encode(t["docno"]).combine_chunks()
ids = d.dictionary.to_pylist()
place = np.empty(len(ids), dtype=np.int64); place[sorted(range(len(ids)), key=ids.__getitem__)] = np.arange(len(ids))
np.lexsort((-place[d.indices.to_numpy()], -t["score"].to_numpy().astype(np.float32), q.indices.to_numpy()))
""",
}


def readers(run: Path, runs: int) -> None:
    """Each reader in a fresh process, imports included: median wall and CPU seconds."""
    print(f"TREC run readers on {run.stat().st_size / 1e6:.0f} MB; median of {runs} fresh processes")
    print(f"{'reader':<48} {'wall s':>7} {'CPU s':>6}")
    for name, code in READERS.items():
        walls, cpus = [], []
        for _ in range(runs):
            used, start = _children_cpu(), time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-c", code, str(run)], cwd=ROOT, capture_output=True, text=True
            )
            walls.append(time.perf_counter() - start)
            cpus.append(_children_cpu() - used)
            if done.returncode:
                why = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
                print(f"{name:<48} not measured: {why}")
                break
        else:
            print(f"{name:<48} {statistics.median(walls):>7.2f} {statistics.median(cpus):>6.2f}")


def planted_run(bm25: Path, qrels: Path, out: Path, seed: int = 7) -> int:
    """BM25's rankings with each query's bearing chunks planted at seeded ranks (scores kept)."""
    rng = random.Random(seed)
    relevant: dict[str, list[str]] = {}
    for line in qrels.read_text(encoding="utf-8").splitlines():
        qid, _, cid, _ = line.split()
        relevant.setdefault(qid, []).append(cid)
    ranked: dict[str, list[list[str]]] = {}
    for line in bm25.read_text(encoding="utf-8").splitlines():
        fields = line.split()
        ranked.setdefault(fields[0], []).append(fields)
    lines = []
    for qid, rows in ranked.items():
        ids = [r[2] for r in rows if r[2] not in relevant.get(qid, ())]
        roll, at = rng.random(), 0
        for share, lo, hi in PLANT:
            if roll < share:
                at = rng.randint(lo, hi) if hi else 0
                break
            roll -= share
        if at:
            for j, cid in enumerate(relevant.get(qid, [])):
                # the first at its rank, any other a few ranks further down
                ids.insert(min(len(ids), at - 1 + (rng.randint(1, 10) if j else 0)), cid)
        lines.extend(
            f"{qid} Q0 {cid} {r} {row[4]} planted\n" for r, (cid, row) in enumerate(zip(ids, rows), 1)
        )
    out.write_text("".join(lines), encoding="utf-8")
    return len(lines)


def prepare(work: Path) -> tuple[Path, Path, Path]:
    """The set, its qrels and the planted run under ``work`` (made once, reused when present)."""
    questions, qrels, run = work / "set" / "questions.jsonl", work / "qrels.txt", work / "run.trec"
    if not questions.exists():
        generate(work / "set", 50.0, 10_000)
    py = [sys.executable, "-m", "golden_lsp"]
    if not qrels.exists():
        text = subprocess.run([*py, "qrels", str(work / "set")], check=True, capture_output=True, text=True)
        qrels.write_text(text.stdout, encoding="utf-8")
    if not run.exists():
        bm25 = work / "bm25.trec"
        subprocess.run(
            [*py, "retrieve", str(work / "set"), "--k", "100", "--out", str(bm25)],
            check=True,
            capture_output=True,
        )
        planted_run(bm25, qrels, run)
    return work / "set", qrels, run


def checkout(args: argparse.Namespace, tmp: Path) -> Path:
    """The code before: ``--against DIR``, or a detached worktree of ``--before``."""
    if args.against:
        return Path(args.against).resolve()
    tree = tmp / "before"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), args.before],
        check=True,
        capture_output=True,
    )
    return tree


Command = tuple[list[str], dict | None, Path | None]


def command(code: Path, *tail: str, without_new: bool = False) -> Command:
    """A fresh ``golden-lsp`` process running the package of checkout ``code`` (run from it:
    ``-m`` and ``-c`` put the working directory before PYTHONPATH), checked to be that one."""
    import os

    env = {**os.environ, "PYTHONPATH": str(code)}
    where = subprocess.run(
        [sys.executable, "-c", "import golden_lsp; print(golden_lsp.__file__)"],
        env=env,
        cwd=code,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not Path(where).resolve().is_relative_to(code.resolve()):
        raise SystemExit(f"{code}: golden_lsp loads from {where}, not from this checkout")
    head = [sys.executable, "-c", WITHOUT_NEW] if without_new else [sys.executable, "-m", "golden_lsp"]
    return [*head, *tail], env, code


def values(cmd: Command) -> dict[str, float | None]:
    out = subprocess.run(
        cmd[0] + ["--format", "json"], env=cmd[1], cwd=cmd[2], capture_output=True, text=True
    )
    if out.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[0][:4])}: exit {out.returncode}: {out.stderr.strip()[-500:]}")
    doc = json.loads(out.stdout)
    got = {f"{q['query_id']} {key}": v for q in doc["per_query"] for key, v in q.items() if "@" in key}
    # every mean and interval bound too, of the whole set and of each breakdown group
    groups = [("all", doc["metrics"])] + [
        (f"{b['by']}={b['value']}", b["metrics"]) for b in doc["breakdowns"]
    ]
    for name, cells in groups:
        for c in cells:
            got[f"{name} {c['metric']}@{c['k']}"] = c["value"]
            got[f"{name} {c['metric']}@{c['k']} lo"], got[f"{name} {c['metric']}@{c['k']} hi"] = c["ci"]
    return got


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", type=Path, help="keep the generated set and run here (reused when present)")
    ap.add_argument("--before", default="2dc2e2d", help="the commit before the change (default 2dc2e2d)")
    ap.add_argument("--against", help="a checkout of the code before, instead of a worktree of --before")
    ap.add_argument("--readers", action="store_true", help="time the TREC run readers instead")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        work = (args.work or tmp / "work").resolve()
        work.mkdir(parents=True, exist_ok=True)
        folder, qrels, run = prepare(work)
        if args.readers:
            readers(run, args.runs)
            return
        lines = sum(1 for _ in run.open(encoding="utf-8"))
        before = checkout(args, tmp)
        try:
            tail = ("eval", str(folder), "--run", str(run), "--k", K_ARG)
            rows = {
                "(a) golden-lsp eval, every metric, intervals": command(ROOT, *tail),
                "(b) ir-measures (pytrec_eval), no intervals": (
                    [sys.executable, "-c", IR_MEASURES, str(qrels), str(run)],
                    None,
                    None,
                ),
                "(c) golden-lsp eval before the change": command(before, *tail),
                "(d) (a) without map and rprec": command(ROOT, *tail, without_new=True),
            }
            now, then = (
                values(rows["(a) golden-lsp eval, every metric, intervals"]),
                values(rows["(c) golden-lsp eval before the change"]),
            )
            if now.keys() != then.keys() or any((now[k] is None) != (then[k] is None) for k in now):
                raise SystemExit("(a) and (c) disagree on which numbers they print")
            worst = max((abs(now[k] - then[k]) for k in now if now[k] is not None), default=0.0)  # type: ignore[operator]
            if worst > 1e-12:
                raise SystemExit(f"(a) and (c) disagree: largest difference {worst}")
            times: dict[str, list[float]] = {name: [] for name in rows}
            cpu: dict[str, list[float]] = {name: [] for name in rows}
            for cmd, env, cwd in rows.values():  # warm-up: check cache, page cache
                subprocess.run(cmd, env=env, cwd=cwd, capture_output=True)
            for _ in range(args.runs):
                for name, (cmd, env, cwd) in rows.items():
                    used = _children_cpu()
                    start = time.perf_counter()
                    done = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True)
                    times[name].append(time.perf_counter() - start)
                    cpu[name].append(_children_cpu() - used)
                    if done.returncode not in (0, 1):
                        raise SystemExit(f"{name}: exit {done.returncode}: {done.stderr.decode()[-500:]}")
        finally:
            if not args.against:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)], check=False
                )
    median = {name: statistics.median(ts) for name, ts in times.items()}
    median_cpu = {name: statistics.median(ts) for name, ts in cpu.items()}
    print(
        f"10,000 questions (50 MB tier), a {lines:,}-line TREC run, k {K_ARG}; median of {args.runs} "
        f"fresh processes, wall and CPU (user + system) seconds; (c) = {args.against or args.before}; "
        f"(a) and (c) agree to {worst:.1e} (per-query values, means, intervals)"
    )
    print(f"{'row':<48} {'wall s':>7} {'CPU s':>6}   {'each run: wall/CPU':<30}")
    for name, ts in times.items():
        each = " ".join(f"{t:.2f}/{c:.2f}" for t, c in zip(ts, cpu[name]))
        print(f"{name:<48} {median[name]:>7.2f} {median_cpu[name]:>6.2f}   {each}")
    print(f"\n{'ratio':<48} {'wall':>7} {'CPU':>6} {'target':>8}")
    for label, x, y, target in (
        ("(a) / (b): eval against ir-measures", 0, 1, "≤ 1.00"),
        ("(a) / (c): eval against the code before", 0, 2, "< 1"),
        ("(a) / (d): cost of map and rprec", 0, 3, "≤ 1.10"),
    ):
        names = list(rows)
        wall = median[names[x]] / median[names[y]]
        used = median_cpu[names[x]] / median_cpu[names[y]]
        print(f"{label:<48} {wall:>7.2f} {used:>6.2f} {target:>8}")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
