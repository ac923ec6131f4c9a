"""The rules: every finding golden-lsp makes about a locator, a record and the whole set.

A rule reads a parsed record (``questions.py``) and the corpus, and returns plain model values
(``model.py``) and ``Diagnostic``s; it knows nothing of caching, which is the engine's business
(``analysis.py``). So each rule can be read, tested and changed on its own, and a new finding is
added here, as one entry of ``diagnostics.FINDINGS`` and as one section of ``docs/findings.md``
(a test holds the three together). Per-line findings are placed on line 0 of no file
(``Diagnostic.at_columns``); the engine moves them into place. The set-level rules read counts
over the records (``SetTally``) that the engine updates with the records that changed, so a
keystroke costs the changed records, not the whole set.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

from .corpus import Corpus, CorpusDoc
from .diagnostics import Diagnostic, Range, Related, Severity, plural
from .facts import Found, QuoteFacts, quote_facts
from .model import Analysis, LineResult, RecordLine, ResolvedLocator
from .questions import DEFAULT_QUERY_TYPES, Locator, QuestionRecord
from .resolve import EXACT, Span
from .scoring import HitRule, bearing_chunks, union_coverage

MIN_SPAN_CHARS = 30
MIN_ANSWER_CHARS = 20
MIN_RECORDS = 50
MAX_DOC_SHARE = 0.6
#: occurrences of an ambiguous quote listed as related locations and counted (beyond: "more than 20")
MAX_LISTED_OCCURRENCES = 20


@dataclass(frozen=True)
class SetRules:
    """What a set's config tells the rules: the query-type vocabulary and the required types."""

    query_types: tuple[str, ...] = DEFAULT_QUERY_TYPES
    required_query_types: tuple[str, ...] = ()


def corpus_location(corpus: Corpus, doc_id: str, start: int, end: int, message: str) -> Related:
    """A related location in a corpus file, positioned in the raw file the editor opens."""
    doc = corpus.docs[doc_id]
    return _related(doc, doc.positions.raw_position, start, end, message)


def _related(doc, position, start: int, end: int, message: str) -> Related:
    return Related(doc.path, Range(*position(start), *position(end)), message, doc.doc_id, (start, end))


def short(text: str, limit: int = 60) -> str:
    text = text.replace("\n", "⏎")
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- one line ---------------------------------------------------------------------------------


def line_result(
    corpus: Corpus,
    hit_rule: HitRule,
    record: QuestionRecord | None,
    diags: list[Diagnostic],
    found: Found,
    settings: SetRules = SetRules(),
) -> LineResult:
    """Everything one parsed line yields: its resolved locators, findings and artifact line."""
    if record is None:
        return LineResult(None, [], diags, False, ())
    deps: dict[str, str | None] = {}
    resolved = []
    for locator in record.locators:
        if locator.doc is not None:
            doc = corpus.docs.get(locator.doc)
            deps[locator.doc] = doc.sha256 if doc else None
        resolved.append(resolve_locator(corpus, hit_rule, locator, diags, found))
    record_shape(record, resolved, diags)
    record_practice(record, resolved, diags, settings)
    ok = record.valid and all(r.span is not None and r.chunks for r in resolved)
    return LineResult(record, resolved, diags, ok, tuple(sorted(deps.items())))


def crashed_line(line: str, exc: Exception) -> LineResult:
    """A line whose analysis raised: it costs its own findings, never the whole file's."""
    message = f"cannot analyse this line ({type(exc).__name__}: {exc})"
    return LineResult(
        None, [], [Diagnostic.at_columns("invalid-json", message, 0, len(line.rstrip()))], False, ()
    )


