"""``golden-lsp agree A B [C ...]``: two or more annotators' questions files over one corpus and
config, compared (``golden_lsp.practice.agreement`` for a pair, ``practice.reliability`` for any
number), the headline figures kept beside the set (``practice.agreementfile``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.check.rules import short
from ..core.findings.diagnostics import plural
from ..core.goldenset.config import ConfigError
from ..core.goldenset.project import GoldenSet
from ..core.io.files import display
from ..core.io.jsontext import dumps
from ..core.io.shown import shown
from ..practice.agreement import (
    ACCEPTABLE,
    BOOTSTRAP_RESAMPLES,
    GOOD,
    SPAN_DISAGREE,
    SPAN_WARN,
    agreement,
    spans_of,
)
from ..practice.agreementfile import agreement_path, stored
from ..practice.reliability import annotator_names, reliability
from .common import add_set_options, golden_set, write_files


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "agree",
        help="inter-annotator agreement of two or more questions files: Krippendorff's alpha, "
        "Cohen's kappa, span F1",
    )
    add_annotator_files(p)
    p.add_argument(
        "--no-save",
        action="store_true",
        help="do not keep the figures as agreement.json beside the set (eval and the report print them)",
    )
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_set_options(p)
    p.set_defaults(run=_agree)


def _agree(args: argparse.Namespace) -> int:
    names, golden = annotator_files(args, "agree")
    analyses = [golden.analyze(path=path) for path in args.files]
    result = reliability(analyses, names, golden.corpus)
    if len(analyses) == 2:
        result = {**result, **agreement(analyses[0], analyses[1], golden.corpus)}  # a pair keeps its keys
    for analysis in analyses:
        errors = analysis.counts()["errors"]
        if errors:
            sys.stderr.write(
                f"golden-lsp: {display(analysis.path)} has {plural(errors, 'error')}: its unresolved "
                "locators label nothing here (see golden-lsp check)\n"
            )
    if not args.no_save:
        where = agreement_path(golden.config)
        golden.refuse_outputs({"agreement": where}, dict.fromkeys(args.files, "annotator's file"))
        write_files({where: stored(result, args.files, str(golden.hit_rule))}, "agree")
    if args.format == "json":
        sys.stdout.write(dumps({**result, "hit_rule": str(golden.hit_rule)}, indent=2) + "\n")
        return 0
    pair = len(analyses) == 2
    text = _text(result, analyses[0], analyses[1], golden) if pair else _many(result, golden)
    sys.stdout.write(text + _alpha_text(result))
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


def add_annotator_files(p: argparse.ArgumentParser) -> None:
    """The annotators' files and their names, as ``agree`` and ``adjudicate`` take them."""
    p.add_argument(
        "files",
        type=Path,
        nargs="+",
        metavar="FILE",
        help="two or more annotators' questions files over the same corpus (the first one's config is used)",
    )
    p.add_argument(
        "--names", metavar="NAME,...", help="the annotators' names, one per file (default: the file names)"
    )


def annotator_files(args: argparse.Namespace, command: str) -> tuple[list[str], GoldenSet]:
    """The annotators' names and the set their files are read in (the first file's config)."""
    if len(args.files) < 2:
        raise ConfigError(f"{command} compares two or more annotators' questions files")
    for path in args.files:
        if not path.is_file():
            raise ConfigError(f"not a questions file: {path}")
    return annotator_names(args.files, args.names), golden_set(args, args.files[0])


def _alpha_text(result: dict) -> str:
    """The lines every run prints: alpha over all records labelled twice or more, each pair's kappa."""
    ci = result["alpha_ci95"]
    interval = f", 95% CI [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""
    out = [
        f"all annotators: Krippendorff's alpha {_fmt(result['alpha'])} ({result['alpha_band']}){interval} "
        f"over {plural(result['n_records'], 'record')} labelled by two or more "
        f"({shown(', '.join(result['annotators']))}; nominal, chunk decisions)"
    ]
    if result["fleiss_kappa"] is not None or len(result["annotators"]) > 2:
        out.append(
            f"  Fleiss' kappa {_fmt(result['fleiss_kappa'])} ({result['fleiss_band']}) over the "
            f"{plural(result['n_records_all'], 'record')} every annotator labelled"
        )
    if len(result["pairwise"]) > 1:
        out.extend(
            f"  {shown(p['a'])} – {shown(p['b'])}: Cohen's kappa {_fmt(p['kappa'])} ({p['band']}), span F1 "
            f"{_fmt(p['span_f1'])} over {plural(p['n_records'], 'record')}"
            for p in result["pairwise"]
        )
    return "\n".join(out) + "\n"


def _many(result: dict, golden) -> str:
    """The text of three or more files (two get ``_text``, then the same alpha lines)."""
    n, f1 = result["n_records"], result["span_f1"]
    out = [
        f"spans: mean character-level F1 {_fmt(f1)} over {plural(n, 'record')} labelled by two or more "
        f"(pairwise, per record); items: every (record, chunk) pair, a chunk relevant when it bears a "
        f"span under hit rule {golden.hit_rule}; bands: > {GOOD} good, {ACCEPTABLE}–{GOOD} acceptable, "
        f"< {ACCEPTABLE} poor"
    ]
    out.extend(f"warning: {w}" for w in result["warnings"])
    for name, ids in result["single"].items():
        if ids:
            out.append(shown(f"only {name} ({len(ids)}): {', '.join(ids)}"))
    for name, ids in result["machine_labelled"].items():
        if ids:
            out.append(
                f"machine labels: {len(ids)} records of {name} were labelled or proposed by an LLM judge"
            )
    rows = [r for r in result["records"] if r["disagree"]]
    out.append(
        f"disagreements: {len(rows)} of {plural(n, 'record')} (other chunks, span F1 < {SPAN_DISAGREE} or "
        "other answerability, between any two)" + (":" if rows else "")
    )
    out.extend(
        shown(f"  {r['id']}  {', '.join(r['annotators'])}  span F1 {_fmt(r['span_f1'])}")
        + (" (same chunks)" if r["chunks_agree"] else "")
        for r in rows
    )
    return "\n".join(out) + "\n"
