"""Tolerant parser of ``questions.jsonl`` that keeps the source position of every value.

The standard ``json`` module decides validity and decodes strings, so the accepted language is
exactly JSON; on top of it a small walker records where each key and value sits in the line,
because the editor must underline *this* quote and a code action must replace exactly its string
(escapes included). Parsing is per line: a malformed line yields its own finding and never hides
the findings of the other lines (SPEC §3).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from json.decoder import scanstring
from typing import Any

from .diagnostics import Diagnostic

_WS = re.compile(r"[ \t\n\r]*")
#: what ``str.strip()`` removes before a line is parsed (SPEC §3), and the BOMs editors tolerate
_LEAD = re.compile(r"[\s\ufeff]*")
#: ``str.splitlines`` breaks that do not end a questions-file line (SPEC §3)
OTHER_BREAKS = {"\v": "a vertical tab (\\v)", "\f": "a form feed (\\f)", "\x1c": "U+001C FILE SEPARATOR",
                "\x1d": "U+001D GROUP SEPARATOR", "\x1e": "U+001E RECORD SEPARATOR",
                "\x85": "U+0085 NEXT LINE", "\u2028": "U+2028 LINE SEPARATOR",
                "\u2029": "U+2029 PARAGRAPH SEPARATOR"}
_SURROGATE = re.compile("[\ud800-\udfff]")
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null|NaN|-?Infinity")

RECORD_FIELDS = ("id", "query", "expected_answer", "locators", "hop", "tags",
                 "query_type", "unanswerable", "split", "annotator")
REQUIRED_FIELDS = ("id", "query", "expected_answer", "locators")
LOCATOR_FIELDS = ("doc", "quote", "exact", "primary")
HOPS = ("single", "multi")
#: the splits a record may belong to (good practice: tune on dev, report on test, canary in prod)
SPLITS = ("dev", "test", "canary")
#: the default vocabulary of ``query_type`` (config ``query_types``)
DEFAULT_QUERY_TYPES = ("factual", "conceptual", "comparison", "procedural", "multi-hop", "unanswerable")
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


def _parse_node(s: str, i: int, depth: int = 0) -> tuple[JsonNode, int]:
    i = _WS.match(s, i).end()
    c = s[i]
    if c == '"':
        value, end = scanstring(s, i + 1)
        return JsonNode(i, end, value), end
    if c in "{[" and depth >= MAX_DEPTH:
        raise json.JSONDecodeError(f"values nested deeper than {MAX_DEPTH} levels", s, i)
    if c == "{":
        node = JsonNode(i, i, {})
        j = _WS.match(s, i + 1).end()
        if s[j] == "}":
            node.end = j + 1
            return node, j + 1
        while True:
            j = _WS.match(s, j).end()
            key, kend = scanstring(s, j + 1)
            key_node = JsonNode(j, kend, key)
            j = _WS.match(s, kend).end() + 1  # past ':'
            value_node, j = _parse_node(s, j, depth + 1)
            if key in node.members:
                node.duplicates.append(key_node)
            node.members[key] = (key_node, value_node)
            node.value[key] = value_node.value
            j = _WS.match(s, j).end()
            if s[j] == "}":
                node.end = j + 1
                return node, j + 1
            j += 1  # past ','
    if c == "[":
        node = JsonNode(i, i, [])
        j = _WS.match(s, i + 1).end()
        if s[j] == "]":
            node.end = j + 1
            return node, j + 1
        while True:
            item, j = _parse_node(s, j, depth + 1)
            node.items.append(item)
            node.value.append(item.value)
            j = _WS.match(s, j).end()
            if s[j] == "]":
                node.end = j + 1
                return node, j + 1
            j += 1
    m = _SCALAR.match(s, i)
    return JsonNode(i, m.end(), json.loads(m.group())), m.end()


def parse_json_line(text: str) -> JsonNode:
    """Parse one line; raises what ``json.loads`` raises on it, and more for deep nesting.

    That is ``json.JSONDecodeError`` for invalid JSON, a plain ``ValueError`` for an integer of
    more than 4300 digits, ``RecursionError`` for nesting too deep for the decoder, and
    ``json.JSONDecodeError`` for arrays or objects nested deeper than ``MAX_DEPTH``.
    """
    json.loads(text)
    node, _ = _parse_node(text, 0)
    return node


@dataclass
class Locator:
    doc: str | None
    quote: str | None
    exact: bool
    node: JsonNode
    doc_node: JsonNode | None
    quote_node: JsonNode | None
    #: the single most useful span of its record (at most one per record)
    primary: bool = False

    @property
    def well_formed(self) -> bool:
        return isinstance(self.doc, str) and isinstance(self.quote, str)


@dataclass
class QuestionRecord:
    """One record of the questions file; fields that failed validation are None."""

    node: JsonNode
    id: str | None = None
    query: str | None = None
    expected_answer: str | None = None
    locators: list[Locator] = field(default_factory=list)
    hop: str = "single"
    tags: list[str] = field(default_factory=list)
    #: practice fields (all optional): a type from the config's vocabulary, a query the corpus
    #: cannot answer, the split it belongs to, who labelled it
    query_type: str | None = None
    unanswerable: bool = False
    split: str | None = None
    annotator: str | None = None
    #: False when any field is missing or mistyped: such a record is never built
    valid: bool = True

    def field_range(self, name: str) -> tuple[int, int]:
        """[start, end) of a member's value in the line; the object if absent."""
        if name in self.node.members:
            n = self.node.members[name][1]
            return n.start, n.end
        return self.node.start, self.node.end


