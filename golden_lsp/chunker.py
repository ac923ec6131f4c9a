"""The ``md-struct-v1`` chunker: Markdown sections → blocks → greedily packed chunks.

Chunk IDs are content-addressed (doc, chunker version, heading path and stripped body), so an
edit elsewhere in a document keeps a section's IDs and a re-chunk with another chunker can never
collide with this one. Every rule here shifts chunk boundaries and so the golden set's numbers:
it follows SPEC §2 to the letter and is versioned by ``CHUNKER_VERSION``.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass

CHUNKER_VERSION = "md-struct-v1"
DEFAULT_MAX_CHARS = 1800

_HEADING = re.compile(r"^(#{1,6})\s+(.*\S)\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")


@dataclass(frozen=True)
class Chunk:
    doc_id: str
    start: int
    end: int
    heading_path: str
    chunk_id: str


def chunk_id(doc_id: str, embed_text: str) -> str:
    """hex SHA-256 of doc_id NUL chunker-version NUL embed_text NUL."""
    h = hashlib.sha256()
    for part in (doc_id, CHUNKER_VERSION, embed_text):
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


def _lines(text: str) -> list[tuple[int, int, str]]:
    """``splitlines(keepends=True)`` with each line's [start, end) offsets."""
    out = []
    pos = 0
    for line in text.splitlines(keepends=True):
        out.append((pos, pos + len(line), line))
        pos += len(line)
    return out


def _sections(doc_id: str, text: str, lines) -> list[tuple[int, int, str]]:
    """(start, end, heading path) of every section, in document order."""
    heads: list[tuple[int, int, str]] = []  # (heading line start, body start, path)
    stack: list[tuple[int, str]] = []
    in_fence = False
    for start, end, line in lines:
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        m = _HEADING.match(line[:-1] if line.endswith("\n") else line)
        if m is None:
            continue
        level = len(m.group(1))
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, m.group(2)))
        heads.append((start, end, " > ".join(title for _, title in stack)))
    if not heads:
        return [(0, len(text), doc_id)]
    # A section ends where the next heading's ``\n``-delimited line starts (SPEC §2): after a
    # ``\f``, U+2028 or another non-``\n`` break, the text between belongs to no section.
    ends = [text.rfind("\n", 0, body_start - 1) + 1 for _, body_start, _ in heads[1:]] + [len(text)]
    sections = []
    first_end = text.rfind("\n", 0, heads[0][1] - 1) + 1
    if text[:first_end].strip():
        sections.append((0, first_end, doc_id))
    for (_, body_start, path), end in zip(heads, ends):
        sections.append((body_start, end, f"{doc_id} > {path}"))
    return sections


def _blocks(section_lines, end: int) -> list[tuple[int, int]]:
    blocks = []
    open_at: int | None = None
    in_fence = False
    for ls, le, line in section_lines:
        if _FENCE.match(line):
            if open_at is None:
                open_at = ls
            in_fence = not in_fence
            if not in_fence:
                blocks.append((open_at, le))
                open_at = None
        elif in_fence:
            continue
        elif line.strip() and not _RULE.match(line):
            if open_at is None:
                open_at = ls
        elif open_at is not None:
            blocks.append((open_at, ls))
            open_at = None
    if open_at is not None:
        blocks.append((open_at, end))
    return blocks


def _pack(blocks, lines_in, max_chars: int) -> list[tuple[int, int]]:
    packed: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    for bs, be in blocks:
        if be - bs > max_chars:
            if current is not None:
                packed.append(current)
                current = None
            seg = bs
            for ls, le, _ in lines_in(bs, be):
                if le - seg > max_chars and le > seg:
                    cut = ls if ls > seg else le
                    packed.append((seg, cut))
                    seg = cut
            if be > seg:
                packed.append((seg, be))
        elif current is None:
            current = (bs, be)
        elif be - current[0] <= max_chars:
            current = (current[0], be)
        else:
            packed.append(current)
            current = (bs, be)
    if current is not None:
        packed.append(current)
    return packed


def chunk_document(doc_id: str, text: str, max_chars: int = DEFAULT_MAX_CHARS) -> list[Chunk]:
    """All chunks of one canonical document, in document order."""
    lines = _lines(text)
    starts = [ls for ls, _, _ in lines]
    def lines_in(s: int, e: int):
        i = bisect.bisect_left(starts, s)
        while i < len(lines) and lines[i][1] <= e:
            yield lines[i]
            i += 1

    chunks = []
    for s, e, path in _sections(doc_id, text, lines):
        for start, end in _pack(_blocks(lines_in(s, e), e), lines_in, max_chars):
            body = text[start:end]
            if not body.strip():
                continue
            embed = f"{path}\n\n{body.strip()}"
            chunks.append(Chunk(doc_id, start, end, path, chunk_id(doc_id, embed)))
    return chunks
