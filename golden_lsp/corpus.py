"""The corpus index: every document's canonical text and chunks, built once and updated per file.

Resolution, scoring, hover and the artifact all read documents through this one index, so the
corpus is read and chunked once per process however many questions point into it; the language
server replaces a single document when the author edits a chapter (``with_document``) instead
of re-reading the folder.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from .canon import NotUtf8Error, PositionMap, canonicalize, decode_strict
from .chunker import DEFAULT_MAX_CHARS, Chunk, chunk_document


_RAW_BREAKS = re.compile(rb"\r\n|\r|\n")


class CorpusConfigError(Exception):
    """The corpus cannot be read at all (missing folder, nothing matches the glob)."""


@dataclass
class CorpusDoc:
    doc_id: str
    path: Path
    raw: str
    text: str
    max_chars: int

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @property
    def chars(self) -> int:
        return len(self.text)

    @cached_property
    def chunks(self) -> list[Chunk]:
        return chunk_document(self.doc_id, self.text, self.max_chars)

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

    @property
    def n_chunks(self) -> int:
        return sum(len(d.chunks) for d in self.docs.values())

    @property
    def chars(self) -> int:
        return sum(d.chars for d in self.docs.values())

    def digest(self) -> str:
        h = hashlib.sha256()
        for doc_id in sorted(self.docs):
            h.update(doc_id.encode("utf-8") + b"\0" + self.docs[doc_id].sha256.encode("ascii") + b"\0")
        return h.hexdigest()

    def doc_id_for(self, path: Path) -> str | None:
        """The doc_id a file would have in this corpus, or None when it is outside or unmatched."""
        try:
            rel = path.resolve().relative_to(self.root.resolve())
        except ValueError:
            return None
        return rel.as_posix() if glob_regex(self.glob).fullmatch(rel.as_posix()) else None

    def with_document(self, path: Path, raw: str | None) -> Corpus:
        """A copy of this corpus where ``path`` has the text ``raw`` (None: the file is gone)."""
        doc_id = self.doc_id_for(path)
        if doc_id is None:
            return self
        docs = dict(self.docs)
        broken = dict(self.broken)
        broken.pop(doc_id, None)
        if raw is None:
            docs.pop(doc_id, None)
        else:
            docs[doc_id] = CorpusDoc(doc_id, path, raw, canonicalize(raw), self.max_chars)
        return Corpus(self.root, self.glob, self.max_chars, dict(sorted(docs.items())), broken)


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A regex equivalent to ``Path.glob(pattern)`` over root-relative POSIX paths."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 1:]:
            j = pattern.index("]", i + 1)
            out.append("[" + pattern[i + 1:j].replace("!", "^", 1) + "]")
            i = j + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


def load_corpus(root: Path, glob: str = "*.md", max_chars: int = DEFAULT_MAX_CHARS) -> Corpus:
    """Read every regular file matching ``glob`` under ``root`` (pathlib semantics)."""
    if not root.is_dir():
        raise CorpusConfigError(f"corpus folder not found: {root}")
    docs: dict[str, CorpusDoc] = {}
    broken: dict[str, BrokenDoc] = {}
    try:
        paths = list(root.glob(glob))
    except (NotImplementedError, ValueError) as exc:  # e.g. an absolute pattern
        raise CorpusConfigError(f"invalid glob {glob!r}: {exc}") from None
    for path in paths:
        if not path.is_file():
            continue
        doc_id = path.relative_to(root).as_posix()
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CorpusConfigError(f"cannot read corpus file {path}: {exc.strerror}") from None
        try:
            raw = decode_strict(data)
        except NotUtf8Error as exc:
            # lines as editors count them (\r\n, \r or \n), columns in code points
            lines = _RAW_BREAKS.split(data[: exc.offset])
            column = len(lines[-1].decode("utf-8", "replace"))
            broken[doc_id] = BrokenDoc(doc_id, path, exc.offset, str(exc), len(lines) - 1, column)
            continue
        docs[doc_id] = CorpusDoc(doc_id, path, raw, canonicalize(raw), max_chars)
    if not docs and not broken:
        raise CorpusConfigError(f"no document in {root} matches {glob!r}")
    return Corpus(root, glob, max_chars, dict(sorted(docs.items())), broken)
