"""The warm cache: what each document is, its chunks and its quotes' facts, kept by content.

Chunking a document and working out its quotes' facts (``facts.py``) depend only on its text
(and ``max_chars``, the chunker and this version of golden-lsp), so they are kept under a key
made of exactly those, and so is what a file's bytes are as a document (its canonical text's
digest and length): a CI re-run or a server restart over an unchanged corpus reads them instead
of computing them, and a command-line check over an unchanged corpus never even decodes a
document. Each kind of entry has a letter of its own (``c`` chunks, ``f`` facts, ``k`` what a
file is, ``s`` the stats), so a warm check reads only the kinds it needs (the stats, and the facts
of the quoted documents); where and how entries are stored is ``packs.py``'s business, and every
entry read back passes the check of its shape (``cacherows.py``) or is recomputed.
What a file's bytes are is also kept by the file's size, mtime, ctime and inode
(``known_file``), so an unchanged file is not even read; that is trusted only for a file whose
ctime was over ``RACY_NS`` older than when it was hashed (a file rewritten within a coarse
timestamp tick of its hashing is read again), and a checkout or a restored cache never matches
(new inodes and ctimes: every file is read and hashed, as before).
"""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path
from typing import Any, TypeGuard

from ..labels.facts import QuoteFacts
from ..text.chunker import Chunk
from . import packs
from .cacherows import HEX64, chunks_of, fact_row, facts_of, rows_of

#: a file's stat is trusted for its bytes only when its ctime was this much older than its hashing
RACY_NS = 2_000_000_000
#: the first letter of each kind's keys, so that each kind has packs of its own (``packs.pack_of``)
_KINDS = {"chunks": "c", "facts": "f", "canonical": "k", "stats": "s"}


def _key(kind: str, doc_sha: str, **params: Any) -> str:
    h = packs.KEY_BASE.copy()
    h.update("\0".join([kind, doc_sha, *(f"{k}={v}" for k, v in sorted(params.items()))]).encode("utf-8"))
    return _KINDS[kind] + h.hexdigest()[1:]


# --- what a file's bytes are, by its stat ------------------------------------------------------


def _stat_key(root: Path) -> str:
    return _key("stats", hashlib.sha256(str(root.resolve()).encode("utf-8", "surrogatepass")).hexdigest())


#: root → doc_id → [size, mtime_ns, ctime_ns, inode, data sha256, when hashed (ns), what the
#: file is as a document, {max_chars: number of chunks}], and whether it changed since read
_stats: dict[Path, tuple[dict[str, list], list[bool]]] = {}
#: the root asked last and its table
_last_table: list[tuple[Path, tuple[dict[str, list], list[bool]]] | None] = [None]


def _stat_table(root: Path) -> tuple[dict[str, list], list[bool]]:
    last = _last_table[0]
    if last is not None and last[0] is root:  # asked once a document: no hashing of the path
        return last[1]
    table = _stats.get(root)
    if table is None:
        payload = packs.read(_stat_key(root))
        table = _stats[root] = (payload if isinstance(payload, dict) else {}, [False])
    _last_table[0] = root, table
    return table


