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

from lsprotocol import types

from ..canon import line_starts

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


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


def client_line_starts(text: str) -> list[int]:
    """Offsets at which the client's lines start (``\\r\\n``, ``\\r`` and ``\\n`` end a line)."""
    if "\r" not in text:
        return line_starts(text)  # the common case, and much faster than the regex
    return [0] + [m.end() for m in _LINE_BREAK.finditer(text)]


class Buffer:
    """The text of one open document, with the client's lines and the core's lines."""

    def __init__(self, text: str, version: int | None, encoding: str):
        self.version = version
        self.encoding = encoding
        self._set(text)

    def _set(self, text: str) -> None:
        self.text = text
        self._starts = client_line_starts(text)

    @property
    def core_starts(self) -> list[int]:
        """Line starts as the core counts lines: the client's (``questions.split_lines``)."""
        return self._starts

    def line_text(self, line: int) -> str:
        """The text of client ``line`` without its line break."""
        if not 0 <= line < len(self._starts):
            return ""
        start = self._starts[line]
        end = self._starts[line + 1] if line + 1 < len(self._starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def offset(self, pos: types.Position) -> int:
        """Code-point offset into the text of a client position."""
        if pos.line >= len(self._starts):
            return len(self.text)
        return self._starts[pos.line] + column_from_units(self.line_text(pos.line), pos.character, self.encoding)

    def position_at(self, offset: int) -> types.Position:
        """Client position of a code-point offset."""
        line = bisect.bisect_right(self._starts, offset) - 1
        return types.Position(line, units_of(self.text[self._starts[line]:offset], self.encoding))

    def core_position(self, line: int, column: int) -> types.Position:
        """Client position of the core's (line, code-point column)."""
        if line >= len(self._starts):
            return self.position_at(len(self.text))
        text = self.line_text(line)
        return types.Position(line, units_of(text[:column], self.encoding) if column else 0)

    def core_location(self, pos: types.Position) -> tuple[int, int]:
        """The core's (line, code-point column) of a client position."""
        offset = self.offset(pos)
        starts = self.core_starts
        line = bisect.bisect_right(starts, offset) - 1
        return line, offset - starts[line]

    def apply(self, change: types.TextDocumentContentChangeEvent) -> None:
        if isinstance(change, types.TextDocumentContentChangePartial):
            start, end = self.offset(change.range.start), self.offset(change.range.end)
            self._splice(start, end, change.text)
        else:
            self._set(change.text)

    def _splice(self, start: int, end: int, new: str) -> None:
        """Replace [start, end) with ``new``, looking for line starts only where they can change.

        Whether offset p starts a line depends on the characters at p - 1 and p (a ``\r`` ends a
        line unless a ``\n`` follows), so only the starts in [start, start + len(new)] are found
        again; those before stay, those after move by the change in length, and 0 always starts.
        """
        text = self.text = self.text[:start] + new + self.text[end:]
        starts, stop, shift = self._starts, start + len(new), len(new) - (end - start)
        lo, hi = max(1, bisect.bisect_left(starts, start)), bisect.bisect_right(starts, end)
        found = [m.end() for m in _LINE_BREAK.finditer(text, max(0, start - 1), stop + 2) if start <= m.end() <= stop]
        after = [s + shift for s in starts[hi:]] if shift else starts[hi:]
        self._starts = starts[:lo] + found + after


def to_client_range(line_text, r, encoding: str) -> types.Range:
    """A core ``Range`` in a file held only as lines (``line_text(n)``) as an LSP range."""
    return types.Range(
        types.Position(r.line, units_of(line_text(r.line)[: r.column], encoding)),
        types.Position(r.end_line, units_of(line_text(r.end_line)[: r.end_column], encoding)),
    )
