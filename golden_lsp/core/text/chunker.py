"""The ``md-struct-v1`` chunker: Markdown sections → blocks → greedily packed chunks.

Chunk IDs are content-addressed (doc, chunker version, heading path and stripped body), so an
edit elsewhere in a document keeps a section's IDs and a re-chunk with another chunker can never
collide with this one. Every rule here shifts chunk boundaries and so the golden set's numbers:
it follows SPEC §2 to the letter and is versioned by ``CHUNKER_VERSION``. It is on the path of
every cold check, so lines are classified by whole-text regex passes and packing bisects; and
since a section's chunks depend on its text and heading path alone, ``rechunk`` gives an edited
document its chunks from the previous version's, chunking only the sections the edit touched.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
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
# shape sections and blocks (every other line is text). A match's ``lastindex`` is its kind.
_HEADING = f"(#{{1,6}}){_WS}+([^{_BREAKS}]*\\S){_WS}*{_EOL}"  # groups: hashes, title
_LINE = (
    f"(?:({_WS}*(?:```|~~~))"  # 1 fence
    f"|{_HEADING}"  # 2, 3 heading
    f"|({_WS}*(?:([-*_])(?:{_WS}*\\5){{2,}}{_WS}*)?){_EOL})"
)  # 4 blank or rule (5: its char)
FENCE, HEAD, SEP = 1, 3, 4
_RARE = f"(?:({_WS}*(?:```|~~~))|{_HEADING})"  # fence and heading lines only: enough for sections


def _patterns(line: str) -> tuple[re.Pattern, re.Pattern, re.Pattern]:
    """``line`` at the text's start, after a ``\\n``, after any line break. Searching for the break
    first keeps the scan in C, and the lookahead (every character such a line can start with)
    turns most text lines away at once."""
    return (
        re.compile(line),
        re.compile("\n(?=[\\s#`~*_-])" + line),
        re.compile("(?:\r\n|\r(?!\n)|[\n\v\f\x1c-\x1e\x85\u2028\u2029])(?=[\\s#`~*_-])" + line),
    )


_ALL_LINES, _RARE_LINES = _patterns(_LINE), _patterns(_RARE)
_NON_SPACE = re.compile(r"\S")
_HEAD = re.compile(_HEADING)
_BREAK = re.compile(f"\r\n|[{_BREAKS}]")


@dataclass(frozen=True, slots=True)
class Chunk:
    doc_id: str
    start: int
    end: int
    heading_path: str
    chunk_id: str


def chunk_id(doc_id: str, embed_text: str) -> str:
    """hex SHA-256 of doc_id NUL chunker-version NUL embed_text NUL (``chunk_document`` hashes
    the same bytes, with the part before the body hashed once per section)."""
    h = hashlib.sha256()
    for part in (doc_id, CHUNKER_VERSION, embed_text):
        h.update(part.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


def _lines(text: str, patterns=_ALL_LINES) -> tuple[list[tuple[int, int, int]], list[int], list[int]]:
    """The lines that shape sections and blocks (``str.splitlines`` lines, in order): (kind,
    start, end) of every fence and heading line, and the starts and ends of the blank and rule
    lines (none with ``_RARE_LINES``). Whole-text regex passes instead of one match per line:
    most lines are text, and the many blank lines cost one list entry each."""
    first, after_nl, after_any = patterns
    n = len(text)
    found = [(m.lastindex, -1, m.end()) for m in (first.match(text),) if m is not None and text]
    if not any(c in text for c in _OTHER_BREAKS):
        # only ``\n`` breaks: a line starts after its match's ``\n`` and ends after the next one
        found += [(m.lastindex, m.start(), m.end()) for m in after_nl.finditer(text)]
        sep_starts = [s + 1 for k, s, _ in found if k == SEP]
        sep_ends = [e + 1 for k, _, e in found if k == SEP]
        if sep_starts and sep_starts[-1] == n:  # the empty "line" after the final break is no line
            del sep_starts[-1], sep_ends[-1]
        if sep_ends and sep_ends[-1] > n:
            sep_ends[-1] = n
        rare = [(k, s + 1, text.find("\n", e) + 1 or n) for k, s, e in found if k != SEP]
        return rare, sep_starts, sep_ends
    rare, sep_starts, sep_ends = [], [], []
    for m in [m for m in (first.match(text),) if m is not None and text] + list(after_any.finditer(text)):
        kind = m.lastindex
        start = m.start(2 if kind == HEAD else kind)
        if start == n:
            continue  # the empty "line" after the final break is no line
        if kind == FENCE:
            brk = _BREAK.search(text, m.end())
            rare.append((kind, start, brk.end() if brk else n))
            continue
        eol = m.end()
        end = eol + 2 if text.startswith("\r\n", eol) else min(eol + 1, n)
        if kind == HEAD:
            rare.append((kind, start, end))
        else:
            sep_starts.append(start)
            sep_ends.append(end)
    return rare, sep_starts, sep_ends


def _sections(doc_id: str, text: str, rare) -> list[tuple[int, int, str]]:
    """(start, end, heading path) of every section, in document order, from the fence and
    heading lines ``rare``."""
    heads: list[tuple[int, str]] = []  # (body start, path)
    stack: list[tuple[int, str]] = []
    in_fence = False
    for kind, start, end in rare:
        if kind == FENCE:
            in_fence = not in_fence
        elif not in_fence:
            head = _HEAD.match(text, start)
            assert head is not None  # classified a heading by the same pattern
            hashes, title = head.groups()
            level = len(hashes)
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            heads.append((end, " > ".join(t for _, t in stack)))
    if not heads:
        return [(0, len(text), doc_id)]
    # A section ends where the next heading's ``\n``-delimited line starts (SPEC §2): after a
    # ``\f``, U+2028 or another non-``\n`` break, the text between belongs to no section.
    rfind = text.rfind
    ends = [rfind("\n", 0, body_start - 1) + 1 for body_start, _ in heads[1:]] + [len(text)]
    sections = []
    first_end = rfind("\n", 0, heads[0][0] - 1) + 1
    if text[:first_end].strip():
        sections.append((0, first_end, doc_id))
    for (body_start, path), end in zip(heads, ends):
        sections.append((body_start, end, f"{doc_id} > {path}"))
    return sections


def _gaps(start: int, end: int, sep_starts: list[int], sep_ends: list[int]) -> list[tuple[int, int]]:
    """The runs of text lines in [start, end) (no fence line there), between its blank and rule lines."""
    i = bisect.bisect_left(sep_starts, start)
    j = bisect.bisect_left(sep_starts, end, i)
    if i == j:
        return [(start, end)] if end > start else []
    return [(a, b) for a, b in zip([start, *sep_ends[i:j]], [*sep_starts[i:j], end]) if b > a]


def _blocks(
    start: int, end: int, fences: list[tuple[int, int]], sep_starts, sep_ends
) -> list[tuple[int, int]]:
    """Blocks of the section [start, end) whose fence lines are ``fences`` ((start, end), each
    wholly inside it): text runs between blank and rule lines, and fenced stretches (with the
    text run right before their opening line, which the fence joins)."""
    blocks = []
    pos = start
    for k in range(0, len(fences), 2):
        fence_start = fences[k][0]
        gaps = _gaps(pos, fence_start, sep_starts, sep_ends)
        open_at = gaps.pop()[0] if gaps and gaps[-1][1] == fence_start else fence_start
        blocks += gaps
        pos = fences[k + 1][1] if k + 1 < len(fences) else end  # an unclosed fence runs to the end
        blocks.append((open_at, pos))
    blocks += _gaps(pos, end, sep_starts, sep_ends)
    return blocks


def _split(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    """The hard split of a block longer than ``max_chars`` at its line boundaries."""
    ends = list(itertools.accumulate(map(len, text[start:end].splitlines(keepends=True)), initial=start))
    out = []
    seg, i = start, 1
    while (j := bisect.bisect_right(ends, seg + max_chars, i)) < len(ends):
        # line j is the first to end past seg + max_chars: cut before it, or after it if it is
        # the segment's first line
        cut = ends[j - 1] if ends[j - 1] > seg else ends[j]
        out.append((seg, cut))
        seg, i = cut, j + 1
    if end > seg:
        out.append((seg, end))
    return out


def _pack(text: str, blocks: list[tuple[int, int]], max_chars: int) -> list[tuple[int, int]]:
    """Greedy packing: each chunk runs from a block's start to the end of the last block that
    keeps it within ``max_chars`` (a longer block is hard-split on its own)."""
    ends = [e for _, e in blocks]
    packed = []
    i = 0
    while i < len(blocks):
        start, end = blocks[i]
        if end - start > max_chars:
            packed += _split(text, start, end, max_chars)
            i += 1
        else:  # no block between i and j is longer than max_chars: it ends past start + max_chars
            j = bisect.bisect_right(ends, start + max_chars, i)
            packed.append((start, ends[j - 1]))
            i = j
    return packed


def _chunk_sections(doc_id: str, text: str, sections, lines, max_chars: int) -> list[Chunk]:
    """The chunks of ``sections`` of ``text``, whose lines ``_lines`` found (``lines``)."""
    rare, sep_starts, sep_ends = lines
    fences = [(start, end) for kind, start, end in rare if kind == FENCE]
    fence_starts = [start for start, _ in fences]
    prefix = hashlib.sha256(f"{doc_id}\0{CHUNKER_VERSION}\0".encode())
    chunks = []
    for s, e, path in sections:
        if e <= s:
            continue
        lo = bisect.bisect_left(fence_starts, s)
        hi = bisect.bisect_left(fence_starts, e, lo)
        head = prefix.copy()  # the hash so far of every chunk of this section
        head.update(f"{path}\n\n".encode())
        for start, end in _pack(text, _blocks(s, e, fences[lo:hi], sep_starts, sep_ends), max_chars):
            stripped = text[start:end].strip()
            if stripped:
                h = head.copy()
                h.update(stripped.encode("utf-8"))
                h.update(b"\0")
                chunks.append(Chunk(doc_id, start, end, path, h.hexdigest()))
    return chunks


def chunk_document(doc_id: str, text: str, max_chars: int = DEFAULT_MAX_CHARS) -> list[Chunk]:
    """All chunks of one canonical document, in document order."""
    lines = _lines(text)
    return _chunk_sections(doc_id, text, _sections(doc_id, text, lines[0]), lines, max_chars)


def sections(doc_id: str, text: str) -> list[tuple[int, int, str]]:
    """(start, end, heading path) of the document's sections (SPEC §2), in order; chunks lie
    within them, and a section's chunks depend only on its text and path."""
    return _sections(doc_id, text, _lines(text, _RARE_LINES)[0])


