"""Untrusted text made safe to show: the one escape every output of golden-lsp goes through.

Text from a file, the corpus, a log or a model (a judge's ``reason``) may hold control characters:
an ANSI or OSC escape sequence that clears a terminal or sets its title, a carriage return or
line break that forges an output line (a GitHub ``::error`` annotation, a CI log line), a bidi
override that shows text in another order than it is (U+202A–202E, U+2066–2069), or a Unicode
line break (U+0085, U+2028, U+2029). ``shown`` writes each of them as a visible escape (``\\x1b``,
``\\n``, ``\\u202e``), so the text reads the same and nothing in it acts: CLI text, GitHub
annotations, JUnit XML, the server's hover, inlay hints and code-action titles all use it.
"""

from __future__ import annotations

import re

#: C0 controls, DEL, C1 controls, the Unicode line breaks and the bidi embeddings, overrides and
#: isolates (and the invisible marks that steer them)
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_UNSAFE_KEEPING_LINES = re.compile(_UNSAFE.pattern.replace("\x00-\x1f", "\x00-\x09\x0b-\x1f"))
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    c = match.group()
    return _NAMED.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")


def shown(text: str, lines: bool = False) -> str:
    """``text`` with every control character written as its escape; ``lines``: line feeds kept
    (text shown on several lines, a hover's), every other one escaped."""
    return (_UNSAFE_KEEPING_LINES if lines else _UNSAFE).sub(_escape, text)
