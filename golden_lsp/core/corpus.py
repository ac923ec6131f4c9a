"""The corpus index: every document's canonical text and chunks, built once and updated per file.

Resolution, scoring, hover and the artifact all read documents through this one index, so the
corpus is read and chunked once per process however many questions point into it; the language
server replaces a single document instead of re-reading the folder: from disk when a file changes
(``with_file``, decoded exactly as ``load_corpus`` decodes every file), or from the text of an
editor buffer while the author edits a chapter (``with_document``); the new version of a chunked
document re-uses its chunks wherever the edit left a section alone (``chunker.rechunk``).
"""

from __future__ import annotations

import bisect
import hashlib
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath

from . import diskcache
from .canon import NotUtf8Error, PositionMap, canonicalize, decode_strict, editor_text, is_canonical
from .chunker import DEFAULT_MAX_CHARS, Chunk, chunk_document, rechunk, sections
from .config import ConfigError
from .files import display, read_regular
from .held import HELD
from .textcache import forget_text

_RAW_BREAKS = re.compile(rb"\r\n|\r|\n")


class CorpusConfigError(Exception):
    """The corpus cannot be read at all (missing folder, nothing matches the glob)."""


class DocumentChanged(CorpusConfigError, ConfigError):
    """A released document's file is no longer what was read (changed or gone behind our back):
    a command stops with this reason; the language server reads the file again as a changed one
    (``Corpus.with_file``) and goes on."""

    def __init__(self, message: str, path: Path):
        super().__init__(message)
        self.path = path


