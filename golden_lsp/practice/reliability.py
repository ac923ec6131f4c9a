"""How far two or more annotators of one golden set agree: Krippendorff's alpha and Fleiss' kappa
over the chunk decisions, Cohen's kappa for every pair, and span agreement.

``agreement.py`` compares two annotators; a team that labels continuously has three or more, each
double-annotating a shared overlap, so any record may be labelled by any two of them. Krippendorff's
alpha (nominal) is the measure that fits that design: it takes every (record, chunk) item with
whichever annotators labelled the record, missing values allowed. Fleiss' kappa is reported beside
it over the records every annotator labelled (it needs the same number of raters per item), and
Cohen's kappa for each pair over the records the two share, so a team sees which pair disagrees.
The items are the ones ``agreement.py`` defines — every (record, corpus chunk) pair, a chunk
relevant for an annotator when it bears one of that annotator's spans under the set's hit rule —
and the decisions are binary, so both coefficients are computed from counts per record: a chunk
no annotator labels contributes only agreement on "not relevant", counted without being listed.
Both are checked against the ``krippendorff`` package and a worked Fleiss example in the tests.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.check.model import Analysis, RecordLine
from ..core.corpus.index import Corpus
from ..core.goldenset.config import ConfigError
from ..core.io.files import display
from .agreement import (
    BOOTSTRAP_RESAMPLES,
    SPAN_DISAGREE,
    Counts,
    band,
    bearing,
    by_id,
    cohen_kappa,
    judged,
    mean_span_f1,
    span_f1,
    spans_of,
    unanswerable,
)


@dataclass(frozen=True)
class Unit:
    """One record's items, as counts: its raters ``m``, the corpus's ``n_chunks`` items, and for
    each chunk some rater marked relevant, how many did (the other chunks all say "not relevant")."""

    m: int
    n_chunks: int
    relevant: tuple[int, ...]

    def coincidences(self) -> tuple[float, float, float]:
        """Krippendorff's coincidences of this unit: (o_00, o_01, o_11), with o_10 = o_01."""
        if self.m < 2:
            return 0.0, 0.0, 0.0
        o00 = o01 = o11 = 0.0
        for n1 in self.relevant:
            n0 = self.m - n1
            o00 += n0 * (n0 - 1)
            o01 += n0 * n1
            o11 += n1 * (n1 - 1)
        o00 += (self.n_chunks - len(self.relevant)) * self.m * (self.m - 1)
        d = self.m - 1
        return o00 / d, o01 / d, o11 / d

    def fleiss(self) -> tuple[float, int]:
        """(Σ over items of P_i, Σ over items of the relevant votes) for Fleiss' kappa."""
        pairs = self.m * (self.m - 1)
        agreeing = sum(n1 * (n1 - 1) + (self.m - n1) * (self.m - n1 - 1) for n1 in self.relevant)
        agreeing += (self.n_chunks - len(self.relevant)) * pairs
        return agreeing / pairs, sum(self.relevant)


def krippendorff_alpha(units: list[Unit]) -> float | None:
    """Krippendorff's alpha for nominal binary data; None when undefined (one value throughout)."""
    o00 = o01 = o11 = 0.0
    for u in units:
        a, b, c = u.coincidences()
        o00, o01, o11 = o00 + a, o01 + b, o11 + c
    n0, n1 = o00 + o01, o11 + o01
    n = n0 + n1
    if n0 * n1 == 0:
        return None
    return 1 - (n - 1) * o01 / (n0 * n1)


def fleiss_kappa(units: list[Unit]) -> float | None:
    """Fleiss' kappa over units rated by the same number of raters (≥ 2); None when undefined."""
    units = [u for u in units if u.m >= 2]
    if not units or len({u.m for u in units}) != 1:
        return None
    m = units[0].m
    items = sum(u.n_chunks for u in units)
    if items == 0:
        return None
    p_sum = votes = 0.0
    for u in units:
        p, v = u.fleiss()
        p_sum, votes = p_sum + p, votes + v
    p_bar = p_sum / items
    p1 = votes / (items * m)
    chance = p1 * p1 + (1 - p1) * (1 - p1)
    if chance >= 1.0:
        return None
    return (p_bar - chance) / (1 - chance)


def alpha_interval(units: list[Unit], seed: int = 0) -> list[float] | None:
    """95 % percentile interval of alpha, resampling records (``agreement.bootstrap_interval``'s way)."""
    if len(units) < 2:
        return None
    rng = random.Random(seed)
    parts = [u.coincidences() for u in units]
    values = []
    for _ in range(BOOTSTRAP_RESAMPLES):
        o00 = o01 = o11 = 0.0
        for i in rng.choices(range(len(parts)), k=len(parts)):
            a, b, c = parts[i]
            o00, o01, o11 = o00 + a, o01 + b, o11 + c
        n0, n1 = o00 + o01, o11 + o01
        if n0 * n1:
            values.append(1 - (n0 + n1 - 1) * o01 / (n0 * n1))
    if not values:
        return None
    values.sort()
    return [values[int(0.025 * (len(values) - 1))], values[int(0.975 * (len(values) - 1))]]


