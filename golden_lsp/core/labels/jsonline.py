"""One line of a questions file as JSON, with where each key and value sits in the line.

The standard ``json`` module decides validity and decodes strings, so the accepted language is
exactly JSON; on top of it a small walker records where each key and value sits in the line,
because the editor must underline *this* quote and a code action must replace exactly its string
(escapes included). The walk is made only for the lines that need it. A line ``json`` refuses gets
one located ``invalid-json`` finding that says what to write instead; which JSON is a record is
``questions.py``'s business.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from ..findings.diagnostics import Diagnostic

if TYPE_CHECKING:  # typed in the stub of the C module; json.decoder has the same function
    from _json import scanstring
else:  # the C scanner where it exists, else the pure-Python one
    from json.decoder import scanstring


def _matching_everywhere(pattern: str) -> Callable[..., re.Match[str]]:
    """``match`` of a pattern that matches at every position (maybe the empty string): typed so,
    since its match is never None."""
    return cast("Callable[..., re.Match[str]]", re.compile(pattern).match)


#: JSON's white space from a position: ``_WS(s, i).end()`` is where it ends
_WS = _matching_everywhere(r"[ \t\n\r]*")
#: what ``str.strip()`` removes before a line is parsed (SPEC §3), and the BOMs editors tolerate
_LEAD = _matching_everywhere(r"[\s\ufeff]*")
#: ``str.splitlines`` breaks that do not end a questions-file line (SPEC §3)
OTHER_BREAKS = {
    "\v": "a vertical tab (\\v)",
    "\f": "a form feed (\\f)",
    "\x1c": "U+001C FILE SEPARATOR",
    "\x1d": "U+001D GROUP SEPARATOR",
    "\x1e": "U+001E RECORD SEPARATOR",
    "\x85": "U+0085 NEXT LINE",
    "\u2028": "U+2028 LINE SEPARATOR",
    "\u2029": "U+2029 PARAGRAPH SEPARATOR",
}
_SURROGATE = re.compile("[\ud800-\udfff]")
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|NaN|-?Infinity")

#: deepest nesting of arrays and objects the walker follows (a record needs 3 levels)
MAX_DEPTH = 100


@dataclass
class JsonNode:
    """A JSON value with its [start, end) in the line's text (strings include their quotes)."""

    start: int
    end: int
    value: Any
    items: list[JsonNode] = field(default_factory=list)
    #: object members: key → (key node, value node); the last duplicate wins, as in ``json``
    members: dict[str, tuple[JsonNode, JsonNode]] = field(default_factory=dict)
    #: the key node of every member whose key an earlier member of this object already used
    duplicates: list[JsonNode] = field(default_factory=list)


def parse_node(s: str, i: int, depth: int = 0) -> tuple[JsonNode, int]:
    i = _WS(s, i).end()
    c = s[i]
    if c == '"':
        value, end = scanstring(s, i + 1)
        return JsonNode(i, end, value), end
    if c in "{[" and depth >= MAX_DEPTH:
        raise json.JSONDecodeError(f"values nested deeper than {MAX_DEPTH} levels", s, i)
    if c == "{":
        node = JsonNode(i, i, {})
        j = _WS(s, i + 1).end()
        if s[j] == "}":
            node.end = j + 1
            return node, j + 1
        while True:
            j = _WS(s, j).end()
            key, kend = scanstring(s, j + 1)
            key_node = JsonNode(j, kend, key)
            j = _WS(s, kend).end() + 1  # past ':'
            value_node, j = parse_node(s, j, depth + 1)
            if key in node.members:
                node.duplicates.append(key_node)
            node.members[key] = (key_node, value_node)
            node.value[key] = value_node.value
            j = _WS(s, j).end()
            if s[j] == "}":
                node.end = j + 1
                return node, j + 1
            j += 1  # past ','
    if c == "[":
        node = JsonNode(i, i, [])
        j = _WS(s, i + 1).end()
        if s[j] == "]":
            node.end = j + 1
            return node, j + 1
        while True:
            item, j = parse_node(s, j, depth + 1)
            node.items.append(item)
            node.value.append(item.value)
            j = _WS(s, j).end()
            if s[j] == "]":
                node.end = j + 1
                return node, j + 1
            j += 1
    m = _SCALAR.match(s, i)
    assert m is not None  # the line is JSON (``json`` read it first): any other value is a scalar
    return JsonNode(i, m.end(), json.loads(m.group())), m.end()


def parse_json_line(text: str) -> JsonNode:
    """Parse one line; raises what ``json.loads`` raises on it, and more for deep nesting.

    That is ``json.JSONDecodeError`` for invalid JSON, a plain ``ValueError`` for an integer of
    more than 4300 digits, ``RecursionError`` for nesting too deep for the decoder, and
    ``json.JSONDecodeError`` for arrays or objects nested deeper than ``MAX_DEPTH``.
    """
    json.loads(text)
    node, _ = parse_node(text, 0)
    return node


def is_skipped(line: str) -> bool:
    """Blank lines and ``//`` comment lines carry no record."""
    stripped = line.strip()
    return not stripped or stripped.startswith("//")


