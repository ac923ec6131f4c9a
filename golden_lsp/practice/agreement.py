"""How far two annotators of one golden set agree: Cohen's kappa over (record, chunk) pairs and
character-level span F1, from two analyses over the same corpus and config.

Double annotation is how a team learns whether its labelling guidelines are clear: kappa above
0.7 is good, 0.5–0.7 acceptable, below 0.5 the guidelines need revising. The unit that retrieval
evaluation scores is the answer-bearing chunk, so kappa is taken over every (record, corpus
chunk) pair, a chunk being "relevant" for an annotator when it bears one of that annotator's
spans under the set's hit rule; span F1 measures the finer agreement on the characters labelled.
The two are reported side by side: two annotators who label other paragraphs of the same chunks
agree perfectly by kappa and not at all by span F1, so such a record counts as a disagreement
(span F1 below 0.5) and a low mean span F1 is warned about.
Kappa for two binary raters is four counts and one formula, written here (scikit-learn's
``cohen_kappa_score`` costs a 300 MB install and over a second of import per CLI call) and tested
against scikit-learn and a hand-computed case.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from ..core.check.model import Analysis, RecordLine
from ..core.corpus.index import Corpus
from ..core.labels.resolve import Span

#: resamples of the bootstrap interval of kappa (over records; a fixed seed keeps it reproducible)
BOOTSTRAP_RESAMPLES = 1000
GOOD, ACCEPTABLE = 0.7, 0.5
#: a record whose span F1 is below this disagrees, even when both label the same chunks
SPAN_DISAGREE = 0.5
#: a mean span F1 below this is warned about: the chunks may agree while the passages do not
SPAN_WARN = 0.7


@dataclass(frozen=True)
class Counts:
    """A 2×2 table of two raters over binary items: both relevant, only A, only B, neither."""

    both: int = 0
    only_a: int = 0
    only_b: int = 0
    neither: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.both + other.both,
            self.only_a + other.only_a,
            self.only_b + other.only_b,
            self.neither + other.neither,
        )

    @property
    def n(self) -> int:
        return self.both + self.only_a + self.only_b + self.neither


def cohen_kappa(c: Counts) -> float | None:
    """Cohen's kappa of the table; None when undefined (chance agreement is total: both raters
    gave every item the same single label, where scikit-learn answers nan)."""
    n = c.n
    if n == 0:
        return None
    observed = (c.both + c.neither) / n
    pa, pb = (c.both + c.only_a) / n, (c.both + c.only_b) / n
    chance = pa * pb + (1 - pa) * (1 - pb)
    if chance >= 1.0:
        return None
    return (observed - chance) / (1 - chance)


def band(kappa: float | None) -> str:
    if kappa is None:
        return "undefined"
    return "good" if kappa > GOOD else "acceptable" if kappa >= ACCEPTABLE else "poor"


def _union(spans: list[Span]) -> dict[str, list[tuple[int, int]]]:
    """Each document's labelled characters as sorted, disjoint [start, end) intervals."""
    out: dict[str, list[tuple[int, int]]] = {}
    for s in sorted(spans, key=lambda s: (s.doc_id, s.start)):
        merged = out.setdefault(s.doc_id, [])
        if merged and s.start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], s.end))
        else:
            merged.append((s.start, s.end))
    return out


def _length(union: dict[str, list[tuple[int, int]]]) -> int:
    return sum(e - s for intervals in union.values() for s, e in intervals)


def span_f1(a: list[Span], b: list[Span]) -> float:
    """Character-level F1 between the unions of two span lists; 1.0 when both are empty."""
    ua, ub = _union(a), _union(b)
    total = _length(ua) + _length(ub)
    if total == 0:
        return 1.0
    common = 0
    for doc_id, xs in ua.items():
        ys = ub.get(doc_id, [])
        i = j = 0
        while i < len(xs) and j < len(ys):
            common += max(0, min(xs[i][1], ys[j][1]) - max(xs[i][0], ys[j][0]))
            if xs[i][1] < ys[j][1]:
                i += 1
            else:
                j += 1
    return 2 * common / total


def by_id(analysis: Analysis) -> dict[str, RecordLine]:
    out: dict[str, RecordLine] = {}
    for r in analysis.records:
        if r.record is not None and r.record.id is not None:
            out.setdefault(r.record.id, r)
    return out