def resolve_locator(
    corpus: Corpus, hit_rule: HitRule, locator: Locator, diags: list[Diagnostic], found: Found
) -> ResolvedLocator:
    out = ResolvedLocator(locator)
    doc_id, quote = locator.doc, locator.quote
    if doc_id is None or quote is None:  # not well formed: the parser said why
        return out
    if doc_id in corpus.broken:
        return out  # reported once as corpus-error on the file itself
    doc = corpus.docs.get(doc_id)
    if doc is None:
        diags.append(unknown_doc(corpus, doc_id, _cols(locator, "doc")))
        return out
    if not quote:
        diags.append(
            Diagnostic.at_columns(
                "empty-quote", "the quote is empty: quote a few exact words of the answer", *_cols(locator)
            )
        )
        return out
    if "\n" in quote:
        diags.append(
            Diagnostic.at_columns(
                "quote-multiline",
                "the quote spans lines: keep quotes on one line of the doc",
                *_cols(locator),
            )
        )
    # counting stops after the listed ones: a one-letter quote occurs millions of times
    facts = found.get((doc_id, quote))
    if facts is None:
        facts = quote_facts(doc.text, doc.positions.raw_position, quote, MAX_LISTED_OCCURRENCES + 1)
    starts = facts.starts
    if not starts:
        diags.append(not_found(doc, quote, facts, _cols(locator)))
        return out
    if len(starts) > 1:
        total = (
            str(len(starts))
            if len(starts) <= MAX_LISTED_OCCURRENCES
            else f"more than {MAX_LISTED_OCCURRENCES}"
        )
        out.ambiguous_at = list(starts)
        related = [
            _related(doc, facts.position, start, start + len(quote), f"occurrence {i + 1} of {total}")
            for i, start in enumerate(starts[:MAX_LISTED_OCCURRENCES])
        ]
        where = ", ".join("{0.line}:{0.column}".format(r.range.one_based()) for r in related[:5])
        more = ", …" if len(starts) > 5 else ""
        diags.append(
            Diagnostic.at_columns(
                "quote-ambiguous",
                f"quote occurs {total} times in {doc_id} (at {where}{more}): lengthen it until it is unique",
                *_cols(locator),
                related,
                doc_id=doc_id,
            )
        )
        return out
    start, end = starts[0], starts[0] + len(quote)
    block = facts.block  # a quote found once has its block
    if locator.exact or block is None:
        span, chars = Span(doc_id, start, end, EXACT, start, end), facts.exact_chars
    else:
        lo, hi, rule = block
        span, chars = Span(doc_id, lo, hi, rule, start, end), facts.block_chars
    out.span = span
    out.chunks = bearing_chunks(hit_rule, doc.chunks_overlapping(span.start, span.end), span)
    out.coverage = union_coverage(out.chunks, span)
    if not out.chunks:
        diags.append(
            Diagnostic.at_columns(
                "no-bearing-chunk",
                f"no chunk bears the span {span.start}–{span.end} of {doc_id} under hit rule "
                f"{hit_rule} (headings are not part of any chunk body)",
                *_cols(locator),
            )
        )
    if chars < MIN_SPAN_CHARS:
        diags.append(
            Diagnostic.at_columns(
                "span-too-short",
                f"the resolved span ({span.rule}) is under {MIN_SPAN_CHARS} characters: "
                "the label is probably mis-anchored",
                *_cols(locator),
            )
        )
    return out


def _cols(locator: Locator, name: str = "quote") -> tuple[int, int]:
    """The columns of a well-formed locator's quote (or doc), for a finding (positions are looked
    up only for lines that have one)."""
    node = locator.node.members[name][1]
    return node.start, node.end


#: how a not-found hint reads, by its kind (``resolve.Hint.kind``); the importer says it the same way
HINT_WHY = {
    "line break": "the same words occur across a line break",
    "whitespace": "the same words occur with different whitespace",
    "typography": "the same words occur with different quotes or dashes",
    "normalisation": "the quote is Unicode NFD (decomposed accents) and the corpus NFC; the composed "
    "text occurs",
    "case": "the same words occur with different capitalisation",
}


