"""Open editor buffers and exact position conversion in the negotiated encoding.

LSP positions count lines split on ``\\n``, ``\\r\\n`` and ``\\r``, and characters in the
negotiated unit (UTF-16 by default, UTF-8 or UTF-32 when the client prefers). The core counts
lines of a questions file the same way (SPEC §3) and columns in code points. pygls' own document
store splits with ``str.splitlines``, which also breaks on U+2028 — legal inside a JSON string —
so golden-lsp keeps its own buffers, applies incremental changes with the client's line rule,
and maps core (line, column) to client positions through absolute offsets, clamped to the line.
This module is the only place that converts.
"""

from __future__ import annotations

import bisect
import re
from itertools import accumulate, chain
from operator import add

from lsprotocol import types

_SPLIT = re.compile(r"(\r\n|\r|\n)")


def units_of(text: str, encoding: str) -> int:
    """Length of ``text`` in the client's code units."""
    if encoding == types.PositionEncodingKind.Utf32:
        return len(text)
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def column_from_units(line: str, units: int, encoding: str) -> int:
    """Code-point column of a client column on ``line`` (clamped to the line)."""
    if encoding == types.PositionEncodingKind.Utf32 or line.isascii():
        return min(units, len(line))
    seen = 0
    for i, ch in enumerate(line):
        if seen >= units:
            return i
        seen += units_of(ch, encoding)
    return len(line)


class Buffer:
    """The text of one open document, held as its lines (the client's lines are the core's).

    A questions file of 10,000 lines is edited a line at a time: an edit re-splits only the
    lines it touches and splices them in, so neither the whole text nor its line starts are
    rebuilt per keystroke. The text and the line starts are made from the lines when asked for
    (and kept until the next edit); the engine reads the lines themselves (``lines``).
    """

    def __init__(self, text: str, version: int | None, encoding: str):
        self.version = version
        self.encoding = encoding
        self._set(text)

    def _set(self, text: str) -> None:
        if "\r" in text:
            parts = _SPLIT.split(text)
            self.lines, self._ends = parts[0::2], parts[1::2] + [""]
        else:  # the common case, and much faster than the regex
            self.lines = text.split("\n")
            self._ends = ["\n"] * (len(self.lines) - 1) + [""]
        self._text: str | None = text
        self._starts: list[int] | None = None

    def share(self, text: str) -> None:
        """Hold ``text``, the same as the buffer's text, in place of it (one copy is held where
        there were two)."""
        if self._text is not None:
            assert text == self._text
        self._text = text

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = "".join(chain.from_iterable(zip(self.lines, self._ends)))
        return self._text

    @property
    def core_starts(self) -> list[int]:
        """Offsets at which the lines start."""
        if self._starts is None:
            self._starts = list(
                accumulate(map(add, map(len, self.lines[:-1]), map(len, self._ends)), initial=0)
            )
        return self._starts

    def _length(self) -> int:
        return self.core_starts[-1] + len(self.lines[-1])

    def line_text(self, line: int) -> str:
        """The text of client ``line`` without its line break."""
        return self.lines[line] if 0 <= line < len(self.lines) else ""

    def offset(self, pos: types.Position) -> int:
        """Code-point offset into the text of a client position."""
        if pos.line >= len(self.lines):
            return self._length()
        return self.core_starts[pos.line] + column_from_units(
            self.lines[pos.line], pos.character, self.encoding
        )

    def position_at(self, offset: int) -> types.Position:
        """Client position of a code-point offset."""
        starts = self.core_starts
        line = bisect.bisect_right(starts, offset) - 1
        return types.Position(
            line, units_of((self.lines[line] + self._ends[line])[: offset - starts[line]], self.encoding)
        )

    def core_position(self, line: int, column: int) -> types.Position:
        """Client position of the core's (line, code-point column)."""
        if line >= len(self.lines):
            return self.position_at(self._length())
        return types.Position(line, units_of(self.lines[line][:column], self.encoding) if column else 0)

    def core_location(self, pos: types.Position) -> tuple[int, int]:
        """The core's (line, code-point column) of a client position."""
        if pos.line >= len(self.lines):
            return len(self.lines) - 1, len(self.lines[-1])
        return pos.line, column_from_units(self.lines[pos.line], pos.character, self.encoding)

    def apply(self, change: types.TextDocumentContentChangeEvent) -> None:
        if not isinstance(change, types.TextDocumentContentChangePartial):
            self._set(change.text)
            return
        (first, a), (last, b) = self.core_location(change.range.start), self.core_location(change.range.end)
        if (first, a) > (last, b):  # a reversed range: what a text splice does with it
            start, end = self.offset(change.range.start), self.offset(change.range.end)
            self._set(self.text[:start] + change.text + self.text[end:])
            return
        lines, ends = self.lines, self._ends
        before = lines[first][:a]
        if not a and first and ends[first - 1] == "\r":  # a \n at the start would join that \r
            first -= 1
            before = lines[first] + "\r"
        parts = _SPLIT.split(before + change.text + lines[last][b:] + ends[last])
        new_lines, new_ends = parts[0::2], parts[1::2] + [""]
        if ends[last]:  # the segment ends with its last line's break: nothing follows it
            new_lines.pop()
            new_ends.pop()
        self.lines = lines[:first] + new_lines + lines[last + 1 :]
        self._ends = ends[:first] + new_ends + ends[last + 1 :]
        self._text = self._starts = None


def to_client_range(line_text, r, encoding: str) -> types.Range:
    """A core ``Range`` in a file held only as lines (``line_text(n)``) as an LSP range."""
    return types.Range(
        types.Position(r.line, units_of(line_text(r.line)[: r.column], encoding)),
        types.Position(r.end_line, units_of(line_text(r.end_line)[: r.end_column], encoding)),
    )
