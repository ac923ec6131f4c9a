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
    #: the cursor's column
    col: int = 0
    #: a string token ends on the line (its closing quote is there)
    closed: bool = False

    @property
    def typed(self) -> tuple[int, int]:
        """[start, end) columns of what is typed of the token before the cursor: inside a string,
        after its opening quote (what a completion replaces, so the quotes stay the user's)."""
        return (self.start + 1 if self.in_string else self.start), self.col


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


class _Scan:
    """The walk of one line's tokens: the innermost open container, and the cursor's context once
    the walk has passed the cursor."""

    def __init__(self, line: str, col: int):
        self.line, self.col = line, col
        self.frame: Frame | None = None
        self.found: CursorContext | None = None
        self.found_frame: Frame | None = None

    def here(self, prefix: str, start: int, end: int, in_string: bool, closed: bool = False) -> None:
        """The cursor is here: on what the innermost container expects next."""
        frame = self.found_frame = self.frame
        kind: str = "none"
        key: str | None = None
        if frame is not None and frame.kind == "array":
            kind, key = "value", frame.key
        elif frame is not None and frame.expecting == "key":
            kind = "key"
        elif frame is not None and frame.expecting == "value":
            kind, key = "value", frame.current_key
        obj = frame if frame is not None and frame.kind == "object" else None
        in_locator = (
            obj is not None
            and obj.parent is not None
            and obj.parent.kind == "array"
            and obj.parent.key == "locators"
        )
        self.found = CursorContext(kind, key, in_locator, prefix, start, end, in_string, {}, self.col, closed)

    def value_done(self, value: object) -> None:
        frame = self.frame
        if frame is not None and frame.kind == "object" and frame.expecting == "value":
            if frame.current_key is not None:  # a value after a colon with no key is no member
                frame.members[frame.current_key] = value
            frame.expecting = "comma"

    def token(self, i: int) -> int:
        """Walk the token at ``i``; where the next one may start."""
        frame, c = self.frame, self.line[i]
        if c == '"':
            return self.string(i)
        if c in "{[":
            key = (
                frame.current_key
                if frame is not None and frame.kind == "object"
                else (frame.key if frame is not None else None)
            )
            self.value_done({} if c == "{" else [])
            self.frame = Frame("object" if c == "{" else "array", key, frame)
        elif c in "}]":
            self.frame = frame.parent if frame is not None else None
        elif c in ":,":
            if frame is not None and frame.kind == "object":
                frame.expecting = "value" if c == ":" else "key"
        else:
            return self.scalar(i)
        return i + 1

    def scalar(self, i: int) -> int:
        line, col = self.line, self.col
        m = _SCALAR.match(line, i)
        end = m.end() if m else i + 1
        if self.found is None and i < col <= end:
            self.here(line[i:col], i, end, False)
        self.value_done(line[i:end])
        return end

    def string(self, i: int) -> int:
        line, col, frame = self.line, self.col, self.frame
        end, closed = _string_end(line, i)
        inner_end = end - 1 if closed else end
        value = _decode_partial(line[i + 1 : inner_end])
        if self.found is None and (i < col <= inner_end or (col == end and not closed)):
            self.here(_decode_partial(line[i + 1 : col]), i, end if closed else col, True, closed)
        if frame is not None and frame.kind == "object" and frame.expecting == "key":
            frame.current_key = value
            frame.members.setdefault(value, None)
            frame.expecting = "colon"
        else:
            self.value_done(value)
        return end


def context_at(line: str, col: int) -> CursorContext:
    """The context of column ``col`` (code points) on ``line``."""
    scan = _Scan(line, col)
    i = 0
    while i <= len(line):
        # whitespace before a token: the cursor between tokens
        while i < len(line) and line[i].isspace():
            i += 1
        if (
            scan.found is None
            and col <= i
            and (i == len(line) or col >= 0)
            and (col < i or i == len(line) or line[i] in ",:]}")
        ):
            scan.here("", col, col, False)
        if i >= len(line):
            break
        i = scan.token(i)
    if scan.found is None:
        scan.here("", col, col, False)
    found = scan.found
    assert found is not None  # set just above
    if scan.found_frame is not None and scan.found_frame.kind == "object":
        found.members = scan.found_frame.members
    return found
