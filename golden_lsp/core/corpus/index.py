"""The corpus index: every document of a set's corpus, built once and updated per file.

Resolution, scoring, hover and the artifact all read documents through this one index, so the
corpus is read and chunked once per process however many questions point into it; the language
server replaces a single document instead of re-reading the folder: from disk when a file changes
(``with_file``, decoded exactly as ``load_corpus`` decodes every file), or from the text of an
editor buffer while the author edits a chapter (``with_document``); the new version of a chunked
document re-uses its chunks wherever the edit left a section alone (``chunker.rechunk``).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..io.files import display
from ..text.canon import canonicalize
from ..text.chunker import DEFAULT_MAX_CHARS
from . import hooks
from .document import BrokenDoc, CorpusConfigError, CorpusDoc, read_document


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
            hooks.HOLDER.hold(doc)  # its text can be read back: let go of when no more recently used
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
            and old.chunked
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
            hooks.FORGET(old._text)  # what was computed from the old version is of no more use
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
