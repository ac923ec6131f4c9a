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

from . import cacherows, diskcache
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
    def from_buffer(self) -> bool:
        """Its text is an editor buffer's (``Corpus.with_document``), not a file's as read: a
        passing state, not worth an entry in the warm cache."""
        return self._data_sha is None

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
        if rows is not None and (chunks := cacherows.chunks_of(self.doc_id, rows, self.chars)) is not None:
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
        """How many chunks it has (when its chunks are not made yet: as the warm cache knows its
        file, or counted in their compact form, and that count kept: a corpus's count is asked
        for by every manifest and the open)."""
        if "chunks" in self.__dict__:
            return len(self.chunks)
        if (n := self.__dict__.get("_n_chunks")) is not None:
            return n
        rows = self.__dict__.get("_chunk_rows")
        if rows is not None and (n := cacherows.count_rows(rows)) is not None:
            self.__dict__["_n_chunks"] = n
            return n
        return len(self.chunks)

    def compact(self) -> None:
        """Keep its chunks in their compact form (``cacherows.rows_of``) until asked for: what a
        worker hands back, and what a document not quoted by anyone keeps."""
        chunks = self.__dict__.pop("chunks", None)
        if chunks is not None:
            self.__dict__["_chunk_rows"] = cacherows.rows_of(chunks)

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
    """Every document of a set's corpus, by doc ID in sorted order.

    A corpus is never changed in place: an edit makes a new one (``with_document``,
    ``with_file``) that shares what the edit left alone, so an edit costs its document, not the
    corpus: the new corpus knows which documents it replaced since each of its ancestors
    (``changed_since``), keeps the ``names`` token while the doc IDs and broken files stay the
    same, and derives its totals, digest and manifest entries from its parent's (``_Sums``).
    """

    root: Path
    glob: str
    max_chars: int
    docs: dict[str, CorpusDoc]
    broken: dict[str, BrokenDoc] = field(default_factory=dict)
    #: doc_ids of existing files under the root that the glob does not match (asked before)
    _unmatched: set[str] = field(default_factory=set, init=False, repr=False, compare=False)
    #: the doc IDs replaced along this corpus's line of edits, shared by the line; this corpus
    #: is the state after the first ``_gen`` of them
    _log: list[str] = field(default_factory=list, init=False, repr=False, compare=False)
    _gen: int = field(default=0, init=False, repr=False, compare=False)
    #: the same object while the doc IDs and the broken files are (what the set's shape reads)
    names: object = field(default_factory=object, init=False, repr=False, compare=False)
    _sums: _Sums = field(default_factory=lambda: _Sums(), init=False, repr=False, compare=False)

    @property
    def n_chunks(self) -> int:
        sums = self._sums
        if sums.n_chunks is None:
            sums.n_chunks = sums.total(self.docs, 0, lambda d: d.n_chunks)
        return sums.n_chunks

    @property
    def chars(self) -> int:
        sums = self._sums
        if sums.chars is None:
            sums.chars = sums.total(self.docs, 1, lambda d: d.chars)
        return sums.chars

    def digest(self) -> str:
        """The sha256 of every doc ID and its text's sha256, in doc ID order (SPEC's
        ``corpus_digest``)."""
        sums = self._sums
        if sums.digest is None:
            parts = sums.parts
            if parts is None:
                ids = sorted(self.docs)
                parts = sums.parts = [_digest_part(doc_id, self.docs[doc_id]) for doc_id in ids]
                sums.at = {doc_id: i for i, doc_id in enumerate(ids)}
            sums.digest = hashlib.sha256(b"".join(parts)).hexdigest()
        return sums.digest

    def manifest_docs(self) -> dict[str, dict]:
        """doc ID → its sha256 and chars, as the manifest lists them (shared: never change it)."""
        sums = self._sums
        if sums.manifest_docs is None:
            sums.manifest_docs = {d.doc_id: _manifest_entry(d) for d in self.docs.values()}
        return sums.manifest_docs

    def changed_since(self, before: Corpus) -> set[str] | None:
        """The doc IDs replaced since ``before`` when this corpus was made from it by edits (a
        superset of those that are not the same object in both); None when it was not."""
        if before._log is self._log and before._gen <= self._gen:
            return set(self._log[before._gen : self._gen])
        return None

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
        same_names = isinstance(doc, CorpusDoc) and old is not None
        if isinstance(doc, CorpusDoc) and old is not None:  # the doc IDs stay, in their order:
            docs, broken = dict(self.docs), self.broken  # no sort, the broken files shared
            docs[doc_id] = doc
        else:
            docs = {k: v for k, v in self.docs.items() if k != doc_id}
            broken = {k: v for k, v in self.broken.items() if k != doc_id}
            _file(doc, docs, broken)
            docs = dict(sorted(docs.items()))
        corpus = Corpus(self.root, self.glob, self.max_chars, docs, broken)
        corpus._unmatched = self._unmatched
        log = self._log if self._gen == len(self._log) else self._log[: self._gen]  # a branch: its own
        log.append(doc_id)
        corpus._log, corpus._gen = log, self._gen + 1
        if same_names:
            corpus.names = self.names
        corpus._sums = self._sums.after(doc_id, old, docs.get(doc_id), same_names)
        return corpus


