"""``eval``: score a run (or a retriever) against the golden set; compare, gate, store in DuckDB.

Exit codes as ``check``'s: 0 every gate and floor passed, 1 a gate or floor failed (or a sanity
rule was violated, which is a bug report), 2 a usage problem with a one-line reason.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.findings.diagnostics import plural
from ..core.goldenset.config import ConfigError
from ..core.io.jsontext import dumps
from ..core.io.shown import shown
from ..evaluate.evalspec import (
    DEFAULT_KS,
    MAX_K,
    MAX_RESAMPLES,
    METRIC_TABLE,
    METRICS,
    MIN_INTERVAL_N,
    MISSES,
    MULTI_RULES,
    RUN_FORMATS,
)
from ..evaluate.runs import read_run
from ..practice.agreementfile import for_evaluation
from .common import add_set_options
from .evalreadings import add_reading_options, readings
from .evalshared import add_chunks_option, load_targets
from .retrieve import add_retriever_option
from .subsets import add_by_option, add_subset_options, subset_of

if TYPE_CHECKING:  # numpy and the evaluation core load only when eval runs
    from ..evaluate.evaluation import Comparison, Evaluation, Scored
    from ..evaluate.slices import SliceGate
    from ..evaluate.targets import Settings

BAR = 24


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eval",
        help="score a retrieval run against the golden set (metrics with 95%% intervals)",
        epilog="metrics, each at every cutoff k: "
        + "; ".join(f"{m.name}@k: {m.description}" for m in METRIC_TABLE),
    )
    p.add_argument("path", nargs="?", type=Path, help="questions file or folder holding a config")
    p.add_argument(
        "--run",
        type=Path,
        dest="run_file",
        metavar="RUN",
        help="TREC, JSONL ({query_id, chunk_ids}) or ranx JSON run",
    )
    add_retriever_option(p)
    p.add_argument("--run-format", choices=RUN_FORMATS, help="the run's format (default: detected)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--k", default=",".join(map(str, DEFAULT_KS)), help="cutoffs (default 1,3,5,10,20,50)")
    p.add_argument(
        "--multi",
        choices=MULTI_RULES,
        default="any",
        help="multi-hop records hit when any span (default) or all spans have a bearing chunk in the top k",
    )
    p.add_argument(
        "--bootstrap", type=int, default=2000, metavar="N", help="bootstrap resamples (default 2000)"
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the bootstrap, the randomization test and --sample (default 0)",
    )
    add_subset_options(p)
    add_chunks_option(p)
    _add_gate_options(p)
    p.add_argument(
        "--traces",
        type=Path,
        metavar="TRACES.jsonl",
        help="per-query request_id, latency_ms and cost stored with --db: one "
        "{query_id, request_id, latency_ms, cost} per line (default: a JSONL run's own lines)",
    )
    p.add_argument(
        "--db", type=Path, metavar="results.duckdb", help="append this evaluation to a DuckDB file"
    )
    add_reading_options(p)
    add_set_options(p)
    p.set_defaults(run=_eval)


def _add_gate_options(p: argparse.ArgumentParser) -> None:
    """What a run is compared with and what fails the command: --compare, --baseline, --gate,
    --gate-slices, --floor, --allow-different-sets."""
    p.add_argument(
        "--compare", metavar="RUN_B", help="paired deltas against another run (a file or db:RUN_ID)"
    )
    p.add_argument("--baseline", metavar="RUN|db:latest|db:RUN_ID", help="the run --gate compares against")
    p.add_argument(
        "--gate",
        action="append",
        default=[],
        metavar="METRIC@K",
        help="exit 1 when METRIC@K dropped from the baseline and the 95%% interval excludes zero",
    )
    add_by_option(p)
    p.add_argument(
        "--gate-slices",
        action="store_true",
        dest="gate_slices",
        help=f"apply each --gate to every slice of the --by fields too (slices of N>={MIN_INTERVAL_N})",
    )
    p.add_argument(
        "--floor",
        action="append",
        default=[],
        metavar="METRIC@K=VALUE",
        help="exit 1 when METRIC@K is below VALUE (e.g. hit@50=0.95)",
    )
    p.add_argument(
        "--allow-different-sets",
        action="store_true",
        dest="allow_different_sets",
        help="compare evaluations whose fingerprints differ",
    )


def _ks(spec: str) -> tuple[int, ...]:
    try:
        ks = tuple(sorted({int(x) for x in spec.split(",") if x.strip()}))
    except ValueError:
        raise ConfigError(f"--k {spec!r}: expected comma-separated positive integers") from None
    if not ks or ks[0] < 1:
        raise ConfigError(f"--k {spec!r}: expected comma-separated positive integers")
    if ks[-1] > MAX_K:
        raise ConfigError(f"--k {spec!r}: a cutoff is at most {MAX_K:,}, not {ks[-1]:,}")
    return ks


def _resamples(n: int) -> int:
    if not 0 <= n <= MAX_RESAMPLES:
        raise ConfigError(
            f"--bootstrap {n}: the number of resamples is from 0 (no interval) to {MAX_RESAMPLES:,}"
        )
    return n


def _floors(specs: list[str], ks: tuple[int, ...]) -> list[tuple[str, int, float]]:
    from ..evaluate.evaluation import parse_metric_at

    out = []
    for spec in specs:
        at, sep, value = spec.partition("=")
        try:
            floor = float(value)
        except ValueError:
            floor = math.nan
        if not sep or math.isnan(floor):
            raise ConfigError(f"--floor {spec!r}: expected METRIC@K=VALUE, e.g. hit@50=0.95")
        out.append((*parse_metric_at(at, ks), floor))
    return out


def _other(ref: str, args, tg, settings: Settings, fingerprint: str) -> Scored:
    """Another evaluation to compare with: a run file evaluated now, or a stored run."""
    if ref.startswith("db:"):
        if args.db is None:
            raise ConfigError(f"{ref}: name the database with --db results.duckdb")
        from ..evaluate.resultsdb import load

        return load(args.db, ref[3:], fingerprint, args.allow_different_sets)
    from ..evaluate.evaluation import evaluate

    return evaluate(tg, read_run(Path(ref), args.run_format), settings).scored()


def _eval(args: argparse.Namespace) -> int:
    # before numpy loads: the bootstrap's matrix products are blocks of a few MB, where
    # OpenBLAS's worker threads cost more than they give, and spin for seconds on a busy machine
    # (benchmarks/eval_speed.py); a user's own setting is kept
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from ..evaluate.evaluation import (
        Settings,
        compare,
        evaluate,
        gate_failed,
        parse_metric_at,
        sanity,
        signals,
    )
    from ..evaluate.retrieval import run_of
    from ..evaluate.slices import slice_gates, slice_groups

    if args.gate_slices and not (args.gate and args.by):
        raise ConfigError("--gate-slices needs --gate METRIC@K and the slices' --by FIELD")
    if args.gate and args.baseline is None:
        raise ConfigError("--gate needs --baseline RUN (or db:latest with --db)")
    settings = Settings(_ks(args.k), args.multi, _resamples(args.bootstrap), args.seed)
    gates = [parse_metric_at(g, settings.ks) for g in args.gate]
    floors = _floors(args.floor, settings.ks)
    golden, tg = load_targets(args)
    tg = subset_of(args, golden, tg)
    run = run_of(tg, golden.corpus, max(settings.ks), args.run_file, args.run_format, args.retriever)
    ev = evaluate(tg, run, settings)
    ev.groups.extend(slice_groups(tg.answerable, args.by))
    comparisons: list[tuple[str, Comparison]] = []
    for role, ref in (("compare", args.compare), ("baseline", args.baseline)):
        if ref is not None:
            other = _other(ref, args, tg, settings, tg.fingerprint)
            comparisons.append(
                (
                    role,
                    compare(ev.scored(), other, settings.resamples, settings.seed, args.allow_different_sets),
                )
            )
    extra = readings(
        args, ev, golden.config, comparisons
    )  # before storing: a refused baseline file stores nothing
    run_id = None
    if args.db is not None:
        from ..evaluate.resultsdb import store
        from ..evaluate.traces import read_traces

        trace_file = args.traces or (args.run_file if ev.run.format == "jsonl" else None)
        run_id = store(args.db, ev, read_traces(trace_file) if trace_file is not None else None)
    notes = sanity(ev) + signals(ev)
    baseline = next((c for role, c in comparisons if role == "baseline"), None)
    gate_results = (
        [(m, k, baseline.at(m, k), gate_failed(baseline, m, k)) for m, k in gates] if baseline else []
    )
    sliced = slice_gates(ev, baseline, gates, args.by) if baseline and args.gate_slices else []
    floor_results = [(m, k, f, ev.value(m, k) < f) for m, k, f in floors]
    labels = for_evaluation(golden.config)  # the set's agreement, beside every metric
    if args.format == "json":
        result = _as_json(ev, comparisons, notes, gate_results, floor_results, run_id)
        result.update({key: part for key, part, _, _ in extra})
        result["slice_gates"] = [_slice_gate_json(sg) for sg in sliced]
        sys.stdout.write(dumps({**result, **labels}, indent=2) + "\n")
    else:
        sys.stdout.write(_as_text(ev, comparisons, notes, gate_results, floor_results, run_id))
        sys.stdout.write("".join(_slice_gate_line(sg) + "\n" for sg in sliced))
        sys.stdout.write("".join("\n" + "\n".join(lines) + "\n" for _, _, lines, _ in extra))
        sys.stdout.write(labels["agreement_line"] + "\n")
    failed = any(n.severity == "error" for n in notes) or any(r[-1] for r in gate_results + floor_results)
    failed = failed or any(sg.failed for sg in sliced) or any(f for *_, f in extra)
    return 1 if failed else 0


# --- output -------------------------------------------------------------------------------------


def _num(x: float) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x:.3f}"


def _ci(lo: float, hi: float, n: int | None = None) -> str:
    """An interval as text; over fewer than MIN_INTERVAL_N records, that there is none."""
    if n is not None and n < MIN_INTERVAL_N:
        return f"(no interval: N<{MIN_INTERVAL_N})"
    return f"[{_num(lo)}, {_num(hi)}]"


def _bar(x: float) -> str:
    if math.isnan(x):
        return ""
    full = round(x * BAR)
    return "█" * full + "·" * (BAR - full)


def _breakdowns(ev: Evaluation) -> list[str]:
    """hit and recall by hop, query type, split and document, each group with its N (and its
    interval, from MIN_INTERVAL_N records on)."""
    st, out = ev.settings, []
    by_facet: dict[str, list] = {}
    for g in ev.groups:
        by_facet.setdefault(g.by, []).append(g)
    for by, groups in by_facet.items():
        if len(groups) < 2:
            out.append(f"\nby {by}: one group only ({shown(groups[0].value)}), no breakdown")
            continue
        small = (
            f"; no interval for a group of fewer than {MIN_INTERVAL_N} records"
            if ev.n >= MIN_INTERVAL_N
            else ""
        )
        out.append(f"\nby {by} — {ev.rule_text()}{small}")
        for g in groups:
            mean, lo, hi = ev.group_stats(g)
            n = len(g.rows)
            for metric in ("hit", "recall"):
                i = METRICS.index(metric)
                cells = "  ".join(
                    f"@{k} {_num(mean[i, j])}"
                    + (f" {_ci(lo[i, j], hi[i, j])}" if n >= MIN_INTERVAL_N else "")
                    for j, k in enumerate(st.ks)
                )
                none = f"  {_ci(lo[0, 0], hi[0, 0], n)}" if n < MIN_INTERVAL_N else ""
                out.append(f"  {shown(g.value):<14} N={n:<4} {metric:<6} {cells}{none}")
    return out


def _as_text(ev: Evaluation, comparisons, notes, gates, floors, run_id) -> str:
    tg, st = ev.targets, ev.settings
    out = [
        f"golden-lsp eval: {ev.run.name} ({ev.run.format}), fingerprint {tg.fingerprint}",
        f"  chunking {tg.chunking.name} ({tg.chunking.digest}, {plural(len(tg.chunking.chunks), 'chunk')}), "
        f"hit rule {tg.hit_rule}, multi-hop rule {st.multi}",
        f"  N = {plural(ev.n, 'answerable record')}; {len(ev.missing)} missing from the run, scored 0"
        + (f" ({', '.join(ev.missing[:5])}{', …' if len(ev.missing) > 5 else ''})" if ev.missing else "")
        + f"; {tg.excluded} excluded (errors: see golden-lsp check)",
        f"  {plural(ev.run.duplicates, 'duplicate ID')} counted once; {plural(len(ev.unknown_chunks), 'chunk ID')} "
        f"not in the chunking; {plural(len(ev.unknown_queries), 'run query', 'run queries')} not in the set; "
        f"{plural(ev.no_bearing, 'span')} without a bearing chunk in this chunking",
    ]
    if tg.unanswerable:
        out.append(
            f"  unanswerable (reported apart, not in N): {plural(len(tg.unanswerable), 'record')}; the run returned "
            f"chunks for {ev.unanswerable_answered} of them"
        )
    out.append("")
    for i, metric in enumerate(METRICS):
        out.append(f"{metric} — {ev.rule_text()}, N={ev.n}")
        for j, k in enumerate(st.ks):
            v = ev.mean[i, j]
            out.append(
                f"  {metric}@{k:<3} {_num(v)}  {_ci(ev.lo[i, j], ev.hi[i, j], ev.n)}  N={ev.n}  {_bar(v)}"
            )
    out.extend(_breakdowns(ev))
    for role, cmp in comparisons:
        out.append(
            f"\n{role}: {cmp.a.label} − {cmp.b.label}, paired over N={len(cmp.query_ids)} queries "
            f"({cmp.unpaired} unpaired), hit rule {tg.hit_rule}, multi-hop rule {st.multi}, {MISSES}, "
            f"95% paired bootstrap ({st.resamples} resamples, seed {st.seed}), randomization-test p"
        )
        if cmp.a.fingerprint != cmp.b.fingerprint:
            out.append(
                f"  different sets allowed: {cmp.b.label} was measured against another golden set, "
                f"corpus, chunking or hit rule (fingerprints {cmp.a.fingerprint} and {cmp.b.fingerprint})"
            )
        for i, metric in enumerate(METRICS):
            cells = "  ".join(
                f"@{k} {cmp.delta[i, j]:+.3f} {_ci(cmp.lo[i, j], cmp.hi[i, j])} p={_num(cmp.p[i, j])}"
                for j, k in enumerate(st.ks)
            )
            out.append(f"  Δ{metric:<9} {cells}")
    for metric, k, (delta, lo, hi, p), failed in gates:
        verdict = "FAIL: dropped and the interval excludes 0" if failed else "pass"
        out.append(
            f"gate {metric}@{k}: Δ = {delta:+.3f} {_ci(lo, hi)} p={_num(p)} (N={ev.n}, hit rule "
            f"{tg.hit_rule}, multi {st.multi}, misses 0) — {verdict}"
        )
    for metric, k, floor, failed in floors:
        i, j = METRICS.index(metric), st.ks.index(k)
        out.append(
            f"floor {metric}@{k} ≥ {floor}: {_num(ev.mean[i, j])} {_ci(ev.lo[i, j], ev.hi[i, j], ev.n)} "
            f"(N={ev.n}, hit rule {tg.hit_rule}, multi {st.multi}, misses 0) — "
            + ("FAIL" if failed else "pass")
        )
    if notes:
        out.append("")
        out.extend(f"{n.severity}: {n.message}" for n in notes)
    if run_id:
        out.append(f"\nstored as run {run_id}")
    return "\n".join(out) + "\n"


def _cells(metric_values, lo, hi, ks, n: int, ev: Evaluation) -> list[dict]:
    return [
        {
            "metric": m,
            "k": k,
            "value": _float(metric_values[i, j]),
            "ci": [_float(lo[i, j]), _float(hi[i, j])],
            "n": n,
            "hit_rule": str(ev.targets.hit_rule),
            "multi": ev.settings.multi,
            "misses": "scored 0",
        }
        for i, m in enumerate(METRICS)
        for j, k in enumerate(ks)
    ]


def _float(x) -> float | None:
    return None if math.isnan(x) else float(x)


def _as_json(ev: Evaluation, comparisons, notes, gates, floors, run_id) -> dict:
    tg, st = ev.targets, ev.settings
    breakdowns = []
    for g in ev.groups:
        mean, lo, hi = ev.group_stats(g)
        breakdowns.append(
            {
                "by": g.by,
                "value": g.value,
                "n": len(g.rows),
                "small": len(g.rows) < MIN_INTERVAL_N,
                "metrics": _cells(mean, lo, hi, st.ks, len(g.rows), ev),
            }
        )
    return {
        "run": {
            "name": ev.run.name,
            "format": ev.run.format,
            "digest": ev.run.digest,
            "duplicates": ev.run.duplicates,
        },
        "fingerprint": tg.fingerprint,
        "fingerprint_parts": tg.fingerprint_parts,
        "chunking": {
            "name": tg.chunking.name,
            "digest": tg.chunking.digest,
            "chunks": len(tg.chunking.chunks),
        },
        "settings": {
            **st.as_dict(),
            "hit_rule": str(tg.hit_rule),
            "misses": MISSES,
            "confidence": 0.95,
            "min_interval_n": MIN_INTERVAL_N,
        },
        "n": ev.n,
        "missing": ev.missing,
        "excluded": tg.excluded,
        "unknown_queries": ev.unknown_queries,
        "unknown_chunks": len(ev.unknown_chunks),
        "spans_without_bearing_chunk": ev.no_bearing,
        "unanswerable": {"n": len(tg.unanswerable), "answered_by_run": ev.unanswerable_answered},
        "metrics": _cells(ev.mean, ev.lo, ev.hi, st.ks, ev.n, ev),
        "breakdowns": breakdowns,
        "comparisons": [_comparison_json(ev, role, c) for role, c in comparisons],
        "gates": [
            {
                "metric": m,
                "k": k,
                "delta": _float(d),
                "ci": [_float(lo), _float(hi)],
                "p": _float(p),
                "failed": failed,
            }
            for m, k, (d, lo, hi, p), failed in gates
        ],
        "floors": [
            {"metric": m, "k": k, "floor": f, "value": _float(ev.value(m, k)), "failed": failed}
            for m, k, f, failed in floors
        ],
        "notes": [{"severity": n.severity, "message": n.message} for n in notes],
        "per_query": _per_query_json(ev),
        "db_run_id": run_id,
    }


def _slice_gate_line(sg: SliceGate) -> str:
    head = f"gate {sg.metric}@{sg.k} on slice {sg.by}={shown(sg.value)} (N={sg.n})"
    if sg.result is None:
        return f"{head}: not gated, fewer than {MIN_INTERVAL_N} records"
    delta, lo, hi, p = sg.result
    verdict = "FAIL: dropped and the interval excludes 0" if sg.failed else "pass"
    return f"{head}: Δ = {delta:+.3f} {_ci(lo, hi)} p={_num(p)} — {verdict}"


def _slice_gate_json(sg: SliceGate) -> dict:
    delta, lo, hi, p = sg.result if sg.result is not None else (math.nan,) * 4
    return {
        "by": sg.by,
        "value": sg.value,
        "n": sg.n,
        "metric": sg.metric,
        "k": sg.k,
        "gated": sg.result is not None,
        "delta": _float(delta),
        "ci": [_float(lo), _float(hi)],
        "p": _float(p),
        "failed": sg.failed,
    }


def _comparison_json(ev: Evaluation, role: str, c: Comparison) -> dict:
    ks = ev.settings.ks
    return {
        "role": role,
        "a": c.a.label,
        "b": c.b.label,
        "n": len(c.query_ids),
        "unpaired": c.unpaired,
        "fingerprints": [c.a.fingerprint, c.b.fingerprint],
        "deltas": [
            {**cell, "p": _float(c.p[i, j])}
            for (i, j), cell in zip(
                ((i, j) for i in range(len(METRICS)) for j in range(len(ks))),
                _cells(c.delta, c.lo, c.hi, ks, len(c.query_ids), ev),
            )
        ],
    }


def _per_query_json(ev: Evaluation) -> list[dict]:
    missing = set(ev.missing)
    return [
        {
            "query_id": t.query_id,
            "hop": t.hop,
            "query_type": t.query_type,
            "split": t.split,
            "documents": list(t.docs),
            "missing": t.query_id in missing,
            **{
                f"{m}@{k}": _float(ev.values[q, i, j])
                for i, m in enumerate(METRICS)
                for j, k in enumerate(ev.settings.ks)
            },
        }
        for q, t in enumerate(ev.targets.answerable)
    ]
