"""Analysis of a questions file against the corpus: every finding, every resolved span.

This is the one function both front ends call: the CLI on a file from disk, the server on the
buffer as typed. Parsing and resolving are per line, and each line's result is cached per
questions file by the line's text and the versions of the documents it quotes, so a keystroke
re-parses and re-resolves only the lines whose text changed (and a corpus edit only the lines
quoting the edited document). Every analysis still walks the whole file: it splits the text,
looks each line up in the cache (checking its documents only when the corpus changed since),
reuses the placed findings of lines whose number and result are unchanged, and reruns the
set-level rules (duplicates, size, balance) and the final sort over all records.
"""

from __future__ import annotations

from collections import Counter
from itertools import chain
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from . import quoteindex
from .artifact import artifact_line
from .chunker import Chunk
from .corpus import Corpus
from .diagnostics import Diagnostic, Range, Related, Severity
from .questions import JsonNode, Locator, QuestionRecord, is_skipped, parse_record, split_lines
from .resolve import Span, not_found_hint, occurrences, span_at
from .scoring import HitRule, bearing_chunks, union_coverage

MIN_SPAN_CHARS = 30
MIN_ANSWER_CHARS = 20
MIN_RECORDS = 50
MAX_DOC_SHARE = 0.6
#: occurrences of an ambiguous quote listed as related locations and counted (beyond: "more than 20")
MAX_LISTED_OCCURRENCES = 20


@dataclass
class ResolvedLocator:
    locator: Locator
    span: Span | None = None
    chunks: list[Chunk] = field(default_factory=list)
    coverage: float = 0.0
    #: the first start offsets of an ambiguous quote (at most MAX_LISTED_OCCURRENCES + 1)
    ambiguous_at: list[int] = field(default_factory=list)


@dataclass
class LineResult:
    """What one line yields, independent of where the line sits in the file."""

    record: QuestionRecord | None
    resolved: list[ResolvedLocator]
    diagnostics: list[Diagnostic]  # on line 0, moved into place by ``Analysis``
    artifact_line: str | None
    deps: tuple[tuple[str, str | None], ...]

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


@dataclass
class Analysis:
    path: Path
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

    @cached_property
    def _counts(self) -> dict[str, int]:
        by = Counter(d.severity for d in self.diagnostics)
        return {"records": sum(1 for r in self.records if r.result.record is not None),
                "errors": by[Severity.ERROR], "warnings": by[Severity.WARNING]}

    def counts(self) -> dict[str, int]:
        """Records, errors and warnings (computed once per analysis)."""
        return dict(self._counts)


def corpus_location(corpus: Corpus, doc_id: str, start: int, end: int, message: str) -> Related:
    """A related location in a corpus file, positioned in the raw file the editor opens."""
    doc = corpus.docs[doc_id]
    line, col = doc.positions.raw_position(start)
    end_line, end_col = doc.positions.raw_position(end)
    return Related(doc.path, Range(line, col, end_line, end_col), message, doc_id, (start, end))


def _short(text: str, limit: int = 60) -> str:
    text = text.replace("\n", "⏎")
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class _FileCache:
    """What the previous analysis of one questions file leaves for the next one."""

    #: line text → its result, each checked against the corpus of ``generation``
    lines: dict[str, LineResult]
    #: line number → that line's record and its findings moved into place
    placed: dict[int, tuple[RecordLine, list[Diagnostic]]]
    generation: int