def not_found(doc: CorpusDoc, quote: str, facts: QuoteFacts, cols: tuple[int, int]) -> Diagnostic:
    """quote-not-found at the quote's ``cols``, with where the author probably meant (a hint and
    a fix, never a relabel)."""
    doc_id, hint = doc.doc_id, facts.hint
    if hint is None:
        return Diagnostic.at_columns("quote-not-found", f"quote not found in {doc_id}", *cols)
    loc = _related(doc, facts.position, hint.start, hint.end, f"the text as it is in {doc_id}")
    where = loc.range.one_based()
    data: dict[str, Any] = {"doc_id": doc_id, "hint": hint.kind}
    if hint.kind == "closest":
        message = (
            f"quote not found in {doc_id}; the closest passage ({hint.score:.0f}% similar) is at "
            f"{where.line}:{where.column}: {short(hint.corpus_text)!r}"
        )
    else:
        message = (
            f"quote not found in {doc_id}; {HINT_WHY[hint.kind]} at {where.line}:{where.column}: "
            f"{short(hint.corpus_text)!r}"
        )
        # a fix never writes a quote spanning lines: for a line break, the parts on one line
        choices = list(facts.part_texts) if hint.kind == "line break" else [hint.corpus_text]
        if choices:
            data["replacement"] = choices[0]
            data["replacements"] = [
                [
                    part,
                    "{0.line}:{0.column}".format(_related(doc, facts.position, a, b, "").range.one_based()),
                ]
                for part, (a, b) in zip(facts.part_texts, hint.parts)
            ]
    return Diagnostic.at_columns("quote-not-found", message, *cols, (loc,), **data)


def unknown_doc(corpus: Corpus, doc_id: str, cols: tuple[int, int]) -> Diagnostic:
    """unknown-doc at the doc's ``cols``, naming the closest doc IDs (rapidfuzz) or, for a small
    corpus, all of them."""
    from rapidfuzz import fuzz, process, utils  # imported only when a doc is unknown

    stems = {d: PurePosixPath(d).stem for d in corpus.docs}  # ".md" alike in every name: compare the rest
    close = [
        d
        for _, _, d in process.extract(
            PurePosixPath(doc_id).stem,
            stems,
            scorer=fuzz.WRatio,
            processor=utils.default_process,
            limit=3,
            score_cutoff=70,
        )
    ]
    if close:
        known = f"did you mean {', '.join(map(repr, close))}?"
    else:
        known = "corpus: " + (
            ", ".join(corpus.docs) if len(corpus.docs) <= 8 else f"{len(corpus.docs)} documents"
        )
    return Diagnostic.at_columns(
        "unknown-doc",
        f"unknown doc {doc_id!r} ({known})",
        *cols,
        suggestions=close,
    )


def record_shape(record: QuestionRecord, resolved: list[ResolvedLocator], diags: list[Diagnostic]) -> None:
    n = len(record.locators)
    locators_ok = isinstance(record.value.get("locators"), list)
    if locators_ok and n == 0 and not record.unanswerable:
        diags.append(
            Diagnostic.at_columns(
                "no-locators",
                'an answerable record needs at least one locator (or mark it "unanswerable": true)',
                *record.field_range("locators"),
            )
        )
    elif (
        locators_ok
        and n
        and not record.unanswerable
        and ((record.hop == "single" and n != 1) or (record.hop == "multi" and n < 2))
    ):
        where = record.field_range("hop") if "hop" in record.value else record.field_range("locators")
        need = "exactly one locator" if record.hop == "single" else "at least two locators"
        diags.append(
            Diagnostic.at_columns("hop-mismatch", f"hop {record.hop!r} needs {need}, found {n}", *where)
        )
    if record.expected_answer is not None and len(record.expected_answer.strip()) < MIN_ANSWER_CHARS:
        diags.append(
            Diagnostic.at_columns(
                "answer-too-thin",
                f"expected_answer is under {MIN_ANSWER_CHARS} characters: too thin to grade against",
                *record.field_range("expected_answer"),
            )
        )