def is_skipped(line: str) -> bool:
    """Blank lines and ``//`` comment lines carry no record."""
    stripped = line.strip()
    return not stripped or stripped.startswith("//")


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _invalid_json(text: str, lead: int, body: str, exc: Exception) -> Diagnostic:
    """The finding for a line ``json`` refuses: located, and saying what to write instead."""
    pos = getattr(exc, "pos", 0)
    col = lead + pos
    # the range ends within the line (an editor would otherwise draw it into the next one)
    end = min(max(col + 1, lead + len(body)), len(text))
    reason = getattr(exc, "msg", None) or str(exc).split(";")[0]  # not Python's advice after ";"
    brk = OTHER_BREAKS.get(body[pos:pos + 1])
    if brk and reason == "Extra data":
        message = (f"two records on one line, separated by {brk} (column {col + 1}): a record ends only at "
                   "a line break (\\n, \\r\\n or \\r) — put each record on its own line")
    elif brk and reason.startswith("Invalid control character"):
        message = (f"invalid JSON: a raw {brk} inside a string (column {col + 1}): write it as "
                   f"\\u{ord(body[pos]):04x}")
    elif brk:
        message = (f"invalid JSON: {brk} is not white space in JSON (column {col + 1}): remove it, or write it "
                   f"as \\u{ord(body[pos]):04x} inside a string")
    else:
        message = f"invalid JSON: {reason} (column {col + 1})"
    return Diagnostic.at_columns("invalid-json", message, col, end)


def _duplicate_keys(node: JsonNode, what: str) -> list[Diagnostic]:
    """``duplicate-key`` at each repeated key of one object (``json`` silently keeps the last)."""
    out = []
    for key_node in node.duplicates:
        out.append(Diagnostic.at_columns(
            "duplicate-key", f"duplicate key {key_node.value!r} in this {what}: JSON keeps only the last "
            "value — remove one of them", key_node.start, key_node.end))
    return out


def parse_record(text: str) -> tuple[QuestionRecord | None, list[Diagnostic]]:
    """Parse one non-skipped line. Diagnostics are on line 0, columns in code points of ``text``.

    The line is stripped first (``str.strip()``, SPEC §3; a leading BOM is tolerated too).
    """
    lead = _LEAD.match(text).end()
    body = text[lead:].rstrip()
    try:
        node = parse_json_line(body)
    except (ValueError, RecursionError) as exc:  # json.JSONDecodeError is a ValueError
        return None, [_invalid_json(text, lead, body, exc)]
    _shift(node, lead)
    lone = _lone_surrogate(node)
    if lone is not None:
        # json accepts "\ud800" alone, but no UTF-8 file (the artifact) can hold it
        return None, [Diagnostic.at_columns("invalid-json", "invalid JSON: a \\u escape is a lone surrogate, "
                                            "not a character", lone.start, lone.end)]
    if not isinstance(node.value, dict):
        kind = type(node.value).__name__ if not isinstance(node.value, list) else "array"
        return None, [Diagnostic.at_columns("not-an-object", f"each line must be a JSON object, not {kind}",
                                            node.start, node.end)]
    rec = QuestionRecord(node)
    diags: list[Diagnostic] = _duplicate_keys(node, "record")

    def wrong(name: str, message: str) -> None:
        rec.valid = False
        diags.append(Diagnostic.at_columns("wrong-type", message, *rec.field_range(name)))

    for name in REQUIRED_FIELDS:
        if name not in node.members:
            rec.valid = False
            diags.append(Diagnostic.at_columns("missing-field", f"missing required field {name!r}",
                                               node.start, node.end))
    for name, (key_node, _) in node.members.items():
        if name not in RECORD_FIELDS:
            diags.append(Diagnostic.at_columns("unknown-field",
                                               f"unknown field {name!r} (known: {', '.join(RECORD_FIELDS)})",
                                               key_node.start, key_node.end))
    members = node.value
    for name in ("id", "query", "expected_answer"):
        if name in members:
            value = members[name]
            if isinstance(value, str) and (value or name != "id"):
                setattr(rec, name, value)
            else:
                wrong(name, f"{name!r} must be a {'non-empty ' if name == 'id' else ''}string")
    if "hop" in members:
        if members["hop"] in HOPS:
            rec.hop = members["hop"]
        else:
            wrong("hop", "'hop' must be \"single\" or \"multi\"")
    if "tags" in members:
        if _is_str_list(members["tags"]):
            rec.tags = members["tags"]
        else:
            wrong("tags", "'tags' must be a list of strings")
    _parse_practice_fields(rec, members, wrong)
    if "locators" in members:
        loc_node = node.members["locators"][1]
        if not isinstance(loc_node.value, list):
            wrong("locators", "'locators' must be a list of {\"doc\", \"quote\"} objects")
        else:
            for item in loc_node.items:
                locator, errors = _parse_locator(item)
                diags.extend(errors)
                if locator is None or not locator.well_formed or any(d.code == "wrong-type" for d in errors):
                    rec.valid = False
                if locator is not None:
                    rec.locators.append(locator)
    return rec, diags


