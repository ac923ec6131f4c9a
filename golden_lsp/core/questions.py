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
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

from .diagnostics import Diagnostic
from .recordmeta import METADATA_FIELDS, metadata_errors

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

RECORD_FIELDS = (
    "id",
    "query",
    "expected_answer",
    "locators",
    "hop",
    "tags",
    "query_type",
    "unanswerable",
    "split",
    "annotator",
    "judged_by",
    *METADATA_FIELDS,
)
REQUIRED_FIELDS = ("id", "query", "expected_answer", "locators")
LOCATOR_FIELDS = ("doc", "quote", "exact", "primary")
HOPS = ("single", "multi")
#: the splits a record may belong to (good practice: tune on dev, report on test, canary in prod)
SPLITS = ("dev", "test", "canary")
#: how an annotator (or a ``judged_by`` note) names an LLM judge: ``judge:<model>``
JUDGE_PREFIX = "judge:"
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
            value_node, j = _parse_node(s, j, depth + 1)
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
            item, j = _parse_node(s, j, depth + 1)
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
    node, _ = _parse_node(text, 0)
    return node


@dataclass(eq=False)
class Locator:
    """One locator of a record; its source positions are looked up only when asked for."""

    doc: str | None
    quote: str | None
    exact: bool
    record: QuestionRecord
    #: its place in the record's ``locators`` list
    index: int
    #: the single most useful span of its record (at most one per record)
    primary: bool = False

    @property
    def well_formed(self) -> bool:
        return isinstance(self.doc, str) and isinstance(self.quote, str)

    @property
    def node(self) -> JsonNode:
        return self.record.node.members["locators"][1].items[self.index]

    def _string_node(self, name: str) -> JsonNode | None:
        value = self.doc if name == "doc" else self.quote
        return self.node.members[name][1] if isinstance(value, str) else None

    @property
    def doc_node(self) -> JsonNode | None:
        return self._string_node("doc")

    @property
    def quote_node(self) -> JsonNode | None:
        return self._string_node("quote")


@dataclass(eq=False)
class QuestionRecord:
    """One record of the questions file; fields that failed validation are None.

    ``value`` is the decoded object. Where each value sits in the line (``node``) is found by
    walking the line again only when a finding or an editor feature asks: most lines of a large
    set never need it, and a position tree per line would cost more than the decoding itself.
    """

    text: str
    value: dict[str, Any]
    #: where the object starts and ends in ``text`` (the line stripped, SPEC §3)
    span: tuple[int, int]
    id: str | None = None
    query: str | None = None
    expected_answer: str | None = None
    locators: list[Locator] = field(default_factory=list)
    hop: str = "single"
    tags: list[str] = field(default_factory=list)
    #: practice fields (all optional): a type from the config's vocabulary, a query the corpus
    #: cannot answer, the split it belongs to, who labelled it, which LLM judge proposed its labels
    query_type: str | None = None
    unanswerable: bool = False
    split: str | None = None
    annotator: str | None = None
    judged_by: str | None = None
    #: False when any field is missing or mistyped: such a record is never built
    valid: bool = True

    @cached_property
    def node(self) -> JsonNode:
        """The position tree of the line (walked on first use)."""
        return _parse_node(self.text, self.span[0])[0]

    def field_range(self, name: str) -> tuple[int, int]:
        """[start, end) of a member's value in the line; the object if absent."""
        if name in self.value:
            n = self.node.members[name][1]
            return n.start, n.end
        return self.span

    @property
    def judge_labelled(self) -> bool:
        """Labelled by an LLM judge (``annotator: "judge:<model>"``), not by a person."""
        return self.annotator is not None and self.annotator.startswith(JUDGE_PREFIX)

    @property
    def judge_proposed(self) -> bool:
        """Labels an LLM judge had a hand in: labelled by one, or accepted from its proposals."""
        return self.judge_labelled or self.judged_by is not None


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
    else:
        message = f"invalid JSON: {reason} (column {col + 1})"
    return Diagnostic.at_columns("invalid-json", message, col, end)


def _duplicate_keys(node: JsonNode, what: str) -> list[Diagnostic]:
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


def parse_record(text: str) -> tuple[QuestionRecord | None, list[Diagnostic]]:
    """Parse one non-skipped line. Diagnostics are on line 0, columns in code points of ``text``.

    The line is stripped first (``str.strip()``, SPEC §3; a leading BOM is tolerated too).
    """
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
            node = _parse_node(text, lead)[0]
    except (ValueError, RecursionError) as exc:  # json.JSONDecodeError is a ValueError
        return None, [_invalid_json(text, lead, body, exc)]
    lone = _lone_surrogate(node) if node is not None else None
    if lone is not None:
        # json accepts "\ud800" alone, but no UTF-8 file (the artifact) can hold it
        return None, [
            Diagnostic.at_columns(
                "invalid-json",
                "invalid JSON: a \\u escape is a lone surrogate, not a character",
                lone.start,
                lone.end,
            )
        ]
    if not isinstance(value, dict):
        kind = type(value).__name__ if not isinstance(value, list) else "array"
        return None, [
            Diagnostic.at_columns("not-an-object", f"each line must be a JSON object, not {kind}", *span)
        ]
    rec = QuestionRecord(text, value, span)
    if node is not None:
        rec.node = node  # already walked
    diags: list[Diagnostic] = _duplicate_keys(rec.node, "record") if _decoding.duplicates else []
    _parse_fields(rec, value, span, diags)
    return rec, diags