def _digest_part(doc_id: str, doc: CorpusDoc) -> bytes:
    return doc_id.encode("utf-8") + b"\0" + doc.sha256.encode("ascii") + b"\0"


def _manifest_entry(doc: CorpusDoc) -> dict:
    return {"sha256": doc.sha256, "chars": doc.chars}


@dataclass
class _Sums:
    """What a corpus computes over all of its documents, made once, and for a corpus made by
    replacing one document (``Corpus._replaced``) from its parent's with only that document
    counted again; never from the parent's documents, which it does not hold."""

    n_chunks: int | None = None
    chars: int | None = None
    digest: str | None = None
    #: each document's share of the digest, in doc ID order
    parts: list[bytes] | None = None
    #: the documents' manifest entries
    manifest_docs: dict[str, dict] | None = None
    #: the position of each doc ID in ``parts`` (shared while the doc IDs stay)
    at: dict[str, int] | None = None
    #: the doc ID an edit replaced, and the n_chunks and chars of the other documents (None:
    #: the parent's were not known)
    replaced: str = ""
    others: tuple[int | None, int | None] = (None, None)

    def total(self, docs: dict[str, CorpusDoc], which: int, of: Callable[[CorpusDoc], int]) -> int:
        """A total over ``docs``: the others' (``others[which]``) and the replaced one's own, or all."""
        known = self.others[which]
        if known is None:
            return sum(of(d) for d in docs.values())
        doc = docs.get(self.replaced)
        return known + (of(doc) if doc is not None else 0)

    def after(self, doc_id: str, old: CorpusDoc | None, new: CorpusDoc | None, same_names: bool) -> _Sums:
        """The sums of a corpus where ``old`` (None: no readable one) became ``new``."""
        n_chunks = None if self.n_chunks is None else self.n_chunks - (old.n_chunks if old else 0)
        chars = None if self.chars is None else self.chars - (old.chars if old else 0)
        sums = _Sums(replaced=doc_id, others=(n_chunks, chars))
        if same_names and new is not None:
            if self.parts is not None and self.at is not None:
                sums.at, sums.parts = self.at, list(self.parts)
                sums.parts[self.at[doc_id]] = _digest_part(doc_id, new)
            if self.manifest_docs is not None:
                sums.manifest_docs = dict(self.manifest_docs)
                sums.manifest_docs[doc_id] = _manifest_entry(new)
        return sums


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
    if lean and (doc := _known(path, doc_id, max_chars, data_sha)) is not None:
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
    root: Path, doc_id: str, max_chars: int, st: os.stat_result | None = None, path: Path | None = None
) -> CorpusDoc | None:
    """The file ``root/doc_id`` as a released document when the warm cache knows its very bytes
    (never decoded; not even read when its stat ``st`` is the one they were hashed at:
    ``diskcache.known_file``, which may know its number of chunks too); None otherwise
    (``read_document`` tells why). ``path``: ``root / doc_id`` when the caller has it already."""
    path = path or root / doc_id
    file = diskcache.known_file(root, doc_id, st, max_chars) if st is not None else None
    if file is None:
        try:
            data = read_regular(path)
        except OSError:
            return None
        file = hashlib.sha256(data).hexdigest(), None, None
    data_sha, known, n_chunks = file
    doc = _known(path, doc_id, max_chars, data_sha, known)
    if doc is not None and n_chunks is not None:
        doc.__dict__["_n_chunks"] = n_chunks
    return doc


def what_file(doc: CorpusDoc) -> dict:
    """What a document's file is as a document (``diskcache.load_canonical``)."""
    return {"sha256": doc.sha256, "chars": doc.chars, "raw_key": doc.raw_key, "same": doc._same}


def _known(
    path: Path, doc_id: str, max_chars: int, data_sha: str, known: dict | None = None
) -> CorpusDoc | None:
    known = known or diskcache.load_canonical(data_sha)
    if known is None:
        return None
    doc = CorpusDoc(doc_id, path, None, None, max_chars, data_sha, known["same"])
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
    read: Callable[[list[str], list[Path]], Iterable[CorpusDoc | BrokenDoc | None]] | None = None,
) -> Corpus:
    """Read every regular file matching ``glob`` under ``root`` (pathlib semantics); ``read``
    reads the given doc IDs (at the given paths) some other way (``docindex.load_indexed``: a
    map over the files)."""
    if not root.is_dir():
        raise CorpusConfigError(f"corpus folder not found: {display(root)}")
    docs: dict[str, CorpusDoc] = {}
    broken: dict[str, BrokenDoc] = {}
    try:
        # each path is root / its doc_id: its text after the root's (a string slice, not pathlib)
        skip = len(str(root / "x")) - 1
        paths = list(root.glob(glob))
        doc_ids = [str(path)[skip:].replace(os.sep, "/") for path in paths]
    except (NotImplementedError, ValueError) as exc:  # e.g. an absolute pattern
        raise CorpusConfigError(f"invalid glob {glob!r}: {exc}") from None
    for doc in (read or (lambda ids, _: (read_document(root, d, max_chars) for d in ids)))(doc_ids, paths):
        _file(doc, docs, broken)
    if not docs and not broken:
        raise CorpusConfigError(f"no document in {display(root)} matches {glob!r}")
    return Corpus(root, glob, max_chars, dict(sorted(docs.items())), broken)