def _pair_disagree(ra: RecordLine, rb: RecordLine) -> tuple[bool, float, bool]:
    """(disagree, span F1, same chunks) of two annotators' versions of one record, as ``agree`` of
    two files decides them."""
    ca, cb = bearing(ra), bearing(rb)
    f1 = span_f1(spans_of(ra), spans_of(rb))
    same_answerability = unanswerable(ra) == unanswerable(rb)
    return ca != cb or f1 < SPAN_DISAGREE or not same_answerability, f1, ca == cb


def reliability(analyses: list[Analysis], names: list[str], corpus: Corpus, seed: int = 0) -> dict[str, Any]:
    """The agreement of N ≥ 2 annotators; the keys are the JSON contract of ``golden-lsp agree``
    beyond the two-file keys."""
    files = [by_id(a) for a in analyses]
    n_chunks = corpus.n_chunks
    order = list(dict.fromkeys(rid for f in files for rid in f))
    units: list[Unit] = []
    full: list[Unit] = []
    rows: list[dict[str, Any]] = []
    for rid in order:
        raters = [(name, f[rid]) for name, f in zip(names, files) if rid in f]
        if len(raters) < 2:
            continue
        votes: dict[tuple[str, int], int] = {}
        for _, rec in raters:
            for chunk in bearing(rec):
                votes[chunk] = votes.get(chunk, 0) + 1
        unit = Unit(len(raters), n_chunks, tuple(votes.values()))
        units.append(unit)
        if len(raters) == len(files):
            full.append(unit)
        pairs = [_pair_disagree(a, b) for (_, a), (_, b) in itertools.combinations(raters, 2)]
        rows.append(
            {
                "id": rid,
                "annotators": [name for name, _ in raters],
                "span_f1": sum(f1 for _, f1, _ in pairs) / len(pairs),
                "chunks_agree": all(same for _, _, same in pairs),
                "disagree": any(d for d, _, _ in pairs),
            }
        )
    alpha = krippendorff_alpha(units)
    fleiss = fleiss_kappa(full) if len(files) > 2 else None
    mean_f1, warnings = mean_span_f1(rows, "chunk agreement")
    return {
        "annotators": names,
        "alpha": alpha,
        "alpha_band": band(alpha),
        "alpha_ci95": alpha_interval(units, seed),
        "fleiss_kappa": fleiss,
        "fleiss_band": band(fleiss) if len(files) > 2 else None,
        "n_records_all": len(full),
        "pairwise": _pairwise(files, names, n_chunks),
        "n_records": len(rows),
        "n_items": sum(u.n_chunks for u in units),
        "span_f1": mean_f1,
        "warnings": warnings,
        "records": rows,
        "single": {
            name: [rid for rid in f if sum(rid in g for g in files) == 1] for name, f in zip(names, files)
        },
        "machine_labelled": {
            name: [rid for rid in f if judged(f[rid]) and sum(rid in g for g in files) > 1]
            for name, f in zip(names, files)
        },
    }


def _pairwise(files: list[dict[str, RecordLine]], names: list[str], n_chunks: int) -> list[dict[str, Any]]:
    """Cohen's kappa and mean span F1 of every pair of annotators over the records both labelled."""
    out = []
    for (na, fa), (nb, fb) in itertools.combinations(zip(names, files), 2):
        shared = [rid for rid in fa if rid in fb]
        total = Counts()
        f1s = []
        for rid in shared:
            ca, cb = bearing(fa[rid]), bearing(fb[rid])
            both = len(ca & cb)
            total = total + Counts(both, len(ca) - both, len(cb) - both, n_chunks - len(ca | cb))
            f1s.append(span_f1(spans_of(fa[rid]), spans_of(fb[rid])))
        kappa = cohen_kappa(total)
        out.append(
            {
                "a": na,
                "b": nb,
                "n_records": len(shared),
                "kappa": kappa,
                "band": band(kappa),
                "span_f1": sum(f1s) / len(f1s) if f1s else None,
            }
        )
    return out


def annotator_names(paths: list[Path], given: str | None = None) -> list[str]:
    """One name per annotator's file: ``given`` (comma-separated, one per file), else each file's
    name without ``.jsonl`` (and without ``.questions``), else its path where two names collide."""
    if given is not None:
        names = [n.strip() for n in given.split(",")]
        if len(names) != len(paths) or not all(names) or len(set(names)) != len(names):
            raise ConfigError(f"--names needs {len(paths)} distinct names, one per file, not {given!r}")
        return names
    stems = [p.name.removesuffix(".jsonl").removesuffix(".questions") or p.name for p in paths]
    names = [
        stem if n == 1 else display(p) for stem, p, n in zip(stems, paths, map(Counter(stems).get, stems))
    ]
    again = Counter(names)
    return [name if again[name] == 1 else f"{name}#{i + 1}" for i, name in enumerate(names)]