def _identity(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def _trusted(row: Any, st: os.stat_result) -> TypeGuard[list]:
    """A stat row for this very stat, hashed safely (its ctime over ``RACY_NS`` older)."""
    return (
        isinstance(row, list)
        and len(row) == 8
        and row[:4] == _identity(st)
        and isinstance(row[4], str)
        and HEX64.fullmatch(row[4]) is not None
        and type(row[5]) is int
        and st.st_ctime_ns < row[5] - RACY_NS
        and isinstance(row[7], dict)
    )


def known_file(
    root: Path, doc_id: str, st: os.stat_result, max_chars: int
) -> tuple[str, dict | None, int | None] | None:
    """What the bytes of ``root/doc_id`` are — their sha256, what they are as a document
    (``load_canonical``'s answer) and their number of chunks at ``max_chars``, each when known —
    when its stat is the one they were hashed at and that hashing was safe; else None (read and
    hash it)."""
    if not packs.enabled:
        return None
    row = _stat_table(root)[0].get(doc_id)
    if not _trusted(row, st):
        return None
    n = row[7].get(str(max_chars))
    return row[4], _canonical(row[6]), n if type(n) is int and n >= 0 else None


def note_file(
    root: Path, doc_id: str, st: os.stat_result, data_sha: str, canonical: dict, max_chars: int, n_chunks: int
) -> None:
    """``root/doc_id`` had the stat ``st`` when its bytes hashed to ``data_sha``, and were, as a
    document, ``canonical`` with ``n_chunks`` chunks at ``max_chars``."""
    if not packs.enabled:
        return
    table, changed = _stat_table(root)
    old = table.get(doc_id)
    row = [*_identity(st), data_sha]
    if _trusted(old, st) and old[4] == data_sha and old[6] == canonical:
        if old[7].get(str(max_chars)) != n_chunks:
            old[7][str(max_chars)] = n_chunks
            changed[0] = True
        return  # as it was, and trusted
    table[doc_id] = [*row, time.time_ns(), canonical, {str(max_chars): n_chunks}]
    changed[0] = True


def store_stats() -> None:
    """Keep the stats noted since they were read (``note_file``), for the next ``flush``."""
    for root, (table, changed) in _stats.items():
        if changed[0] and packs.enabled:
            packs.put(_stat_key(root), table)
            changed[0] = False
    _stats.clear()
    _last_table[0] = None


def load_chunks(doc_id: str, doc_sha: str, chars: int, max_chars: int) -> list[Chunk] | None:
    """The document's chunks as stored, when a sound entry exists."""
    return chunks_of(doc_id, chunk_rows(doc_id, doc_sha, max_chars), chars)


def chunk_rows(doc_id: str, doc_sha: str, max_chars: int) -> bytes | None:
    """The stored JSON of the document's chunks, its digest checked but not parsed yet
    (``chunks_of`` parses and checks it, ``count_rows`` counts it)."""
    return packs.read(_key("chunks", doc_sha, doc_id=doc_id, max_chars=max_chars), parse=False)


def store_chunks(doc_id: str, doc_sha: str, max_chars: int, chunks: list[Chunk]) -> None:
    packs.write(_key("chunks", doc_sha, doc_id=doc_id, max_chars=max_chars), rows_of(chunks))


def load_canonical(data_sha: str) -> dict | None:
    """What a file whose bytes hash to ``data_sha`` is as a document (its canonical text's sha256
    and length, ``CorpusDoc.raw_key`` and whether the canonical text is the raw text), as stored."""
    return _canonical(packs.read(_key("canonical", data_sha)))


def _canonical(payload: Any) -> dict | None:
    """``payload`` when it is what ``load_canonical`` answers."""
    if (
        isinstance(payload, dict)
        and isinstance(payload.get("sha256"), str)
        and HEX64.fullmatch(payload["sha256"])
        and type(payload.get("chars")) is int
        and payload["chars"] >= 0
        and type(payload.get("same")) is bool
        and isinstance(payload.get("raw_key"), str)
        and (payload["raw_key"] == "canonical" or HEX64.fullmatch(payload["raw_key"]))
    ):
        return payload
    return None


def store_canonical(data_sha: str, known: dict) -> None:
    packs.write(_key("canonical", data_sha), known)


def load_facts(doc_sha: str, raw_key: str, limit: int) -> dict[str, QuoteFacts]:
    """Quote → its facts in the document (``facts.QuoteFacts``), as stored; only entries of the
    right shape (``raw_key`` names the raw form the positions were taken in)."""
    payload = packs.read(_key("facts", doc_sha, limit=limit, raw=raw_key))
    if not isinstance(payload, dict):
        return {}
    out = {}
    for quote, row in payload.items():
        try:
            out[quote] = facts_of(quote, row, limit)
        except (TypeError, ValueError, KeyError, IndexError):
            continue
    return out


def store_facts(doc_sha: str, raw_key: str, limit: int, found: dict[str, QuoteFacts]) -> None:
    packs.write(_key("facts", doc_sha, limit=limit, raw=raw_key), {q: fact_row(f) for q, f in found.items()})


def flush() -> None:
    """Write what was kept since the last flush, the stats noted included (``packs.flush``)."""
    packs.flush()


packs.BEFORE_FLUSH.append(store_stats)
