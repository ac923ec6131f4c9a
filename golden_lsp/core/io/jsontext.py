"""JSON text that every reader cuts into the same lines as golden-lsp does.

``json.dumps(..., ensure_ascii=False)`` escapes every control character below U+0020 but keeps
U+2028, U+2029 and U+0085 raw: valid JSON, yet Python's ``str.splitlines()`` (and older
JavaScript) takes each for a line end, so a JSONL file holding one reads as more records than it
has, and a comment line holding one becomes two lines. Every JSON text golden-lsp writes for
other tools and people — exports, imported and sampled questions files, runs, ``eval`` JSON —
goes through ``dumps`` here, which writes them as ``\\u2028``, ``\\u2029`` and ``\\u0085`` (the
same string to any JSON reader). The artifact is not: it keeps the reference builder's bytes.
"""

from __future__ import annotations

import json
from typing import Any

#: the characters ``str.splitlines()`` breaks at that ``json.dumps`` leaves raw
_LINE_BREAKS = "\u2028\u2029\x85"
_ESCAPED = str.maketrans({c: f"\\u{ord(c):04x}" for c in _LINE_BREAKS})


def dumps(value: Any, indent: int | None = None) -> str:
    """``value`` as JSON text (UTF-8 characters as they are, ``indent`` as ``json.dumps``), with no
    character that any reader could take for a line end inside it."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    if any(c in text for c in _LINE_BREAKS):  # rare: no copy of the text otherwise
        text = text.translate(_ESCAPED)
    return text
