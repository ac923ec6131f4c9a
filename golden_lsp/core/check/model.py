"""The result model of an analysis: what every feature reads, and nothing that computes it.

The engine (``analysis.py``) and the rules (``rules.py``) produce these plain values; the CLI,
the language server, the artifact (``artifact.py``, which serialises them) and every later use of
a set (stats, export, evaluation, reports, corpus-side features) only read them. Keeping the
model apart means none of those readers can reach into the engine's cache, and the cache can
change without touching them; this module imports none of them. The one derived structure kept
here is the reverse index from corpus documents to the records whose spans lie in them, built at
most once per analysis, because the corpus side of the editor asks "who labels this passage?" on
every hover and code lens.
"""

from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from ..findings.diagnostics import Diagnostic, Range, Severity
from ..labels.questions import Locator, QuestionRecord
from ..labels.resolve import Span
from ..text.chunker import Chunk


@dataclass
class ResolvedLocator:
    locator: Locator
    span: Span | None = None
    chunks: list[Chunk] = field(default_factory=list)
    coverage: float = 0.0
    #: the first start offsets of an ambiguous quote (at most rules.MAX_LISTED_OCCURRENCES + 1)
    ambiguous_at: list[int] = field(default_factory=list)
    #: the span's text, from the quote's facts (the document's text is not needed back)
    passage: str = ""


@dataclass
class LineResult:
    """What one line yields, independent of where the line sits in the file."""

    record: QuestionRecord | None
    resolved: list[ResolvedLocator]
    diagnostics: list[Diagnostic]  # on line 0, moved into place by ``Analysis``
    #: every locator resolved to a span borne by chunks, in a valid record: the line builds
    buildable: bool
    deps: tuple[tuple[str, str | None], ...]
    #: the line's artifact line once ``artifact.line_of`` serialised it (the artifact's memo,
    #: kept with the result it was made from, so it lives and goes with it)
    artifact_memo: str | None = field(default=None, init=False, repr=False, compare=False)

    @cached_property
    def span_docs(self) -> list[str]:
        """The doc of every well-formed locator, once per locator (the set's balance counts spans)."""
        return [loc.doc for loc in self.record.locators if loc.doc is not None] if self.record else []


@dataclass
class RecordLine:
    line: int
    result: LineResult

    @property
    def record(self) -> QuestionRecord | None:
        return self.result.record


def set_anchor(records: list[RecordLine]) -> Range:
    """Where the findings about the whole set sit: the first character of the file's first line
    that is not skipped (never a comment or a blank line), or line 0 of a file without one."""
    return Range.on_line(records[0].line, 0, 1) if records else Range.on_line(0, 0, 0)


@dataclass(frozen=True)
class LabelledSpan:
    """One resolved span of one record, as the corpus side sees it."""

    start: int
    end: int
    record: RecordLine
    locator: ResolvedLocator


@dataclass
class Analysis:
    path: Path
    records: list[RecordLine]
    diagnostics: list[Diagnostic]
    #: how many records parsed (the engine counts them as it goes; None: counted when asked)
    n_records: int | None = None
    #: False when the engine knows that no span and no labelled record moved since the previous
    #: analysis of this file (what the corpus side shows is unchanged)
    spans_changed: bool = True

    @property
    def set_anchor(self) -> Range:
        """Where the findings about the whole set sit (``set_anchor``)."""
        return set_anchor(self.records)

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.diagnostics)

    @cached_property
    def _by_line(self) -> dict[int, RecordLine]:
        return {r.line: r for r in self.records}

    def record_at(self, line: int) -> RecordLine | None:
        return self._by_line.get(line)

    @cached_property
    def _counts(self) -> dict[str, int]:
        by = Counter(d.severity for d in self.diagnostics)
        n = self.n_records
        return {
            "records": sum(1 for r in self.records if r.result.record is not None) if n is None else n,
            "errors": by[Severity.ERROR],
            "warnings": by[Severity.WARNING],
        }

    def counts(self) -> dict[str, int]:
        """Records, errors and warnings (computed once per analysis)."""
        return dict(self._counts)

    @cached_property
    def spans_by_doc(self) -> dict[str, list[LabelledSpan]]:
        """Every resolved span, grouped by document and sorted by (start, end, line)."""
        out: dict[str, list[LabelledSpan]] = {}
        for rec in self.records:
            for resolved in rec.result.resolved:
                span = resolved.span
                if span is not None:
                    out.setdefault(span.doc_id, []).append(LabelledSpan(span.start, span.end, rec, resolved))
        for spans in out.values():
            spans.sort(key=lambda s: (s.start, s.end, s.record.line))
        return out

    @cached_property
    def _span_starts(self) -> dict[str, list[int]]:
        return {doc_id: [s.start for s in spans] for doc_id, spans in self.spans_by_doc.items()}

    def spans_overlapping(self, doc_id: str, start: int, end: int) -> list[LabelledSpan]:
        """The resolved spans in ``doc_id`` that overlap [start, end) (a point when start == end)."""
        spans = self.spans_by_doc.get(doc_id, [])
        stop = bisect.bisect_left(self._span_starts.get(doc_id, []), max(end, start + 1))
        return [s for s in spans[:stop] if s.end > start]
