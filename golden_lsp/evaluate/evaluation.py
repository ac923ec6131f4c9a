"""Retrieval evaluation against a golden set: per-query metrics, intervals, breakdowns, reading aids.

The golden set is the ground truth; a run is scored against it. This module reads the model
(``GoldenSet.analyze()`` → records with resolved spans) and a chunking (``chunkings.py``), turns
every answerable record into its spans and their bearing chunks under the hit rule, has a run
(``runs.py``) judged against them (``judging.py``), and hands the numbers to ``metrics.py``. It also owns what makes a
number trustworthy: the fingerprint of what was measured against (two evaluations are comparable
only when theirs agree), the counts a reader must see (missing queries scored 0, unanswerable
records reported apart, unknown chunk IDs), the sanity rules and the ratio signals, and the
paired comparison with its gate. Every value carries its k, rules, N and interval.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from ..core.findings.diagnostics import Severity, plural
from ..core.goldenset.config import ConfigError
from ..core.goldenset.project import GoldenSet
from ..core.labels.recordmeta import flat_metadata
from .chunkings import Chunking, corpus_chunking
from .evalspec import METRICS, MIN_INTERVAL_N, MISSES, MULTI_RULES
from .judging import judge
from .metrics import bootstrap, per_query, randomization_p
from .runs import Run
from .targets import Settings, Target, Targets

#: record findings that do not stop a record from being scored (bearing chunks are re-derived)
_SCORABLE = {"no-bearing-chunk"}
#: the absolute difference under which hit@50 and hit@10 count as equal (depth exhausted)
DEPTH_EPSILON = 0.02


def targets(golden: GoldenSet, chunking: Chunking | None = None) -> Targets:
    """Every scorable record of the set, with bearing chunks re-derived for ``chunking``."""
    chunking = chunking or corpus_chunking(golden.corpus)
    text = golden.read_questions()
    analysis = golden.analyze(text)
    bad_lines = {
        d.range.line
        for d in analysis.diagnostics
        if d.severity is Severity.ERROR and d.code not in _SCORABLE and d.path == analysis.path
    }
    answerable, unanswerable, excluded = [], [], 0
    for rec in analysis.records:
        r = rec.record
        if r is None:
            continue
        if rec.line in bad_lines or not r.valid or r.id is None or r.query is None:
            excluded += 1
            continue
        target = Target(
            r.id,
            r.query,
            r.hop,
            r.query_type,
            r.split,
            docs=(),
            tags=tuple(r.tags),
            meta=flat_metadata(r.value),
        )
        if r.unanswerable:
            unanswerable.append(target)
            continue
        spans = tuple(x.span for x in rec.result.resolved if x.span is not None)
        if not spans or len(spans) < len(rec.result.resolved):
            excluded += 1
            continue
        answerable.append(
            replace(
                target,
                docs=tuple(dict.fromkeys(s.doc_id for s in spans)),
                spans=spans,
                bearing=tuple(chunking.bearing(golden.hit_rule, s) for s in spans),
            )
        )
    parts = {
        "questions_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "corpus_digest": golden.corpus.digest(),
        "chunking": chunking.digest,
        "max_chars": chunking.max_chars,
        "hit_rule": str(golden.hit_rule),
    }
    return Targets(answerable, unanswerable, excluded, chunking, golden.hit_rule, parts)


@dataclass
class Scored:
    """Per-query values of one evaluation, as a comparison needs them (fresh, or read from a database)."""

    label: str
    fingerprint: str
    settings: Settings
    query_ids: list[str]
    #: (N, len(METRICS), len(ks))
    values: np.ndarray


@dataclass
class Group:
    by: str
    value: str
    rows: np.ndarray  # indices into the answerable targets


@dataclass
class Evaluation:
    targets: Targets
    run: Run
    settings: Settings
    values: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    missing: list[str]
    unknown_queries: list[str]
    unknown_chunks: list[str]
    #: unanswerable records the run returned at least one chunk for
    unanswerable_answered: int
    no_bearing: int = 0
    groups: list[Group] = field(default_factory=list)

    @property
    def n(self) -> int:
        return len(self.targets.answerable)

    @cached_property
    def mean(self) -> np.ndarray:
        return self.values.mean(axis=0) if self.n else np.full(self.values.shape[1:], np.nan)

    def value(self, metric: str, k: int) -> float:
        return float(self.mean[METRICS.index(metric), self.settings.ks.index(k)])

    def scored(self) -> Scored:
        return Scored(
            self.run.name,
            self.targets.fingerprint,
            self.settings,
            [t.query_id for t in self.targets.answerable],
            self.values,
        )

    def group_stats(self, group: Group) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        sub = self.values[group.rows]
        lo, hi = interval(sub, self.settings)
        return sub.mean(axis=0), lo, hi

    def rule_text(self) -> str:
        interval = (
            f"95% bootstrap interval ({self.settings.resamples} resamples, seed {self.settings.seed})"
            if self.n >= MIN_INTERVAL_N
            else f"no interval (fewer than {MIN_INTERVAL_N} records)"
        )
        return (
            f"hit rule {self.targets.hit_rule}, multi-hop rule {self.settings.multi}, {MISSES} "
            f"({len(self.missing)} missing), {interval}"
        )


def interval(values: np.ndarray, settings: Settings) -> tuple[np.ndarray, np.ndarray]:
    """The 95 % bootstrap interval of the mean of ``values`` (records on axis 0); NaN (no
    interval) over fewer than ``MIN_INTERVAL_N`` records."""
    if values.shape[0] < MIN_INTERVAL_N:
        nan = np.full(values.shape[1:], np.nan)
        return nan, nan
    return bootstrap(values, settings.resamples, settings.seed)


def _groups(answerable: list[Target]) -> list[Group]:
    out: list[Group] = []
    for by in ("hop", "query_type", "split", "document"):
        members: dict[str, list[int]] = {}
        for i, t in enumerate(answerable):
            values = t.docs if by == "document" else (getattr(t, by) or "(none)",)
            for v in values:
                members.setdefault(v, []).append(i)
        out.extend(Group(by, v, np.asarray(rows)) for v, rows in sorted(members.items()))
    return out


def evaluate(tg: Targets, run: Run, settings: Settings) -> Evaluation:
    if settings.multi not in MULTI_RULES:
        raise ConfigError(f"--multi must be any or all, not {settings.multi!r}")
    if not tg.answerable:
        raise ConfigError(
            f"no answerable record to score ({len(tg.unanswerable)} unanswerable, {tg.excluded} "
            "excluded with errors: see golden-lsp check)"
        )
    values = per_query(judge(tg, run, settings), settings.ks)
    lo, hi = interval(values, settings)
    known = {t.query_id for t in tg.all()}
    retrieved = set(
        run.ranked.ids if run.ranked is not None else (c for ids in run.rankings.values() for c in ids)
    )
    return Evaluation(
        tg,
        run,
        settings,
        values,
        lo,
        hi,
        missing=[t.query_id for t in tg.answerable if t.query_id not in run.rankings],
        unknown_queries=sorted(q for q in run.rankings if q not in known),
        unknown_chunks=sorted(retrieved - tg.chunking.by_id.keys()),
        unanswerable_answered=sum(1 for t in tg.unanswerable if run.rankings.get(t.query_id)),
        no_bearing=sum(1 for t in tg.answerable for b in t.bearing if not b),
        groups=_groups(tg.answerable),
    )


# --- reading aids -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Note:
    severity: str  # "error" (a violated sanity rule: a bug, not a result), "warning" or "info"
    message: str


def sanity(ev: Evaluation) -> list[Note]:
    """recall@1 ≤ MRR@k ≤ hit@k (the first where it must hold), and MRR@10 = hit@1 flagged."""
    if not ev.n:
        return []
    out = []
    ks = ev.settings.ks
    rules = f"hit rule {ev.targets.hit_rule}, multi {ev.settings.multi}, misses score 0"
    exact = ev.settings.multi == "any" and ev.targets.hit_rule.name != "union_coverage"
    for k in ks:
        mrr, hit = ev.value("mrr", k), ev.value("hit", k)
        if mrr > hit + 1e-9:
            out.append(
                Note(
                    "error",
                    f"sanity: MRR@{k} = {mrr:.3f} > hit@{k} = {hit:.3f} (N={ev.n}, {rules}): a bug, "
                    "not a result",
                )
            )
        if exact and 1 in ks and ev.value("recall", 1) > mrr + 1e-9:
            out.append(
                Note(
                    "error",
                    f"sanity: recall@1 = {ev.value('recall', 1):.3f} > MRR@{k} = {mrr:.3f} "
                    f"(N={ev.n}, {rules}): a bug, not a result",
                )
            )
    if not exact:
        out.append(
            Note(
                "info",
                "sanity: recall@1 ≤ MRR@k is not a rule here: under multi-hop rule all or a "
                "union_coverage hit rule, MRR counts the rank where the record is complete",
            )
        )
    if (
        1 in ks
        and 10 in ks
        and ev.value("hit", 10) > 0
        and abs(ev.value("mrr", 10) - ev.value("hit", 1)) < 1e-12
    ):
        out.append(
            Note(
                "warning",
                f"sanity: MRR@10 = hit@1 = {ev.value('hit', 1):.3f} (N={ev.n}, {rules}, "
                f"{_cite(ev, 'mrr', 10)}): every hit "
                "within 10 is at rank 1 — a run cut to one result, or labels leaking into "
                "the ranking?",
            )
        )
    return out


def _cite(ev: Evaluation, metric: str, k: int) -> str:
    i, j = METRICS.index(metric), ev.settings.ks.index(k)
    if ev.n < MIN_INTERVAL_N:
        return f"{metric}@{k} {ev.mean[i, j]:.3f} (no interval: N<{MIN_INTERVAL_N})"
    return f"{metric}@{k} {ev.mean[i, j]:.3f} 95% [{ev.lo[i, j]:.3f}, {ev.hi[i, j]:.3f}]"


def signals(ev: Evaluation) -> list[Note]:
    """The ratio signals that tell where a curve's loss is (they need k = 1, 10 and 50)."""
    ks = ev.settings.ks
    if not ev.n:
        return []
    out = []
    cited = "; ".join(_cite(ev, "hit", k) for k in (1, 10, 50) if k in ks)
    tag = f"({cited}; hit rule {ev.targets.hit_rule}, multi {ev.settings.multi}, misses score 0, N={ev.n})"
    if 1 in ks and 10 in ks:
        h1, h10 = ev.value("hit", 1), ev.value("hit", 10)
        if h10 > 0:
            ratio = h1 / h10
            if ratio < 0.6:
                out.append(
                    Note(
                        "warning",
                        f"hit@1/hit@10 = {ratio:.2f} < 0.6 {tag}: a ranking problem — the "
                        "answer is found but ranked low; try a reranker or fusion",
                    )
                )
            elif ratio > 0.85:
                out.append(
                    Note(
                        "info",
                        f"hit@1/hit@10 = {ratio:.2f} > 0.85 {tag}: ranking is already good; "
                        "gains are in finding more answers",
                    )
                )
            else:
                out.append(
                    Note(
                        "info",
                        f"hit@1/hit@10 = {ratio:.2f} {tag}: between 0.6 and 0.85 — neither signal: most "
                        "answers found in the top 10 are ranked first, some are not; a reranker and "
                        "finding more answers can both help",
                    )
                )
    if 10 in ks and 50 in ks:
        h10, h50 = ev.value("hit", 10), ev.value("hit", 50)
        if h50 - h10 < DEPTH_EPSILON and h50 < 1:
            out.append(
                Note(
                    "warning",
                    f"hit@50 = {h50:.3f} ≈ hit@10 = {h10:.3f} (within {DEPTH_EPSILON}) {tag}: "
                    "depth is exhausted — retrieving deeper finds nothing more; look at "
                    "chunking or the representation",
                )
            )
    if 50 in ks:
        h50 = ev.value("hit", 50)
        if h50 < 0.95:
            out.append(
                Note(
                    "warning",
                    f"hit@50 = {h50:.3f} < 0.95 {tag}: candidate generation fails the floor "
                    "— no reranker can recover an answer that is not retrieved",
                )
            )
    if max(ks) > len(ev.targets.chunking.chunks):
        out.append(
            Note(
                "info",
                f"k={max(ks)} exceeds the {plural(len(ev.targets.chunking.chunks), 'chunk')} of "
                f"{ev.targets.chunking.name}: the deepest cutoffs rank the whole corpus",
            )
        )
    missing = [k for k in (1, 10, 50) if k not in ks]
    if missing:
        out.append(
            Note("info", f"ratio signals need k = 1, 10 and 50; missing: {', '.join(map(str, missing))}")
        )
    return out


