"""The questions file's records: which JSON line is a record, its fields, its locators.

A record is one JSON object per line (``jsonline.py`` decodes the line and knows where each value
sits); this module says what a record is — the required fields and the optional ones of good
practice, their types, the locators — and gives each mistake its own located finding, so that a
malformed line never hides the findings of the other lines (SPEC §3). It keeps the source range of
every value a finding or a code action needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ..findings.diagnostics import Diagnostic
from .jsonline import JsonNode, decode_line, duplicate_keys, parse_node

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

    @property
    def walked(self) -> bool:
        """Its line was walked for positions (``node``) already."""
        return "node" in self.__dict__

    @cached_property
    def node(self) -> JsonNode:
        """The position tree of the line (walked on first use)."""
        return parse_node(self.text, self.span[0])[0]

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


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def parse_record(text: str) -> tuple[QuestionRecord | None, list[Diagnostic]]:
    """Parse one non-skipped line. Diagnostics are on line 0, columns in code points of ``text``.

    The line is stripped first (``str.strip()``, SPEC §3; a leading BOM is tolerated too).
    """
    decoded = decode_line(text)
    if isinstance(decoded, Diagnostic):
        return None, [decoded]
    value, node, span = decoded
    if not isinstance(value, dict):
        kind = type(value).__name__ if not isinstance(value, list) else "array"
        return None, [
            Diagnostic.at_columns("not-an-object", f"each line must be a JSON object, not {kind}", *span)
        ]
    rec = QuestionRecord(text, value, span)
    if node is not None:
        rec.node = node  # already walked
    # a repeated key is walked at once (``decode_line``), and found again in its walk
    diags: list[Diagnostic] = duplicate_keys(node, "record") if node is not None else []
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
    # a repeated key anywhere in the line had the line walked at once (``decode_line``)
    diags = duplicate_keys(item_node(), "locator") if rec.walked else []
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
