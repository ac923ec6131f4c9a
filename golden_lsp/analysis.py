"""Analysis of a questions file against the corpus: every finding, every resolved span.

This is the one function both front ends call: the CLI on a file from disk, the server on the
buffer as typed. Work is per line and cached by the line's text and the versions of the
documents it points into, so a keystroke re-resolves only the line it touched (and a corpus edit
only the lines quoting that document); the set-level rules (duplicates, balance, size) are cheap
passes over the cached results.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from .canon import CANONICAL_VERSION
from .chunker import CHUNKER_VERSION, Chunk
from .corpus import Corpus
from .diagnostics import Diagnostic, Range, Related, Severity
from .questions import JsonNode, Locator, QuestionRecord, is_skipped, parse_record, split_lines
from .resolve import Span, not_found_hint, occurrences, span_at
from .scoring import HitRule, bearing_chunks, union_coverage

MIN_SPAN_CHARS = 30
MIN_ANSWER_CHARS = 20
MIN_RECORDS = 50
MAX_DOC_SHARE = 0.6
#: related locations listed for an ambiguous quote (the count is always exact)
MAX_LISTED_OCCURRENCES = 20


@dataclass
class ResolvedLocator:
    locator: Locator
    span: Span | None = None
    chunks: list[Chunk] = field(default_factory=list)
    coverage: float = 0.0
    #: every start offset when the quote is ambiguous (at most MAX_LISTED_OCCURRENCES + 1)
    ambiguous_at: list[int] = field(default_factory=list)


@dataclass
class LineResult:
    """What one line yields, independent of where the line sits in the file."""

    record: QuestionRecord | None
    resolved: list[ResolvedLocator]
    diagnostics: list[Diagnostic]  # on line 0, moved into place by ``Analysis``
    artifact_line: str | None
    deps: tuple[tuple[str, str | None], ...]


@dataclass
class RecordLine:
    line: int
    result: LineResult

    @property
    def record(self) -> QuestionRecord | None:
        return self.result.record


@dataclass
class Analysis:
    path: Path
    text: str
    records: list[RecordLine]
    diagnostics: list[Diagnostic]

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.diagnostics)

    def artifact_text(self) -> str | None:
        """The artifact body, or None when any error forbids a build."""
        if self.has_errors:
            return None
        return "".join(r.result.artifact_line or "" for r in self.records if r.record is not None)

    @cached_property
    def _by_line(self) -> dict[int, RecordLine]:
        return {r.line: r for r in self.records}

    def record_at(self, line: int) -> RecordLine | None:
        return self._by_line.get(line)

    def counts(self) -> dict[str, int]:
        by = Counter(d.severity for d in self.diagnostics)
        return {"records": sum(1 for r in self.records if r.record is not None),
                "errors": by[Severity.ERROR], "warnings": by[Severity.WARNING]}


def _diag(code: str, message: str, node: JsonNode | tuple[int, int], related=(), **data) -> Diagnostic:
    start, end = (node.start, node.end) if isinstance(node, JsonNode) else node
    return Diagnostic(code, message, Path(), Range.on_line(0, start, end), tuple(related), data)


def corpus_location(corpus: Corpus, doc_id: str, start: int, end: int, message: str) -> Related:
    """A related location in a corpus file, positioned in the raw file the editor opens."""
    doc = corpus.docs[doc_id]
    line, col = doc.positions.raw_position(start)
    end_line, end_col = doc.positions.raw_position(end)
    return Related(doc.path, Range(line, col, end_line, end_col), message, doc_id, (start, end))


def _short(text: str, limit: int = 60) -> str:
    text = text.replace("\n", "⏎")
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Analyzer:
    """Analyses questions files against one corpus, reusing per-line results across calls."""

    def __init__(self, corpus: Corpus, hit_rule: HitRule):
        self.corpus = corpus
        self.hit_rule = hit_rule
        self._cache: dict[str, LineResult] = {}

    def set_corpus(self, corpus: Corpus) -> None:
        """Swap in an edited corpus; cached lines stay valid where their documents did."""
        if corpus.max_chars != self.corpus.max_chars:
            self._cache.clear()
        self.corpus = corpus

    def _fresh(self, result: LineResult) -> bool:
        docs = self.corpus.docs
        for doc_id, sha in result.deps:
            doc = docs.get(doc_id)
            if (doc.sha256 if doc is not None else None) != sha or doc_id in self.corpus.broken:
                return False
        return True

    def analyze(self, path: Path, text: str) -> Analysis:
        cache: dict[str, LineResult] = {}
        records: list[RecordLine] = []
        diagnostics: list[Diagnostic] = []
        for no, line in enumerate(split_lines(text)):
            if is_skipped(line):
                continue
            result = cache.get(line) or self._cache.get(line)
            if result is None or not self._fresh(result):
                result = self._analyze_line(line)
            cache[line] = result
            records.append(RecordLine(no, result))
            diagnostics.extend(d.moved_to(no, path) for d in result.diagnostics)
        self._cache = cache
        diagnostics.extend(self._set_rules(path, text, records))
        diagnostics.sort(key=lambda d: (d.range.line, d.range.column, d.code))
        return Analysis(path, text, records, diagnostics)

    # --- one line ---------------------------------------------------------------------------

    def _analyze_line(self, line: str) -> LineResult:
        record, diags = parse_record(line)
        if record is None:
            return LineResult(None, [], diags, None, ())
        deps: dict[str, str | None] = {}
        resolved = []
        for locator in record.locators:
            if locator.doc is not None:
                doc = self.corpus.docs.get(locator.doc)
                deps[locator.doc] = doc.sha256 if doc else None
            resolved.append(self._resolve(locator, diags))
        self._record_shape(record, resolved, diags)
        ok = record.valid and all(r.span is not None and r.chunks for r in resolved)
        artifact = _artifact_line(record, resolved) if ok else None
        return LineResult(record, resolved, diags, artifact, tuple(sorted(deps.items())))

    def _resolve(self, locator: Locator, diags: list[Diagnostic]) -> ResolvedLocator:
        out = ResolvedLocator(locator)
        if not locator.well_formed:
            return out
        doc_id, quote, qnode = locator.doc, locator.quote, locator.quote_node
        corpus = self.corpus
        if doc_id in corpus.broken:
            return out  # reported once as corpus-error on the file itself
        doc = corpus.docs.get(doc_id)
        if doc is None:
            known = ", ".join(corpus.docs) if len(corpus.docs) <= 8 else f"{len(corpus.docs)} documents"
            diags.append(_diag("unknown-doc", f"unknown doc {doc_id!r} (corpus: {known})", locator.doc_node))
            return out
        if not quote:
            diags.append(_diag("empty-quote", "the quote is empty: quote a few exact words of the answer", qnode))
            return out
        if "\n" in quote:
            diags.append(_diag("quote-multiline", "the quote spans lines: keep quotes on one line of the doc", qnode))
        found = occurrences(doc.text, quote, MAX_LISTED_OCCURRENCES + 1)
        if not found:
            diags.append(self._not_found(doc_id, doc.text, quote, qnode))
            return out
        if len(found) > 1:
            total = len(found) if len(found) <= MAX_LISTED_OCCURRENCES else len(occurrences(doc.text, quote))
            out.ambiguous_at = found
            related = [corpus_location(corpus, doc_id, at, at + len(quote), f"occurrence {i + 1} of {total}")
                       for i, at in enumerate(found[:MAX_LISTED_OCCURRENCES])]
            where = ", ".join("{}:{}".format(*_human(r.range)) for r in related[:5])
            more = ", …" if total > 5 else ""
            diags.append(_diag("quote-ambiguous", f"quote occurs {total} times in {doc_id} (at {where}{more}): "
                               "lengthen it until it is unique", qnode, related, doc_id=doc_id))
            return out
        span = span_at(doc_id, doc.text, found[0], quote, locator.exact)
        out.span = span
        out.chunks = bearing_chunks(self.hit_rule, doc.chunks_overlapping(span.start, span.end), span)
        out.coverage = union_coverage(out.chunks, span)
        if not out.chunks:
            diags.append(_diag("no-bearing-chunk", f"no chunk bears the span {span.start}–{span.end} of {doc_id} "
                               f"under hit rule {self.hit_rule} (headings are not part of any chunk body)", qnode))
        if len(doc.text[span.start:span.end].strip()) < MIN_SPAN_CHARS:
            diags.append(_diag("span-too-short", f"the resolved span ({span.rule}) is under {MIN_SPAN_CHARS} "
                               "characters: the label is probably mis-anchored", qnode))
        return out

    def _not_found(self, doc_id: str, text: str, quote: str, qnode: JsonNode) -> Diagnostic:
        hint = not_found_hint(text, quote)
        if hint is None:
            return _diag("quote-not-found", f"quote not found in {doc_id}", qnode)
        loc = corpus_location(self.corpus, doc_id, hint.start, hint.end, f"the text as it is in {doc_id}")
        line, col = _human(loc.range)
        why = {"line break": "across a line break", "whitespace": "with different whitespace",
               "typography": "with different quotes or dashes"}[hint.kind]
        return _diag("quote-not-found", f"quote not found in {doc_id}; the same words occur {why} at "
                     f"{line}:{col}: {_short(hint.corpus_text)!r}", qnode, [loc],
                     doc_id=doc_id, replacement=hint.corpus_text, hint=hint.kind)

    @staticmethod
    def _record_shape(record: QuestionRecord, resolved: list[ResolvedLocator], diags: list[Diagnostic]) -> None:
        n = len(record.locators)
        locators_ok = isinstance(record.node.value.get("locators"), list)
        if locators_ok and ((record.hop == "single" and n != 1) or (record.hop == "multi" and n < 2)):
            where = record.field_range("hop") if "hop" in record.node.members else record.field_range("locators")
            need = "exactly one locator" if record.hop == "single" else "at least two locators"
            diags.append(_diag("hop-mismatch", f"hop {record.hop!r} needs {need}, found {n}", where))
        if record.expected_answer is not None and len(record.expected_answer.strip()) < MIN_ANSWER_CHARS:
            diags.append(_diag("answer-too-thin", f"expected_answer is under {MIN_ANSWER_CHARS} characters: "
                               "too thin to grade against", record.field_range("expected_answer")))

    # --- the whole set ----------------------------------------------------------------------

    def _set_rules(self, path: Path, text: str, records: list[RecordLine]) -> list[Diagnostic]:
        out: list[Diagnostic] = []
        top = Range.on_line(0, 0, len(text.split("\n", 1)[0]))
        for name, code in (("id", "duplicate-id"), ("query", "duplicate-query")):
            seen: dict[str, RecordLine] = {}
            for r in records:
                value = getattr(r.record, name, None) if r.record else None
                if value is None:
                    continue
                if value in seen:
                    first = seen[value]
                    s, e = first.record.field_range(name)
                    related = Related(path, Range.on_line(first.line, s, e), f"first used on line {first.line + 1}")
                    s, e = r.record.field_range(name)
                    out.append(Diagnostic(code, f"{name} {_short(value)!r} already used on line {first.line + 1}",
                                          path, Range.on_line(r.line, s, e), (related,)))
                else:
                    seen[value] = r
        n_records = sum(1 for r in records if r.record is not None)
        if n_records < MIN_RECORDS:
            out.append(Diagnostic("too-few-records", f"{n_records} records: a golden set needs at least "
                                  f"{MIN_RECORDS} to measure anything", path, top))
        spans = Counter(loc.doc for r in records if r.record for loc in r.record.locators
                        if loc.doc in self.corpus.docs)
        total = sum(spans.values())
        for doc_id, n in spans.items():
            if total and n / total > MAX_DOC_SHARE:
                out.append(Diagnostic("doc-dominates", f"{doc_id} holds {n} of {total} spans "
                                      f"({n / total:.0%} > {MAX_DOC_SHARE:.0%}): the set is lopsided", path, top))
        for doc_id, doc in self.corpus.docs.items():
            if spans[doc_id] == 0 and n_records:
                related = Related(doc.path, Range.on_line(0, 0, 0), "the unlabelled document", doc_id, (0, 0))
                out.append(Diagnostic("doc-unlabelled", f"no question points into {doc_id}", path, top, (related,)))
        for broken in self.corpus.broken.values():
            out.append(Diagnostic("corpus-error", f"{broken.doc_id}: {broken.message}", broken.path,
                                  Range.on_line(broken.line, broken.column, broken.column + 1)))
        return out


def _human(r: Range) -> tuple[int, int]:
    return r.line + 1, r.column + 1


def _artifact_line(record: QuestionRecord, resolved: list[ResolvedLocator]) -> str:
    """The record's artifact line, exactly as the reference builder serialises it (SPEC §6)."""
    out = {
        "query": record.query,
        "answer_bearing_chunk_ids": sorted({c.chunk_id for r in resolved for c in r.chunks}),
        "expected_answer": record.expected_answer,
        "query_id": record.id,
        "hop": record.hop,
        "tags": record.tags,
        "answer_spans": [{"doc_id": r.span.doc_id, "char_start": r.span.start, "char_end": r.span.end}
                         for r in resolved],
        "span_union_coverage": [round(r.coverage, 4) for r in resolved],
        "chunker_version": CHUNKER_VERSION,
        "canonical_version": CANONICAL_VERSION,
    }
    return json.dumps(out, ensure_ascii=False, sort_keys=True) + "\n"
