"""Canonical text (``canon-v1``) and the way back from it to the file an editor shows.

Every offset in a golden set is a code-point index into the *canonical* form of a document
(SPEC §1), so that a BOM, CRLF line ends or decomposed accents never shift a label. Editors,
however, show and address the raw file. This module owns both directions of that contract:
``canonicalize`` makes the text the builder indexes, and ``PositionMap`` turns a canonical
offset back into a raw (line, column) — line numbers survive CRLF→LF, while a leading BOM or an
NFD→NFC recomposition shifts columns on the lines they touch.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from array import array
from functools import partial
from itertools import accumulate

CANONICAL_VERSION = "canon-v1"

# Line breaks as LSP clients count them (not str.splitlines: U+2028 is not a line break there).
_RAW_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class NotUtf8Error(ValueError):
    """A corpus file that is not strict UTF-8; ``offset`` is the first bad byte."""

    def __init__(self, offset: int, reason: str):
        super().__init__(f"not valid UTF-8 at byte {offset} ({reason})")
        self.offset = offset


def decode_strict(data: bytes) -> str:
    """Decode bytes as strict UTF-8, raising ``NotUtf8Error`` with the byte offset."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotUtf8Error(exc.start, exc.reason) from None


def canonicalize(raw: str) -> str:
    """The canon-v1 form: no leading BOMs, LF line ends, NFC, a final newline."""
    text = raw.lstrip("\ufeff")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = unicodedata.normalize("NFC", text)
    if not text.endswith("\n"):
        text += "\n"
    return text


def changes(raw: str) -> list[str]:
    """What ``canonicalize`` changes in ``raw`` that moves offsets, for people: a BOM, CRLF or CR
    line ends, decomposed (NFD) characters; empty when a canonical offset is a raw one."""
    out = []
    if raw.startswith("\ufeff"):
        out.append("a BOM")
    if "\r" in raw:
        out.append("CRLF line ends" if "\r\n" in raw else "CR line ends")
    if not unicodedata.is_normalized("NFC", raw):
        out.append("decomposed (NFD) characters")
    return out


def is_canonical(raw: str, canonical: str) -> bool:
    """Whether ``canonical`` is ``raw`` itself, but for the final newline ``canonicalize`` adds:
    then every canonical position is the raw one (without copying either text to compare)."""
    return canonical == raw or (len(canonical) == len(raw) + 1 and canonical.startswith(raw))


def editor_text(raw: str) -> str:
    """A file's text as editors show it: VS Code, Neovim and Emacs keep one leading BOM out of the
    buffer, so the columns a client counts on line 0 start after it (a further BOM is a character)."""
    return raw[1:] if raw.startswith("\ufeff") else raw


def line_starts(text: str, kind=list):
    """Offsets at which each ``\\n``-separated line of ``text`` starts, as a list (or ``kind``,
    e.g. ``partial(array, "q")``: a large document has hundreds of thousands of lines). The
    split and the sums stay in C."""
    starts = kind(accumulate(map((1).__add__, map(len, text.split("\n"))), initial=0))
    starts.pop()  # the offset past the end
    return starts


#: the characters per block of ``PositionMap``'s line counts
_BLOCK = 1 << 16


class PositionMap:
    """Maps canonical offsets of one document to (line, column) in its raw text as editors show it.

    Columns are code points of the raw line; front ends convert them to their own unit
    (UTF-16 for LSP) with ``raw_line``. Built lazily: most documents are already canonical
    apart from the final newline, and then the mapping is the identity on columns and a raw line
    is a slice of the canonical text. Line starts are kept as arrays, never as lists of lines.
    """

    def __init__(self, raw: str, canonical: str):
        self._raw = editor_text(raw)
        self._text = canonical
        self._starts: array | None = None
        self._raw_starts: array | None = None
        self._blocks: array | None = None
        self._identity = is_canonical(self._raw, canonical)

    def _canonical_starts(self) -> array:
        if self._starts is None:
            self._starts = line_starts(self._text, partial(array, "q"))
        return self._starts

    def raw_line(self, line: int) -> str:
        """The raw text of ``line`` (without its line break), as the editor shows it."""
        if self._identity:
            text, starts = self._text, self._canonical_starts()
            if not 0 <= line < len(starts):
                return ""
            return text[starts[line] : starts[line + 1] - 1 if line + 1 < len(starts) else len(text)]
        if self._raw_starts is None:
            starts = array("q", [0])
            starts.extend(m.end() for m in _RAW_LINE_BREAK.finditer(self._raw))
            self._raw_starts = starts
        starts = self._raw_starts
        if not 0 <= line < len(starts):
            return ""
        if line + 1 < len(starts):
            return self._raw[starts[line] : starts[line + 1]].rstrip("\r\n")
        return self._raw[starts[line] :]

    def canonical_position(self, offset: int) -> tuple[int, int]:
        """(line, column) of ``offset`` in the canonical text, both 0-based. Until some request
        needs every line's start, the line is counted from the nearest block of line counts (a
        finding shows a few positions of a document: splitting all its lines costs more)."""
        if self._starts is not None:
            starts = self._starts
            line = bisect.bisect_right(starts, offset) - 1
            return line, offset - starts[line]
        text = self._text
        offset = min(offset, len(text))
        if self._blocks is None:
            count, blocks = text.count, array("q", [0])
            for at in range(0, len(text), _BLOCK):
                blocks.append(blocks[-1] + count("\n", at, at + _BLOCK))
            self._blocks = blocks
        block = offset // _BLOCK
        line = self._blocks[block] + text.count("\n", block * _BLOCK, offset)
        return line, offset - (text.rfind("\n", 0, offset) + 1)

    def canonical_offset(self, line: int, column: int) -> int:
        """The canonical offset of raw (line, code-point column): ``raw_position``'s inverse."""
        starts = self._canonical_starts()
        if line >= len(starts):
            return len(self._text)
        line_end = starts[line + 1] - 1 if line + 1 < len(starts) else len(self._text)
        if self._identity:
            return min(starts[line] + column, line_end)
        raw = self.raw_line(line)[:column]
        if line == 0:
            raw = raw.lstrip("\ufeff")
        return min(starts[line] + len(unicodedata.normalize("NFC", raw)), line_end)

    def raw_position(self, offset: int) -> tuple[int, int]:
        """(line, column) in the raw file of canonical ``offset``, both 0-based, code points."""
        line, col = self.canonical_position(offset)
        if self._identity:
            return line, col
        raw = self.raw_line(line)
        shift = 0
        if line == 0:
            stripped = raw.lstrip("\ufeff")
            shift = len(raw) - len(stripped)
            raw = stripped
        starts = self._canonical_starts()
        end = starts[line + 1] - 1 if line + 1 < len(starts) else len(self._text)
        canonical_line = self._text[starts[line] : end]
        if raw == canonical_line:
            return line, col + shift
        # The line was recomposed by NFC: find the longest raw prefix whose NFC form is at most
        # ``col`` long, so the combining marks of the character before ``col`` stay before it.
        lo, hi = 0, len(raw)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if len(unicodedata.normalize("NFC", raw[:mid])) <= col:
                lo = mid
            else:
                hi = mid - 1
        return line, lo + shift
