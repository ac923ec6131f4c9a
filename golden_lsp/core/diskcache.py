"""The warm cache: what each document is, its chunks and its quotes' facts, on disk, by content.

Chunking a document and working out its quotes' facts (``facts.py``) depend only on its text
(and ``max_chars``, the chunker and this version of golden-lsp), so they are kept on disk under a
key made of exactly those, and so is what a file's bytes are as a document (its canonical text's
digest and length): a CI re-run or a server restart over an unchanged corpus reads them instead
of computing them, and a command-line check over an unchanged corpus never even decodes a
document. A corpus of 45,000 small documents makes 100,000 entries, so they are not a file each
(opening, hashing and writing that many files cost more than the work they save): they are
packed in 256 files by the key's first byte (``pack-vN/ab.pack``), each read whole the first
time one of its entries is wanted and written once, merged with what is on disk, when a command
is done (``flush``). An entry is a header line holding its key, the length of its payload and the
digest of key and payload, then the payload's JSON: one that is corrupt (truncated, edited, not
JSON, wrong shape) or foreign (another key's payload) is ignored and recomputed, never trusted.
What a file's bytes are is also kept by the file's size, mtime, ctime and inode
(``known_file``), so an unchanged file is not even read; that is trusted only for a file whose
ctime was over ``RACY_NS`` older than when it was hashed (a file rewritten within a coarse
timestamp tick of its hashing is read again), and a checkout or a restored cache never matches
(new inodes and ctimes: every file is read and hashed, as before).

The folder is ``golden-lsp/warm`` in the user cache dir (``$XDG_CACHE_HOME``,
``~/Library/Caches``, ``%LOCALAPPDATA%``), or ``$GOLDEN_LSP_CACHE_DIR``. A folder golden-lsp cannot
write (a shared cache on a read-only disk), or any folder with ``GOLDEN_LSP_CACHE_READONLY=1``
(a cache restored by CI that a run must not change), is used as it is: read, never written, and
no error. ``--no-cache`` (or ``GOLDEN_LSP_NO_CACHE=1``) bypasses it.
"""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .. import __version__
from .chunker import CHUNKER_VERSION, Chunk
from .facts import HINT_KINDS, QuoteFacts
from .hints import Hint
from .resolve import LIST_ITEM, PARAGRAPH, TABLE_ROW

FORMAT = 3
_HEX64 = re.compile(r"[0-9a-f]{64}")
#: a file's stat is trusted for its bytes only when its ctime was this much older than its hashing
RACY_NS = 2_000_000_000

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


#: what every key begins with: the chunker, this version and its code, the cache's format
_KEY_BASE = hashlib.sha256("\0".join([CHUNKER_VERSION, __version__, _CODE, f"format={FORMAT}"]).encode())


def _key(kind: str, doc_sha: str, **params: Any) -> str:
    h = _KEY_BASE.copy()
    h.update("\0".join([kind, doc_sha, *(f"{k}={v}" for k, v in sorted(params.items()))]).encode("utf-8"))
    return h.hexdigest()


#: pack name → key → (digest, payload bytes) of the packs read so far (until ``flush``)
_packs: dict[str, dict[bytes, tuple[bytes, bytes]]] = {}
#: pack name → key → (digest, payload bytes) written since the last ``flush``
_pending: dict[str, dict[bytes, tuple[bytes, bytes]]] = {}
#: the folder of the packs above (the cache folder can change: a test's, ``$GOLDEN_LSP_CACHE_DIR``)
_where: list[Path | None] = [None]


def _here() -> Path:
    """The folder of the packs, what was read and written for another one flushed first."""
    folder = _pack_dir()
    if folder != _where[0]:
        flush()
        _where[0] = folder
    return folder


#: the folder of the packs by the variables ``cache_dir`` finds it from (every read asks for it)
_pack_dirs: dict[tuple[str | None, ...], Path] = {}


def _pack_dir() -> Path:
    env = tuple(map(os.environ.get, ("GOLDEN_LSP_CACHE_DIR", "XDG_CACHE_HOME", "HOME", "LOCALAPPDATA")))
    folder = _pack_dirs.get(env)
    if folder is None:
        folder = _pack_dirs[env] = cache_dir() / f"pack-v{FORMAT}"
    return folder


def read_only(folder: Path | None = None) -> bool:
    """The cache (in ``folder``, else the current one) is read and never written: a folder this
    process cannot write, or ``GOLDEN_LSP_CACHE_READONLY=1``."""
    if os.environ.get("GOLDEN_LSP_CACHE_READONLY", "") not in ("", "0"):
        return True
    folder = folder or cache_dir()
    while not folder.exists() and folder.parent != folder:
        folder = folder.parent
    return not os.access(folder, os.W_OK)


def _digest(key: bytes, body: bytes) -> bytes:
    return hashlib.sha256(key + b"\0" + body).hexdigest().encode("ascii")


