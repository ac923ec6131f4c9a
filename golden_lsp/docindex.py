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

from concurrent.futures import ProcessPoolExecutor

from . import diskcache, quoteindex
from .chunker import Chunk
from .corpus import Corpus, CorpusDoc, read_document
from .facts import QuoteFacts, quote_facts
from .resolve import not_found_hint, occurrences

Found = dict[tuple[str, str], QuoteFacts]


def index_document(doc: CorpusDoc, quotes: set[str], limit: int,
                   release: bool = False) -> tuple[list[Chunk], dict[str, QuoteFacts]]:
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
        fresh = {q: quote_facts(text, position, q, limit, s, hints.get(q)) for q, s in starts.items()
                 if s or q in hints}
        diskcache.store_facts(doc.sha256, doc.raw_key, limit, {**known, **fresh})
        known.update(fresh)
    if release:
        doc.release()
    return chunks, {q: known[q] for q in quotes if q in known}


def _hints(text: str, quotes: list[str]) -> dict:
    """The not-found hint of each quote; one whose hint fails is left out, so its own line
    computes it again and costs only that line (``Analyzer._analyze_line``)."""
    out = {}
    for quote in quotes:
        try:
            out[quote] = not_found_hint(text, quote)
        except Exception:  # a bug in a hint: the line that quotes it reports it
            continue
    return out


def _in_worker(root, doc_id: str, max_chars: int, sha: str, quotes: set[str], limit: int):
    doc = read_document(root, doc_id, max_chars)
    if not isinstance(doc, CorpusDoc) or doc.sha256 != sha:
        return None  # the file changed under us (or is an editor's buffer): the caller does it
    return index_document(doc, quotes, limit)


def index_corpus(corpus: Corpus, wanted: dict[str, set[str]], limit: int, jobs: int = 1,
                 release: bool = False) -> Found:
    """Chunk every document of ``corpus`` and find the facts of the ``wanted`` quotes of each;
    (doc, quote) → facts. With ``jobs`` > 1 the documents are shared out over that many
    processes; with ``release`` each document's text is let go once its facts are known."""
    docs = list(corpus.docs.values())
    results: dict[str, tuple | None] = {}
    if jobs > 1 and len(docs) > 1:
        # the largest first, so no worker is left with a big one at the end
        order = sorted(docs, key=lambda d: -d.chars)
        with ProcessPoolExecutor(min(jobs, len(docs))) as pool:
            futures = {d.doc_id: pool.submit(_in_worker, corpus.root, d.doc_id, corpus.max_chars, d.sha256,
                                             wanted.get(d.doc_id, set()), limit) for d in order}
            results = {doc_id: f.result() for doc_id, f in futures.items()}
    found: Found = {}
    for doc in docs:
        result = results.get(doc.doc_id) or index_document(doc, wanted.get(doc.doc_id, set()), limit, release)
        chunks, facts = result
        doc.__dict__.setdefault("chunks", chunks)  # a worker's chunks, unless already computed here
        found.update(((doc.doc_id, q), f) for q, f in facts.items())
    return found
