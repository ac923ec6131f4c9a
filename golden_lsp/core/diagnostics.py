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
BLOCKING = frozenset(
    {
        "invalid-json",
        "not-an-object",
        "missing-field",
        "wrong-type",
        "unknown-doc",
        "empty-quote",
        "quote-not-found",
        "quote-ambiguous",
        "no-bearing-chunk",
        "corpus-error",
        "config-error",
    }
)
#: One line per code, for reports that describe their rules (SARIF's rule table, ``--format``s).
DESCRIPTIONS: dict[str, str] = {
    "invalid-json": "The line is not valid JSON.",
    "not-an-object": "The line is JSON but not an object.",
    "missing-field": "A required field (id, query, expected_answer, locators) is missing.",
    "wrong-type": "A field has the wrong type.",
    "unknown-field": "A key the questions format does not know (a typo?).",
    "duplicate-id": "Two records share an id; ids are unique and never reused.",
    "duplicate-query": "The same query appears twice.",
    "unknown-doc": "The locator's doc is not in the corpus.",
    "empty-quote": "The locator's quote is empty.",
    "quote-not-found": "The quote does not occur in the document.",
    "quote-ambiguous": "The quote occurs more than once in the document.",
    "quote-multiline": "The quote spans lines of the document.",
    "no-bearing-chunk": "No chunk bears the span under the hit rule.",
    "hop-mismatch": "The record's hop does not match its number of locators.",
    "span-too-short": "The resolved span is too short to be a meaningful label.",
    "answer-too-thin": "The expected answer is too short.",
    "too-few-records": "The set has fewer records than a golden set needs.",
    "doc-dominates": "One document holds too large a share of the set's spans.",
    "doc-unlabelled": "No question points into a document of the corpus.",
    "stale-artifact": "The committed artifact differs from a fresh build.",
    "stale-manifest": "The committed manifest differs from a fresh build.",
    "corpus-error": "A corpus file cannot be read as UTF-8.",
    "config-error": "The questions file's golden set cannot be loaded.",
    "duplicate-key": "A JSON object holds the same key twice (the last one would win silently).",
    "id-reused": "An id the committed artifact holds for another query: ids are cited and never reused.",
    "unknown-query-type": "The record's query_type is not in the set's vocabulary.",
    "query-type-missing": "A query type the set requires has no record.",
    "unanswerable-with-locators": "An unanswerable record has locators.",
    "no-locators": "An answerable record has no locators.",
    "multiple-primary": "More than one locator of a record is marked primary.",
    "multi-hop-single-span": "A multi-hop query type with a single span.",
    "split-leak": "The same query, or overlapping spans, in both the dev and the test split.",
    "import-not-found": "An imported reference context does not occur in the corpus.",
    "import-ambiguous": "An imported reference context occurs more than once in the corpus.",
}


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
    def at_columns(
        cls, code: str, message: str, start: int, end: int, related: tuple[Related, ...] = (), **data: Any
    ) -> Diagnostic:
        """A finding in one line's text at columns [start, end), on line 0 of no file yet.

        Lines are analysed independently of where they sit; ``moved_to`` places the finding.
        """
        return cls(code, message, Path(), Range.on_line(0, start, end), tuple(related), data)

    @property
    def severity(self) -> Severity:
        return self.level or CODES[self.code]

    def moved_to(self, line: int, path: Path) -> Diagnostic:
        return dataclasses.replace(self, range=self.range.moved_to(line), path=path)


def plural(n: int, word: str, many: str | None = None) -> str:
    """ "1 error", "2 errors" (``many`` for irregular plurals)."""
    return f"{n} {word if n == 1 else many or word + 's'}"
