"""The per-document map of a cold start: chunks and quote occurrences, one document at a time.

A cold check of a large set spends its time per document — chunking it, and finding all its
quotes in one Aho–Corasick pass — and each document's answer depends on that document alone. So
this is a map over documents: run in this process, or in ``jobs`` worker processes (``--jobs``)
that each read and canonicalise their documents themselves, with the same function computing
the same answer either way (the output is identical by construction, and the same map could run
on a distributed engine). Both halves read and fill the warm cache (``diskcache``).
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

from . import diskcache, quoteindex
from .chunker import Chunk
from .corpus import Corpus, CorpusDoc, read_document
from .resolve import occurrences

Found = dict[tuple[str, str], list[int]]


def index_document(doc: CorpusDoc, quotes: set[str], limit: int) -> tuple[list[Chunk], dict[str, list[int]]]:
    """The document's chunks, and the first ``limit`` start offsets of each quote in it."""
    known = diskcache.load_occurrences(doc.sha256, doc.text, limit) if quotes else {}
    missing = quotes - known.keys()
    if len(missing) >= quoteindex.MIN_QUOTES:
        batched = {q for q in missing if quoteindex.batchable(q)}
        fresh = quoteindex.find_all(doc.text, batched, limit)
        fresh.update((q, occurrences(doc.text, q, limit)) for q in missing - batched)
    else:
        fresh = {q: occurrences(doc.text, q, limit) for q in missing}
    if fresh:
        diskcache.store_occurrences(doc.sha256, limit, {**known, **fresh})
    return doc.chunks, {q: known[q] if q in known else fresh[q] for q in quotes}


def _in_worker(root, doc_id: str, max_chars: int, sha: str, quotes: set[str], limit: int):
    doc = read_document(root, doc_id, max_chars)
    if not isinstance(doc, CorpusDoc) or doc.sha256 != sha:
        return None  # the file changed under us (or is an editor's buffer): the caller does it
    return index_document(doc, quotes, limit)


def index_corpus(corpus: Corpus, wanted: dict[str, set[str]], limit: int, jobs: int = 1) -> Found:
    """Chunk every document of ``corpus`` and find the ``wanted`` quotes of each; (doc, quote) →
    starts. With ``jobs`` > 1 the documents are shared out over that many processes."""
    docs = list(corpus.docs.values())
    results: dict[str, tuple | None] = {}
    if jobs > 1 and len(docs) > 1:
        # the largest first, so no worker is left with a big one at the end
        order = sorted(docs, key=lambda d: -len(d.text))
        with ProcessPoolExecutor(min(jobs, len(docs))) as pool:
            futures = {d.doc_id: pool.submit(_in_worker, corpus.root, d.doc_id, corpus.max_chars, d.sha256,
                                             wanted.get(d.doc_id, set()), limit) for d in order}
            results = {doc_id: f.result() for doc_id, f in futures.items()}
    found: Found = {}
    for doc in docs:
        result = results.get(doc.doc_id) or index_document(doc, wanted.get(doc.doc_id, set()), limit)
        chunks, starts = result
        doc.__dict__.setdefault("chunks", chunks)  # a worker's chunks, unless already computed here
        found.update(((doc.doc_id, q), s) for q, s in starts.items())
    return found
