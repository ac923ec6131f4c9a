"""A corpus document: its raw text as the editor shows it, its canonical text and its chunks.

Every feature reads a document through one ``CorpusDoc``: the artifact its chunks, resolution its
canonical text, the editor its raw positions. A document read from disk is decoded exactly as
SPEC §1 says (strict UTF-8, or a ``BrokenDoc`` located at the first bad byte); its digests, length
and chunks are derived once and kept with it. A lean corpus (a check, the language server) lets
go of a text once what was needed of it is known and reads it back when asked (checked against
its digest); what keeps texts, chunks and answers between those reads is not this module's
business but the engine's, reached through ``hooks``.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Protocol

from ..io.errors import ConfigError
from ..io.files import display, read_regular
from ..text.canon import NotUtf8Error, PositionMap, canonicalize, decode_strict, editor_text, is_canonical
from ..text.chunker import Chunk, chunk_document, rechunk, sections
from . import hooks

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


class HandedChunks(Protocol):
    """A document's chunks handed over in another form (the engine's compact rows: what a worker
    process hands back, what a store read), made into chunks only when asked for."""

    def count(self) -> int | None:
        """How many chunks, without making them; None when it cannot tell."""

    def chunks(self, doc_id: str, chars: int) -> list[Chunk] | None:
        """The chunks, when the form is sound for a text of ``chars`` characters."""


@dataclass
class CorpusDoc:
    """One readable document: its raw text as the editor shows it and its canonical text.

    A lean corpus (a check, the language server) lets go of each document's text once it has the
    document's facts (``release``: it holds one document at a time, not the corpus); asked for
    again, the text is read back from disk, must hash to the same canonical text, and is held
    while recently used (``hooks.HOLDER``). An editor buffer's document is ``pinned``: its text
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
    def data_sha(self) -> str | None:
        """The sha256 of its file's bytes as read; None for an editor buffer's text (a passing
        state, not worth an entry in the warm cache)."""
        return self._data_sha

    @property
    def chunked(self) -> bool:
        """Its chunks are made (not only known by their number, or handed over in another form)."""
        return "chunks" in self.__dict__

    @property
    def counted(self) -> bool:
        """Its number of chunks is known without making them (``released``)."""
        return "_n_chunks" in self.__dict__

    @property
    def raw(self) -> str:
        raw = self._raw
        if raw is None:
            return self._reload()[0]
        hooks.HOLDER.touch(self)
        return raw

    @property
    def text(self) -> str:
        text = self._text
        if text is None:
            return self._reload()[1]
        hooks.HOLDER.touch(self)
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
        hooks.HOLDER.discard(self)
        for name in ("sha256", "chars", "raw_key"):
            getattr(self, name)
        self.__dict__.pop("positions", None)
        if self._text is not None:
            hooks.FORGET(self._text)
        self._raw = self._text = None

    def pin(self, raw: str | None = None) -> bool:
        """Hold the text for good: an editor has it open. With ``raw``, the editor's text, only when
        it is this document's text as on disk (False, nothing done, when not): a document that let
        go of its text takes ``raw`` as its own when its bytes hash to the file's (the file is not
        read back, and one copy of the text is held, not two), else its text is read back and
        compared."""
        if (
            raw is not None
            and self._raw is None
            and self._data_sha is not None
            and hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest() == self._data_sha
        ):
            self._raw, self._text = raw, raw if self._same else canonicalize(raw)
        elif self._text is None or self._raw is None:
            self._reload()
        if raw is not None and self._raw != raw:
            return False
        hooks.HOLDER.discard(self)
        self.pinned = True
        return True

    def passing_text(self) -> str:
        """The canonical text, read back without holding it when it is not held now (a pass over
        the whole corpus, which must not fill memory nor push out what a person works on)."""
        text = self._text
        return self._read_back()[1] if text is None else text

    def _reload(self) -> tuple[str, str]:
        """The raw and canonical text read again from the file, held while recently used
        (``hooks.HOLDER``)."""
        self._raw, self._text = raw, text = self._read_back()
        hooks.HOLDER.hold(self)
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
        """Its chunks: those handed over in another form (``defer_chunks``) when sound; for an
        edited document, those of its previous version where the edit left a section alone and
        the others chunked again (``chunker.rechunk``; an editor buffer's passing states are not
        worth keeping each); else those a store kept (``hooks.STORE``), else chunked."""
        previous, self.previous = self.previous, None
        handed = self.__dict__.pop("_handed", None)
        if handed is not None and (chunks := handed.chunks(self.doc_id, self.chars)) is not None:
            return chunks
        old = previous._text if previous is not None else None
        if previous is not None and old is not None:  # a released old version: chunked afresh
            self.sections, chunks = rechunk(
                self.doc_id, old, previous.sections, previous.chunks, self.text, self.max_chars
            )
            return chunks
        store = hooks.STORE
        cached = store.load_chunks(self.doc_id, self.sha256, self.chars, self.max_chars)
        if cached is not None:
            return cached
        chunks = chunk_document(self.doc_id, self.text, self.max_chars)
        store.store_chunks(self.doc_id, self.sha256, self.max_chars, chunks)
        return chunks

    @property
    def n_chunks(self) -> int:
        """How many chunks it has (when its chunks are not made yet: as known when it was made
        (``released``), or counted in the form they were handed over in, and that count kept: a
        corpus's count is asked for by every manifest and the open)."""
        if "chunks" in self.__dict__:
            return len(self.chunks)
        if (n := self.__dict__.get("_n_chunks")) is not None:
            return n
        handed = self.__dict__.get("_handed")
        if handed is not None and (n := handed.count()) is not None:
            self.__dict__["_n_chunks"] = n
            return n
        return len(self.chunks)

    def defer_chunks(self, handed: HandedChunks) -> None:
        """Keep its chunks in another form until asked for (``handed``: what a worker hands back,
        and what a document nobody quotes keeps), the chunks made so far let go."""
        self.__dict__.pop("chunks", None)
        self.__dict__["_handed"] = handed

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


