"""A buffer's incremental edits: after any change, its lines, text, line starts and positions are
those of the text made at once (only the lines an edit touches are split again, so the CR, LF and
CRLF pairs an edit makes or breaks are the cases that matter). Seeded and bounded Hypothesis."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

from golden_lsp.server.positions import Buffer

PIECES = ["\n", "\r", "\r\n", "a", "é", "\U0001f600", "\u2028", "{}", ""]
texts = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)
edits = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), texts), min_size=1, max_size=8)


def _position(text: str, offset: int) -> int:
    """An offset a client position can name (none falls inside a CRLF pair)."""
    return offset - 1 if 0 < offset < len(text) and text[offset - 1 : offset + 1] == "\r\n" else offset


@settings(derandomize=True, max_examples=300, deadline=None, database=None)
@given(
    start=texts,
    steps=edits,
    encoding=st.sampled_from(
        [types.PositionEncodingKind.Utf16, types.PositionEncodingKind.Utf8, types.PositionEncodingKind.Utf32]
    ),
)
def test_incremental_changes_keep_the_line_starts_of_the_whole_text(start, steps, encoding):
    buf = Buffer(start, 1, encoding)
    text = start
    for a, b, new in steps:
        a, b = sorted(_position(text, min(x, len(text))) for x in (a, b))
        change = types.TextDocumentContentChangePartial(
            types.Range(buf.position_at(a), buf.position_at(b)), new
        )
        buf.apply(change)
        text = text[:a] + new + text[b:]
        assert buf.text == text
        assert buf.lines == re.split(r"\r\n|\r|\n", text)
        assert buf.core_starts == [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
        fresh = Buffer(text, 1, encoding)
        for offset in range(len(text) + 1):
            pos = buf.position_at(offset)
            assert pos == fresh.position_at(offset) and buf.core_location(pos) == fresh.core_location(pos)
