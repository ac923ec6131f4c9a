"""A record's metadata: where it came from, for whom, and anything a team wants to slice by.

An aggregate hides the tenant whose corpus is broken, and a trace, an eval and a cost row that
cannot be joined answer no question, so a record may say who it is for (``tenant``), where it came
from (``source``, ``request_id``, ``sampled_at``), a note for people (``notes``) and any other
key/value pairs (``meta``). None of them changes what a record means, so none enters a chunk or a
span; they are checked here for their type only (the parser reports each error at its value), and
carried unchanged into the artifact, the exports that can hold them, hover and ``eval --by``.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

#: the top-level string fields, then the two checked otherwise (in the order they are shown)
STRING_FIELDS = ("tenant", "source", "request_id", "notes")
METADATA_FIELDS = (*STRING_FIELDS, "sampled_at", "meta")

#: ISO 8601 as golden-lsp accepts it: a date, or a date and a time (seconds, fraction and an offset
#: optional; ``T`` or one space between them)
_ISO = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-](\d{2}):?(\d{2}))?)?"
)


def is_iso_date(text: str) -> bool:
    """``YYYY-MM-DD`` or an ISO 8601 date-time on that date, every part in its range."""
    m = _ISO.fullmatch(text)
    if m is None:
        return False
    year, month, day, hour, minute, second, _, _, off_h, off_m = m.groups()
    try:
        datetime(int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0))
    except ValueError:
        return False
    return off_h is None or (int(off_h) <= 23 and int(off_m) <= 59)


def metadata_errors(members: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, message) for each metadata field of a record's object whose value is mistyped."""
    out = []
    for name in STRING_FIELDS:
        if name in members and not isinstance(members[name], str):
            out.append((name, f"{name!r} must be a string"))
    if "sampled_at" in members:
        value = members["sampled_at"]
        if not (isinstance(value, str) and is_iso_date(value)):
            out.append(
                (
                    "sampled_at",
                    "'sampled_at' must be an ISO 8601 date (\"2026-03-01\") or date-time "
                    '("2026-03-01T14:05:00Z")',
                )
            )
    if "meta" in members and not isinstance(members["meta"], dict):
        out.append(("meta", "'meta' must be a JSON object of key/value pairs"))
    return out


def metadata(value: dict[str, Any]) -> dict[str, Any]:
    """The well-typed metadata fields of a record's object, in ``METADATA_FIELDS`` order (the
    artifact's extra keys, what hover shows)."""
    bad = {name for name, _ in metadata_errors(value)}
    return {name: value[name] for name in METADATA_FIELDS if name in value and name not in bad}


def flat_metadata(value: dict[str, Any]) -> dict[str, str | int | float | bool | None]:
    """The metadata usable to slice by: the top-level fields, and ``meta.KEY`` for each scalar value
    of ``meta`` (a list or an object there is kept, but no slice can be made of it)."""
    found = metadata(value)
    out: dict[str, str | int | float | bool | None] = {
        n: found[n] for n in METADATA_FIELDS[:-1] if n in found
    }
    for key, v in found.get("meta", {}).items():
        if v is None or isinstance(v, (str, int, float, bool)):
            out[f"meta.{key}"] = v
    return out