@dataclass
class CorpusDoc:
    """One readable document: its raw text as the editor shows it and its canonical text.

    A lean corpus (a check, the language server) lets go of each document's text once it has the
    document's facts (``release``: it holds one document at a time, not the corpus); asked for
    again, the text is read back from disk, must hash to the same canonical text, and is held
    while recently used (``held.HELD``). An editor buffer's document is ``pinned``: its text
    cannot be read back, so it is never let go.
    """

    doc_id: str
    path: Path
    _raw: str | None
    _text: str | None
    max_chars: int
    #: the sha256 of the file's bytes, when read from disk (what a text read again must match)
    _data_sha: str | None = None
    #: the canonical text is the raw text itself (no BOM, CR or decomposed character; final newline)
    _same: bool = False
    #: the version of this document that this one replaced in a corpus (``Corpus._replaced``),
    #: until this one's chunks are made from its chunks
    previous: CorpusDoc | None = field(default=None, repr=False, compare=False)
    #: an editor buffer's text: never released
    pinned: bool = field(default=False, repr=False, compare=False)

    @property
    def raw(self) -> str:
        raw = self._raw
        if raw is None:
            return self._reload()[0]
        HELD.touch(self)
        return raw

    @property
    def text(self) -> str:
        text = self._text
        if text is None:
            return self._reload()[1]
        HELD.touch(self)
        return text

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @cached_property
    def chars(self) -> int:
        return len(self.text)

    @cached_property
    def raw_key(self) -> str:
        """What the raw positions of this document depend on beyond its canonical text: nothing
        ("canonical") when the raw text as editors show it is the canonical one, else the raw
        text's own digest."""
        if is_canonical(editor_text(self.raw), self.text):
            return "canonical"
        return hashlib.sha256(self.raw.encode("utf-8")).hexdigest()

    def release(self) -> None:
        """Let go of the text (its digest, length and chunks stay); it is read again when asked for
        (not an editor buffer's: ``pinned``)."""
        if self.pinned:
            return
        HELD.discard(self)
        for name in ("sha256", "chars", "raw_key"):
            getattr(self, name)
        self.__dict__.pop("positions", None)
        if self._text is not None:
            forget_text(self._text)
        self._raw = self._text = None

    def pin(self) -> None:
        """Hold the text for good: an editor has it open (as a buffer that is the file's text)."""
        if self._text is None or self._raw is None:
            self._reload()
        HELD.discard(self)
        self.pinned = True

    def passing_text(self) -> str:
        """The canonical text, read back without holding it when it is not held now (a pass over
        the whole corpus, which must not fill memory nor push out what a person works on)."""
        text = self._text
        return self._read_back()[1] if text is None else text

    def _reload(self) -> tuple[str, str]:
        """The raw and canonical text read again from the file, held while recently used
        (``held.HELD``)."""
        self._raw, self._text = raw, text = self._read_back()
        HELD.hold(self)
        return raw, text

    def _read_back(self) -> tuple[str, str]:
        """The raw and canonical text read from the file again; ``DocumentChanged`` when the file
        is not what was read."""
        changed = f"corpus file {display(self.path)} changed while golden-lsp was reading it"
        try:
            data = read_regular(self.path)
            if self._data_sha is not None and hashlib.sha256(data).hexdigest() != self._data_sha:
                raise DocumentChanged(changed, self.path)
            raw = decode_strict(data)
        except (OSError, NotUtf8Error) as exc:
            message = f"cannot read corpus file {display(self.path)} again: {exc}"
            raise DocumentChanged(message, self.path) from None
        text = raw if self._same else canonicalize(raw)
        if self._data_sha is None and hashlib.sha256(text.encode("utf-8")).hexdigest() != self.sha256:
            raise DocumentChanged(changed, self.path)
        return raw, text

    @cached_property
    def chunks(self) -> list[Chunk]:
        """Its chunks: for an edited document, those of its previous version where the edit left
        a section alone and the others chunked again (``chunker.rechunk``; an editor buffer's
        passing states are not worth a cache entry each); else from the warm cache when it holds
        them (``diskcache``), else chunked."""
        previous, self.previous = self.previous, None
        rows = self.__dict__.pop("_chunk_rows", None)  # handed over compact (``compact``)
        if rows is not None and (chunks := diskcache.chunks_of(self.doc_id, rows, self.chars)) is not None:
            return chunks
        old = previous._text if previous is not None else None
        if previous is not None and old is not None:  # a released old version: chunked afresh
            self.sections, chunks = rechunk(
                self.doc_id, old, previous.sections, previous.chunks, self.text, self.max_chars
            )
            return chunks
        cached = diskcache.load_chunks(self.doc_id, self.sha256, self.chars, self.max_chars)
        if cached is not None:
            return cached
        chunks = chunk_document(self.doc_id, self.text, self.max_chars)
        diskcache.store_chunks(self.doc_id, self.sha256, self.max_chars, chunks)
        return chunks

    @property
    def n_chunks(self) -> int:
        """How many chunks it has (counted in its compact form when its chunks are not made yet,
        and that count kept: a corpus's count is asked for by every manifest and the open)."""
        if "chunks" in self.__dict__:
            return len(self.chunks)
        n = self.__dict__.get("_n_rows")
        if n is not None:
            return n
        rows = self.__dict__.get("_chunk_rows")
        if rows is not None and (n := diskcache.count_rows(rows)) is not None:
            self.__dict__["_n_rows"] = n
            return n
        return len(self.chunks)

    def compact(self) -> None:
        """Keep its chunks in their compact form (``diskcache.rows_of``) until asked for: what a
        worker hands back, and what a document not quoted by anyone keeps."""
        chunks = self.__dict__.pop("chunks", None)
        if chunks is not None:
            self.__dict__["_chunk_rows"] = diskcache.rows_of(chunks)

    @cached_property
    def sections(self) -> list[tuple[int, int, str]]:
        """(start, end, heading path) of its sections (``chunker.sections``)."""
        return sections(self.doc_id, self.text)

    @cached_property
    def _chunk_starts(self) -> list[int]:
        return [c.start for c in self.chunks]

    @cached_property
    def positions(self) -> PositionMap:
        return PositionMap(self.raw, self.text)

    def chunks_overlapping(self, start: int, end: int) -> list[Chunk]:
        """Chunks with ``chunk.start < end and start < chunk.end`` (chunks never nest)."""
        i = bisect.bisect_right(self._chunk_starts, start) - 1
        i = max(i, 0)
        # Chunks are in document order and disjoint, but step back over any that still
        # reach past ``start`` (cheap: at most a few).
        while i > 0 and self.chunks[i - 1].end > start:
            i -= 1
        out = []
        for chunk in self.chunks[i:]:
            if chunk.start >= end:
                break
            if start < chunk.end:
                out.append(chunk)
        return out


@dataclass(frozen=True)
class BrokenDoc:
    """A corpus file that could not be decoded: reported, never silently replaced."""

    doc_id: str
    path: Path
    offset: int
    message: str
    line: int
    column: int