def _common_prefix(a: str, b: str, limit: int, reverse: bool = False) -> int:
    """How many characters (at most ``limit``) ``a`` and ``b`` share at their start, or at their
    end with ``reverse``: blocks of doubling size up to 64k (each compared with one copy), then
    bisection inside the first that differs."""
    na, nb = len(a), len(b)

    def same(lo: int, hi: int) -> bool:  # the characters lo..hi from the start (or the end) agree
        return a.endswith(b[nb - hi : nb - lo], 0, na - lo) if reverse else a.startswith(b[lo:hi], lo)

    lo, step = 0, 1024
    while lo < limit:
        hi = min(limit, lo + step)
        if not same(lo, hi):
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if same(lo, mid) else (lo, mid)
            return lo
        lo, step = hi, min(step * 2, 1 << 16)
    return limit


def _shifted_sections(doc_id: str, old_text: str, old_sections, new_text: str, p: int, q: int):
    """The sections of ``new_text``, which differs from ``old_text`` only between its first ``p``
    and last ``q`` characters, when no fence or heading line is among the lines that touch the
    change (before or after it): then every such line keeps its place (shifted past the change)
    and only the section around the change grows or shrinks. None when that does not hold."""
    n0, n1 = len(old_text), len(new_text)
    left = old_text.rfind("\n", 0, p) + 1  # the \n-delimited lines around the change
    right = old_text.find("\n", n0 - q) + 1 or n0
    if (
        _lines(old_text[left:right], _RARE_LINES)[0]
        or _lines(new_text[left : right + n1 - n0], _RARE_LINES)[0]
    ):
        return None
    delta = n1 - n0
    headed = [
        (s if s <= left else s + delta, n1 if e == n0 else e if e <= left else e + delta, path)
        for s, e, path in old_sections
        if path != doc_id
    ]
    if not headed:
        return [(0, n1, doc_id)]
    first_end = new_text.rfind("\n", 0, headed[0][0] - 1) + 1
    return ([(0, first_end, doc_id)] if _NON_SPACE.search(new_text, 0, first_end) else []) + headed


