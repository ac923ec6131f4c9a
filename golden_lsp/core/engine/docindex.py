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
import stat
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from ..corpus.document import BrokenDoc, CorpusDoc, identity
from ..corpus.index import Corpus, load_corpus
from ..labels.facts import Found, QuoteFacts, quote_facts
from ..labels.hints import not_found_hint, not_found_hints
from ..labels.resolve import occurrences
from ..text.chunker import Chunk
from . import diskcache, gcpause, packs, quoteindex
from .cacherows import Rows, compact
from .lean import known_document, read_lean

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
        if doc.data_sha is not None:  # not an editor buffer's passing state
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


def index_corpus(
    corpus: Corpus, wanted: dict[str, set[str]], limit: int, release: bool = False, every: bool = True
) -> Found:
    """Chunk every document of ``corpus`` (``every``; else only the ``wanted`` ones) and find the
    facts of the ``wanted`` quotes of each; (doc, quote) → facts. With ``release`` each
    document's text is let go once its facts are known."""
    found: Found = {}
    docs = corpus.docs
    for doc in docs.values() if every else (docs[d] for d, quotes in wanted.items() if quotes and d in docs):
        _, facts = index_document(doc, wanted.get(doc.doc_id, set()), limit, release)
        found.update(((doc.doc_id, q), f) for q, f in facts.items())
    return found


def _read_and_index(root: Path, doc_id: str, max_chars: int, quotes: set[str], limit: int):
    """One document read, chunked and its quotes' facts found, its text let go: (doc, facts)."""
    doc = read_lean(root, doc_id, max_chars)
    if not isinstance(doc, CorpusDoc):
        return doc, {}
    return doc, index_document(doc, quotes, limit, release=True)[1]


def _index_batch(root: Path, items: list[tuple[str, set[str]]], max_chars: int, limit: int):
    """A worker's task: many documents read and indexed (``_read_and_index``), handed back
    compact (chunks in their stored form, ``cacherows.compact``) with the cache entries the
    worker made, for the parent to write once (``packs.take_pending``)."""
    out = []
    for doc_id, quotes in items:
        doc, facts = _read_and_index(root, doc_id, max_chars, quotes, limit)
        if isinstance(doc, CorpusDoc):
            _compact(doc, max_chars)
        out.append((doc, facts))
    return out, packs.take_pending()


def _compact(doc: CorpusDoc, max_chars: int) -> None:
    """``cacherows.compact``, sharing the bytes of the cache entry its chunks were just read from
    or written to (none with ``--no-cache``: made then)."""
    if doc.chunked:
        compact(doc, diskcache.chunk_rows(doc.doc_id, doc.sha256, max_chars))


def _from_cache(root: Path, doc_id: str, max_chars: int, quotes: set[str], limit: int, st=None, path=None):
    """(doc, facts) when the warm cache holds all of it — what the file is, its number of chunks
    or its chunks, every quote's facts — read without decoding the file (nor reading it, when its
    stat says it is unchanged); else None. Its chunks are read from the cache when asked for
    (or stay in their stored form until then)."""
    doc = known_document(root, doc_id, max_chars, st, path)
    if doc is None:
        return None
    known = diskcache.load_facts(doc.sha256, doc.raw_key, limit) if quotes else {}
    if not quotes <= known.keys():
        return None
    if not doc.counted:
        rows = diskcache.chunk_rows(doc_id, doc.sha256, max_chars)
        if rows is None:
            return None
        doc.defer_chunks(Rows(rows))
    return doc, {q: known[q] for q in quotes}


#: the bytes of documents a worker's task holds (many small documents per task, so that starting
#: a task and handing its answer back cost little beside the work)
BATCH_BYTES = 4_000_000


def _batches(order: list[int], sizes: list[int], n: int) -> list[list[int]]:
    """The documents ``order`` (largest first) in tasks of about ``BATCH_BYTES``, and at least
    four tasks per process, so that none is left with a large share at the end."""
    target = max(1, min(BATCH_BYTES, sum(sizes[i] for i in order) // (4 * n)))
    out: list[list[int]] = []
    size = target
    for i in order:
        if size >= target:
            out.append([])
            size = 0
        out[-1].append(i)
        size += sizes[i]
    return out


def load_indexed(
    root: Path, glob: str, max_chars: int, wanted: dict[str, set[str]], limit: int, jobs: int = 1
) -> tuple[Corpus, Found]:
    """The corpus read as a map over its files — each read, chunked and its ``wanted`` quotes'
    facts found, then its text let go — in this process or in ``jobs`` worker processes (which
    then read the files themselves: this process decodes none; ``AUTO``: ``auto_jobs``), what the
    warm cache holds whole taken from it first; the corpus, and (doc, quote) → facts."""
    found: Found = {}

    def read(doc_ids: list[str], paths: list[Path]) -> Iterator[CorpusDoc | BrokenDoc | None]:
        stats = [_stat(p) for p in paths]
        args = [(root, d, max_chars, wanted.get(d, set()), limit) for d in doc_ids]
        pooled: list = [
            _from_cache(*a, st, p) if st is not None else None for a, st, p in zip(args, stats, paths)
        ]
        sizes = [st.st_size if st is not None else 0 for st in stats]
        todo = [i for i in range(len(args)) if pooled[i] is None]
        read_now = set(todo)
        n = auto_jobs(sum(sizes[i] for i in todo)) if jobs == AUTO else jobs
        if n > 1 and len(todo) > 1:
            # the largest first, so that none is left with a big one at the end
            order = sorted(todo, key=lambda i: -sizes[i])
            with ProcessPoolExecutor(min(n, len(order))) as pool:
                tasks = [
                    (
                        batch,
                        pool.submit(
                            _index_batch, root, [(doc_ids[i], args[i][3]) for i in batch], max_chars, limit
                        ),
                    )
                    for batch in _batches(order, sizes, n)
                ]
                for batch, future in tasks:
                    results, written = future.result()
                    packs.add_pending(written)
                    for i, result in zip(batch, results):
                        pooled[i] = result
        for i, a in enumerate(args):
            cached, pooled[i] = pooled[i], None
            doc, facts = cached or _read_and_index(*a)  # else one document at a time
            if isinstance(doc, CorpusDoc):
                st = stats[i]
                if st is not None and doc.data_sha is not None and (i in read_now or not doc.counted):
                    # (one from the cache that knows its number of chunks had a trusted stat row)
                    diskcache.note_file(
                        root, doc.doc_id, st, doc.data_sha, identity(doc), max_chars, doc.n_chunks
                    )
                if not facts:
                    _compact(doc, max_chars)  # nobody quotes it: its chunks stay compact
            if doc is not None:
                found.update(((doc.doc_id, q), f) for q, f in facts.items())
            yield doc

    with gcpause.paused() as pause:  # every object the load makes lives on (``gcpause``)
        corpus = load_corpus(root, glob, max_chars, read=read)
        pause.made = len(corpus.docs)
    return corpus, found


def _stat(path: Path) -> os.stat_result | None:
    """The stat of a regular file (None: no such file, or not a regular one)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st if stat.S_ISREG(st.st_mode) else None
