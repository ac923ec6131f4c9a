"""The per-document map of a cold start: chunks and quote facts, one document at a time.

A cold check of a large set spends its time per document — chunking it, finding all its quotes
in one Aho–Corasick pass, and working out the facts the rules need of each quote (its block, why
a missing one is missing, the positions a finding shows: ``facts.py``) — and each document's
answer depends on that document alone. So this is a map over documents: run in this process, or
in ``jobs`` worker processes (``--jobs``) that each read and canonicalise their documents
themselves, with the same function computing the same answer either way (the output is
identical by construction, and the same map could run on a distributed engine). Both halves read
and fill the warm cache (``diskcache``), and with ``release`` a document's text is let go as soon
as its facts are known, so a check holds one document's text at a time.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from . import diskcache, quoteindex
from .chunker import Chunk
from .corpus import BrokenDoc, Corpus, CorpusDoc, known_document, load_corpus, read_document
from .facts import Found, QuoteFacts, quote_facts
from .hints import not_found_hint, not_found_hints
from .resolve import occurrences

#: ``jobs`` for "as many as help": one process per core, up to ``MAX_AUTO_JOBS``, for a corpus of
#: ``AUTO_JOBS_MB`` or more (below that, starting workers costs more than it shares out)
AUTO, MAX_AUTO_JOBS, AUTO_JOBS_MB = 0, 4, 8


def auto_jobs(corpus_bytes: int) -> int:
    if corpus_bytes < AUTO_JOBS_MB * 1_000_000:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cores, MAX_AUTO_JOBS))


def index_document(
    doc: CorpusDoc, quotes: set[str], limit: int, release: bool = False
) -> tuple[list[Chunk], dict[str, QuoteFacts]]:
    """The document's chunks, and the facts of each quote in it (``limit`` starts at most)."""
    known = diskcache.load_facts(doc.sha256, doc.raw_key, limit) if quotes else {}
    missing = quotes - known.keys()
    chunks = doc.chunks
    if missing:
        text = doc.text
        if len(missing) >= quoteindex.MIN_QUOTES:
            batched = {q for q in missing if quoteindex.batchable(q)}
            starts = quoteindex.find_all(text, batched, limit)
            starts.update((q, occurrences(text, q, limit)) for q in missing - batched)
        else:
            starts = {q: occurrences(text, q, limit) for q in missing}
        hints = _hints(text, [q for q, s in starts.items() if not s])
        position = doc.positions.raw_position
        fresh = {
            q: quote_facts(text, position, q, limit, s, hints.get(q))
            for q, s in starts.items()
            if s or q in hints
        }
        diskcache.store_facts(doc.sha256, doc.raw_key, limit, {**known, **fresh})
        known.update(fresh)
    if release:
        doc.release()
    return chunks, {q: known[q] for q in quotes if q in known}


def _hints(text: str, quotes: list[str]) -> dict:
    """The not-found hint of each quote, all found in one pass over the document; should that
    fail, each on its own, and one whose hint fails is left out, so its own line computes it
    again and costs only that line (``Analyzer._analyze_line``)."""
    try:
        return not_found_hints(text, quotes)
    except Exception:  # a bug in a hint: find which, quote by quote
        out = {}
        for quote in quotes:
            try:
                out[quote] = not_found_hint(text, quote)
            except Exception:  # the line that quotes it reports it
                continue
        return out


def index_corpus(corpus: Corpus, wanted: dict[str, set[str]], limit: int, release: bool = False) -> Found:
    """Chunk every document of ``corpus`` and find the facts of the ``wanted`` quotes of each;
    (doc, quote) → facts. With ``release`` each document's text is let go once its facts are known."""
    found: Found = {}
    for doc in corpus.docs.values():
        _, facts = index_document(doc, wanted.get(doc.doc_id, set()), limit, release)
        found.update(((doc.doc_id, q), f) for q, f in facts.items())
    return found


def _read_and_index(root: Path, doc_id: str, max_chars: int, quotes: set[str], limit: int):
    """One document read, chunked and its quotes' facts found, its text let go: (doc, facts)."""
    doc = read_document(root, doc_id, max_chars, lean=True)
    if not isinstance(doc, CorpusDoc):
        return doc, {}
    return doc, index_document(doc, quotes, limit, release=True)[1]


def _from_cache(root: Path, doc_id: str, max_chars: int, quotes: set[str], limit: int):
    """(doc, facts) when the warm cache holds all of it — what the file is, its chunks, every
    quote's facts — read without decoding the file; else None."""
    doc = known_document(root, doc_id, max_chars)
    if doc is None:
        return None
    chunks = diskcache.load_chunks(doc_id, doc.sha256, doc.chars, max_chars)
    known = diskcache.load_facts(doc.sha256, doc.raw_key, limit) if quotes else {}
    if chunks is None or not quotes <= known.keys():
        return None
    doc.__dict__["chunks"] = chunks
    return doc, {q: known[q] for q in quotes}


def load_indexed(
    root: Path, glob: str, max_chars: int, wanted: dict[str, set[str]], limit: int, jobs: int = 1
) -> tuple[Corpus, Found]:
    """The corpus read as a map over its files — each read, chunked and its ``wanted`` quotes'
    facts found, then its text let go — in this process or in ``jobs`` worker processes (which
    then read the files themselves: this process decodes none; ``AUTO``: ``auto_jobs``); the
    corpus, and (doc, quote) → facts."""
    found: Found = {}

    def read(doc_ids: list[str]) -> Iterator[CorpusDoc | BrokenDoc | None]:
        args = [(root, d, max_chars, wanted.get(d, set()), limit) for d in doc_ids]
        sizes = [_size(root / d) for d in doc_ids]
        n = auto_jobs(sum(sizes)) if jobs == AUTO else jobs
        results: Iterable[tuple[CorpusDoc | BrokenDoc | None, dict[str, QuoteFacts]]]
        if n > 1 and len(doc_ids) > 1:
            # what the warm cache holds whole is read here (no decoding, nothing to share out);
            # the rest goes to the workers, the largest first so none is left with a big one at the end
            pooled: list = [_from_cache(*a) for a in args]
            order = sorted((i for i in range(len(args)) if pooled[i] is None), key=lambda i: -sizes[i])
            if order:
                with ProcessPoolExecutor(min(n, len(order))) as pool:
                    futures = {i: pool.submit(_read_and_index, *args[i]) for i in order}
                    for i, future in futures.items():
                        pooled[i] = future.result()
            results = pooled
        else:
            results = (_read_and_index(*a) for a in args)  # one document at a time
        for doc, facts in results:
            if doc is not None:
                found.update(((doc.doc_id, q), f) for q, f in facts.items())
            yield doc

    return load_corpus(root, glob, max_chars, read=read), found


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