def rechunk(
    doc_id: str,
    old_text: str,
    old_sections,
    old_chunks: list[Chunk],
    new_text: str,
    max_chars: int = DEFAULT_MAX_CHARS,
) -> tuple[list[tuple[int, int, str]], list[Chunk]]:
    """``sections`` and ``chunk_document`` of ``new_text``, from those of ``old_text`` (an edit
    of it): a section whose path and text are those of an old section before or after the
    change keeps that section's chunks (shifted, with their content-addressed IDs); only the
    sections the change touched are chunked again."""
    if new_text == old_text:
        return old_sections, old_chunks
    n0, n1 = len(old_text), len(new_text)
    p = _common_prefix(old_text, new_text, min(n0, n1))
    q = _common_prefix(old_text, new_text, min(n0, n1) - p, reverse=True)
    new_sections = _shifted_sections(doc_id, old_text, old_sections, new_text, p, q)
    if new_sections is None:
        new_sections = sections(doc_id, new_text)
    old_keys = set(old_sections)
    starts = [c.start for c in old_chunks]
    delta = n1 - n0
    chunks: list[Chunk] = []
    for s, e, path in new_sections:
        if e <= s:
            continue
        if e <= p and (s, e, path) in old_keys:
            chunks += old_chunks[bisect.bisect_left(starts, s) : bisect.bisect_left(starts, e)]
        elif s >= n1 - q and (s - delta, e - delta, path) in old_keys:
            chunks += [
                Chunk(doc_id, c.start + delta, c.end + delta, path, c.chunk_id)
                for c in old_chunks[
                    bisect.bisect_left(starts, s - delta) : bisect.bisect_left(starts, e - delta)
                ]
            ]
        else:  # its text is new: chunk it alone (its ends are line boundaries, so its lines are its own)
            body = new_text[s:e]
            chunks += [
                Chunk(doc_id, c.start + s, c.end + s, path, c.chunk_id)
                for c in _chunk_sections(doc_id, body, [(0, e - s, path)], _lines(body), max_chars)
            ]
    return new_sections, chunks
