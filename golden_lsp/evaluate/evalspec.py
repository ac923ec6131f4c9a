"""The vocabulary of a retrieval evaluation: metric names, default cutoffs, multi-hop rules.

Kept apart from ``metrics.py`` (numpy) so that the command line can build its parser, and
``golden-lsp check`` start, without importing numpy, which is the optional ``eval`` extra.
"""

METRICS = ("hit", "recall", "mrr", "ndcg", "precision", "iou")
DEFAULT_KS = (1, 3, 5, 10, 20, 50)
MULTI_RULES = ("any", "all")
RUN_FORMATS = ("trec", "jsonl", "ranx")
MISSES = "a query missing from the run scores 0"
