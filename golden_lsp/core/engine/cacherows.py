"""The shapes the warm cache stores its entries in, and the checks an entry read back must pass.

An entry's digest says its bytes are the ones written, not that golden-lsp wrote them in the
shape this version reads (another version's, a hand-made one): so every entry is read back
through a check of its shape, and one that fails is ignored (recomputed), never trusted. This
module is those shapes — a document's chunks in their compact form, a quote's facts as a row —
apart from where they are stored (``diskcache``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..corpus.document import CorpusDoc
from ..labels.facts import HINT_KINDS, QuoteFacts
from ..labels.hints import Hint
from ..labels.resolve import LIST_ITEM, PARAGRAPH, TABLE_ROW
from ..text.chunker import Chunk
from . import packs

HEX64 = re.compile(r"[0-9a-f]{64}")


def count_rows(payload: bytes) -> int | None:
    """How many chunks a chunks payload holds, without making them; None when it cannot tell."""
    # stored JSON: "chunks" is the last key, and its rows hold numbers and hex ids only
    at = payload.rfind(b'"chunks":[')
    tail = payload[at + 10 :]
    rows = tail.count(b"[")  # each row begins with one, and holds one string: its id
    if at == -1 or not tail.endswith(b"]}") or tail.count(b'"') != 2 * rows:
        return None
    return rows


def chunks_of(doc_id: str, stored: bytes | None, text_len: int) -> list[Chunk] | None:
    """The chunks of a chunks payload (``chunk_rows``'s JSON: ``rows_of`` as stored), when it is
    sound."""
    if stored is None:
        return None
    try:
        payload = json.loads(stored)
        paths, rows = payload["paths"], payload["chunks"]
        chunks = [Chunk(doc_id, s, e, paths[p], cid) for s, e, p, cid in rows]
    except (TypeError, KeyError, ValueError, IndexError, RecursionError):
        return None
    last = 0
    for c in chunks:  # ordered, disjoint, inside the text, with well-formed ids
        if not (
            isinstance(c.start, int)
            and isinstance(c.end, int)
            and last <= c.start < c.end <= text_len
            and isinstance(c.heading_path, str)
            and isinstance(c.chunk_id, str)
            and HEX64.fullmatch(c.chunk_id)
        ):
            return None
        last = c.end
    return chunks


def rows_of(chunks: list[Chunk]) -> dict:
    """The compact form of chunks, as stored (and as a worker hands them back)."""
    paths: dict[str, int] = {}
    rows = [[c.start, c.end, paths.setdefault(c.heading_path, len(paths)), c.chunk_id] for c in chunks]
    return {"paths": list(paths), "chunks": rows}


@dataclass(frozen=True)
class Rows:
    """A document's chunks in their compact form (``rows_of`` as the warm cache stores it: JSON
    bytes), made into chunks only when asked for (``CorpusDoc.defer_chunks``)."""

    payload: bytes

    def count(self) -> int | None:
        return count_rows(self.payload)

    def chunks(self, doc_id: str, chars: int) -> list[Chunk] | None:
        return chunks_of(doc_id, self.payload, chars)


def compact(doc: CorpusDoc, stored: bytes | None = None) -> None:
    """Keep ``doc``'s chunks, when they are made, in their compact form until asked for again:
    what a worker hands back, and what a document nobody quotes keeps. The form is the JSON the
    warm cache stores them as — ``stored``, the bytes of that very entry when the caller has them
    (shared, not copied) — about 1 KB a document of 8 chunks where the same rows as Python lists
    cost about 4 KB (half a million documents: 1.3 GB), and pickled by a worker ten times faster."""
    if doc.chunked:
        doc.defer_chunks(Rows(stored if stored is not None else packs.body(rows_of(doc.chunks))))


def fact_row(f: QuoteFacts) -> list:
    hint = f.hint and [f.hint.start, f.hint.end, f.hint.kind, f.hint.corpus_text, f.hint.parts, f.hint.score]
    positions = [[o, *p] for o, p in sorted((f.positions or {}).items())]
    return [
        f.starts,
        f.block,
        f.exact_chars,
        f.block_chars,
        f.block_text,
        hint,
        [list(x) for x in f.fixes],
        f.fix_texts,
        positions,
    ]


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


def facts_of(quote: str, row: Any, limit: int) -> QuoteFacts:
    """A stored row back as facts; ValueError/TypeError for any row golden-lsp would not write."""
    starts_, block, exact_chars, block_chars, block_text, hint, fixes_, fix_texts, positions = row
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
            or not isinstance(block_text, str)
            or len(block_text) != hi - lo
        ):
            raise ValueError("block")
        block = (lo, hi, block[2])
    elif block_text != "":
        raise ValueError("block text")
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
    fixes = tuple(_pair(f) for f in fixes_) if isinstance(fixes_, list) else None
    if (
        fixes is None
        or (hint is None and fixes)
        or not isinstance(fix_texts, list)
        or len(fix_texts) != len(fixes)
        or not all(isinstance(t, str) and len(t) == b - a for t, (a, b) in zip(fix_texts, fixes))
    ):
        raise ValueError("fixes")
    table = {o: (line, col) for o, line, col in (_ints(p, 3) for p in positions)}
    needed = {o for s in starts[: limit - 1] for o in (s, s + len(quote))} if len(starts) > 1 else set()
    if hint is not None:
        needed |= {hint.start, hint.end, *(o for f in fixes for o in f)}
    if not needed <= table.keys():
        raise ValueError("positions")
    return QuoteFacts(
        starts, block, exact_chars, block_chars, block_text, hint, fixes, tuple(fix_texts), table or None
    )
