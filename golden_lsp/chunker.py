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

#: the characters ``str.splitlines`` ends a line at (with ``\r\n`` as one break)
_BREAKS = "\n\r\v\f\x1c-\x1e\x85\u2028\u2029"
_OTHER_BREAKS = "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_WS = f"[^\\S{_BREAKS}]"  # white space inside a line
_EOL = f"(?=[{_BREAKS}]|\\Z)"
# SPEC §2's three patterns, each confined to one line, plus blank lines: the only lines that
# shape sections and blocks (every other line is text). ``(?P<t>…)`` is the heading's title.
_LINE = (f"(?:(?P<fence>{_WS}*(?:```|~~~))"
         f"|(?P<head>(?P<hashes>#{{1,6}}){_WS}+(?P<title>[^{_BREAKS}]*\\S){_WS}*{_EOL})"
         f"|(?P<sep>{_WS}*(?:(?P<rule>[-*_])(?:{_WS}*(?P=rule)){{2,}}{_WS}*)?{_EOL}))")
#: such a line after a line break: searching for the break first keeps the scan in C
_AFTER_NL = re.compile("\n" + _LINE)
_AFTER_ANY = re.compile("(?:\r\n|\r(?!\n)|[\n\v\f\x1c-\x1e\x85\u2028\u2029])" + _LINE)
_FIRST = re.compile(_LINE)
_BREAK = re.compile(f"\r\n|[{_BREAKS}]")
FENCE, HEAD, SEP = 0, 1, 2


@dataclass(frozen=True, slots=True)
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


def _events(text: str) -> list[tuple[int, int, int, int, str]]:
    """(kind, line start, line end, heading level, title) of every fence, heading, blank and rule
    line, in order; lines are ``str.splitlines`` lines. Whole-text regex passes instead of one
    match per line: most lines are text, and the scan for them stays in C."""
    general = any(c in text for c in _OTHER_BREAKS)
    out = []
    matches = [m for m in (_FIRST.match(text),) if m is not None and text]
    matches += (_AFTER_ANY if general else _AFTER_NL).finditer(text)
    for m in matches:
        ls = m.start("fence") if m.group("fence") is not None else m.start("head") if m.group("head") is not None \
            else m.start("sep")
        if ls == len(text):
            continue  # the empty "line" after the final break is no line
        if m.group("fence") is not None:
            brk = _BREAK.search(text, m.end()) if general else None
            le = (brk.end() if brk else len(text)) if general else (text.find("\n", m.end()) + 1 or len(text))
            out.append((FENCE, ls, le, 0, ""))
            continue
        end = m.end()
        le = end + 2 if text.startswith("\r\n", end) else min(end + 1, len(text))
        if m.group("head") is not None:
            out.append((HEAD, ls, le, len(m.group("hashes")), m.group("title")))
        else:
            out.append((SEP, ls, le, 0, ""))
    return out


def _sections(doc_id: str, text: str, events) -> list[tuple[int, int, str]]:
    """(start, end, heading path) of every section, in document order."""
    heads: list[tuple[int, int, str]] = []  # (heading line start, body start, path)
    stack: list[tuple[int, str]] = []
    in_fence = False
    for kind, start, end, level, title in events:
        if kind == FENCE:
            in_fence = not in_fence
        elif kind == HEAD and not in_fence:
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            heads.append((start, end, " > ".join(t for _, t in stack)))
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


def _blocks(events, start: int, end: int) -> list[tuple[int, int]]:
    """Blocks of the section [start, end) from its fence, blank and rule lines (``events``, each
    wholly inside it); every line between them is text (a heading there is text too)."""
    blocks = []
    open_at: int | None = None
    in_fence = False
    pos = start
    for kind, ls, le, _, _ in events:
        if kind == HEAD:
            continue
        if ls > pos and not in_fence and open_at is None:
            open_at = pos  # text lines before this one open a block
        if kind == FENCE:
            if open_at is None:
                open_at = ls
            in_fence = not in_fence
            if not in_fence:
                blocks.append((open_at, le))
                open_at = None
        elif not in_fence and open_at is not None:
            blocks.append((open_at, ls))
            open_at = None
        pos = le
    if end > pos and not in_fence and open_at is None:
        open_at = pos
    if open_at is not None:
        blocks.append((open_at, end))
    return blocks


def _lines_in(text: str, start: int, end: int):
    """(start, end, line) of the lines of ``text[start:end]`` (both ends on line boundaries)."""
    pos = start
    for line in text[start:end].splitlines(keepends=True):
        yield pos, pos + len(line), line
        pos += len(line)


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
    events = _events(text)
    starts = [e[1] for e in events]
    chunks = []
    for s, e, path in _sections(doc_id, text, events):
        lo = bisect.bisect_left(starts, s)
        hi = lo
        while hi < len(events) and events[hi][2] <= e:
            hi += 1
        blocks = _blocks(events[lo:hi], s, e)
        for start, end in _pack(blocks, lambda a, b: _lines_in(text, a, b), max_chars):
            body = text[start:end]
            stripped = body.strip()
            if not stripped:
                continue
            chunks.append(Chunk(doc_id, start, end, path, chunk_id(doc_id, f"{path}\n\n{stripped}")))
    return chunks
