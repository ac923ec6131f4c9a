"""The warm cache's store on disk: keyed entries packed into files, one generation per code version.

A corpus of 45,000 small documents makes 100,000 warm-cache entries (``diskcache`` says what they
are), so they are not a file each (opening, hashing and writing that many files cost more than
the work they save): they are packed in 256 files per kind of entry by the key's first byte
(``pack-vN/GENERATION/cab.pack``, the kind's letter first), each looked up in its bytes or read
whole the first time enough of its entries are wanted, and written once, merged with what is on
disk, when a command is done (``flush``). A generation is one version of the code (a new one keys
every entry anew: ``CODE_MODULES``), so its packs hold only entries it can read, and only the
``KEEPGENERATIONS`` written last are kept. An entry is a header line holding its key, the length
of its payload and the digest of key and payload, then the payload's JSON: one that is corrupt
(truncated, edited, not JSON) or foreign (another key's payload) is ignored, never trusted.

The folder is ``golden-lsp/warm`` in the user cache dir (``$XDG_CACHE_HOME``,
``~/Library/Caches``, ``%LOCALAPPDATA%``), or ``$GOLDEN_LSP_CACHE_DIR``. A folder golden-lsp cannot
write (a shared cache on a read-only disk), or any folder with ``GOLDEN_LSP_CACHE_READONLY=1``
(a cache restored by CI that a run must not change), is used as it is: read, never written, and
no error. ``--no-cache`` (or ``GOLDEN_LSP_NO_CACHE=1``) bypasses it. The judge's cache, a few
entries written one at a time, keeps one file an entry instead (``read_entry``, ``write_entry``).
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ... import __version__
from ..text.chunker import CHUNKER_VERSION

FORMAT = 4
#: the format of the one-file-an-entry layout (``read_entry``: the judge's cache), unchanged
FILE_FORMAT = 3

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


#: the modules (paths under the core) whose code computes the entries: every module the facts and
#: the chunks are computed with, the corpus's reading of a file as a document, and this store
CODE_MODULES = (
    "text/canon",
    "text/chunker",
    "text/memo",
    "corpus/document",
    "labels/resolve",
    "labels/loose",
    "labels/anycase",
    "labels/hints",
    "labels/facts",
    "labels/quotepick",
    "labels/quotepolicy",
    "engine/cacherows",
    "engine/diskcache",
    "engine/packs",
    "engine/lean",
    "engine/quoteindex",
)
#: the folder those paths are under
CORE = Path(__file__).resolve().parents[1]


def code_digest(core: Path = CORE) -> str:
    """A digest of the ``CODE_MODULES`` under ``core``: a changed rule (a new hint, a chunker fix)
    is a new key even before the version number moves."""
    h = hashlib.sha256()
    for name in CODE_MODULES:
        try:
            h.update((core / f"{name}.py").read_bytes())
        except OSError:  # a frozen install: the version alone
            h.update(name.encode())
    return h.hexdigest()


#: what every key begins with: the chunker, this version and its code, the cache's format
KEY_BASE = hashlib.sha256(
    "\0".join([CHUNKER_VERSION, __version__, code_digest(), f"format={FORMAT}"]).encode()
)
#: the folder of this code's entries under ``pack-vN`` (``_pack_dir``)
GENERATION = KEY_BASE.hexdigest()[:16]
#: the generations kept (the most recently written): two installs used in turn both stay warm
KEEPGENERATIONS = 3


def pack_of(key: str) -> str:
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
#: called first by every ``flush``: what is kept in memory until then is put in (``diskcache``'s stats)
BEFORE_FLUSH: list[Callable[[], None]] = []
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
    return base / f"pack-v{FORMAT}" / GENERATION


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


def read(key: str, parse: bool = True) -> Any | None:
    """The payload stored under ``key`` (its JSON unparsed unless ``parse``), or None when
    absent, corrupt or foreign."""
    if not enabled:
        return None
    k = key.encode("ascii")
    entry = _lookup(pack_of(key), k)
    if entry is None or entry[0] != _digest(k, entry[1]):
        return None
    if not parse:
        return entry[1]
    try:
        return json.loads(entry[1])
    except (ValueError, RecursionError):
        return None


def write(key: str, payload: Any) -> None:
    """Keep ``payload`` under ``key``: at once for this process, on disk at the next ``flush``."""
    if not enabled:
        return
    _here()  # a new folder: what was written for the last one is flushed there first
    put(key, payload)


def body(payload: Any) -> bytes:
    """The JSON bytes an entry stores ``payload`` as."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def put(key: str, payload: Any) -> None:
    body_ = body(payload)
    k = key.encode("ascii")
    entry = (_digest(k, body_), body_)
    name = pack_of(key)
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
    for before in BEFORE_FLUSH:
        before()
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
    """Remove the generations under ``packs`` but the ``KEEPGENERATIONS`` written last (a pack
    written renames a file into its folder: the folder's mtime). Best-effort, as writing is."""
    try:
        folders = sorted((p for p in packs.iterdir() if p.is_dir()), key=lambda p: -p.stat().st_mtime_ns)
        for old in folders[KEEPGENERATIONS:]:
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
