"""Retrievers to evaluate: BM25 over a chunking out of the box, or the user's own function.

A golden set is worth little until something is scored against it, and the first curve should
not wait for a vector store: ``bm25`` ranks the chunks of any chunking with ``search.Bm25`` (the
project's one BM25 index, the ``search`` extra), and ``module:function`` calls the user's
``fn(query: str, k: int) -> list[str]`` of chunk IDs. Either yields rankings (and scores, for
a TREC file) for every record's query, in the questions file's order.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

from ..core.corpus.index import Corpus
from ..core.corpus.search import Bm25, SearchUnavailable
from ..core.goldenset.config import ConfigError
from .chunkings import Chunking
from .evalspec import MAX_K
from .runs import Run, in_memory_run, read_run
from .targets import Target, Targets

Rankings = tuple[dict[str, list[str]], dict[str, list[float]]]


def chunk_text(corpus: Corpus, chunking: Chunking, i: int) -> str:
    """What BM25 indexes for a chunk: its heading path (md-struct-v1) and its canonical text."""
    c = chunking.chunks[i]
    body = corpus.docs[c.doc_id].text[c.start : c.end]
    return f"{c.heading_path}\n\n{body}" if c.heading_path else body


def bm25(corpus: Corpus, chunking: Chunking, queries: list[Target], k: int) -> Rankings:
    try:
        index = Bm25([chunk_text(corpus, chunking, i) for i in range(len(chunking.chunks))])
    except SearchUnavailable as exc:
        raise ConfigError(str(exc)) from None
    found = index.search_many([t.query for t in queries], k)
    ids = {t.query_id: [chunking.chunks[i].chunk_id for i, _ in hits] for t, hits in zip(queries, found)}
    scores = {t.query_id: [s for _, s in hits] for t, hits in zip(queries, found)}
    return ids, scores


def user_function(spec: str) -> Callable[[str, int], list[str]]:
    """``module:function``, imported with the working directory first on the path."""
    module_name, sep, name = spec.partition(":")
    if not sep or not module_name or not name:
        raise ConfigError(f"--retriever {spec!r}: use bm25 or module:function")
    sys.path.insert(0, str(Path.cwd()))
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise ConfigError(
            f"--retriever {spec!r}: cannot import {module_name}: {type(exc).__name__}: {exc}"
        ) from None
    fn = getattr(module, name, None)
    if not callable(fn):
        raise ConfigError(f"--retriever {spec!r}: {module_name} has no function {name!r}")
    return fn


def call_user(fn: Callable[[str, int], list[str]], spec: str, queries: list[Target], k: int) -> Rankings:
    ids: dict[str, list[str]] = {}
    for t in queries:
        try:
            got = fn(t.query, k)
        except Exception as exc:
            raise ConfigError(
                f"--retriever {spec}: failed on query {t.query_id}: {type(exc).__name__}: {exc}"
            ) from None
        if not isinstance(got, (list, tuple)) or not all(isinstance(c, str) for c in got):
            raise ConfigError(
                f"--retriever {spec}: query {t.query_id}: expected a list of chunk ID strings, "
                f"got {type(got).__name__}"
            )
        ids[t.query_id] = list(got)[:k]
    # no scores from the user: rank order as descending scores, so a TREC file keeps it
    return ids, {q: [float(len(r) - i) for i in range(len(r))] for q, r in ids.items()}


def retrieve(spec: str, corpus: Corpus, chunking: Chunking, queries: list[Target], k: int) -> Rankings:
    """The top ``k`` for every query; a retriever is asked for no more than the chunking holds."""
    if not 1 <= k <= MAX_K:
        raise ConfigError(f"--k must be from 1 to {MAX_K:,}, not {k:,}")
    k = min(k, len(chunking.chunks))
    if spec == "bm25":
        return bm25(corpus, chunking, queries, k)
    return call_user(user_function(spec), spec, queries, k)


def run_of(
    tg: Targets,
    corpus: Corpus,
    k: int,
    run_file: Path | None = None,
    run_format: str | None = None,
    retriever: str | None = None,
) -> Run:
    """The run to evaluate: a run file read, or a retriever's rankings for every query (top ``k``)."""
    if run_file is not None and retriever is None:
        return read_run(run_file, run_format)
    if retriever is not None and run_file is None:
        ids, _ = retrieve(retriever, corpus, tg.chunking, tg.all(), k)
        return in_memory_run(f"retriever {retriever}", ids)
    raise ConfigError("eval needs exactly one of --run RUN or --retriever bm25|MODULE:FUNCTION")