@dataclass
class Corpus:
    root: Path
    glob: str
    max_chars: int
    docs: dict[str, CorpusDoc]
    broken: dict[str, BrokenDoc] = field(default_factory=dict)
    #: doc_ids of existing files under the root that the glob does not match (asked before)
    _unmatched: set[str] = field(default_factory=set, init=False, repr=False, compare=False)

    @property
    def n_chunks(self) -> int:
        return sum(d.n_chunks for d in self.docs.values())

    @property
    def chars(self) -> int:
        return sum(d.chars for d in self.docs.values())

    def digest(self) -> str:
        h = hashlib.sha256()
        for doc_id in sorted(self.docs):
            h.update(doc_id.encode("utf-8") + b"\0" + self.docs[doc_id].sha256.encode("ascii") + b"\0")
        return h.hexdigest()

    def doc_id_for(self, path: Path) -> str | None:
        """The doc_id ``path`` has or would have in this corpus; None when outside or unmatched.

        A known document (readable or broken) answers at once. Any other file under the root
        (one just created) must exist and be among ``root.glob(glob)``: pathlib's own semantics,
        exactly the files ``load_corpus`` reads.
        """
        try:
            doc_id = path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return None
        if doc_id in self.docs or doc_id in self.broken:
            return doc_id
        if doc_id in self._unmatched or not path.is_file():
            return None
        if any(p.relative_to(self.root).as_posix() == doc_id for p in self.root.glob(self.glob)):
            return doc_id
        self._unmatched.add(doc_id)
        return None

    def left_out(self, doc_id: str) -> bool:
        """Whether ``doc_id`` names a regular file under the root that the glob does not read
        (a document in a subfolder under ``*.md``): what an unknown doc's finding then says."""
        path = self.root / doc_id
        try:
            path.resolve().relative_to(self.root.resolve())
            return path.is_file() and not glob_would_match(self.root, self.glob, path)
        except (ValueError, OSError):  # outside the root, or not a name the system takes
            return False

    def with_file(self, path: Path) -> Corpus:
        """A copy of this corpus with ``path`` read again from disk, exactly as ``load_corpus`` reads it.

        The file becomes a document, or a broken one when it is not UTF-8; a file that is gone
        leaves the corpus. A path outside the corpus returns this corpus itself. Raises
        ``CorpusConfigError`` when the file exists but cannot be read.
        """
        doc_id = self.doc_id_for(path)
        if doc_id is None:
            return self
        doc = read_document(self.root, doc_id, self.max_chars)
        if isinstance(doc, CorpusDoc):
            HELD.hold(doc)  # its text can be read back: let go of when no more recently used
        return self._replaced(doc_id, doc)

    def with_document(self, path: Path, raw: str) -> Corpus:
        """A copy of this corpus where ``path`` has the text ``raw`` (an editor's unsaved buffer)."""
        doc_id = self.doc_id_for(path)
        if doc_id is None:
            return self
        return self._replaced(
            doc_id, CorpusDoc(doc_id, self.root / doc_id, raw, canonicalize(raw), self.max_chars, pinned=True)
        )

    def _replaced(self, doc_id: str, doc: CorpusDoc | BrokenDoc | None) -> Corpus:
        old = self.docs.get(doc_id)
        if (
            isinstance(doc, CorpusDoc)
            and old is not None
            and "chunks" in old.__dict__
            and old._text is not None
            and old.max_chars == doc.max_chars
        ):
            doc.previous = (
                old  # chunked, its text at hand: the new version re-uses its chunks (never a chain)
            )
        if (
            old is not None
            and old._text is not None
            and (doc is None or getattr(doc, "_text", None) != old._text)
        ):
            forget_text(old._text)  # what was computed from the old version is of no more use
        docs = {k: v for k, v in self.docs.items() if k != doc_id}
        broken = {k: v for k, v in self.broken.items() if k != doc_id}
        _file(doc, docs, broken)
        return Corpus(self.root, self.glob, self.max_chars, dict(sorted(docs.items())), broken)


def glob_would_match(root: Path, glob: str, path: Path) -> bool:
    """Would ``root.glob(glob)`` list ``path`` once it exists? (Conservative before Python 3.13:
    a pattern with ``**`` is taken to match at any depth.)"""
    try:
        rel = path.relative_to(root)
    except ValueError:
        return False
    if hasattr(rel, "full_match"):  # Python 3.13+: pathlib's own glob semantics
        return rel.full_match(glob)
    parts = PurePosixPath(glob).parts
    if "**" in parts:
        tail = parts[len(parts) - parts[::-1].index("**") :]
        return not tail or rel.match(str(PurePosixPath(*tail)))
    return len(rel.parts) == len(parts) and rel.match(glob)