def record_practice(
    record: QuestionRecord, resolved: list[ResolvedLocator], diags: list[Diagnostic], settings: SetRules
) -> None:
    """Query type, unanswerable and primary: the practice rules of one record."""
    if record.query_type is not None and record.query_type not in settings.query_types:
        diags.append(
            Diagnostic.at_columns(
                "unknown-query-type",
                f"unknown query_type {record.query_type!r} (known: {', '.join(settings.query_types)})",
                *record.field_range("query_type"),
            )
        )
    if record.unanswerable and record.locators:
        diags.append(
            Diagnostic.at_columns(
                "unanswerable-with-locators",
                'an unanswerable record has no answer to locate: remove its locators or "unanswerable"',
                *record.field_range("locators"),
            )
        )
    for extra in [loc for loc in record.locators if loc.primary][1:]:
        value = extra.node.members["primary"][1]
        diags.append(
            Diagnostic.at_columns(
                "multiple-primary",
                "a second primary locator: at most one locator of a record is its primary span",
                value.start,
                value.end,
            )
        )
    if record.query_type == "multi-hop" and record.locators:
        spans = {(r.span.doc_id, r.span.start, r.span.end) for r in resolved if r.span is not None}
        n = len(spans) if all(r.span is not None for r in resolved) else len(record.locators)
        if n == 1:
            diags.append(
                Diagnostic.at_columns(
                    "multi-hop-single-span",
                    "query_type 'multi-hop' with a single "
                    "span: a multi-hop question needs evidence from two places",
                    *record.field_range("query_type"),
                )
            )


def folded(query: str) -> str:
    """A query with case and whitespace folded: what counts as "the same query"."""
    return " ".join(query.split()).casefold()


def with_severities(diags: list[Diagnostic], table: Mapping[str, str]) -> list[Diagnostic]:
    """The findings under a set's severities (``[severity]``, --select/--ignore): "off" drops them."""
    if not table:
        return diags
    out = []
    for d in diags:
        level = table.get(d.code)
        if level is None:
            out.append(d)
        elif level != "off":
            out.append(dataclasses.replace(d, level=Severity(level)))
    return out


# --- the whole set ----------------------------------------------------------------------------

#: the record values whose repeats are findings (duplicate-id, duplicate-query), in finding order
_UNIQUE = ("id", "query")
#: the splits whose records must not share queries or spans (split-leak)
_LEAKING = ("dev", "test")


class SetTally:
    """What the set-level rules count over one file's records, kept from one analysis to the next.

    These rules run on every keystroke over every record, so the engine hands in only the
    records that changed (``update``: the results removed and added) and the counts follow; the
    findings that name records (duplicates, split leaks) are kept and found again only when a
    changed record takes part in them or records moved to other lines. The tally is the rules'
    own memo and holds nothing the engine reads.
    """

    def __init__(self) -> None:
        self.n_records = 0
        self.values: dict[str, Counter] = {name: Counter() for name in _UNIQUE}
        #: per name, the values held by more than one record
        self.repeated: dict[str, set] = {name: set() for name in _UNIQUE}
        self.spans: Counter = Counter()  # doc → spans in it (one per locator)
        self.query_types: Counter = Counter()
        self.splits: Counter = Counter()
        #: the duplicate and split-leak findings of the current records (None: to be found again)
        self.duplicates: list[Diagnostic] | None = None
        self.leaks: list[Diagnostic] | None = None

    def update(self, removed: list[LineResult], added: list[LineResult], moved: bool) -> None:
        """Records ``removed`` left the file and ``added`` came (``moved``: later lines shifted)."""
        stale_duplicates = stale_leaks = moved
        for results, sign in ((removed, -1), (added, 1)):
            for result in results:
                record = result.record
                if record is None:
                    continue
                self.n_records += sign
                for name in _UNIQUE:
                    value = getattr(record, name)
                    if value is None:
                        continue
                    counter = self.values[name]
                    before = counter[value]
                    after = counter[value] = before + sign
                    if after == 0:
                        del counter[value]
                    if max(before, after) > 1:
                        stale_duplicates = True
                        (self.repeated[name].add if after > 1 else self.repeated[name].discard)(value)
                for doc in result.span_docs:
                    self.spans[doc] += sign
                self.query_types[record.query_type] += sign
                self.splits[record.split] += sign
                stale_leaks = stale_leaks or record.split in _LEAKING
        if stale_duplicates:
            self.duplicates = None
        if stale_leaks:
            self.leaks = None


