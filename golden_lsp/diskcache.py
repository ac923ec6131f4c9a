"""The warm cache: each document's chunks and quote occurrences on disk, by content.

Chunking a document and finding its quotes depend only on its canonical text (and ``max_chars``,
the chunker and this version of golden-lsp), so both are kept on disk under a key made of
exactly those; a CI re-run or a server restart over an unchanged corpus reads them instead of
computing them. An entry is a JSON file holding its own key and a digest of its payload: one that
is corrupt (truncated, edited, not JSON, wrong shape) or foreign (another key, e.g. copied from
elsewhere) is ignored and recomputed, never trusted. Writing is best-effort and atomic (a
read-only home only costs the speed). The folder is ``golden-lsp/warm`` in the user cache dir
(``$XDG_CACHE_HOME``, ``~/Library/Caches``, ``%LOCALAPPDATA%``), or ``$GOLDEN_LSP_CACHE_DIR``;
``--no-cache`` (or ``GOLDEN_LSP_NO_CACHE=1``) bypasses it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from . import __version__
from .chunker import CHUNKER_VERSION, Chunk

FORMAT = 1
_HEX64 = re.compile(r"[0-9a-f]{64}")

#: switched off by ``--no-cache`` (and by ``GOLDEN_LSP_NO_CACHE=1``)
enabled = os.environ.get("GOLDEN_LSP_NO_CACHE", "") in ("", "0")


def cache_dir() -> Path:
    if os.environ.get("GOLDEN_LSP_CACHE_DIR"):
        return Path(os.environ["GOLDEN_LSP_CACHE_DIR"])
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "golden-lsp" / "warm"  # beside, never among, the editor tools' cache


def _key(kind: str, doc_sha: str, **params: Any) -> str:
    parts = [kind, doc_sha, CHUNKER_VERSION, __version__, f"format={FORMAT}",
             *(f"{k}={v}" for k, v in sorted(params.items()))]
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


def _digest(payload: Any) -> str:
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


def _read(key: str) -> Any | None:
    """The payload stored under ``key``, or None when absent, corrupt or foreign."""
    if not enabled:
        return None
    try:
        entry = json.loads((cache_dir() / key[:2] / f"{key}.json").read_text(encoding="utf-8"))
        if not isinstance(entry, dict) or entry.get("key") != key or entry.get("format") != FORMAT:
            return None
        payload = entry.get("payload")
        return payload if entry.get("digest") == _digest(payload) else None
    except (OSError, ValueError, TypeError, RecursionError):
        return None


def _write(key: str, payload: Any) -> None:
    if not enabled:
        return
    folder = cache_dir() / key[:2]
    tmp = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{key}.", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"format": FORMAT, "key": key, "digest": _digest(payload), "payload": payload}, f,
                      ensure_ascii=False)
        os.replace(tmp, folder / f"{key}.json")
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def load_chunks(doc_id: str, doc_sha: str, text_len: int, max_chars: int) -> list[Chunk] | None:
    """The document's chunks as stored, when a sound entry exists."""
    payload = _read(_key("chunks", doc_sha, doc_id=doc_id, max_chars=max_chars))
    try:
        paths, rows = payload["paths"], payload["chunks"]
        chunks = [Chunk(doc_id, s, e, paths[p], cid) for s, e, p, cid in rows]
    except (TypeError, KeyError, ValueError, IndexError):
        return None
    last = 0
    for c in chunks:  # ordered, disjoint, inside the text, with well-formed ids
        if not (isinstance(c.start, int) and isinstance(c.end, int) and last <= c.start < c.end <= text_len
                and isinstance(c.heading_path, str) and isinstance(c.chunk_id, str) and _HEX64.fullmatch(c.chunk_id)):
            return None
        last = c.end
    return chunks


def store_chunks(doc_id: str, doc_sha: str, max_chars: int, chunks: list[Chunk]) -> None:
    paths: dict[str, int] = {}
    rows = [[c.start, c.end, paths.setdefault(c.heading_path, len(paths)), c.chunk_id] for c in chunks]
    _write(_key("chunks", doc_sha, doc_id=doc_id, max_chars=max_chars), {"paths": list(paths), "chunks": rows})


def load_occurrences(doc_sha: str, text: str, limit: int) -> dict[str, list[int]]:
    """Quote → its first start offsets (at most ``limit``) in the document, as stored; only
    entries whose every offset is an occurrence of the quote in ``text``."""
    payload = _read(_key("occurrences", doc_sha, limit=limit))
    if not isinstance(payload, dict):
        return {}
    out = {}
    for quote, starts in payload.items():
        if (isinstance(starts, list) and len(starts) <= limit and starts == sorted(set(starts))
                and all(isinstance(s, int) and s >= 0 and text.startswith(quote, s) for s in starts)):
            out[quote] = starts
    return out


def store_occurrences(doc_sha: str, limit: int, found: dict[str, list[int]]) -> None:
    _write(_key("occurrences", doc_sha, limit=limit), found)