class Analyzer:
    """Analyses questions files against one corpus, reusing per-line results across calls.

    Each questions file (by path) keeps its own cache of the lines of its previous analysis, so
    several files of one set never evict each other's results.
    """

    def __init__(self, corpus: Corpus, hit_rule: HitRule):
        self.corpus = corpus
        self.hit_rule = hit_rule
        self._files: dict[Path, _FileCache] = {}
        #: what ``_prefetch`` learnt for the analysis under way: each quote's first occurrences
        #: (one pass per document) and each cold line's parse, so no line is parsed twice
        self._found: dict[tuple[str, str], list[int]] = {}
        self._parsed: dict[str, tuple] = {}
        #: bumped by every ``set_corpus``: cached lines of an older generation are rechecked
        self._generation = 0

    def set_corpus(self, corpus: Corpus) -> None:
        """Swap in an edited corpus; cached lines stay valid where their documents did."""
        if corpus.max_chars != self.corpus.max_chars:
            self._files.clear()
        self.corpus = corpus
        self._generation += 1

    def _fresh(self, result: LineResult) -> bool:
        docs = self.corpus.docs
        for doc_id, sha in result.deps:
            doc = docs.get(doc_id)
            if (doc.sha256 if doc is not None else None) != sha or doc_id in self.corpus.broken:
                return False
        return True

    def analyze(self, path: Path, text: str) -> Analysis:
        previous = self._files.get(path) or _FileCache({}, {}, -1)
        # every line cached by the previous analysis was checked against the corpus of its
        # generation: after a corpus change, each is checked once against its documents
        checked = previous.generation == self._generation
        lines: dict[str, LineResult] = {}
        placed: dict[int, tuple[RecordLine, list[Diagnostic]]] = {}
        records: list[RecordLine] = []
        diagnostics: list[Diagnostic] = []
        self._found.clear()  # what a previous prefetch learnt may be of another corpus
        self._parsed.clear()
        all_lines = split_lines(text)
        stale = set() if checked else {line for line, r in previous.lines.items() if not self._fresh(r)}
        if stale or len(all_lines) - len(previous.lines) >= quoteindex.MIN_QUOTES:  # many to resolve
            self._prefetch([line for line in all_lines if (line not in previous.lines or line in stale)
                            and not is_skipped(line)])
        for no, line in enumerate(all_lines):
            if is_skipped(line):
                continue
            result = lines.get(line)
            if result is None:
                result = previous.lines.get(line)
                if result is None or line in stale:
                    result = self._analyze_line(line)
                lines[line] = result
            entry = previous.placed.get(no)
            if entry is None or entry[0].result is not result:
                entry = RecordLine(no, result), [d.moved_to(no, path) for d in result.diagnostics]
            placed[no] = entry
            records.append(entry[0])
            diagnostics.extend(entry[1])
        self._files[path] = _FileCache(lines, placed, self._generation)
        diagnostics.extend(self._set_rules(path, text, records))
        diagnostics.sort(key=lambda d: (d.range.line, d.range.column, d.code))
        return Analysis(path, records, diagnostics)

    def _prefetch(self, cold: list[str]) -> None:
        """Find the quotes of many lines to resolve with one pass per document (a cold start)."""
        wanted: dict[str, set[str]] = {}
        for line in cold:
            record, diags = self._parsed[line] = parse_record(line)
            for loc in record.locators if record else ():
                if loc.well_formed and loc.doc in self.corpus.docs and quoteindex.batchable(loc.quote):
                    wanted.setdefault(loc.doc, set()).add(loc.quote)
        for doc_id, quotes in wanted.items():
            if len(quotes) >= quoteindex.MIN_QUOTES:
                found = quoteindex.find_all(self.corpus.docs[doc_id].text, quotes, MAX_LISTED_OCCURRENCES + 1)
                self._found.update(((doc_id, q), starts) for q, starts in found.items())

    # --- one line ---------------------------------------------------------------------------

    def _analyze_line(self, line: str) -> LineResult:
        try:
            return self._line_result(line)
        except Exception as exc:  # a bug must cost its line, never the findings of the whole file
            message = f"cannot analyse this line ({type(exc).__name__}: {exc})"
            return LineResult(None, [], [Diagnostic.at_columns("invalid-json", message, 0, len(line.rstrip()))],
                              None, ())

    def _line_result(self, line: str) -> LineResult:
        record, diags = self._parsed.pop(line, None) or parse_record(line)
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
        artifact = artifact_line(record, resolved) if ok else None
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
            diags.append(Diagnostic.at_columns("unknown-doc", f"unknown doc {doc_id!r} (corpus: {known})",
                                               locator.doc_node.start, locator.doc_node.end))
            return out
        cols = qnode.start, qnode.end
        if not quote:
            diags.append(Diagnostic.at_columns(
                "empty-quote", "the quote is empty: quote a few exact words of the answer", *cols))
            return out
        if "\n" in quote:
            diags.append(Diagnostic.at_columns(
                "quote-multiline", "the quote spans lines: keep quotes on one line of the doc", *cols))
        # counting stops after the listed ones: a one-letter quote occurs millions of times
        found = self._found.get((doc_id, quote))
        if found is None:
            found = occurrences(doc.text, quote, MAX_LISTED_OCCURRENCES + 1)
        if not found:
            diags.append(self._not_found(doc_id, doc.text, quote, qnode))
            return out
        if len(found) > 1:
            total = (str(len(found)) if len(found) <= MAX_LISTED_OCCURRENCES
                     else f"more than {MAX_LISTED_OCCURRENCES}")
            out.ambiguous_at = found
            related = [corpus_location(corpus, doc_id, start, start + len(quote), f"occurrence {i + 1} of {total}")
                       for i, start in enumerate(found[:MAX_LISTED_OCCURRENCES])]
            where = ", ".join("{0.line}:{0.column}".format(r.range.one_based()) for r in related[:5])
            more = ", …" if len(found) > 5 else ""
            diags.append(Diagnostic.at_columns(
                "quote-ambiguous", f"quote occurs {total} times in {doc_id} (at {where}{more}): "
                "lengthen it until it is unique", *cols, related, doc_id=doc_id))
            return out
        span = span_at(doc_id, doc.text, found[0], quote, locator.exact)
        out.span = span
        out.chunks = bearing_chunks(self.hit_rule, doc.chunks_overlapping(span.start, span.end), span)
        out.coverage = union_coverage(out.chunks, span)
        if not out.chunks:
            diags.append(Diagnostic.at_columns(
                "no-bearing-chunk", f"no chunk bears the span {span.start}–{span.end} of {doc_id} under hit rule "
                f"{self.hit_rule} (headings are not part of any chunk body)", *cols))
        if len(doc.text[span.start:span.end].strip()) < MIN_SPAN_CHARS:
            diags.append(Diagnostic.at_columns(
                "span-too-short", f"the resolved span ({span.rule}) is under {MIN_SPAN_CHARS} characters: "
                "the label is probably mis-anchored", *cols))
        return out

    def _not_found(self, doc_id: str, text: str, quote: str, qnode: JsonNode) -> Diagnostic:
        hint = not_found_hint(text, quote)
        if hint is None:
            return Diagnostic.at_columns("quote-not-found", f"quote not found in {doc_id}", qnode.start, qnode.end)
        loc = corpus_location(self.corpus, doc_id, hint.start, hint.end, f"the text as it is in {doc_id}")
        where = loc.range.one_based()
        why = {"line break": "across a line break", "whitespace": "with different whitespace",
               "typography": "with different quotes or dashes"}[hint.kind]
        return Diagnostic.at_columns("quote-not-found", f"quote not found in {doc_id}; the same words occur {why} "
                                     f"at {where.line}:{where.column}: {_short(hint.corpus_text)!r}",
                                     qnode.start, qnode.end, (loc,),
                                     doc_id=doc_id, replacement=hint.corpus_text, hint=hint.kind)

    @staticmethod
    def _record_shape(record: QuestionRecord, resolved: list[ResolvedLocator], diags: list[Diagnostic]) -> None:
        n = len(record.locators)
        locators_ok = isinstance(record.node.value.get("locators"), list)
        if locators_ok and ((record.hop == "single" and n != 1) or (record.hop == "multi" and n < 2)):
            where = record.field_range("hop") if "hop" in record.node.members else record.field_range("locators")
            need = "exactly one locator" if record.hop == "single" else "at least two locators"
            diags.append(Diagnostic.at_columns("hop-mismatch", f"hop {record.hop!r} needs {need}, found {n}", *where))
        if record.expected_answer is not None and len(record.expected_answer.strip()) < MIN_ANSWER_CHARS:
            diags.append(Diagnostic.at_columns("answer-too-thin", f"expected_answer is under {MIN_ANSWER_CHARS} "
                                               "characters: too thin to grade against",
                                               *record.field_range("expected_answer")))

    # --- the whole set ----------------------------------------------------------------------

    def _set_rules(self, path: Path, text: str, records: list[RecordLine]) -> list[Diagnostic]:
        out: list[Diagnostic] = []
        top = Range.on_line(0, 0, len(text.split("\n", 1)[0]))
        # This runs on every keystroke over every record: count with C-level Counters, and walk
        # the records again only for the rare values that repeat.
        recs = [r for r in records if r.result.record is not None]
        n_records = len(recs)
        for name in ("id", "query"):
            values = [getattr(r.result.record, name) for r in recs]
            repeated = {v for v, n in Counter(values).items() if n > 1 and v is not None}
            first: dict[str, RecordLine] = {}
            for r, value in zip(recs, values) if repeated else ():
                if value in repeated and first.setdefault(value, r) is not r:
                    out.append(self._duplicate(path, name, value, first[value], r))
        spans = Counter(chain.from_iterable(r.result.span_docs for r in recs))
        for doc_id in [d for d in spans if d not in self.corpus.docs]:
            del spans[doc_id]
        if n_records < MIN_RECORDS:
            out.append(Diagnostic("too-few-records", f"{n_records} records: a golden set needs at least "
                                  f"{MIN_RECORDS} to measure anything", path, top))
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

    @staticmethod
    def _duplicate(path: Path, name: str, value: str, first: RecordLine, again: RecordLine) -> Diagnostic:
        code = "duplicate-id" if name == "id" else "duplicate-query"
        s, e = first.record.field_range(name)
        related = Related(path, Range.on_line(first.line, s, e), f"first used on line {first.line + 1}")
        s, e = again.record.field_range(name)
        return Diagnostic(code, f"{name} {_short(value)!r} already used on line {first.line + 1}",
                          path, Range.on_line(again.line, s, e), (related,))

