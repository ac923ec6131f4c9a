"""The figures that describe a golden set: its size, mix, spans and shape, from the result model.

A set is judged by its mix as much as by its labels (how many multi-hop questions, how long the
spans, which documents carry the answers, how many query types and splits), and the reference
lab builder's README reports exactly these figures. They are computed here from an ``Analysis``
and its corpus, so ``golden-lsp stats`` and any later report print the same numbers, with the hit
rule that decided the answer-bearing chunks said beside them.
"""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

from ..core.check.model import Analysis
from ..core.corpus.index import Corpus
from ..core.findings.diagnostics import plural
from ..core.labels.scoring import HitRule

#: the findings about a set's shape that stats lists beside its figures
SHAPE_CODES = (
    "hop-mismatch",
    "span-too-short",
    "answer-too-thin",
    "too-few-records",
    "doc-dominates",
    "doc-unlabelled",
    "no-locators",
    "multi-hop-single-span",
    "query-type-missing",
    "split-leak",
)


def set_stats(analysis: Analysis, corpus: Corpus) -> dict[str, Any]:
    """The set's figures; the keys are the JSON contract of ``golden-lsp stats --format json``."""
    records = [r for r in analysis.records if r.record is not None]
    parsed = [r.record for r in records if r.record is not None]
    lengths = [
        res.span.end - res.span.start for r in records for res in r.result.resolved if res.span is not None
    ]
    by_doc = Counter(dict.fromkeys(corpus.docs, 0))
    by_doc.update(res.span.doc_id for r in records for res in r.result.resolved if res.span is not None)
    chunk_counts = Counter(
        len({c.chunk_id for res in r.result.resolved for c in res.chunks}) for r in records
    )
    return {
        "n_records": len(records),
        "hop": {
            "single": sum(q.hop == "single" for q in parsed),
            "multi": sum(q.hop == "multi" for q in parsed),
        },
        "n_spans": len(lengths),
        "span_chars": {
            "mean": statistics.fmean(lengths) if lengths else None,
            "median": statistics.median(lengths) if lengths else None,
            "min": min(lengths, default=None),
            "max": max(lengths, default=None),
        },
        "spans_by_doc": dict(sorted(by_doc.items())),
        "records_by_chunk_count": {str(k): chunk_counts[k] for k in sorted(chunk_counts)},
        "query_types": dict(sorted(Counter(q.query_type for q in parsed if q.query_type).items())),
        "splits": dict(sorted(Counter(q.split for q in parsed if q.split).items())),
        "n_unanswerable": sum(q.unanswerable for q in parsed),
        "annotators": dict(sorted(Counter(q.annotator for q in parsed if q.annotator).items())),
        # machine labels apart from human ones: labelled by an LLM judge in bulk (``annotator:
        # "judge:<model>"``), and accepted from its proposals by a person (a ``judged_by`` note)
        "n_judge_labelled": sum(q.judge_labelled for q in parsed),
        "n_judge_proposed": sum(q.judge_proposed for q in parsed),
    }


def shape_findings(analysis: Analysis) -> dict[str, int]:
    """How many of each shape finding the set has (under its own severities; one finding that
    counts many, as doc-unlabelled above its threshold, counts as many)."""
    found: Counter[str] = Counter()
    for d in analysis.diagnostics:
        if d.code in SHAPE_CODES:
            found[d.code] += d.data.get("count", 1)
    return {code: found[code] for code in SHAPE_CODES if found[code]}


def _rows(stats: dict[str, Any], hit_rule: HitRule) -> list[tuple[str, list[tuple[str, Any]]]]:
    """The figures as titled groups of (label, value), shared by the text and Markdown renderings."""
    sc = stats["span_chars"]
    n = stats["n_records"]
    untyped = n - sum(stats["query_types"].values())
    unsplit = n - sum(stats["splits"].values())
    unnamed = n - sum(stats["annotators"].values())
    return [
        (
            "records",
            [
                ("records", n),
                ("single-hop", stats["hop"]["single"]),
                ("multi-hop", stats["hop"]["multi"]),
                ("unanswerable", stats["n_unanswerable"]),
            ],
        ),
        (
            "spans",
            [
                ("spans", stats["n_spans"]),
                ("mean chars", None if sc["mean"] is None else f"{sc['mean']:.1f}"),
                ("median chars", sc["median"]),
                ("min chars", sc["min"]),
                ("max chars", sc["max"]),
            ],
        ),
        ("spans by document", list(stats["spans_by_doc"].items())),
        (
            f"records by answer-bearing chunks (hit rule {hit_rule})",
            [(plural(k, "chunk"), v) for k, v in stats["records_by_chunk_count"].items()],
        ),
        ("query types", [*stats["query_types"].items(), *([("(none)", untyped)] if untyped else [])]),
        ("splits", [*stats["splits"].items(), *([("(none)", unsplit)] if unsplit else [])]),
        (
            "annotators",
            [
                *stats["annotators"].items(),
                *([("(none)", unnamed)] if unnamed else []),
                ("labelled by an LLM judge", stats["n_judge_labelled"]),
                ("labels the judge proposed", stats["n_judge_proposed"]),
            ],
        ),
    ]


def format_text(stats: dict[str, Any], hit_rule: HitRule, shape: dict[str, int]) -> str:
    out = []
    for title, rows in _rows(stats, hit_rule) + [("shape findings", list(shape.items()))]:
        out.append(f"{title}:" if rows else f"{title}: none")
        width = max((len(label) for label, _ in rows), default=0)
        out.extend(f"  {label:<{width}}  {'—' if value is None else value}" for label, value in rows)
    return "\n".join(out) + "\n"


def format_markdown(stats: dict[str, Any], hit_rule: HitRule, shape: dict[str, int]) -> str:
    out = []
    for title, rows in _rows(stats, hit_rule) + [
        ("shape findings", [(f"`{c}`", n) for c, n in shape.items()])
    ]:
        out.append(f"### {title[0].upper()}{title[1:]}\n")
        if not rows:
            out.append("none\n")
            continue
        out.extend(["| | |", "|---|---:|"])
        out.extend(f"| {_cell(label)} | {'—' if value is None else value} |" for label, value in rows)
        out.append("")
    return "\n".join(out)


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|")
