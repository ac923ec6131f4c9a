"""``golden-lsp agree A B``: two annotators' questions files over one corpus and config, compared
(``golden_lsp.practice.agreement``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..core.check.rules import short
from ..core.findings.diagnostics import plural
from ..core.goldenset.config import ConfigError
from ..core.io.files import display
from ..practice.agreement import (
    ACCEPTABLE,
    BOOTSTRAP_RESAMPLES,
    GOOD,
    SPAN_DISAGREE,
    SPAN_WARN,
    agreement,
    spans_of,
)
from .common import add_set_options, golden_set


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "agree", help="inter-annotator agreement of two questions files: Cohen's kappa, span F1"
    )
    p.add_argument("a", type=Path, help="annotator A's questions file (its config is used for both)")
    p.add_argument("b", type=Path, help="annotator B's questions file, over the same corpus")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_set_options(p)
    p.set_defaults(run=_agree)


def _agree(args: argparse.Namespace) -> int:
    for path in (args.a, args.b):
        if not path.is_file():
            raise ConfigError(f"not a questions file: {path}")
    golden = golden_set(args, args.a)
    a, b = golden.analyze(path=args.a), golden.analyze(path=args.b)
    result = agreement(a, b, golden.corpus)
    for analysis in (a, b):
        errors = analysis.counts()["errors"]
        if errors:
            sys.stderr.write(
                f"golden-lsp: {display(analysis.path)} has {plural(errors, 'error')}: its unresolved "
                "locators label nothing here (see golden-lsp check)\n"
            )
    if args.format == "json":
        sys.stdout.write(
            json.dumps({**result, "hit_rule": str(golden.hit_rule)}, ensure_ascii=False, indent=2) + "\n"
        )
        return 0
    sys.stdout.write(_text(result, a, b, golden))
    return 0


def _fmt(value: float | None, digits: int = 3) -> str:
    return "undefined" if value is None else f"{value:.{digits}f}"


def _text(result: dict, a, b, golden) -> str:
    n_chunks = golden.corpus.n_chunks
    ci = result["kappa_ci95"]
    interval = (
        f"95% CI [{ci[0]:.3f}, {ci[1]:.3f}] (bootstrap over records, {BOOTSTRAP_RESAMPLES} resamples)"
        if ci
        else "no interval (fewer than 2 records)"
    )
    n, f1 = result["n_records"], result["span_f1"]
    f1_band = "" if f1 is None else f" ({'low: below' if f1 < SPAN_WARN else 'at least'} {SPAN_WARN})"
    out = [
        f"chunks: Cohen's kappa {_fmt(result['kappa'])} ({result['band']}) · spans: mean character-level "
        f"F1 {_fmt(f1)}{f1_band} · over {plural(n, 'record')} in both",
        f"  kappa: > {GOOD} good, {ACCEPTABLE}–{GOOD} acceptable, < {ACCEPTABLE} poor; {interval}; over "
        f"N = {result['n_items']:,} (record, chunk) pairs: {plural(n, 'record')} × {plural(n_chunks, 'chunk')}, "
        f"a chunk relevant when it bears a span under hit rule {golden.hit_rule}",
        f"  span F1: the characters both label over those either labels, per record; below {SPAN_WARN} "
        f"the passages differ even where the chunks agree",
    ]
    out.extend(f"warning: {w}" for w in result["warnings"])
    for label, ids in (("only in A", result["only_in_a"]), ("only in B", result["only_in_b"])):
        if ids:
            out.append(f"{label} ({len(ids)}): {', '.join(ids)}")
    judged = result["judge_proposed"]
    if judged["a"] or judged["b"]:
        out.append(
            f"machine labels: {len(judged['a'])} records of A and {len(judged['b'])} of B were labelled or "
            "proposed by an LLM judge (annotator judge:… or judged_by): there this is agreement with a judge"
        )
    rows = [r for r in result["records"] if r["disagree"]]
    out.append(
        f"disagreements: {len(rows)} of {plural(n, 'record')} (other chunks, span F1 < {SPAN_DISAGREE} or other "
        "answerability)" + (":" if rows else "")
    )
    recs_a = {r.record.id: r for r in a.records if r.record is not None}
    recs_b = {r.record.id: r for r in b.records if r.record is not None}
    for row in rows:
        same = " (same chunks)" if row["chunks_agree"] else ""
        out.append(f"  {row['id']}  kappa {_fmt(row['kappa'])}  span F1 {_fmt(row['span_f1'])}{same}")
        for who, recs in (("A", recs_a), ("B", recs_b)):
            spans = spans_of(recs[row["id"]])
            if not spans:
                out.append(
                    f"    {who}: no span" + (" (unanswerable)" if recs[row["id"]].record.unanswerable else "")
                )
            for s in spans:
                text = golden.corpus.docs[s.doc_id].text[s.start : s.end]
                out.append(f"    {who}: {s.doc_id} {s.start}–{s.end} {short(text)!r}")
    bounds = [r["id"] for r in result["records"] if not r["agree"] and not r["disagree"]]
    if bounds:
        out.append(f"span boundaries differ (same chunks, span F1 ≥ {SPAN_DISAGREE}): {', '.join(bounds)}")
    return "\n".join(out) + "\n"
