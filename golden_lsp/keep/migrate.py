"""Labels that follow the corpus: every locator of a questions file relocated, and the file rewritten.

A migration reads the questions file as records (no rule is run), relocates every locator with
one ``relocate.Relocator`` — so ``golden-lsp migrate``, ``check``'s CI formats and the editor's quick
fix give the same answer for the same locator — and writes back only what is safe: the new
``doc`` and ``quote`` values of the rewritten statuses (``REWRITTEN``), each value replaced whole on
its own line, every other character of the file as it was (a BOM, CRLF and all).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol, TypeGuard

from ..core.labels.jsonline import is_skipped, split_lines
from ..core.labels.questions import Locator, QuestionRecord, parse_record
from ..core.text.canon import editor_text
from .relocate import STATUSES, Relocation, Relocator, with_answer


class Usable(Protocol):
    """A locator with a string doc and quote: one a relocation can follow."""

    doc: str
    quote: str
    exact: bool


@dataclass(frozen=True)
class Migrated:
    """One locator of a questions file and where it goes."""

    #: the record's line in the file (0-based)
    line: int
    record: QuestionRecord
    locator: Locator
    relocation: Relocation


def migrate(records: Iterable[tuple[int, QuestionRecord]], relocator: Relocator) -> list[Migrated]:
    """Every locator of the parsed records (each with its line in the file), relocated; a locator
    without a string doc and quote is ``lost``: there is nothing to relocate."""
    todo = [(line, record, loc) for line, record in records for loc in record.locators]
    found = iter(
        relocator.relocate_all([(loc.doc, loc.quote, loc.exact) for *_, loc in todo if _usable(loc)])
    )
    out = []
    for line, record, loc in todo:
        if _usable(loc):
            relocation = with_answer(next(found), record.expected_answer)
        else:
            relocation = Relocation(
                "lost", loc.doc, None, loc.quote, None, note='not a {"doc", "quote"} locator'
            )
        out.append(Migrated(line, record, loc, relocation))
    return out


def parsed_records(text: str) -> list[tuple[int, QuestionRecord]]:
    """Each line of a questions file that parses as a record, with its line (0-based): all a
    migration reads of it (no rule is run)."""
    out = []
    for line, source in enumerate(split_lines(text)):
        if not is_skipped(source) and (record := parse_record(source)[0]) is not None:
            out.append((line, record))
    return out


def _usable(loc: Locator) -> TypeGuard[Usable]:
    return isinstance(loc.doc, str) and isinstance(loc.quote, str)


def counts(migrated: Iterable[Migrated]) -> dict[str, int]:
    """How many locators got each status, every status named (in ``STATUSES`` order)."""
    seen = Counter(m.relocation.status for m in migrated)
    return {status: seen[status] for status in STATUSES}


def value_edits(
    locator: Locator, relocation: Relocation, fact_changed: bool = False
) -> list[tuple[int, int, str]]:
    """Column edits (start, end, JSON string) on the record's line that write a rewritten
    relocation's doc and quote (a fact-changed one's too when ``fact_changed``): only the values
    that change, each replaced whole."""
    if not relocation.writes(fact_changed):
        return []
    edits = []
    for name, old, new in (
        ("doc", relocation.old_doc, relocation.doc),
        ("quote", relocation.old_quote, relocation.quote),
    ):
        if new != old:
            node = locator.node.members[name][1]
            edits.append((node.start, node.end, json.dumps(new, ensure_ascii=False)))
    return edits


_BREAK = re.compile(r"\r\n|\r|\n")


def rewritten(raw: str, migrated: Iterable[Migrated], fact_changed: bool = False) -> str | None:
    """The questions file's text (as read: a BOM, CRLF and all) with the new doc and quote of every
    rewritten locator (and fact-changed one, when ``fact_changed``), every other character as it
    was; None when nothing changes."""
    bom = len(raw) - len(editor_text(raw))
    starts = [bom] + [m.end() for m in _BREAK.finditer(raw, bom)]
    edits = sorted(
        (starts[m.line] + a, starts[m.line] + b, new)
        for m in migrated
        for a, b, new in value_edits(m.locator, m.relocation, fact_changed)
    )
    if not edits:
        return None
    out, pos = [], 0
    for a, b, new in edits:
        out += [raw[pos:a], new]
        pos = b
    out.append(raw[pos:])
    return "".join(out)
