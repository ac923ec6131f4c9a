"""What the cursor is in on a questions line, even when the line is half typed.

Completion runs exactly where a line is not JSON yet — an unclosed string, a missing brace — so
the parsed record cannot say where the cursor is. This scanner walks the line's tokens the way
JSON would, tolerating everything after the cursor being missing, and reports whether the cursor
is on a key or on the value of a key, inside which object (a record or one of its locators), what
has been typed of the token so far, and the string values the object holds elsewhere on the line
(so a quote being typed knows its ``doc`` even when ``doc`` comes later).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

_SCALAR = re.compile(r"[^\s,:\[\]{}\"]+")


@dataclass
class Frame:
    kind: str  # "object" | "array"
    #: the key this container is the value of (None at the top level)
    key: str | None
    parent: Frame | None
    expecting: str = "key"  # in an object: "key", "colon", "value" or "comma"
    current_key: str | None = None
    members: dict[str, object] = field(default_factory=dict)


@dataclass
class CursorContext:
    #: "key" (typing a member name), "value" (typing a member's value) or "none"
    kind: str
    #: for a value: the member it belongs to (an array item: the array's key)
    key: str | None
    #: the innermost object is a locator (an object in the record's ``locators``)
    in_locator: bool
    #: what is typed of the token before the cursor (a string decoded as far as it goes)
    prefix: str
    #: [start, end) columns of the token (a string with its quotes; end is the cursor when the
    #: string is not closed on the line, so a completion never swallows the rest of the line)
    start: int
    end: int
    in_string: bool
    #: members of the innermost object on the whole line (string values, keys of any value)
    members: dict[str, object]


def _decode_partial(raw: str) -> str:
    for cut in (raw, raw[:-1], raw[:-2], raw[:-5]):
        try:
            return json.loads(f'"{cut}"')
        except ValueError:
            continue
    return raw


def _string_end(line: str, i: int) -> tuple[int, bool]:
    """End of the string token starting at ``i`` (past its closing quote) and whether it closes."""
    j = i + 1
    while j < len(line):
        c = line[j]
        if c == "\\":
            j += 2
            continue
        if c == '"':
            return j + 1, True
        j += 1
    return len(line), False


def context_at(line: str, col: int) -> CursorContext:
    """The context of column ``col`` (code points) on ``line``."""
    top: Frame | None = None
    frame: Frame | None = None
    found: CursorContext | None = None
    found_frame: Frame | None = None
    i = 0

    def here(kind: str, key: str | None, prefix: str, start: int, end: int, in_string: bool) -> None:
        nonlocal found, found_frame
        found_frame = frame
        obj = frame if frame is not None and frame.kind == "object" else None
        in_locator = (
            obj is not None
            and obj.parent is not None
            and obj.parent.kind == "array"
            and obj.parent.key == "locators"
        )
        found = CursorContext(kind, key, in_locator, prefix, start, end, in_string, {})

    def position_kind() -> tuple[str, str | None]:
        if frame is None:
            return "none", None
        if frame.kind == "array":
            return "value", frame.key
        if frame.expecting == "key":
            return "key", None
        if frame.expecting == "value":
            return "value", frame.current_key
        return "none", None

    def value_done(value: object) -> None:
        if frame is not None and frame.kind == "object" and frame.expecting == "value":
            frame.members[frame.current_key] = value
            frame.expecting = "comma"

    while i <= len(line):
        # whitespace before a token: the cursor between tokens
        while i < len(line) and line[i].isspace():
            i += 1
        if (
            found is None
            and col <= i
            and (i == len(line) or col >= 0)
            and (col < i or i == len(line) or line[i] in ",:]}")
        ):
            kind, key = position_kind()
            here(kind, key, "", col, col, False)
        if i >= len(line):
            break
        c = line[i]
        if c == '"':
            end, closed = _string_end(line, i)
            inner_end = end - 1 if closed else end
            value = _decode_partial(line[i + 1 : inner_end])
            if (found is None and i < col <= inner_end) or (found is None and col == end and not closed):
                kind, key = position_kind()
                here(kind, key, _decode_partial(line[i + 1 : col]), i, end if closed else col, True)
            if frame is not None and frame.kind == "object" and frame.expecting == "key":
                frame.current_key = value
                frame.members.setdefault(value, None)
                frame.expecting = "colon"
            else:
                value_done(value)
            i = end
        elif c in "{[":
            key = (
                frame.current_key
                if frame is not None and frame.kind == "object"
                else (frame.key if frame is not None else None)
            )
            new = Frame("object" if c == "{" else "array", key, frame)
            if frame is not None and frame.kind == "object" and frame.expecting == "value":
                frame.members[frame.current_key] = {} if c == "{" else []
                frame.expecting = "comma"
            frame = new
            top = top or new
            i += 1
        elif c in "}]":
            frame = frame.parent if frame is not None else None
            i += 1
        elif c == ":":
            if frame is not None and frame.kind == "object":
                frame.expecting = "value"
            i += 1
        elif c == ",":
            if frame is not None and frame.kind == "object":
                frame.expecting = "key"
            i += 1
        else:
            m = _SCALAR.match(line, i)
            end = m.end() if m else i + 1
            if found is None and i < col <= end:
                kind, key = position_kind()
                here(kind, key, line[i:col], i, end, False)
            value_done(line[i:end])
            i = end
    if found is None:
        kind, key = position_kind()
        here(kind, key, "", col, col, False)
    if found_frame is not None and found_frame.kind == "object":
        found.members = found_frame.members
    return found