def _invalid_json(text: str, lead: int, body: str, exc: Exception) -> Diagnostic:
    """The finding for a line ``json`` refuses: located, and saying what to write instead."""
    pos = getattr(exc, "pos", 0)
    col = lead + pos
    # the range ends within the line (an editor would otherwise draw it into the next one)
    end = min(max(col + 1, lead + len(body)), len(text))
    reason = getattr(exc, "msg", None) or str(exc).split(";")[0]  # not Python's advice after ";"
    brk = OTHER_BREAKS.get(body[pos : pos + 1])
    if brk and reason == "Extra data":
        message = (
            f"two records on one line, separated by {brk} (column {col + 1}): a record ends only at "
            "a line break (\\n, \\r\\n or \\r) — put each record on its own line"
        )
    elif brk and reason.startswith("Invalid control character"):
        message = (
            f"invalid JSON: a raw {brk} inside a string (column {col + 1}): write it as "
            f"\\u{ord(body[pos]):04x}"
        )
    elif brk:
        message = (
            f"invalid JSON: {brk} is not white space in JSON (column {col + 1}): remove it, or write it "
            f"as \\u{ord(body[pos]):04x} inside a string"
        )
    elif (comma := _trailing_comma(body, pos, reason)) is not None:
        closer = body[pos]
        col, end = lead + comma, lead + comma + 1
        message = (
            f"invalid JSON: a trailing comma before {closer} (column {col + 1}): JSON allows none "
            "after the last member or item — remove it"
        )
    else:
        message = f"invalid JSON: {reason} (column {col + 1})"
    return Diagnostic.at_columns("invalid-json", message, col, end)


def _trailing_comma(body: str, pos: int, reason: str) -> int | None:
    """The column in ``body`` of a comma the decoder stopped after, at a closing ``}`` or ``]``
    (``{"a": 1,}``: "Expecting property name…"; ``[1,]``: "Expecting value"); None otherwise."""
    if (
        pos >= len(body)
        or body[pos] not in "}]"
        or not reason.startswith(("Expecting property", "Expecting value"))
    ):
        return None
    before = body[:pos].rstrip()
    return len(before) - 1 if before.endswith(",") else None


def decode_line(text: str) -> tuple[Any, JsonNode | None, tuple[int, int]] | Diagnostic:
    """One non-skipped line decoded: its value, its walked node when the line needed it at once
    (nesting as deep as the walker's limit, a surrogate escape, a repeated key: ``None`` else,
    walked when asked for) and the span of its body; or the ``invalid-json`` finding that says why
    it is not JSON a UTF-8 file can hold. The line is stripped first (``str.strip()``, SPEC §3; a
    leading BOM is tolerated too); positions are columns in code points of ``text``."""
    lead = _LEAD(text).end()
    body = text[lead:].rstrip()
    span = (lead, lead + len(body))
    _decoding.duplicates = False
    try:
        value = _DECODER.decode(body)
        # the rare lines that need their positions at once: deep (the walker's limit), with
        # a surrogate escape, or with a repeated key
        node = None
        if (
            _decoding.duplicates
            or body.count("[") + body.count("{") > MAX_DEPTH
            or _SURROGATE_ESCAPE.search(body)
        ):
            node = parse_node(text, lead)[0]
    except (ValueError, RecursionError) as exc:  # json.JSONDecodeError is a ValueError
        return _invalid_json(text, lead, body, exc)
    lone = _lone_surrogate(node) if node is not None else None
    if lone is not None:
        # json accepts "\ud800" alone, but no UTF-8 file (the artifact) can hold it
        return Diagnostic.at_columns(
            "invalid-json",
            "invalid JSON: a \\u escape is a lone surrogate, not a character",
            lone.start,
            lone.end,
        )
    return value, node, span


def duplicate_keys(node: JsonNode, what: str) -> list[Diagnostic]:
    """``duplicate-key`` at each repeated key of one object (``json`` silently keeps the last)."""
    out = []
    for key_node in node.duplicates:
        out.append(
            Diagnostic.at_columns(
                "duplicate-key",
                f"duplicate key {key_node.value!r} in this {what}: JSON keeps only the last "
                "value — remove one of them",
                key_node.start,
                key_node.end,
            )
        )
    return out


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json``'s object hook: a dict, as ``json`` makes it, noting whether a key repeated."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        _decoding.duplicates = True
    return obj


class _Decoding:
    """What the decoder saw in the line being parsed (parsing is single-threaded per process)."""

    duplicates = False


_decoding = _Decoding()
_DECODER = json.JSONDecoder(object_pairs_hook=_pairs)
#: a ``\ud800``–``\udfff`` escape: the line may hold a lone surrogate
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _lone_surrogate(node: JsonNode) -> JsonNode | None:
    """The first string (key or value) holding an unpaired surrogate, if any."""
    if isinstance(node.value, str) and _SURROGATE.search(node.value):
        return node
    for child in (*node.items, *(n for pair in node.members.values() for n in pair)):
        found = _lone_surrogate(child)
        if found is not None:
            return found
    return None


def split_lines(text: str) -> list[str]:
    """Lines of a questions file without their ends: ``\\n``, ``\\r\\n`` or a lone ``\\r`` (SPEC §3).

    These are the lines LSP clients count. The other ``str.splitlines`` breaks stay inside a line
    (a raw U+2028 is legal inside a JSON string).
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")