def parse_pack(data: bytes) -> dict[bytes, tuple[bytes, bytes]]:
    """The entries of a pack's bytes, key → (digest, payload), as far as they are well formed
    (a truncated or garbled pack keeps the entries before the damage); digests are checked when
    an entry is read."""
    out: dict[bytes, tuple[bytes, bytes]] = {}
    at, n = 0, len(data)
    while at < n:
        eol = data.find(b"\n", at)
        head = data[at:eol].split(b" ") if eol != -1 else []
        if len(head) != 3 or len(head[0]) != 64 or len(head[1]) != 64 or not head[2].isdigit():
            break
        start = eol + 1
        end = start + int(head[2])
        if end >= n or data[end : end + 1] != b"\n":
            break
        out[head[0]] = (head[1], data[start:end])
        at = end + 1
    return out


def _pack(name: str) -> dict[bytes, tuple[bytes, bytes]]:
    folder = _here()
    pack = _packs.get(name)
    if pack is None:
        try:
            pack = parse_pack((folder / f"{name}.pack").read_bytes())
        except OSError:
            pack = {}
        _packs[name] = pack
    return pack


def _read(key: str, parse: bool = True) -> Any | None:
    """The payload stored under ``key`` (its JSON unparsed unless ``parse``), or None when
    absent, corrupt or foreign."""
    if not enabled:
        return None
    k = key.encode("ascii")
    entry = _pack(key[:2]).get(k)
    if entry is None or entry[0] != _digest(k, entry[1]):
        return None
    if not parse:
        return entry[1]
    try:
        return json.loads(entry[1])
    except (ValueError, RecursionError):
        return None


def _write(key: str, payload: Any) -> None:
    """Keep ``payload`` under ``key``: at once for this process, on disk at the next ``flush``."""
    if not enabled:
        return
    _pack(key[:2])  # read first: a later read of the pack must not lose this entry
    _put(key, payload)


def _put(key: str, payload: Any) -> None:
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    k = key.encode("ascii")
    entry = (_digest(k, body), body)
    if key[:2] in _packs:
        _packs[key[:2]][k] = entry
    _pending.setdefault(key[:2], {})[k] = entry


def take_pending() -> dict[str, dict[bytes, tuple[bytes, bytes]]]:
    """What this process wrote since its last flush, handed over (a worker's to its parent)."""
    out = {name: dict(entries) for name, entries in _pending.items()}
    _pending.clear()
    return out


def add_pending(written: dict[str, dict[bytes, tuple[bytes, bytes]]]) -> None:
    """Entries another process wrote (``take_pending``), to be flushed with this one's."""
    for name, entries in written.items():
        _pending.setdefault(name, {}).update(entries)
        if name in _packs:
            _packs[name].update(entries)


def flush() -> None:
    """Write what was stored since the last flush, each pack merged with what is on disk now
    (another process may have written it since) and replaced atomically; forget the packs read
    (a long-lived server holds none between its loads). Best-effort: a cache that cannot be
    written only costs the speed, and a read-only one is never written to."""
    store_stats()
    pending = dict(_pending)
    _pending.clear()
    _packs.clear()
    folder = _where[0]
    if not pending or folder is None or not enabled or read_only(folder.parent):
        return
    for name, entries in pending.items():
        pack = folder / f"{name}.pack"
        try:
            merged = parse_pack(pack.read_bytes())
        except OSError:
            merged = {}
        merged.update(entries)
        _replace(
            pack,
            b"".join(
                b"%s %s %d\n%s\n" % (k, digest, len(body), body) for k, (digest, body) in merged.items()
            ),
        )


atexit.register(flush)


