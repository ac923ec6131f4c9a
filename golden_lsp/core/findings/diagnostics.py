"""One diagnostic model for every finding, so the editor and CI report the very same objects.

The core produces ``Diagnostic`` values; the CLI prints them (text, JSON, GitHub annotations)
and the language server converts them to LSP diagnostics. Codes are a public contract: users
filter on them and pin CI on them, so each code is one entry of ``FINDINGS`` here (its default
severity, whether it blocks a build, its description and its section in ``docs/findings.md``),
which the config, the command line and every report read.
Positions are 0-based (line, column) with columns in code points of the file's own text; each
front end converts to its unit (1-based for humans, UTF-16 for most LSP clients).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


E, W = Severity.ERROR, Severity.WARNING

#: where the documentation is published; each finding's page section is ``findings/#<anchor>``
DOCS_URL = "https://golden-lsp.github.io/golden-lsp/"


@dataclass(frozen=True)
class Finding:
    """One finding code, as users meet it: the code they filter on and pin CI on, its severity
    when no ``[severity]`` changes it, and the one line a report describes it with."""

    code: str
    severity: Severity
    description: str
    #: the record (or file) cannot be built: always an error, whatever a set's ``[severity]``
    #: says, so that quieting a finding can never make a build silently drop a record
    blocking: bool = False

    @property
    def anchor(self) -> str:
        """The section of ``docs/findings.md`` that explains the code (its heading's ``{#id}``)."""
        return self.code

    @property
    def help_uri(self) -> str:
        return f"{DOCS_URL}findings/#{self.anchor}"


def _table(*findings: Finding) -> dict[str, Finding]:
    return {f.code: f for f in findings}


#: Every finding golden-lsp makes, in the order reports list them (SARIF's rule table). The
#: config's ``[severity]``, ``--select``/``--ignore``, SARIF and the docs all read this table.
FINDINGS: dict[str, Finding] = _table(
    Finding("invalid-json", E, "The line is not valid JSON.", blocking=True),
    Finding("not-an-object", E, "The line is JSON but not an object.", blocking=True),
    Finding(
        "missing-field",
        E,
        "A required field (id, query, expected_answer, locators) is missing.",
        blocking=True,
    ),
    Finding("wrong-type", E, "A field has the wrong type.", blocking=True),
    Finding("duplicate-key", E, "A JSON object holds the same key twice (the last one would win silently)."),
    Finding("unknown-field", W, "A key the questions format does not know (a typo?)."),
    Finding("duplicate-id", E, "Two records share an id; ids are unique and never reused."),
    Finding("duplicate-query", W, "The same query appears twice."),
    Finding(
        "id-reused",
        W,
        "An id the committed artifact holds for another query: ids are cited and never reused.",
    ),
    Finding("unknown-doc", E, "The locator's doc is not in the corpus.", blocking=True),
    Finding("empty-quote", E, "The locator's quote is empty.", blocking=True),
    Finding("quote-not-found", E, "The quote does not occur in the document.", blocking=True),
    Finding("quote-ambiguous", E, "The quote occurs more than once in the document.", blocking=True),
    Finding("quote-multiline", W, "The quote spans lines of the document."),
    Finding("no-bearing-chunk", E, "No chunk bears the span under the hit rule.", blocking=True),
    Finding("hop-mismatch", W, "The record's hop does not match its number of locators."),
    Finding("span-too-short", W, "The resolved span is too short to be a meaningful label."),
    Finding(
        "many-chunks",
        Severity.INFO,
        "The record's spans bear more than ten chunks: a span grown too far, or a question too broad.",
    ),
    Finding("answer-too-thin", W, "The expected answer is too short."),
    Finding(
        "answer-unsupported",
        W,
        "The expected answer relies on numbers, versions, code or names that none of its spans holds.",
    ),
    Finding(
        "query-copies-passage", W, "The query copies a run of its passage's words: it tests string matching."
    ),
    Finding("empty-query", E, "The record's query is empty: there is nothing to retrieve for."),
    Finding("too-few-records", W, "The set has fewer records than a golden set needs."),
    Finding("doc-dominates", W, "One document holds too large a share of the set's spans."),
    Finding("doc-unlabelled", W, "No question points into a document of the corpus."),
    Finding("stale-artifact", E, "The committed artifact differs from a fresh build."),
    Finding("stale-manifest", E, "The committed manifest differs from a fresh build."),
    Finding(
        "passage-changed",
        W,
        "A label's passage changed since the last build: what it labels may say something else now.",
    ),
    Finding("corpus-error", E, "A corpus file cannot be read as UTF-8.", blocking=True),
    Finding("config-error", E, "The questions file's golden set cannot be loaded.", blocking=True),
    Finding("unknown-query-type", E, "The record's query_type is not in the set's vocabulary."),
    Finding("query-type-missing", W, "A query type the set requires has no record."),
    Finding("unanswerable-with-locators", E, "An unanswerable record has locators."),
    Finding("no-locators", W, "An answerable record has no locators."),
    Finding("multiple-primary", E, "More than one locator of a record is marked primary."),
    Finding("multi-hop-single-span", W, "A multi-hop query type with a single span."),
    Finding("split-leak", W, "The same query, or overlapping spans, in both the dev and the test split."),
    Finding(
        "query-pii",
        W,
        "The query or expected answer holds personal data: an e-mail address, a phone, card or account number, an IP address.",
    ),
    Finding(
        "retention-expired",
        W,
        "A record drawn from traffic (sampled_at) is older than the set's retention_days.",
    ),
    Finding("import-not-found", W, "An imported reference context does not occur in the corpus."),
    Finding("import-ambiguous", W, "An imported reference context occurs more than once in the corpus."),
)


#: the findings of a label whose passage moved, changed or went when the corpus changed: what
#: re-anchoring repairs (``keep.migrate``; the editor's quick fix, ``check``'s CI formats)
BROKEN_LABEL = ("quote-not-found", "quote-ambiguous", "unknown-doc")


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


#: the key of ``Diagnostic.data`` marking a finding about the whole set or one of its documents, not
#: about the line it sits on (it sits where a person acts on it: the document, the config, or
#: ``model.set_anchor``)
WHOLE_SET = "whole_set"


@dataclass(frozen=True)
class Diagnostic:
    code: str
    message: str
    path: Path
    range: Range
    related: tuple[Related, ...] = ()
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    #: the severity a set's config gave this code; None: its default in ``FINDINGS``
    level: Severity | None = None

    @classmethod
    def at_columns(
        cls, code: str, message: str, start: int, end: int, related: Sequence[Related] = (), **data: Any
    ) -> Diagnostic:
        """A finding in one line's text at columns [start, end), on line 0 of no file yet.

        Lines are analysed independently of where they sit; ``moved_to`` places the finding.
        """
        return cls(code, message, Path(), Range.on_line(0, start, end), tuple(related), data)

    @property
    def severity(self) -> Severity:
        return self.level or FINDINGS[self.code].severity

    @property
    def whole_set(self) -> bool:
        """A finding about the whole set, not about the line it sits on."""
        return bool(self.data.get(WHOLE_SET))

    def moved_to(self, line: int, path: Path) -> Diagnostic:
        return dataclasses.replace(self, range=self.range.moved_to(line), path=path)


def short(text: str, limit: int = 60) -> str:
    """``text`` on one line, cut at a word's end when it is longer than ``limit`` (never inside a
    word that a shorter cut keeps whole)."""
    text = text.replace("\n", "⏎")
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rstrip().rfind(" ")
    return (cut[:space].rstrip() if space > limit // 2 else cut) + "…"


def plural(n: int, word: str, many: str | None = None) -> str:
    """ "1 error", "2 errors" (``many`` for irregular plurals)."""
    return f"{n} {word if n == 1 else many or word + 's'}"
