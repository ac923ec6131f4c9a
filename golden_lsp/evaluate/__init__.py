"""Using a golden set: scoring retrieval runs against it.

Metric names and their numpy implementation, TREC/JSONL/ranx runs, any chunking's bearing chunks,
the BM25 baseline or a user's retriever, judging a run with intervals and a regression gate, and
results kept in DuckDB. It reads the core's resolved set; numpy and DuckDB are the ``eval`` extra,
imported only here and only when asked for.
"""