def set_rules(
    corpus: Corpus,
    path: Path,
    first_line: str,
    records: list[RecordLine],
    tally: SetTally,
    settings: SetRules = SetRules(),
) -> list[Diagnostic]:
    """The set-level findings of a file whose first line is ``first_line`` and whose records are
    ``records``, counted in ``tally``."""
    out: list[Diagnostic] = []
    top = Range.on_line(0, 0, len(first_line))
    if tally.duplicates is None:
        tally.duplicates = duplicates(path, records, tally.repeated)
    out.extend(tally.duplicates)
    spans = {doc_id: n for doc_id, n in tally.spans.items() if n > 0 and doc_id in corpus.docs}
    n_records = tally.n_records
    if n_records < MIN_RECORDS:
        out.append(
            Diagnostic(
                "too-few-records",
                f"{plural(n_records, 'record')}: a golden set needs at least "
                f"{MIN_RECORDS} to measure anything",
                path,
                top,
            )
        )
    total = sum(spans.values())
    for doc_id, n in spans.items():  # at most one document holds more than half the spans
        if total and n / total > MAX_DOC_SHARE:
            out.append(
                Diagnostic(
                    "doc-dominates",
                    f"{doc_id} holds {n} of {total} spans "
                    f"({n / total:.0%} > {MAX_DOC_SHARE:.0%}): the set is lopsided",
                    path,
                    top,
                )
            )
    for doc_id, doc in corpus.docs.items():
        if doc_id not in spans and n_records:
            related = Related(doc.path, Range.on_line(0, 0, 0), "the unlabelled document", doc_id, (0, 0))
            out.append(
                Diagnostic("doc-unlabelled", f"no question points into {doc_id}", path, top, (related,))
            )
    for qt in settings.required_query_types:
        if tally.query_types[qt] <= 0:
            out.append(
                Diagnostic(
                    "query-type-missing", f"no record has query_type {qt!r} (required_query_types)", path, top
                )
            )
    if all(tally.splits[s] > 0 for s in _LEAKING):
        if tally.leaks is None:
            tally.leaks = split_leaks(path, [r for r in records if r.result.record is not None])
        out.extend(tally.leaks)
    for broken in corpus.broken.values():
        out.append(
            Diagnostic(
                "corpus-error",
                f"{broken.doc_id}: {broken.message}",
                broken.path,
                Range.on_line(broken.line, broken.column, broken.column + 1),
            )
        )
    return out


class _Parsed(NamedTuple):
    """A line of the file that is a record, as the rules over several records read it."""

    line: int
    record: QuestionRecord
    result: LineResult


def duplicates(path: Path, records: list[RecordLine], repeated: dict[str, set]) -> list[Diagnostic]:
    """duplicate-id and duplicate-query: each record holding a value an earlier record holds
    (``repeated``: the values held more than once; the records are walked only when there are any)."""
    out = []
    for name in _UNIQUE:
        values = repeated[name]
        first: dict[str, _Parsed] = {}
        for r in records if values else ():
            record = r.result.record
            if record is None:
                continue
            value = getattr(record, name)
            if value in values:
                again = _Parsed(r.line, record, r.result)
                if first.setdefault(value, again) is not again:
                    out.append(duplicate(path, name, value, first[value], again))
    return out


def duplicate(path: Path, name: str, value: str, first: _Parsed, again: _Parsed) -> Diagnostic:
    code = "duplicate-id" if name == "id" else "duplicate-query"
    s, e = first.record.field_range(name)
    related = Related(path, Range.on_line(first.line, s, e), f"first used on line {first.line + 1}")
    s, e = again.record.field_range(name)
    return Diagnostic(
        code,
        f"{name} {short(value)!r} already used on line {first.line + 1}",
        path,
        Range.on_line(again.line, s, e),
        (related,),
    )


