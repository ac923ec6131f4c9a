"""A chunking to score against: the corpus's own md-struct-v1 chunks, or the user's chunk file.

Span labels exist so that a golden set survives re-chunking: the answer is characters of the
canonical text, and which chunks *bear* it is derived. This module is where that pays off for
evaluation. It loads any chunking (``--chunks CHUNKS.jsonl``: canonical offsets, or text located
in the canonical document, never guessed), derives each span's bearing chunks under the set's hit
rule with ``scoring.bearing_chunks`` (the build's own rule), and writes the TREC qrels for it.
Every chunking carries a name and a digest, so an evaluation can say exactly what it measured.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TypeGuard

from ..core.corpus.index import Corpus
from ..core.goldenset.config import ConfigError
from ..core.io.files import read_regular
from ..core.labels.resolve import Span, occurrences
from ..core.labels.scoring import HitRule, bearing_chunks
from ..core.text.canon import canonicalize
from ..core.text.chunker import CHUNKER_VERSION, Chunk


@dataclass(frozen=True)
class Chunking:
    #: ``md-struct-v1`` or the chunk file's path as given
    name: str
    #: the chunker version with its max_chars, or the sha256 of the chunk file's bytes
    digest: str
    chunks: tuple[Chunk, ...]
    max_chars: int | None = None

    @cached_property
    def by_id(self) -> dict[str, Chunk]:
        return {c.chunk_id: c for c in self.chunks}

    @cached_property
    def _by_doc(self) -> dict[str, tuple[list[int], list[Chunk]]]:
        out: dict[str, list[Chunk]] = {}
        for c in self.chunks:
            out.setdefault(c.doc_id, []).append(c)
        return {
            d: ([c.start for c in cs], cs)
            for d, cs in ((d, sorted(cs, key=lambda c: (c.start, c.end))) for d, cs in out.items())
        }

    @cached_property
    def disjoint(self) -> bool:
        """No two chunks of a document share a character (the chunker's always; a chunk file's
        may overlap or nest), so that the characters of the top k are a sum of chunk lengths."""
        return all(a.end <= b.start for _, cs in self._by_doc.values() for a, b in itertools.pairwise(cs))

    def overlapping(self, doc_id: str, start: int, end: int) -> list[Chunk]:
        """Chunks of ``doc_id`` overlapping [start, end) (user chunks may overlap or nest)."""
        starts, chunks = self._by_doc.get(doc_id, ([], []))
        stop = bisect.bisect_left(starts, end)
        if self.disjoint:  # the ends ascend with the starts: the first ending past start, by bisection
            return chunks[bisect.bisect_right(self._ends[doc_id], start, 0, stop) : stop] if chunks else []
        return [c for c in chunks[:stop] if c.end > start]

    @cached_property
    def _ends(self) -> dict[str, list[int]]:
        return {d: [c.end for c in cs] for d, (_, cs) in self._by_doc.items()}

    def bearing(self, rule: HitRule, span: Span) -> frozenset[str]:
        """The IDs of the chunks bearing ``span`` under ``rule`` (SPEC §5)."""
        return frozenset(
            c.chunk_id
            for c in bearing_chunks(rule, self.overlapping(span.doc_id, span.start, span.end), span)
        )


def corpus_chunking(corpus: Corpus) -> Chunking:
    """The md-struct-v1 chunks the set was built with."""
    chunks = tuple(c for doc in corpus.docs.values() for c in doc.chunks)
    return Chunking(
        CHUNKER_VERSION, f"{CHUNKER_VERSION}/max_chars={corpus.max_chars}", chunks, corpus.max_chars
    )


def _fragment(text: str) -> str:
    """A chunk's text in canonical form (LF, NFC), without the final newline a document gains."""
    canon = canonicalize(text)
    return canon if text.endswith(("\n", "\r")) else canon[:-1]


@dataclass
class _Reader:
    path: Path
    corpus: Corpus
    seen: dict[str, int] = field(default_factory=dict)

    def fail(self, line: int, message: str) -> ConfigError:
        return ConfigError(f"{self.path}:{line}: {message}")

    def chunk(self, line: int, obj: object) -> Chunk:
        if not isinstance(obj, dict):
            raise self.fail(line, "each line must be a JSON object")
        cid, doc_id = obj.get("chunk_id"), obj.get("doc_id")
        if not isinstance(cid, str) or not cid:
            raise self.fail(line, "'chunk_id' must be a non-empty string")
        if not isinstance(doc_id, str):
            raise self.fail(line, "'doc_id' must be a string")
        if cid in self.seen:
            raise self.fail(line, f"chunk_id {cid!r} already used on line {self.seen[cid]}")
        self.seen[cid] = line
        doc = self.corpus.docs.get(doc_id)
        if doc is None:
            raise self.fail(line, f"unknown doc_id {doc_id!r} (not in the corpus)")
        if "text" in obj:
            text = obj["text"]
            if not isinstance(text, str) or not text:
                raise self.fail(line, "'text' must be a non-empty string")
            wanted = _fragment(text)
            found = occurrences(doc.text, wanted, 2)
            if not found:
                raise self.fail(line, f"chunk {cid!r}: text not found in the canonical text of {doc_id}")
            if len(found) > 1:
                raise self.fail(
                    line,
                    f"chunk {cid!r}: text is ambiguous in {doc_id} (at offsets {found[0]} and "
                    f"{found[1]}); give char_start and char_end instead",
                )
            return Chunk(doc_id, found[0], found[0] + len(wanted), "", cid)
        start, end = obj.get("char_start"), obj.get("char_end")
        if not (_offset(start) and _offset(end)):
            raise self.fail(line, "give 'text', or integer 'char_start' and 'char_end' (canonical offsets)")
        if not 0 <= start < end <= doc.chars:
            raise self.fail(
                line,
                f"chunk {cid!r}: [{start}, {end}) is not a non-empty range inside {doc_id} "
                f"(0..{doc.chars} canonical characters)",
            )
        return Chunk(doc_id, start, end, "", cid)


def _offset(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def load_chunking(path: Path, corpus: Corpus) -> Chunking:
    """A chunk file: one ``{"chunk_id", "doc_id", "char_start", "char_end"}`` or
    ``{"chunk_id", "doc_id", "text"}`` per line; any problem is a ``ConfigError`` naming the line."""
    try:
        data = read_regular(path)  # a FIFO is refused, never waited on
    except OSError as exc:
        raise ConfigError(f"cannot read chunk file {path}: {exc.strerror}") from None
    reader = _Reader(path, corpus)
    chunks = []
    try:
        lines = data.decode("utf-8").split("\n")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"chunk file {path} is not UTF-8 (byte {exc.start})") from None
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except RecursionError:
            raise reader.fail(no, "invalid JSON: nested too deeply") from None
        except ValueError as exc:
            raise reader.fail(no, f"invalid JSON: {exc}") from None
        chunks.append(reader.chunk(no, obj))
    if not chunks:
        raise ConfigError(f"chunk file {path} holds no chunk")
    return Chunking(str(path), "sha256:" + hashlib.sha256(data).hexdigest(), tuple(chunks))


def qrels_text(rows: list[tuple[str, frozenset[str]]]) -> str:
    """TREC qrels (``qid 0 docno 1``): the bearing chunks of each query, in query order, IDs sorted."""
    return "".join(f"{qid} 0 {cid} 1\n" for qid, ids in rows for cid in sorted(ids))