def released(
    doc_id: str, path: Path, max_chars: int, data_sha: str, known: dict, n_chunks: int | None = None
) -> CorpusDoc:
    """The document whose file's bytes hash to ``data_sha`` and are, as a document, ``known``
    (``identity``'s answer for them), its text not read (read back when asked for, and checked
    against ``known``), its number of chunks ``n_chunks`` when known."""
    doc = CorpusDoc(doc_id, path, None, None, max_chars, data_sha, known["same"])
    doc.__dict__.update(sha256=known["sha256"], chars=known["chars"], raw_key=known["raw_key"])
    if n_chunks is not None:
        doc.__dict__["_n_chunks"] = n_chunks
    return doc


def identity(doc: CorpusDoc) -> dict:
    """What a document's file's bytes are as a document — its canonical text's sha256 and length,
    its ``raw_key`` and whether the canonical text is the raw text — enough to make it again
    without reading it (``released``)."""
    return {"sha256": doc.sha256, "chars": doc.chars, "raw_key": doc.raw_key, "same": doc._same}


def read_document(root: Path, doc_id: str, max_chars: int) -> CorpusDoc | BrokenDoc | None:
    """The corpus file ``root/doc_id`` read as bytes and decoded as strict UTF-8 (SPEC §1).

    A file that is not UTF-8 is a ``BrokenDoc`` located at its first bad byte; None when there is
    no regular file there; ``CorpusConfigError`` when it cannot be read.
    """
    data = read_bytes(root / doc_id)
    return None if data is None else document_of(root / doc_id, doc_id, max_chars, data)


def read_bytes(path: Path) -> bytes | None:
    """The bytes of the corpus file at ``path``; None when there is no regular file there;
    ``CorpusConfigError`` when it cannot be read."""
    try:
        if not path.is_file():
            return None
        data = path.read_bytes()
    except FileNotFoundError:  # removed since is_file
        return None
    except OSError as exc:
        raise CorpusConfigError(f"cannot read corpus file {display(path)}: {exc.strerror}") from None
    return data


def document_of(
    path: Path, doc_id: str, max_chars: int, data: bytes, data_sha: str | None = None
) -> CorpusDoc | BrokenDoc:
    """The file's ``data`` as a document, or as a broken one located at its first byte that is
    not UTF-8 (``data_sha``: their sha256, when the caller has it)."""
    data_sha = data_sha or hashlib.sha256(data).hexdigest()
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
    return doc
