"""The warm cache: what each document is, its chunks and its quotes' facts, on disk, by content.

Chunking a document and working out its quotes' facts (``facts.py``) depend only on its text
(and ``max_chars``, the chunker and this version of golden-lsp), so they are kept on disk under a
key made of exactly those, and so is what a file's bytes are as a document (its canonical text's
digest and length): a CI re-run or a server restart over an unchanged corpus reads them instead
of computing them, and a command-line check over an unchanged corpus never even decodes a
document. A corpus of 45,000 small documents makes 100,000 entries, so they are not a file each
(opening, hashing and writing that many files cost more than the work they save): they are
packed in 256 files per kind of entry by the key's first byte (``pack-vN/GENERATION/cab.pack``:
``c`` chunks, ``f`` facts, ``k`` what a file is, ``s`` the stats), each read whole the first time
one of its entries is wanted and written once, merged with what is on disk, when a command is
done (``flush``); a warm check reads only the kinds it needs (the stats, and the facts of the
quoted documents). A generation is one version of the code (a new one keys every entry anew), so
its packs hold only entries it can read, and only the ``KEEP_GENERATIONS`` written last are kept. An entry is a header line holding its key, the length of its payload and the
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
import functools
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, TypeGuard

from .. import __version__
from .cacherows import HEX64, chunks_of, fact_row, facts_of, rows_of
from .chunker import CHUNKER_VERSION, Chunk
from .facts import QuoteFacts

FORMAT = 4
#: the format of the one-file-an-entry layout (``read_entry``: the judge's cache), unchanged
FILE_FORMAT = 3
#: a file's stat is trusted for its bytes only when its ctime was this much older than its hashing
RACY_NS = 2_000_000_000

#: switched off by ``--no-cache`` (and by ``GOLDEN_LSP_NO_CACHE=1``)
enabled = os.environ.get("GOLDEN_LSP_NO_CACHE", "") in ("", "0")


def cache_dir(kind: str = "warm") -> Path:
    """The folder of one of golden-lsp's user caches: the warm cache, or another ``kind`` beside it
    (``judge``: the LLM judge's judgments); under ``$GOLDEN_LSP_CACHE_DIR`` when it is set."""
    env = os.environ
    return _cache_dir(
        kind,
        env.get("GOLDEN_LSP_CACHE_DIR"),
        env.get("XDG_CACHE_HOME"),
        env.get("LOCALAPPDATA"),
        env.get("HOME"),
    )


@functools.lru_cache(maxsize=32)
def _cache_dir(kind: str, root: str | None, xdg: str | None, local: str | None, home: str | None) -> Path:
    """``cache_dir`` of these settings (asked once per entry read: a path built once, not each time)."""
    if root:
        return Path(root) if kind == "warm" else Path(root) / kind
    if sys.platform == "win32":
        base = Path(local or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(xdg or Path.home() / ".cache")
    return base / "golden-lsp" / kind  # beside, never among, the editor tools' cache


#: the modules (of this package) whose code computes the entries: every module the facts and the
#: chunks are computed with, and the corpus's reading of a file as a document
CODE_MODULES = (
    "cacherows",
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


#: the folder of this code's entries under ``pack-vN`` (``_pack_dir``)
_GENERATION = _KEY_BASE.hexdigest()[:16]
#: the generations kept (the most recently written): two installs used in turn both stay warm
KEEP_GENERATIONS = 3
#: the first letter of each kind's keys, so that each kind has packs of its own (``_name``)
_KINDS = {"chunks": "c", "facts": "f", "canonical": "k", "stats": "s"}


def _key(kind: str, doc_sha: str, **params: Any) -> str:
    h = _KEY_BASE.copy()
    h.update("\0".join([kind, doc_sha, *(f"{k}={v}" for k, v in sorted(params.items()))]).encode("utf-8"))
    return _KINDS[kind] + h.hexdigest()[1:]


def _name(key: str) -> str:
    """The pack of a key: its kind's letter and the first byte of the rest."""
    return key[:3]


#: pack name → key → (digest, payload bytes) of the packs read so far (until ``flush``)
_packs: dict[str, dict[bytes, tuple[bytes, bytes]]] = {}
#: pack name → [its bytes, how many entries were looked up in them] of the packs read but not
#: parsed yet (``_lookup``)
_unparsed: dict[str, list] = {}
#: the entries of a pack looked up in its bytes before it is parsed whole
FIND_BEFORE_PARSE = 8
#: pack name → key → (digest, payload bytes) written since the last ``flush``
_pending: dict[str, dict[bytes, tuple[bytes, bytes]]] = {}
#: the folder of the packs above (the cache folder can change: a test's, ``$GOLDEN_LSP_CACHE_DIR``)
_where: list[Path | None] = [None]


def _here() -> Path:
    """The folder of the packs, what was read and written for another one flushed first."""
    folder = _pack_dir(cache_dir())
    if folder != _where[0]:
        flush()
        _where[0] = folder
    return folder


@functools.lru_cache(maxsize=32)
def _pack_dir(base: Path) -> Path:
    return base / f"pack-v{FORMAT}" / _GENERATION


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


def _entry_at(data: bytes, at: int) -> tuple[bytes, bytes, bytes, int] | None:
    """The entry whose header starts at ``at`` in a pack's bytes: (key, digest, payload, where
    the next one starts); None when it is not well formed."""
    eol = data.find(b"\n", at)
    head = data[at:eol].split(b" ") if eol != -1 else []
    if len(head) != 3 or len(head[0]) != 64 or len(head[1]) != 64 or not head[2].isdigit():
        return None
    start = eol + 1
    end = start + int(head[2])
    if end >= len(data) or data[end : end + 1] != b"\n":
        return None
    return head[0], head[1], data[start:end], end + 1


def parse_pack(data: bytes) -> dict[bytes, tuple[bytes, bytes]]:
    """The entries of a pack's bytes, key → (digest, payload), as far as they are well formed
    (a truncated or garbled pack keeps the entries before the damage); digests are checked when
    an entry is read."""
    out: dict[bytes, tuple[bytes, bytes]] = {}
    at = 0
    while at < len(data) and (entry := _entry_at(data, at)) is not None:
        key, digest, body, at = entry
        out[key] = (digest, body)
    return out


def find_entry(data: bytes, key: bytes) -> tuple[bytes, bytes] | None:
    """The (digest, payload) of ``key`` in a pack's bytes, found without parsing the other
    entries (a header is the only text after a line end that is 64 hex digits and a space: a
    payload is JSON, with no line end in it); None when it is not there or not well formed."""
    at = 0
    if not data.startswith(key + b" "):
        at = data.find(b"\n" + key + b" ") + 1
        if not at:
            return None
    entry = _entry_at(data, at)
    return None if entry is None else (entry[1], entry[2])


def _pack(name: str) -> dict[bytes, tuple[bytes, bytes]]:
    """The entries of a pack, parsed whole (with those written since the last ``flush``)."""
    pack = _packs.get(name)
    if pack is None:
        data = _unparsed.pop(name, None)
        pack = _packs[name] = parse_pack(_pack_bytes(name) if data is None else data[0])
        pack.update(_pending.get(name, {}))
    return pack


def _pack_bytes(name: str) -> bytes:
    """A pack's bytes as on disk (none: no pack yet). Packs read are forgotten at a flush, and a
    changed folder flushes first (``_here``), so a pack read is of the folder of the moment."""
    try:
        return (_here() / f"{name}.pack").read_bytes()
    except OSError:
        return b""


def _lookup(name: str, k: bytes) -> tuple[bytes, bytes] | None:
    """The entry of key ``k`` in pack ``name``: the first ``FIND_BEFORE_PARSE`` looked up in a
    pack are found in its bytes (a server's edit wants one entry of a pack, not its thousand),
    later ones in the pack parsed whole (a check wants them all)."""
    if name in _packs:
        return _packs[name].get(k)
    written = _pending.get(name, {}).get(k)
    if written is not None:
        return written
    data = _unparsed.get(name)
    if data is None:
        data = _unparsed[name] = [_pack_bytes(name), 0]
    data[1] += 1
    if data[1] > FIND_BEFORE_PARSE:
        return _pack(name).get(k)
    return find_entry(data[0], k)


def _read(key: str, parse: bool = True) -> Any | None:
    """The payload stored under ``key`` (its JSON unparsed unless ``parse``), or None when
    absent, corrupt or foreign."""
    if not enabled:
        return None
    k = key.encode("ascii")
    entry = _lookup(_name(key), k)
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
    _here()  # a new folder: what was written for the last one is flushed there first
    _put(key, payload)


def _put(key: str, payload: Any) -> None:
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    k = key.encode("ascii")
    entry = (_digest(k, body), body)
    name = _name(key)
    if name in _packs:
        _packs[name][k] = entry
    _pending.setdefault(name, {})[k] = entry


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
    _unparsed.clear()
    folder = _where[0]
    if not pending or folder is None or not enabled or read_only(folder.parent.parent):
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
    _prune(folder.parent)


def _prune(packs: Path) -> None:
    """Remove the generations under ``packs`` but the ``KEEP_GENERATIONS`` written last (a pack
    written renames a file into its folder: the folder's mtime). Best-effort, as writing is."""
    try:
        folders = sorted((p for p in packs.iterdir() if p.is_dir()), key=lambda p: -p.stat().st_mtime_ns)
        for old in folders[KEEP_GENERATIONS:]:
            shutil.rmtree(old, ignore_errors=True)
    except OSError:
        return


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
            or entry.get("format") != FILE_FORMAT
            or entry.get("digest") != hashlib.sha256(body).hexdigest()
        ):
            return None
        return json.loads(body)
    except (OSError, ValueError, TypeError, RecursionError):
        return None


def write_entry(folder: Path, key: str, payload: Any) -> None:
    """Store ``payload`` under ``key`` in ``folder``: atomic, best-effort (an OSError is ignored)."""
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    head = json.dumps({"format": FILE_FORMAT, "key": key, "digest": hashlib.sha256(body).hexdigest()})
    _replace(folder / key[:2] / f"{key}.json", head.encode("ascii") + b"\n" + body)


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
        payload = _read(_stat_key(root))
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
    if not enabled:
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
    if not enabled:
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
        if changed[0] and enabled:
            _put(_stat_key(root), table)
            changed[0] = False
    _stats.clear()
    _last_table[0] = None


def load_chunks(doc_id: str, doc_sha: str, text_len: int, max_chars: int) -> list[Chunk] | None:
    """The document's chunks as stored, when a sound entry exists."""
    return chunks_of(doc_id, chunk_rows(doc_id, doc_sha, max_chars), text_len)


def chunk_rows(doc_id: str, doc_sha: str, max_chars: int) -> bytes | None:
    """The stored JSON of the document's chunks, its digest checked but not parsed yet
    (``chunks_of`` parses and checks it, ``count_rows`` counts it)."""
    return _read(_key("chunks", doc_sha, doc_id=doc_id, max_chars=max_chars), parse=False)


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
            out[quote] = facts_of(quote, row, limit)
        except (TypeError, ValueError, KeyError, IndexError):
            continue
    return out


def store_facts(doc_sha: str, raw_key: str, limit: int, found: dict[str, QuoteFacts]) -> None:
    _write(_key("facts", doc_sha, limit=limit, raw=raw_key), {q: fact_row(f) for q, f in found.items()})
