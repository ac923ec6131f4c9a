"""Open editor buffers and exact position conversion in the negotiated encoding.

LSP positions count lines split on ``\\n``, ``\\r\\n`` and ``\\r`` only, and characters in the
negotiated unit (UTF-16 by default, UTF-8 or UTF-32 when the client prefers). pygls' own document
store splits lines with ``str.splitlines``, which also breaks on U+2028 and friends — legal inside a
JSON string — so golden-lsp keeps its own buffers and applies incremental changes with the same
line rule the client uses. The core works in code points; this module is the only place that
converts.
"""

from __future__ import annotations

import bisect
import re

from lsprotocol import types

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def units_of(text: str, encoding: str) -> int:
    """Length of ``text`` in the client's code units."""
    if encoding == types.PositionEncodingKind.Utf32:
        return len(text)
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def column_from_units(line: str, units: int, encoding: str) -> int:
    """Code-point column of a client column on ``line`` (clamped to the line)."""
    if encoding == types.PositionEncodingKind.Utf32:
        return min(units, len(line))
    seen = 0
    for i, ch in enumerate(line):
        if seen >= units:
            return i
        seen += units_of(ch, encoding)
    return len(line)


class Buffer:
    """The text of one open document, with the client's notion of lines."""

    def __init__(self, text: str, version: int | None, encoding: str):
        self.version = version
        self.encoding = encoding
        self._set(text)

    def _set(self, text: str) -> None:
        self.text = text
        self._starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]

    def line_text(self, line: int) -> str:
        """The text of ``line`` without its line break."""
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

    def column(self, pos: types.Position) -> int:
        """Code-point column of a client position on its line."""
        return column_from_units(self.line_text(pos.line), pos.character, self.encoding)

    def position(self, line: int, column: int) -> types.Position:
        """Client position of a code-point (line, column)."""
        return types.Position(line, units_of(self.line_text(line)[:column], self.encoding))

    def position_at(self, offset: int) -> types.Position:
        line = bisect.bisect_right(self._starts, offset) - 1
        return self.position(line, offset - self._starts[line])

    def apply(self, change: types.TextDocumentContentChangeEvent) -> None:
        if isinstance(change, types.TextDocumentContentChangePartial):
            start, end = self.offset(change.range.start), self.offset(change.range.end)
            self._set(self.text[:start] + change.text + self.text[end:])
        else:
            self._set(change.text)


def to_client_range(line_text, r, encoding: str) -> types.Range:
    """A core ``Range`` (code points) as an LSP range; ``line_text(n)`` gives line n's text."""
    return types.Range(
        types.Position(r.line, units_of(line_text(r.line)[: r.column], encoding)),
        types.Position(r.end_line, units_of(line_text(r.end_line)[: r.end_column], encoding)),
    )
