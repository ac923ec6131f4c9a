"""The vocabulary of a retrieval evaluation: the metrics, default cutoffs, multi-hop rules.

``METRIC_TABLE`` is the one registry of metrics: a metric is one entry here (its name and what
it measures) and one per-query function registered under its name in ``metrics.py``; their
order is the order of every output, the per-query array and the results database's columns.
Kept apart from ``metrics.py`` (numpy) so that the command line can build its parser, and
``golden-lsp check`` start, without importing numpy, which is the optional ``eval`` extra.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Metric:
    name: str
    #: what it measures at a cutoff k, for ``eval --help``
    description: str


METRIC_TABLE = (
    Metric("hit", "a bearing chunk is in the top k (under --multi all: one for every span)"),
    Metric("recall", "the share of the record's bearing chunks in the top k"),
    Metric("mrr", "1/rank of the first rank at which the record hits, 0 beyond k"),
    Metric("ndcg", "nDCG of the top k with binary gains and log2 discounts"),
    Metric("precision", "bearing chunks in the top k over k (trec_eval's P_k)"),
    Metric("iou", "characters of the top-k chunks ∩ the answer spans over their union"),
    Metric("map", "average precision of the top k over all bearing chunks (trec_eval's map_cut_k)"),
    Metric("rprec", "bearing chunks in the top min(R, k) over R, R the bearing chunks (trec_eval's Rprec)"),
)
#: the metrics' names, in the registry's order
METRICS = tuple(m.name for m in METRIC_TABLE)
DEFAULT_KS = (1, 3, 5, 10, 20, 50)
#: the largest cutoff, and the most bootstrap resamples, a command accepts (a cutoff past the
#: deepest ranking costs nothing more: the judging stops there)
MAX_K = 1_000_000
MAX_RESAMPLES = 100_000
MULTI_RULES = ("any", "all")
RUN_FORMATS = ("trec", "jsonl", "ranx")
MISSES = "a query missing from the run scores 0"
#: the fewest records a mean gets a bootstrap interval over: resampling fewer is degenerate (one
#: record gives the zero-width interval [x, x]), so a smaller group is shown without one
MIN_INTERVAL_N = 5
