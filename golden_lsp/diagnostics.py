"""One diagnostic model for every finding, so the editor and CI report the very same objects.

The core produces ``Diagnostic`` values; the CLI prints them (text, JSON, GitHub annotations)
and the language server converts them to LSP diagnostics. Codes are a public contract: users
filter on them and pin CI on them, so each code and its default severity is declared once here.
Positions are 0-based (line, column) with columns in code points of the file's own text; each
front end converts to its unit (1-based for humans, UTF-16 for most LSP clients).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


E, W = Severity.ERROR, Severity.WARNING

#: Every diagnostic code golden-lsp emits, with its severity in CI.
CODES: dict[str, Severity] = {
    "invalid-json": E,
    "not-an-object": E,
    "missing-field": E,
    "wrong-type": E,
    "duplicate-key": E,
    "unknown-field": W,
    "duplicate-id": E,
    "duplicate-query": W,
    "id-reused": W,
    "unknown-doc": E,
    "empty-quote": E,
    "quote-not-found": E,
    "quote-ambiguous": E,
    "quote-multiline": W,
    "no-bearing-chunk": E,
    "hop-mismatch": W,
    "span-too-short": W,
    "answer-too-thin": W,
    "too-few-records": W,
    "doc-dominates": W,
    "doc-unlabelled": W,
    "stale-artifact": E,
    "stale-manifest": E,
    "corpus-error": E,
    "config-error": E,
    "unknown-query-type": E,
    "query-type-missing": W,
    "unanswerable-with-locators": E,
    "no-locators": W,
    "multiple-primary": E,
    "multi-hop-single-span": W,
    "split-leak": W,
    "import-not-found": W,
    "import-ambiguous": W,
}

#: codes whose record (or file) cannot be built: always errors, whatever a set's ``[severity]``
#: says, so that quieting a finding can never make a build silently drop a record
BLOCKING = frozenset({"invalid-json", "not-an-object", "missing-field", "wrong-type", "unknown-doc",
                      "empty-quote", "quote-not-found", "quote-ambiguous", "no-bearing-chunk",
                      "corpus-error", "config-error"})


@dataclass(frozen=True)
class Range:
    line: int
    column: int
    end_line: int
    end_column: int

    @classmethod
    def on_line(cls, line: int, start: int, end: int) -> Range:
        return cls(line, start, line, end)

    def moved_to(self, line: int) -> Range:
        """This range with its first line at ``line`` (ranges from a single-line parse)."""
        return Range(line, self.column, line + self.end_line - self.line, self.end_column)

    def one_based(self) -> Range:
        """The same range numbered for people (and CI annotations): lines and columns from 1."""
        return Range(self.line + 1, self.column + 1, self.end_line + 1, self.end_column + 1)


@dataclass(frozen=True)
class Related:
    """Another place that explains a finding, e.g. one occurrence of an ambiguous quote.

    ``range`` is in the raw file at ``path``; for a corpus location ``doc_id`` and the canonical
    ``offsets`` are kept too, so front ends can re-derive positions in their own units.
    """

    path: Path
    range: Range
    message: str
    doc_id: str | None = None
    offsets: tuple[int, int] | None = None


@dataclass(frozen=True)
class Diagnostic:
    code: str
    message: str
    path: Path
    range: Range
    related: tuple[Related, ...] = ()
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    #: the severity a set's config gave this code; None: the default of ``CODES``
    level: Severity | None = None

    @classmethod
    def at_columns(cls, code: str, message: str, start: int, end: int, related: tuple[Related, ...] = (),
                   **data: Any) -> Diagnostic:
        """A finding in one line's text at columns [start, end), on line 0 of no file yet.

        Lines are analysed independently of where they sit; ``moved_to`` places the finding.
        """
        return cls(code, message, Path(), Range.on_line(0, start, end), tuple(related), data)

    @property
    def severity(self) -> Severity:
        return self.level or CODES[self.code]

    def moved_to(self, line: int, path: Path) -> Diagnostic:
        return dataclasses.replace(self, range=self.range.moved_to(line), path=path)