def _parse_practice_fields(rec: QuestionRecord, members: dict[str, Any], wrong) -> None:
    """``query_type``, ``unanswerable``, ``split`` and ``annotator``: types only (the vocabulary of
    query types is the set's config, checked by the rules)."""
    for name in ("query_type", "annotator"):
        if name in members:
            if isinstance(members[name], str) and members[name]:
                setattr(rec, name, members[name])
            else:
                wrong(name, f"{name!r} must be a non-empty string")
    if "unanswerable" in members:
        if isinstance(members["unanswerable"], bool):
            rec.unanswerable = members["unanswerable"]
        else:
            wrong("unanswerable", "'unanswerable' must be true or false")
    if "split" in members:
        if members["split"] in SPLITS:
            rec.split = members["split"]
        else:
            wrong("split", f"'split' must be one of {', '.join(repr(s) for s in SPLITS)}")


def _parse_locator(item: JsonNode) -> tuple[Locator | None, list[Diagnostic]]:
    if not isinstance(item.value, dict):
        return None, [Diagnostic.at_columns("wrong-type", "each locator must be an object {\"doc\", \"quote\"}",
                                            item.start, item.end)]
    diags = _duplicate_keys(item, "locator")
    members = item.members
    for name, (key_node, _) in members.items():
        if name not in LOCATOR_FIELDS:
            diags.append(Diagnostic.at_columns("unknown-field",
                                               f"unknown locator field {name!r} (known: {', '.join(LOCATOR_FIELDS)})",
                                               key_node.start, key_node.end))
    values: dict[str, Any] = {}
    for name in ("doc", "quote"):
        if name not in members:
            diags.append(Diagnostic.at_columns("missing-field", f"locator is missing {name!r}",
                                               item.start, item.end))
            continue
        value_node = members[name][1]
        if isinstance(value_node.value, str):
            values[name] = value_node.value
        else:
            diags.append(Diagnostic.at_columns("wrong-type", f"locator {name!r} must be a string",
                                               value_node.start, value_node.end))
    exact, primary = (_locator_flag(members, name, diags) for name in ("exact", "primary"))
    return Locator(
        values.get("doc"), values.get("quote"), exact, item,
        members["doc"][1] if "doc" in values else None,
        members["quote"][1] if "quote" in values else None,
        primary,
    ), diags


def _locator_flag(members: dict[str, tuple[JsonNode, JsonNode]], name: str, diags: list[Diagnostic]) -> bool:
    """A locator's optional boolean (``exact``, ``primary``); False when absent or mistyped."""
    if name not in members:
        return False
    value_node = members[name][1]
    if isinstance(value_node.value, bool):
        return value_node.value
    diags.append(Diagnostic.at_columns("wrong-type", f"locator {name!r} must be true or false",
                                       value_node.start, value_node.end))
    return False


def _lone_surrogate(node: JsonNode) -> JsonNode | None:
    """The first string (key or value) holding an unpaired surrogate, if any."""
    if isinstance(node.value, str) and _SURROGATE.search(node.value):
        return node
    for child in (*node.items, *(n for pair in node.members.values() for n in pair)):
        found = _lone_surrogate(child)
        if found is not None:
            return found
    return None


def _shift(node: JsonNode, by: int) -> None:
    if not by:
        return
    node.start += by
    node.end += by
    for item in node.items:
        _shift(item, by)
    for key_node, value_node in node.members.values():
        _shift(key_node, by)
        _shift(value_node, by)


def split_lines(text: str) -> list[str]:
    """Lines of a questions file without their ends: ``\\n``, ``\\r\\n`` or a lone ``\\r`` (SPEC §3).

    These are the lines LSP clients count. The other ``str.splitlines`` breaks stay inside a line
    (a raw U+2028 is legal inside a JSON string).
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")