_SPLIT = attrgetter("result.record.split")


def split_leaks(path: Path, recs: list[RecordLine]) -> list[Diagnostic]:
    """split-leak: a dev and a test record with the same (folded) query, or overlapping spans.

    Each record is flagged at most once (at the later record of a pair, the earlier one related),
    and overlaps are found in one sorted sweep per document, so a set that labels one passage a
    thousand times costs N findings, not N².
    """
    splits = list(map(_SPLIT, recs))  # C-level: this runs on every keystroke
    if "dev" not in splits or "test" not in splits:
        return []
    split = [
        _Parsed(r.line, record, r.result)
        for r, s in zip(recs, splits)
        if (s == "dev" or s == "test") and (record := r.result.record) is not None
    ]
    #: the later record's line → (the earlier record's line, why)
    flagged: dict[int, tuple[int, str]] = {}
    at = {r.line: r for r in split}

    def pair(x: _Parsed, y: _Parsed, why: str) -> None:
        later, earlier = (x, y) if x.line > y.line else (y, x)
        flagged.setdefault(later.line, (earlier.line, why))

    by_query: dict[str, dict[str | None, _Parsed]] = {}
    for r in split:
        if r.record.query is not None:
            seen = by_query.setdefault(folded(r.record.query), {})
            other = seen.get("test" if r.record.split == "dev" else "dev")
            if other is not None:
                pair(r, other, "the same query")
            seen.setdefault(r.record.split, r)
    spans: dict[str, list[tuple[int, int, _Parsed]]] = {}
    for r in split:
        for res in r.result.resolved:
            if res.span is not None:
                spans.setdefault(res.span.doc_id, []).append((res.span.start, res.span.end, r))
    for doc_id, items in spans.items():
        items.sort(key=lambda x: (x[0], x[1], x[2].line))
        #: per split, the span seen so far reaching furthest: any earlier one that overlaps does
        furthest: dict[str | None, tuple[int, _Parsed]] = {}
        for start, end, r in items:
            reach = furthest.get("test" if r.record.split == "dev" else "dev")
            if reach is not None and reach[0] > start:
                pair(r, reach[1], f"overlapping spans in {doc_id}")
            if end > furthest.get(r.record.split, (-1, r))[0]:
                furthest[r.record.split] = (end, r)
    out = []
    for line in sorted(flagged):
        later, (earlier_line, why) = at[line], flagged[line]
        earlier = at[earlier_line]
        s, e = earlier.record.field_range("id")
        related = Related(
            path,
            Range.on_line(earlier.line, s, e),
            f"{earlier.record.split} record on line {earlier.line + 1}",
        )
        s, e = later.record.field_range("id")
        out.append(
            Diagnostic(
                "split-leak",
                f"{later.record.split} record {later.record.id!r} and "
                f"{earlier.record.split} record {earlier.record.id!r} (line {earlier.line + 1}) share "
                f"{why}: test results leak into tuning",
                path,
                Range.on_line(later.line, s, e),
                (related,),
            )
        )
    return out


def id_reused(analysis: Analysis, committed: dict[str, object]) -> list[Diagnostic]:
    """An ``id`` the committed artifact holds for another query: labels are cited by id, and a
    reused id makes two measurements look like one."""
    out = []
    for rec in analysis.records if committed else ():
        r = rec.record
        if r is None or r.id not in committed or r.query is None or committed[r.id] == r.query:
            continue
        out.append(
            Diagnostic(
                "id-reused",
                f"id {r.id!r} is held by the committed artifact for another query "
                f"({short(str(committed[r.id]))!r}): give this question a new id",
                analysis.path,
                Range.on_line(rec.line, *r.field_range("id")),
            )
        )
    return out