def spans_of(rec: RecordLine) -> list[Span]:
    return [res.span for res in rec.result.resolved if res.span is not None]


def unanswerable(rec: RecordLine) -> bool:
    return rec.record is not None and rec.record.unanswerable


def judged(rec: RecordLine) -> bool:
    return rec.record is not None and rec.record.judge_proposed


def bearing(rec: RecordLine) -> set[tuple[str, int]]:
    return {(c.doc_id, c.start) for res in rec.result.resolved for c in res.chunks}


def agreement(a: Analysis, b: Analysis, corpus: Corpus, seed: int = 0) -> dict[str, Any]:
    """The agreement of two annotators; the keys are the JSON contract of ``golden-lsp agree``."""
    in_a, in_b = by_id(a), by_id(b)
    n_chunks = corpus.n_chunks
    rows: list[dict[str, Any]] = []
    tables: list[Counts] = []
    for rid, ra in in_a.items():
        rb = in_b.get(rid)
        if rb is None:
            continue
        ca, cb = bearing(ra), bearing(rb)
        both = len(ca & cb)
        table = Counts(both, len(ca) - both, len(cb) - both, n_chunks - len(ca | cb))
        tables.append(table)
        sa, sb = spans_of(ra), spans_of(rb)
        same_answerability = unanswerable(ra) == unanswerable(rb)
        f1 = span_f1(sa, sb)
        rows.append(
            {
                "id": rid,
                "kappa": cohen_kappa(table),
                "span_f1": f1,
                "chunks_agree": ca == cb,
                # the same labels, character for character
                "agree": _union(sa) == _union(sb) and same_answerability,
                # other chunks, other passages (span F1 below SPAN_DISAGREE) or other answerability
                "disagree": ca != cb or f1 < SPAN_DISAGREE or not same_answerability,
            }
        )
    total, head = kappa_summary(tables, seed)
    mean_f1, warnings = mean_span_f1(rows, "chunk kappa")
    return {
        **head,
        "n_records": len(rows),
        "n_items": total.n,
        "span_f1": mean_f1,
        "warnings": warnings,
        "records": rows,
        "only_in_a": [rid for rid in in_a if rid not in in_b],
        "only_in_b": [rid for rid in in_b if rid not in in_a],
        # records compared whose labels an LLM judge made or proposed: machine labels, not a person's
        "judge_proposed": {
            side: [rid for rid in in_a if rid in in_b and judged(recs[rid])]
            for side, recs in (("a", in_a), ("b", in_b))
        },
    }


def mean_span_f1(rows: list[dict[str, Any]], measure: str) -> tuple[float | None, list[str]]:
    """The mean of the rows' span F1, and the warning when it is low whatever ``measure`` says."""
    mean_f1 = sum(r["span_f1"] for r in rows) / len(rows) if rows else None
    warnings = []
    if mean_f1 is not None and mean_f1 < SPAN_WARN:
        warnings.append(
            f"mean span F1 {mean_f1:.3f} is below {SPAN_WARN}: the annotators label other passages "
            f"than each other, whatever the {measure} says"
        )
    return mean_f1, warnings


def kappa_summary(tables: list[Counts], seed: int = 0) -> tuple[Counts, dict]:
    """The pooled counts of per-record tables, and their kappa, its band and its bootstrap interval
    (the head of every agreement and audit result)."""
    total = sum(tables, Counts())
    kappa = cohen_kappa(total)
    return total, {"kappa": kappa, "band": band(kappa), "kappa_ci95": bootstrap_interval(tables, seed)}


def bootstrap_interval(tables: list[Counts], seed: int = 0) -> list[float] | None:
    """95 % percentile interval of kappa, resampling records (their chunk pairs are not independent)."""
    if len(tables) < 2:
        return None
    rng = random.Random(seed)
    columns = [[getattr(t, name) for t in tables] for name in ("both", "only_a", "only_b", "neither")]
    n = len(tables)
    values = []
    for _ in range(BOOTSTRAP_RESAMPLES):
        picked = rng.choices(range(n), k=n)
        k = cohen_kappa(Counts(*(sum(map(col.__getitem__, picked)) for col in columns)))
        if k is not None:
            values.append(k)
    if not values:
        return None
    values.sort()
    return [values[int(0.025 * (len(values) - 1))], values[int(0.975 * (len(values) - 1))]]
