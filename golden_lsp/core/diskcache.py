"""The warm cache: what each document is, its chunks and its quotes' facts, on disk, by content.

Chunking a document and working out its quotes' facts (``facts.py``) depend only on its text
(and ``max_chars``, the chunker and this version of golden-lsp), so they are kept on disk under a
key made of exactly those, and so is what a file's bytes are as a document (its canonical text's
digest and length): a CI re-run or a server restart over an unchanged corpus reads them instead
of computing them, and a command-line check over an unchanged corpus never even decodes a
document. An entry is a header line holding its own key and the digest of its payload's bytes,
then the payload: one that is corrupt (truncated, edited, not JSON, wrong shape) or foreign
(another key, e.g. copied from elsewhere) is ignored and recomputed, never trusted. Writing is
best-effort and atomic (a read-only home only costs the speed). The folder is
``golden-lsp/warm`` in the user cache dir (``$XDG_CACHE_HOME``, ``~/Library/Caches``,
``%LOCALAPPDATA%``), or ``$GOLDEN_LSP_CACHE_DIR``; ``--no-cache`` (or ``GOLDEN_LSP_NO_CACHE=1``)
bypasses it.
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

from .. import __version__
from .chunker import CHUNKER_VERSION, Chunk
from .facts import HINT_KINDS, QuoteFacts
from .hints import Hint
from .resolve import LIST_ITEM, PARAGRAPH, TABLE_ROW

FORMAT = 2
_HEX64 = re.compile(r"[0-9a-f]{64}")

#: switched off by ``--no-cache`` (and by ``GOLDEN_LSP_NO_CACHE=1``)
enabled = os.environ.get("GOLDEN_LSP_NO_CACHE", "") in ("", "0")


def cache_dir(kind: str = "warm") -> Path:
    """The folder of one of golden-lsp's user caches: the warm cache, or another ``kind`` beside it
    (``judge``: the LLM judge's judgments); under ``$GOLDEN_LSP_CACHE_DIR`` when it is set."""
    if os.environ.get("GOLDEN_LSP_CACHE_DIR"):
        root = Path(os.environ["GOLDEN_LSP_CACHE_DIR"])
        return root if kind == "warm" else root / kind
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "golden-lsp" / kind  # beside, never among, the editor tools' cache


#: the modules (of this package) whose code computes the entries: every module the facts and the
#: chunks are computed with, and the corpus's reading of a file as a document
CODE_MODULES = (
    "canon",
    "chunker",
    "corpus",
    "diskcache",
    "facts",
    "hints",
    "quoteindex",
    "resolve",
    "textcache",
)


def _code_digest() -> str:
    """A digest of the ``CODE_MODULES``: a changed rule (a new hint, a chunker fix) is a new key
    even before the version number moves."""
    h = hashlib.sha256()
    for name in CODE_MODULES:
        try:
            h.update((Path(__file__).parent / f"{name}.py").read_bytes())
        except OSError:  # a frozen install: the version alone
            h.update(name.encode())
    return h.hexdigest()


_CODE = _code_digest()


def _key(kind: str, doc_sha: str, **params: Any) -> str:
    parts = [
        kind,
        doc_sha,
        CHUNKER_VERSION,
        __version__,
        _CODE,
        f"format={FORMAT}",
        *(f"{k}={v}" for k, v in sorted(params.items())),
    ]
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


def read_entry(folder: Path, key: str) -> Any | None:
    """The payload stored under ``key`` in ``folder``, or None when absent, corrupt or foreign.

    An entry is a header line (JSON: format, key, the sha256 of the payload's bytes) and the
    payload's JSON: checking the digest hashes bytes, it never serialises the payload again. The
    judge's cache (``keep/cache.py``) keeps its entries this way too, in its own folder."""
    try:
        data = (folder / key[:2] / f"{key}.json").read_bytes()
        head, _, body = data.partition(b"\n")
        entry = json.loads(head)
        if (
            not isinstance(entry, dict)
            or entry.get("key") != key
            or entry.get("format") != FORMAT
            or entry.get("digest") != hashlib.sha256(body).hexdigest()
        ):
            return None
        return json.loads(body)
    except (OSError, ValueError, TypeError, RecursionError):
        return None


def write_entry(folder: Path, key: str, payload: Any) -> None:
    """Store ``payload`` under ``key`` in ``folder``: atomic, best-effort (an OSError is ignored)."""
    folder = folder / key[:2]
    tmp = None
    try:
        body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        head = json.dumps({"format": FORMAT, "key": key, "digest": hashlib.sha256(body).hexdigest()})
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{key}.", dir=folder)
        with os.fdopen(fd, "wb") as f:
            f.write(head.encode("ascii") + b"\n" + body)
        os.replace(tmp, folder / f"{key}.json")
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def _read(key: str) -> Any | None:
    return read_entry(cache_dir(), key) if enabled else None


def _write(key: str, payload: Any) -> None:
    if enabled:
        write_entry(cache_dir(), key, payload)


def load_chunks(doc_id: str, doc_sha: str, text_len: int, max_chars: int) -> list[Chunk] | None:
    """The document's chunks as stored, when a sound entry exists."""
    payload = _read(_key("chunks", doc_sha, doc_id=doc_id, max_chars=max_chars))
    if payload is None:
        return None
    try:
        paths, rows = payload["paths"], payload["chunks"]
        chunks = [Chunk(doc_id, s, e, paths[p], cid) for s, e, p, cid in rows]
    except (TypeError, KeyError, ValueError, IndexError):
        return None
    last = 0
    for c in chunks:  # ordered, disjoint, inside the text, with well-formed ids
        if not (
            isinstance(c.start, int)
            and isinstance(c.end, int)
            and last <= c.start < c.end <= text_len
            and isinstance(c.heading_path, str)
            and isinstance(c.chunk_id, str)
            and _HEX64.fullmatch(c.chunk_id)
        ):
            return None
        last = c.end
    return chunks


def store_chunks(doc_id: str, doc_sha: str, max_chars: int, chunks: list[Chunk]) -> None:
    paths: dict[str, int] = {}
    rows = [[c.start, c.end, paths.setdefault(c.heading_path, len(paths)), c.chunk_id] for c in chunks]
    _write(
        _key("chunks", doc_sha, doc_id=doc_id, max_chars=max_chars), {"paths": list(paths), "chunks": rows}
    )


def load_canonical(data_sha: str) -> dict | None:
    """What a file whose bytes hash to ``data_sha`` is as a document (its canonical text's sha256
    and length, ``CorpusDoc.raw_key`` and whether the canonical text is the raw text), as stored."""
    payload = _read(_key("canonical", data_sha))
    if (
        isinstance(payload, dict)
        and isinstance(payload.get("sha256"), str)
        and _HEX64.fullmatch(payload["sha256"])
        and type(payload.get("chars")) is int
        and payload["chars"] >= 0
        and type(payload.get("same")) is bool
        and isinstance(payload.get("raw_key"), str)
        and (payload["raw_key"] == "canonical" or _HEX64.fullmatch(payload["raw_key"]))
    ):
        return payload
    return None


def store_canonical(data_sha: str, known: dict) -> None:
    _write(_key("canonical", data_sha), known)


def load_facts(doc_sha: str, raw_key: str, limit: int) -> dict[str, QuoteFacts]:
    """Quote → its facts in the document (``facts.QuoteFacts``), as stored; only entries of the
    right shape (``raw_key`` names the raw form the positions were taken in)."""
    payload = _read(_key("facts", doc_sha, limit=limit, raw=raw_key))
    if not isinstance(payload, dict):
        return {}
    out = {}
    for quote, row in payload.items():
        try:
            out[quote] = _facts(quote, row, limit)
        except (TypeError, ValueError, KeyError, IndexError):
            continue
    return out


def store_facts(doc_sha: str, raw_key: str, limit: int, found: dict[str, QuoteFacts]) -> None:
    _write(_key("facts", doc_sha, limit=limit, raw=raw_key), {q: _row(f) for q, f in found.items()})


def _row(f: QuoteFacts) -> list:
    hint = f.hint and [f.hint.start, f.hint.end, f.hint.kind, f.hint.corpus_text, f.hint.parts, f.hint.score]
    positions = [[o, *p] for o, p in sorted((f.positions or {}).items())]
    return [f.starts, f.block, f.exact_chars, f.block_chars, hint, f.part_texts, positions]


def _ints(values: Any, n: int | None = None) -> tuple[int, ...]:
    if (
        not isinstance(values, list)
        or (n is not None and len(values) != n)
        or not all(type(v) is int and v >= 0 for v in values)
    ):
        raise ValueError("not a list of offsets")
    return tuple(values)


def _pair(values: Any) -> tuple[int, int]:
    start, end = _ints(values, 2)
    return start, end


def _facts(quote: str, row: Any, limit: int) -> QuoteFacts:
    """A stored row back as facts; ValueError/TypeError for any row golden-lsp would not write."""
    starts_, block, exact_chars, block_chars, hint, part_texts, positions = row
    starts = _ints(starts_)
    if len(starts) > limit or list(starts) != sorted(set(starts)):
        raise ValueError("starts")
    if block is not None:
        lo, hi = _ints(block[:2])
        if (
            len(block) != 3
            or block[2] not in (TABLE_ROW, LIST_ITEM, PARAGRAPH)
            or lo > hi
            or len(starts) != 1
        ):
            raise ValueError("block")
        block = (lo, hi, block[2])
    if type(exact_chars) is not int or type(block_chars) is not int:
        raise ValueError("chars")
    if hint is not None:
        start, end = _ints(hint[:2])
        kind, corpus_text, parts, score = hint[2:]
        if (
            kind not in HINT_KINDS
            or not isinstance(corpus_text, str)
            or not isinstance(score, (int, float))
            or starts
        ):
            raise ValueError("hint")
        hint = Hint(start, end, kind, corpus_text, tuple(_pair(p) for p in parts), float(score))
    if not isinstance(part_texts, list) or not all(isinstance(t, str) for t in part_texts):
        raise ValueError("part texts")
    table = {o: (line, col) for o, line, col in (_ints(p, 3) for p in positions)}
    needed = {o for s in starts[: limit - 1] for o in (s, s + len(quote))} if len(starts) > 1 else set()
    if hint is not None:
        needed |= {hint.start, hint.end, *(o for p in hint.parts for o in p)}
    if not needed <= table.keys() or (hint is not None and len(part_texts) != len(hint.parts)):
        raise ValueError("positions")
    return QuoteFacts(starts, block, exact_chars, block_chars, hint, tuple(part_texts), table or None)