# --- comparison and gate ------------------------------------------------------------------------


@dataclass
class Comparison:
    a: Scored
    b: Scored
    query_ids: list[str]
    delta: np.ndarray  # mean of a − b per metric and k
    lo: np.ndarray
    hi: np.ndarray
    p: np.ndarray
    #: queries scored by only one side (different sets allowed)
    unpaired: int

    def at(self, metric: str, k: int) -> tuple[float, float, float, float]:
        i, j = METRICS.index(metric), self.a.settings.ks.index(k)
        return float(self.delta[i, j]), float(self.lo[i, j]), float(self.hi[i, j]), float(self.p[i, j])


def compare(
    a: Scored, b: Scored, resamples: int, seed: int, allow_different_sets: bool = False
) -> Comparison:
    """Paired deltas a − b over the queries both scored, with a paired bootstrap and a randomization test."""
    if a.fingerprint != b.fingerprint and not allow_different_sets:
        raise ConfigError(
            f"refusing to compare {a.label} (fingerprint {a.fingerprint}) with {b.label} "
            f"(fingerprint {b.fingerprint}): they were measured against different golden sets, "
            "corpora, chunkings, hit rules or subsets (--split, --where, --sample); pass "
            "--allow-different-sets to compare anyway"
        )
    if (a.settings.ks, a.settings.multi) != (b.settings.ks, b.settings.multi):
        raise ConfigError(
            f"cannot compare {a.label} (k {list(a.settings.ks)}, multi {a.settings.multi}) with "
            f"{b.label} (k {list(b.settings.ks)}, multi {b.settings.multi}): settings differ"
        )
    index_b = {q: i for i, q in enumerate(b.query_ids)}
    pairs = [(i, index_b[q]) for i, q in enumerate(a.query_ids) if q in index_b]
    ia = np.asarray([i for i, _ in pairs], dtype=int)
    ib = np.asarray([j for _, j in pairs], dtype=int)
    deltas = a.values[ia] - b.values[ib]
    lo, hi = bootstrap(deltas, resamples, seed)
    mean = deltas.mean(axis=0) if len(pairs) else np.full(a.values.shape[1:], np.nan)
    unpaired = len(a.query_ids) + len(b.query_ids) - 2 * len(pairs)
    return Comparison(
        a, b, [a.query_ids[i] for i in ia], mean, lo, hi, randomization_p(deltas, resamples, seed), unpaired
    )


def parse_metric_at(spec: str, ks: tuple[int, ...]) -> tuple[str, int]:
    """``hit@10`` → ("hit", 10); the k must be one of the evaluated ks."""
    name, sep, k = spec.partition("@")
    if not sep or name not in METRICS or not k.isdigit():
        raise ConfigError(f"{spec!r}: expected METRIC@K with METRIC one of {', '.join(METRICS)}")
    if int(k) not in ks:
        raise ConfigError(f"{spec!r}: k={k} is not evaluated (--k {','.join(map(str, ks))})")
    return name, int(k)


def gate_failed(cmp: Comparison, metric: str, k: int) -> bool:
    """The metric dropped and the 95 % interval of the paired delta excludes zero."""
    delta, _, hi, _ = cmp.at(metric, k)
    return delta < 0 and hi < 0
