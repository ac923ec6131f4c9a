"""A buffer's incremental edits: after any change, its text and line starts are those of the text
made at once (line starts found again only around the edit, so CR, LF and CRLF pairs that an
edit makes or breaks are the cases that matter). Seeded and bounded Hypothesis."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

from golden_lsp.server.positions import Buffer, client_line_starts

PIECES = ["\n", "\r", "\r\n", "a", "é", "\U0001F600", "\u2028", "{}", ""]
texts = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)
edits = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30), texts), min_size=1, max_size=8)


def _position(text: str, offset: int) -> int:
    """An offset a client position can name (none falls inside a CRLF pair)."""
    return offset - 1 if 0 < offset < len(text) and text[offset - 1:offset + 1] == "\r\n" else offset


@settings(derandomize=True, max_examples=300, deadline=None, database=None)
@given(start=texts, steps=edits, encoding=st.sampled_from([types.PositionEncodingKind.Utf16,
                                                             types.PositionEncodingKind.Utf8,
                                                             types.PositionEncodingKind.Utf32]))
def test_incremental_changes_keep_the_line_starts_of_the_whole_text(start, steps, encoding):
    buf = Buffer(start, 1, encoding)
    text = start
    for a, b, new in steps:
        a, b = sorted(_position(text, min(x, len(text))) for x in (a, b))
        change = types.TextDocumentContentChangePartial(
            types.Range(buf.position_at(a), buf.position_at(b)), new)
        buf.apply(change)
        text = text[:a] + new + text[b:]
        assert buf.text == text
        assert buf.core_starts == client_line_starts(text)
