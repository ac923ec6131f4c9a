"""JSON text that every reader cuts into the same lines as golden-lsp does.

``json.dumps(..., ensure_ascii=False)`` escapes every control character below U+0020 but keeps
U+2028, U+2029 and U+0085 raw: valid JSON, yet Python's ``str.splitlines()`` (and older
JavaScript) takes each for a line end, so a JSONL file holding one reads as more records than it
has, and a comment line holding one becomes two lines. Every JSON text golden-lsp writes for
other tools and people — exports, imported and sampled questions files, runs, ``eval`` JSON —
goes through ``dumps`` here, which writes them as ``\\u2028``, ``\\u2029`` and ``\\u0085`` (the
same string to any JSON reader). The same goes for the other characters ``json.dumps`` leaves raw
that a terminal or a viewer acts on — DEL, the C1 controls (U+0080–009F, some terminals read
U+009B as an escape sequence's start) and the bidi marks, embeddings, overrides and isolates —
so no JSON output of a command can carry a control character from its inputs (the text outputs
use ``shown``). The artifact is not: it keeps the reference builder's bytes.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: what ``json.dumps`` leaves raw that a reader could take for a line end (U+2028, U+2029, U+0085)
#: or a terminal for a control: DEL, the C1 controls and the bidi marks, embeddings, overrides and
#: isolates (``shown``'s set beyond the C0 controls JSON escapes itself)
_RAW = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def dumps(value: Any, indent: int | None = None) -> str:
    """``value`` as JSON text (UTF-8 characters as they are, ``indent`` as ``json.dumps``), with no
    character that any reader could take for a line end, or a terminal for a control, inside it."""
    text = json.dumps(value, ensure_ascii=False, indent=indent)
    if _RAW.search(text) is None:  # the common case: no copy of the text
        return text
    return _RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
