"""Reading an evaluation at the k you ship: the ceiling, the class-(c) gap, the bimodal signal,
the recall a target correctness requires, and the reranker check.

The lab (00-mental-models §4) bounds end-to-end correctness by retrieval at the shipped k:
P(correct) ≤ P(evidence retrieved) × P(model uses it correctly | retrieved). Its P(evidence
retrieved) — its "recall@k": an answer-bearing chunk in the top k — is golden-lsp's hit@k under
the set's hit rule and the multi-hop rule, so everything here reads hit@K as that probability and
says so. The class-(c) gap (§5: retrieved, but ranked out of the context budget) is
recall@k(generous) − recall@k(shipped), with the deepest evaluated k as the generous one. A
reranker of a baseline's top-DEPTH candidates only reorders them, so no query can have more of
its bearing chunks in its top DEPTH than the baseline had: if one does, the measurement is wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..core.goldenset.config import ConfigError
from .detect import paired_deltas
from .evalspec import METRICS
from .evaluation import Comparison, Evaluation

#: MRR@10 − recall@10 at or above which the mean hides two populations (golden-lsp's threshold)
BIMODAL_GAP = 0.2


def _check_k(ev: Evaluation, k: int, flag: str) -> None:
    if k not in ev.settings.ks:
        raise ConfigError(f"{flag} {k}: k={k} is not evaluated (add it to --k)")


def read_faithfulness(spec: str) -> dict:
    """``--faithfulness``: a number, or a file ``{"faithfulness": {"value": F, "n": N, "low": lo, "high": hi}}``."""
    try:
        return {"value": _unit(float(spec), spec)}
    except ValueError:
        pass
    path = Path(spec)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(
            f"--faithfulness {spec}: neither a number nor a readable file ({e.strerror})"
        ) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ConfigError(f"--faithfulness {spec}: not JSON ({e})") from None
    f = data.get("faithfulness") if isinstance(data, dict) else None
    if (
        not isinstance(f, dict)
        or not isinstance(f.get("value"), (int, float))
        or isinstance(f.get("value"), bool)
    ):
        raise ConfigError(
            f'--faithfulness {spec}: expected {{"faithfulness": {{"value": F, "n": N, "low": lo, "high": hi}}}}'
        )
    out = {"value": _unit(float(f["value"]), spec), "source": str(path)}
    for key in ("n", "low", "high"):
        if isinstance(f.get(key), (int, float)) and not isinstance(f.get(key), bool):
            out[key] = f[key]
    return out


def _unit(x: float, spec: str) -> float:
    if not 0 < x <= 1:
        raise ConfigError(f"--faithfulness {spec}: a faithfulness is above 0 and at most 1")
    return x


@dataclass
class ShippedReading:
    lines: list[str]
    data: dict


def read_shipped(
    ev: Evaluation, k: int, target: float | None, faithfulness: dict | None, bands: dict | None = None
) -> ShippedReading:
    _check_k(ev, k, "--shipped-k")
    tg, st = ev.targets, ev.settings
    rules = f"hit rule {tg.hit_rule}, multi-hop rule {st.multi}, misses score 0, N={ev.n}"
    hit, recall = ev.value("hit", k), ev.value("recall", k)
    i, j = METRICS.index("hit"), st.ks.index(k)
    lo, hi = float(ev.lo[i, j]), float(ev.hi[i, j])
    ceiling = 1 - hit
    lines = [
        f"shipped k={k} ({rules}):",
        f"  ceiling: ship k={k} and {ceiling:.1%} of queries cannot be answered — for them no chunk "
        f"bearing the answer (under {tg.hit_rule}; multi-hop: {st.multi} span{'s' if st.multi == 'all' else ''}) "
        f"is in the top {k} (1 − hit@{k} = {ceiling:.3f}, 95% [{1 - hi:.3f}, {1 - lo:.3f}]); "
        f"{1 - recall:.1%} of the answer-bearing chunks are outside it (1 − recall@{k})",
    ]
    data: dict = {
        "k": k,
        "hit": hit,
        "recall": recall,
        "ceiling": ceiling,
        "ceiling_ci": [1 - hi, 1 - lo],
        "bands": _bands(ev, bands, lines),
    }
    generous = max(st.ks)
    if generous > k:
        gap = ev.value("recall", generous) - recall
        lines.append(
            f"  class (c) gap: recall@{generous} − recall@{k} = {gap:.3f} — answer-bearing chunks retrieved "
            f"but ranked out of a k={k} budget (reranking, fusion or budget policy can recover them)"
        )
        data["class_c_gap"] = {"generous_k": generous, "value": gap}
    else:
        lines.append(f"  class (c) gap: needs a k above {k} in --k (e.g. 50)")
        data["class_c_gap"] = None
    data["bimodal"] = _bimodal(ev, lines)
    data["required"] = _required(hit, k, target, faithfulness, lines) if target is not None else None
    return ShippedReading(lines, data)


def _bands(ev: Evaluation, bands: dict | None, lines: list[str]) -> list[dict] | None:
    """Each evaluated METRIC@K of the config's ``[eval.bands]`` read against its band table: the
    band whose lower bound is the highest at or below the value. golden-lsp ships no band: the
    lab's tables are in an evaluation chapter its material lists as planned, so a team writes its
    own (the lab's "recall@k" is golden-lsp's hit@k: its table goes under ``hit@K``)."""
    if not bands:
        lines.append(
            "  starting bands: none — golden-lsp invents no band (the lab's tables are in its evaluation "
            "chapter, listed as planned); write yours as [eval.bands] in the config"
        )
        return None
    out, cells = [], []
    for name, rows in bands.items():
        metric, k = name.split("@")
        if metric not in METRICS:
            raise ConfigError(f"[eval.bands] {name!r}: no metric {metric!r} (known: {', '.join(METRICS)})")
        if int(k) not in ev.settings.ks:
            cells.append(f"{name} not evaluated (add {k} to --k)")
            continue
        value = ev.value(metric, int(k))
        bound, label = max(((b, lab) for b, lab in rows if b <= value), default=(None, None))
        out.append({"metric": metric, "k": int(k), "value": value, "band": label, "lower_bound": bound})
        cells.append(
            f"{name} {value:.3f} → {label} (≥ {bound:g})"
            if label
            else f"{name} {value:.3f} → below every band"
        )
    lines.append(
        "  starting bands ([eval.bands] of the config: starting heuristics, not acceptance criteria): "
        + "; ".join(cells)
    )
    return out


def _bimodal(ev: Evaluation, lines: list[str]) -> dict | None:
    if 10 not in ev.settings.ks:
        lines.append("  bimodal signal: needs k=10 in --k")
        return None
    mrr, recall = ev.value("mrr", 10), ev.value("recall", 10)
    per_query = ev.values[:, METRICS.index("recall"), ev.settings.ks.index(10)]
    shares = {
        "none": float(np.mean(per_query == 0)),
        "partial": float(np.mean((per_query > 0) & (per_query < 1))),
        "all": float(np.mean(per_query == 1)),
    }
    flagged = mrr - recall >= BIMODAL_GAP
    lines.append(
        f"  bimodal signal (MRR@10 − recall@10 ≥ {BIMODAL_GAP}, golden-lsp's threshold): MRR@10 {mrr:.3f}, "
        f"recall@10 {recall:.3f} — "
        + (
            "FLAGGED: the mean hides two populations; break it down (--by, the breakdowns above)"
            if flagged
            else "no"
        )
        + f"; per query recall@10: none {shares['none']:.1%}, partial {shares['partial']:.1%}, all {shares['all']:.1%}"
    )
    return {
        "mrr10": mrr,
        "recall10": recall,
        "threshold": BIMODAL_GAP,
        "flagged": bool(flagged),
        "recall10_shares": shares,
    }


def _required(hit: float, k: int, target: float, faith: dict | None, lines: list[str]) -> dict:
    if faith is None:
        raise ConfigError("--target-correctness needs --faithfulness F (a number or the grade --oracle file)")
    if not 0 < target <= 1:
        raise ConfigError(f"--target-correctness {target}: a correctness is above 0 and at most 1")
    f = faith["value"]
    required = target / f
    if required > 1:
        verdict = "not achievable without an abstain path: even perfect retrieval caps correctness at the faithfulness"
    elif required > hit:
        verdict = f"not achievable at k={k} without an abstain path: the measured hit@{k} is below the required recall"
    else:
        verdict = "achievable: the measured retrieval meets the required recall"
    where = f" (from {faith['source']})" if "source" in faith else ""
    if "low" in faith and "high" in faith and faith["low"] > 0:
        where += (
            f"; over the faithfulness interval [{faith['low']}, {faith['high']}]: "
            f"[{target / faith['high']:.3f}, {target / faith['low']:.3f}]"
        )
    lines.append(
        f"  required recall: target correctness {target} / faithfulness {f} = {required:.3f}{where} "
        f"(P(correct) ≤ P(evidence retrieved) × faithfulness); measured hit@{k} {hit:.3f} — {verdict}"
    )
    return {
        "target_correctness": target,
        "faithfulness": faith,
        "required_recall": required,
        "measured": hit,
        "achievable": required <= hit,
        "verdict": verdict,
    }


def rerank_violations(cmp: Comparison, depth: int) -> list[str]:
    """Queries whose recall@depth the reranking run raised over the baseline's (it cannot)."""
    ks = cmp.a.settings.ks
    if depth not in ks:
        raise ConfigError(f"--reranks-baseline {depth}: k={depth} is not evaluated (add it to --k)")
    raised = paired_deltas(cmp)[:, METRICS.index("recall"), ks.index(depth)] > 1e-12
    return [q for q, up in zip(cmp.query_ids, raised, strict=True) if up]
