"""A corpus file read lean: when the warm cache knows its bytes, a document never decoded.

A check over an unchanged corpus, or a server's open of one, need a document's digests, length
and number of chunks — not its text — for the thousands of documents no quote names. The warm
cache knows what a file's bytes are as a document (``diskcache.load_canonical``), and by the
file's stat whether they are still those bytes (``diskcache.known_file``); with that, a document
comes released (``document.released``: its text read back only if asked for), and a file it does
not know is read as usual and what it is kept for the next run.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from ..corpus.document import BrokenDoc, CorpusDoc, document_of, identity, read_bytes, released
from ..io.files import read_regular
from . import diskcache


def read_lean(root: Path, doc_id: str, max_chars: int) -> CorpusDoc | BrokenDoc | None:
    """``document.read_document``, but when the warm cache knows these very bytes the document is
    not even decoded (it comes released), else what it is goes into the cache."""
    path = root / doc_id
    data = read_bytes(path)
    if data is None:
        return None
    data_sha = hashlib.sha256(data).hexdigest()
    known = _known(path, doc_id, max_chars, data_sha)
    if known is not None:
        return known
    doc = document_of(path, doc_id, max_chars, data, data_sha)
    if isinstance(doc, CorpusDoc):
        diskcache.store_canonical(data_sha, identity(doc))
    return doc


def known_document(
    root: Path, doc_id: str, max_chars: int, st: os.stat_result | None = None, path: Path | None = None
) -> CorpusDoc | None:
    """The file ``root/doc_id`` as a released document when the warm cache knows its very bytes
    (never decoded; not even read when its stat ``st`` is the one they were hashed at:
    ``diskcache.known_file``, which may know its number of chunks too); None otherwise
    (``read_lean`` tells why). ``path``: ``root / doc_id`` when the caller has it already."""
    path = path or root / doc_id
    file = diskcache.known_file(root, doc_id, st, max_chars) if st is not None else None
    if file is None:
        try:
            data = read_regular(path)
        except OSError:
            return None
        file = hashlib.sha256(data).hexdigest(), None, None
    data_sha, known, n_chunks = file
    return _known(path, doc_id, max_chars, data_sha, known, n_chunks)


def _known(
    path: Path,
    doc_id: str,
    max_chars: int,
    data_sha: str,
    known: dict | None = None,
    n_chunks: int | None = None,
) -> CorpusDoc | None:
    known = known or diskcache.load_canonical(data_sha)
    if known is None:
        return None
    return released(doc_id, path, max_chars, data_sha, known, n_chunks)