def read_document(
    root: Path, doc_id: str, max_chars: int, lean: bool = False
) -> CorpusDoc | BrokenDoc | None:
    """The corpus file ``root/doc_id`` read as bytes and decoded as strict UTF-8 (SPEC §1).

    A file that is not UTF-8 is a ``BrokenDoc`` located at its first bad byte; None when there is
    no regular file there; ``CorpusConfigError`` when it cannot be read. ``lean``: when the warm
    cache knows these very bytes the document is not even decoded (it comes released:
    ``CorpusDoc.release``), else what it is goes into the cache.
    """
    path = root / doc_id
    try:
        if not path.is_file():
            return None
        data = path.read_bytes()
    except FileNotFoundError:  # removed since is_file
        return None
    except OSError as exc:
        raise CorpusConfigError(f"cannot read corpus file {display(path)}: {exc.strerror}") from None
    data_sha = hashlib.sha256(data).hexdigest()
    if lean and (doc := _known(root, doc_id, max_chars, data_sha)) is not None:
        return doc
    try:
        raw = decode_strict(data)
    except NotUtf8Error as exc:
        # lines as editors count them (\r\n, \r or \n), columns in code points
        lines = _RAW_BREAKS.split(data[: exc.offset])
        column = len(lines[-1].decode("utf-8", "replace"))
        return BrokenDoc(doc_id, path, exc.offset, str(exc), len(lines) - 1, column)
    text = canonicalize(raw)
    doc = CorpusDoc(doc_id, path, raw, text, max_chars, data_sha, text is raw)
    if text is raw:  # the bytes are the canonical text's UTF-8: no need to encode it again
        doc.__dict__["sha256"] = data_sha
    if lean:
        diskcache.store_canonical(data_sha, what_file(doc))
    return doc


def known_document(
    root: Path, doc_id: str, max_chars: int, st: os.stat_result | None = None
) -> CorpusDoc | None:
    """The file ``root/doc_id`` as a released document when the warm cache knows its very bytes
    (never decoded; not even read when its stat ``st`` is the one they were hashed at:
    ``diskcache.known_file``); None otherwise (``read_document`` tells why)."""
    file = diskcache.known_file(root, doc_id, st) if st is not None else None
    if file is None:
        try:
            data = read_regular(root / doc_id)
        except OSError:
            return None
        file = hashlib.sha256(data).hexdigest(), None
    data_sha, known = file
    doc = _known(root, doc_id, max_chars, data_sha, known)
    if st is not None:
        diskcache.note_file(root, doc_id, st, data_sha, what_file(doc) if doc is not None else None)
    return doc


def what_file(doc: CorpusDoc) -> dict:
    """What a document's file is as a document (``diskcache.load_canonical``)."""
    return {"sha256": doc.sha256, "chars": doc.chars, "raw_key": doc.raw_key, "same": doc._same}


def _known(
    root: Path, doc_id: str, max_chars: int, data_sha: str, known: dict | None = None
) -> CorpusDoc | None:
    known = known or diskcache.load_canonical(data_sha)
    if known is None:
        return None
    doc = CorpusDoc(doc_id, root / doc_id, None, None, max_chars, data_sha, known["same"])
    doc.__dict__.update(sha256=known["sha256"], chars=known["chars"], raw_key=known["raw_key"])
    return doc


def _file(
    doc: CorpusDoc | BrokenDoc | None, docs: dict[str, CorpusDoc], broken: dict[str, BrokenDoc]
) -> None:
    """File a document read from disk under the readable or the broken ones (None: nowhere)."""
    if isinstance(doc, CorpusDoc):
        docs[doc.doc_id] = doc
    elif doc is not None:
        broken[doc.doc_id] = doc


def load_corpus(
    root: Path,
    glob: str = "*.md",
    max_chars: int = DEFAULT_MAX_CHARS,
    read: Callable[[list[str]], Iterable[CorpusDoc | BrokenDoc | None]] | None = None,
) -> Corpus:
    """Read every regular file matching ``glob`` under ``root`` (pathlib semantics); ``read``
    reads the given doc IDs some other way (``docindex.load_indexed``: a map over the files)."""
    if not root.is_dir():
        raise CorpusConfigError(f"corpus folder not found: {display(root)}")
    docs: dict[str, CorpusDoc] = {}
    broken: dict[str, BrokenDoc] = {}
    try:
        # each path is root / its doc_id: its text after the root's (a string slice, not pathlib)
        skip = len(str(root / "x")) - 1
        doc_ids = [str(path)[skip:].replace(os.sep, "/") for path in root.glob(glob)]
    except (NotImplementedError, ValueError) as exc:  # e.g. an absolute pattern
        raise CorpusConfigError(f"invalid glob {glob!r}: {exc}") from None
    for doc in (read or (lambda ids: (read_document(root, d, max_chars) for d in ids)))(doc_ids):
        _file(doc, docs, broken)
    if not docs and not broken:
        raise CorpusConfigError(f"no document in {display(root)} matches {glob!r}")
    return Corpus(root, glob, max_chars, dict(sorted(docs.items())), broken)