def _parse_fields(
    rec: QuestionRecord, members: dict[str, Any], span: tuple[int, int], diags: list[Diagnostic]
) -> None:
    """The record's fields from its JSON object: each one known and of its type, or a finding."""

    def wrong(name: str, message: str) -> None:
        rec.valid = False
        diags.append(Diagnostic.at_columns("wrong-type", message, *rec.field_range(name)))

    for name in REQUIRED_FIELDS:
        if name not in members:
            rec.valid = False
            diags.append(Diagnostic.at_columns("missing-field", f"missing required field {name!r}", *span))
    for name in members:
        if name not in RECORD_FIELDS:
            key_node = rec.node.members[name][0]
            diags.append(
                Diagnostic.at_columns(
                    "unknown-field",
                    f"unknown field {name!r} (known: {', '.join(RECORD_FIELDS)})",
                    key_node.start,
                    key_node.end,
                )
            )
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
            wrong("hop", '\'hop\' must be "single" or "multi"')
    if "tags" in members:
        if _is_str_list(members["tags"]):
            rec.tags = members["tags"]
        else:
            wrong("tags", "'tags' must be a list of strings")
    _parse_practice_fields(rec, members, wrong)
    for name, message in metadata_errors(members):
        wrong(name, message)
    if "locators" in members:
        if not isinstance(members["locators"], list):
            wrong("locators", '\'locators\' must be a list of {"doc", "quote"} objects')
        else:
            for index, item in enumerate(members["locators"]):
                locator, errors = _parse_locator(rec, index, item)
                diags.extend(errors)
                if locator is None or not locator.well_formed or any(d.code == "wrong-type" for d in errors):
                    rec.valid = False
                if locator is not None:
                    rec.locators.append(locator)


def _parse_practice_fields(rec: QuestionRecord, members: dict[str, Any], wrong) -> None:
    """``query_type``, ``unanswerable``, ``split``, ``annotator`` and ``judged_by``: types only (the
    vocabulary of query types is the set's config, checked by the rules)."""
    for name in ("query_type", "annotator", "judged_by"):
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


def _parse_locator(rec: QuestionRecord, index: int, item: Any) -> tuple[Locator | None, list[Diagnostic]]:
    def item_node() -> JsonNode:
        return rec.node.members["locators"][1].items[index]

    if not isinstance(item, dict):
        node = item_node()
        return None, [
            Diagnostic.at_columns(
                "wrong-type", 'each locator must be an object {"doc", "quote"}', node.start, node.end
            )
        ]
    diags = _duplicate_keys(item_node(), "locator") if _decoding.duplicates else []
    for name in item:
        if name not in LOCATOR_FIELDS:
            key_node = item_node().members[name][0]
            diags.append(
                Diagnostic.at_columns(
                    "unknown-field",
                    f"unknown locator field {name!r} (known: {', '.join(LOCATOR_FIELDS)})",
                    key_node.start,
                    key_node.end,
                )
            )
    values: dict[str, Any] = {}
    for name in ("doc", "quote"):
        if name not in item:
            node = item_node()
            diags.append(
                Diagnostic.at_columns("missing-field", f"locator is missing {name!r}", node.start, node.end)
            )
        elif isinstance(item[name], str):
            values[name] = item[name]
        else:
            node = item_node().members[name][1]
            diags.append(
                Diagnostic.at_columns(
                    "wrong-type", f"locator {name!r} must be a string", node.start, node.end
                )
            )
    exact, primary = (_locator_flag(item, item_node, name, diags) for name in ("exact", "primary"))
    return Locator(values.get("doc"), values.get("quote"), exact, rec, index, primary), diags


def _locator_flag(item: dict[str, Any], item_node, name: str, diags: list[Diagnostic]) -> bool:
    """A locator's optional boolean (``exact``, ``primary``); False when absent or mistyped."""
    if name not in item:
        return False
    if isinstance(item[name], bool):
        return item[name]
    node = item_node().members[name][1]
    diags.append(
        Diagnostic.at_columns("wrong-type", f"locator {name!r} must be true or false", node.start, node.end)
    )
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


def split_lines(text: str) -> list[str]:
    """Lines of a questions file without their ends: ``\\n``, ``\\r\\n`` or a lone ``\\r`` (SPEC §3).

    These are the lines LSP clients count. The other ``str.splitlines`` breaks stay inside a line
    (a raw U+2028 is legal inside a JSON string).
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.split("\n")