def _replace(path: Path, data: bytes) -> None:
    """``path`` replaced by ``data`` atomically (a temporary beside it, renamed over it);
    best-effort: a cache that cannot be written only costs the speed, so an OSError is ignored."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def read_entry(folder: Path, key: str) -> Any | None:
    """The payload stored under ``key`` in ``folder``, or None when absent, corrupt or foreign.

    An entry is a header line (JSON: format, key, the sha256 of the payload's bytes) and the
    payload's JSON: checking the digest hashes bytes, it never serialises the payload again. This is
    the judge's cache (``keep/cache.py``): few entries, each written when a call returns, so one
    file an entry, where the warm cache above keeps many in each pack."""
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
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    head = json.dumps({"format": FORMAT, "key": key, "digest": hashlib.sha256(body).hexdigest()})
    _replace(folder / key[:2] / f"{key}.json", head.encode("ascii") + b"\n" + body)


# --- what a file's bytes are, by its stat ------------------------------------------------------


def _stat_key(root: Path) -> str:
    return _key("stats", hashlib.sha256(str(root.resolve()).encode("utf-8", "surrogatepass")).hexdigest())


#: root → doc_id → [size, mtime_ns, ctime_ns, inode, data sha256, when hashed (ns)], and whether
#: it changed since read
_stats: dict[Path, tuple[dict[str, list], list[bool]]] = {}


def _stat_table(root: Path) -> tuple[dict[str, list], list[bool]]:
    table = _stats.get(root)
    if table is None:
        payload = _read(_stat_key(root))
        table = _stats[root] = (payload if isinstance(payload, dict) else {}, [False])
    return table


def _identity(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def known_file(root: Path, doc_id: str, st: os.stat_result) -> tuple[str, dict | None] | None:
    """What the bytes of ``root/doc_id`` are — their sha256, and what they are as a document
    (``load_canonical``'s answer) when known — when its stat is the one they were hashed at and
    that hashing was safe (its ctime over ``RACY_NS`` older); else None (read and hash it)."""
    if not enabled:
        return None
    row = _stat_table(root)[0].get(doc_id)
    if (
        isinstance(row, list)
        and len(row) == 7
        and row[:4] == _identity(st)
        and isinstance(row[4], str)
        and _HEX64.fullmatch(row[4])
        and type(row[5]) is int
        and st.st_ctime_ns < row[5] - RACY_NS
    ):
        return row[4], _canonical(row[6])
    return None


def note_file(root: Path, doc_id: str, st: os.stat_result, data_sha: str, canonical: dict | None) -> None:
    """``root/doc_id`` had the stat ``st`` when its bytes hashed to ``data_sha`` (and were, as
    a document, ``canonical``)."""
    if not enabled:
        return
    table, changed = _stat_table(root)
    old = table.get(doc_id)
    row = [*_identity(st), data_sha]
    if (
        isinstance(old, list)
        and len(old) == 7
        and old[:5] == row
        and old[6] == canonical
        and type(old[5]) is int
        and st.st_ctime_ns < old[5] - RACY_NS
    ):
        return  # as it was, and trusted
    table[doc_id] = [*row, time.time_ns(), canonical]
    changed[0] = True


def store_stats() -> None:
    """Keep the stats noted since they were read (``note_file``), for the next ``flush``."""
    for root, (table, changed) in _stats.items():
        if changed[0] and enabled:
            _put(_stat_key(root), table)
            changed[0] = False
    _stats.clear()


def load_chunks(doc_id: str, doc_sha: str, text_len: int, max_chars: int) -> list[Chunk] | None:
    """The document's chunks as stored, when a sound entry exists."""
    return chunks_of(doc_id, chunk_rows(doc_id, doc_sha, max_chars), text_len)


def chunk_rows(doc_id: str, doc_sha: str, max_chars: int) -> bytes | None:
    """The stored JSON of the document's chunks, its digest checked but not parsed yet
    (``chunks_of`` parses and checks it, ``count_rows`` counts it)."""
    return _read(_key("chunks", doc_sha, doc_id=doc_id, max_chars=max_chars), parse=False)


def count_rows(payload: Any) -> int | None:
    """How many chunks a chunks payload holds, without making them; None when it cannot tell."""
    if isinstance(payload, dict):
        rows = payload.get("chunks")
        return len(rows) if isinstance(rows, list) else None
    # stored JSON: "chunks" is the last key, and its rows hold numbers and hex ids only
    at = payload.rfind(b'"chunks":[')
    tail = payload[at + 10 :]
    rows = tail.count(b"[")  # each row begins with one, and holds one string: its id
    if at == -1 or not tail.endswith(b"]}") or tail.count(b'"') != 2 * rows:
        return None
    return rows


def chunks_of(doc_id: str, payload: Any, text_len: int) -> list[Chunk] | None:
    """The chunks of a chunks payload (``chunk_rows``'s JSON, or ``rows_of``), when it is sound."""
    if isinstance(payload, bytes):
        try:
            payload = json.loads(payload)
        except (ValueError, RecursionError):
            return None
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


def rows_of(chunks: list[Chunk]) -> dict:
    """The compact form of chunks, as stored (and as a worker hands them back)."""
    paths: dict[str, int] = {}
    rows = [[c.start, c.end, paths.setdefault(c.heading_path, len(paths)), c.chunk_id] for c in chunks]
    return {"paths": list(paths), "chunks": rows}


def store_chunks(doc_id: str, doc_sha: str, max_chars: int, chunks: list[Chunk]) -> None:
    _write(_key("chunks", doc_sha, doc_id=doc_id, max_chars=max_chars), rows_of(chunks))


def load_canonical(data_sha: str) -> dict | None:
    """What a file whose bytes hash to ``data_sha`` is as a document (its canonical text's sha256
    and length, ``CorpusDoc.raw_key`` and whether the canonical text is the raw text), as stored."""
    return _canonical(_read(_key("canonical", data_sha)))


def _canonical(payload: Any) -> dict | None:
    """``payload`` when it is what ``load_canonical`` answers."""
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
