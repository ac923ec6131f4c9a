"""The rules: every finding golden-lsp makes about a locator and a record, and the set's settings.

A rule reads a parsed record (``questions.py``) and the corpus, and returns plain model values
(``model.py``) and ``Diagnostic``s; it knows nothing of caching, which is the engine's business
(``analysis.py``). So each rule can be read, tested and changed on its own, and a new finding is
added here (or in ``setrules.py``, the findings about the whole set), as one entry of
``diagnostics.FINDINGS`` and as one section of ``docs/findings.md`` (a test holds the three
together). Per-line findings are placed on line 0 of no file (``Diagnostic.at_columns``); the
engine moves them into place.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path, PurePosixPath
from typing import Any

from ..corpus.document import CorpusDoc
from ..corpus.index import Corpus
from ..findings.diagnostics import Diagnostic, Range, Related, Severity, plural, short
from ..labels.facts import Found, QuoteFacts, quote_facts
from ..labels.questions import DEFAULT_QUERY_TYPES, Locator, QuestionRecord
from ..labels.recordmeta import is_iso_date
from ..labels.resolve import EXACT, Span
from ..labels.scoring import HitRule, bearing_chunks, union_coverage
from .meaning import record_meaning
from .model import LineResult, ResolvedLocator
from .pii import NAMES as PII_NAMES
from .pii import find as find_pii
from .pii import redact

MIN_SPAN_CHARS = 30
MIN_ANSWER_CHARS = 20
MIN_RECORDS = 50
MAX_DOC_SHARE = 0.6
#: occurrences of an ambiguous quote listed as related locations and counted (beyond: "more than 20")
MAX_LISTED_OCCURRENCES = 20
#: the most answer-bearing chunks a record's spans have before ``many-chunks`` (the golden-dataset
#: guide: "a query can have 1–10 relevant chunks (typical: 1–3)")
MAX_BEARING_CHUNKS = 10


@dataclass(frozen=True)
class SetRules:
    """What a set's config tells the rules: the query-type vocabulary and the required types,
    whether doc-unlabelled lists every document however many (a run that selects it), and where
    the findings about the whole set sit: the config file (``home``), at the line of the key a
    finding is about (``home_lines``: key → 0-based line, ``""`` the set's table in a pyproject);
    with no config file, at the top of the questions file."""

    query_types: tuple[str, ...] = DEFAULT_QUERY_TYPES
    required_query_types: tuple[str, ...] = ()
    unlabelled_in_full: bool = False
    home: Path | None = None
    home_lines: tuple[tuple[str, int], ...] = ()
    #: the country whose national phone numbers ``query-pii`` also finds (config ``pii_region``)
    pii_region: str | None = None
    #: ``retention-expired``: the days a record with ``sampled_at`` may be kept, and the date it is
    #: judged on (the day the set was loaded)
    retention_days: int | None = None
    today: date | None = None

    def place(self, questions: Path, top: Range, key: str = "") -> tuple[Path, Range]:
        """Where a finding about the whole set (about the config key ``key``) sits."""
        if self.home is None:
            return questions, top
        lines = dict(self.home_lines)
        return self.home, Range.on_line(lines.get(key, lines.get("", 0)), 0, 0)


def corpus_location(corpus: Corpus, doc_id: str, start: int, end: int, message: str) -> Related:
    """A related location in a corpus file, positioned in the raw file the editor opens."""
    doc = corpus.docs[doc_id]
    return _related(doc, doc.positions.raw_position, start, end, message)


def _related(doc, position, start: int, end: int, message: str) -> Related:
    return Related(doc.path, Range(*position(start), *position(end)), message, doc.doc_id, (start, end))


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
    record_pii(record, diags, settings.pii_region)
    record_retention(record, diags, settings)
    many_chunks(record, resolved, diags)
    record_meaning(record, resolved, diags)
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
        out.ambiguous_at = list(starts)
        diags.append(ambiguous(doc, quote, facts, _cols(locator)))
        return out
    start, end = starts[0], starts[0] + len(quote)
    block = facts.block  # a quote found once has its block
    if locator.exact or block is None:
        span, chars, out.passage = Span(doc_id, start, end, EXACT, start, end), facts.exact_chars, quote
    else:
        lo, hi, rule = block
        span, chars, out.passage = Span(doc_id, lo, hi, rule, start, end), facts.block_chars, facts.block_text
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
        diags.append(Diagnostic.at_columns("span-too-short", _too_short(span, chars, facts), *_cols(locator)))
    return out


def _too_short(span: Span, chars: int, facts: QuoteFacts) -> str:
    """span-too-short's message: mis-anchored only when the block around the span is longer."""
    said = f"the resolved span ({span.rule}) is {plural(chars, 'character')}, under {MIN_SPAN_CHARS}"
    if facts.block is not None and facts.block_chars > chars:
        return (
            f"{said}, inside a {facts.block[2]} of {facts.block_chars}: the label is probably mis-anchored "
            '(drop "exact": true to label the whole block, or quote more of the answer)'
        )
    return (
        f"{said}, and so is its whole {'block' if span.rule == EXACT else span.rule}: a label this short "
        "rarely holds an answer (label a longer passage, or quiet span-too-short for such records)"
    )


def _cols(locator: Locator, name: str = "quote") -> tuple[int, int]:
    """The columns of a well-formed locator's quote (or doc), for a finding (positions are looked
    up only for lines that have one)."""
    node = locator.node.members[name][1]
    return node.start, node.end


def ambiguous(doc: CorpusDoc, quote: str, facts: QuoteFacts, cols: tuple[int, int]) -> Diagnostic:
    """quote-ambiguous at the quote's ``cols``, each listed occurrence a related location."""
    starts = facts.starts
    total = (
        str(len(starts)) if len(starts) <= MAX_LISTED_OCCURRENCES else f"more than {MAX_LISTED_OCCURRENCES}"
    )
    related = [
        _related(doc, facts.position, start, start + len(quote), f"occurrence {i + 1} of {total}")
        for i, start in enumerate(starts[:MAX_LISTED_OCCURRENCES])
    ]
    where = ", ".join("{0.line}:{0.column}".format(r.range.one_based()) for r in related[:5])
    more = ", …" if len(starts) > 5 else ""
    return Diagnostic.at_columns(
        "quote-ambiguous",
        f"quote occurs {total} times in {doc.doc_id} (at {where}{more}): lengthen it until it is unique",
        *cols,
        related,
        doc_id=doc.doc_id,
    )


#: how a not-found hint reads, by its kind (``hints.Hint.kind``); the importer says it the same way
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
    # a fix writes a quote the picker chose (never one spanning lines: for a line break, one per line)
    fixes = [
        (fix, "{0.line}:{0.column}".format(_related(doc, facts.position, a, b, "").range.one_based()))
        for fix, (a, b) in zip(facts.fix_texts, facts.fixes)
    ]
    if fixes:
        data["replacement"] = fixes[0][0]
        data["replacements"] = [list(f) for f in fixes]
    if hint.kind == "line break":
        message += (
            ": a quote stays on one line, so quote "
            + " or ".join(f"{short(fix, 40)!r} (at {at})" for fix, at in fixes)
            + " instead"
            if fixes
            else ": a quote stays on one line, so quote words of one of its lines"
        )
    elif hint.kind == "closest" and fixes:
        message += f"; to label it, quote {short(fixes[0][0])!r}"
    return Diagnostic.at_columns("quote-not-found", message, *cols, (loc,), **data)


def unknown_doc(corpus: Corpus, doc_id: str, cols: tuple[int, int]) -> Diagnostic:
    """unknown-doc at the doc's ``cols``, naming the closest doc IDs (rapidfuzz) or, for a small
    corpus, all of them; when the file is there but the glob leaves it out, it says that."""
    if corpus.left_out(doc_id):
        wider = (
            f'; glob = "**/{PurePosixPath(corpus.glob).name}" reads subfolders too'
            if "/" in doc_id and "**" not in corpus.glob
            else ""
        )
        return Diagnostic.at_columns(
            "unknown-doc",
            f"unknown doc {doc_id!r}: the file is in the corpus folder, but the corpus glob "
            f"{corpus.glob!r} leaves it out (set 'glob' in the config{wider})",
            *cols,
            doc_id=doc_id,
        )
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
        doc_id=doc_id,
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
    if isinstance(record.query, str) and not record.query.strip():
        diags.append(
            Diagnostic.at_columns(
                "empty-query",
                "the query is empty: write the question as a user would ask it",
                *record.field_range("query"),
            )
        )
    if record.expected_answer is not None and len(record.expected_answer.strip()) < MIN_ANSWER_CHARS:
        diags.append(
            Diagnostic.at_columns(
                "answer-too-thin",
                f"expected_answer is under {MIN_ANSWER_CHARS} characters: too thin to grade against",
                *record.field_range("expected_answer"),
            )
        )


def many_chunks(record: QuestionRecord, resolved: list[ResolvedLocator], diags: list[Diagnostic]) -> None:
    """many-chunks: the record's spans bear more than ``MAX_BEARING_CHUNKS`` chunks under the set's
    chunking and hit rule (each chunk counted once, however many spans it bears)."""
    n = len({c.chunk_id for r in resolved for c in r.chunks})
    if n > MAX_BEARING_CHUNKS and "locators" in record.value:
        diags.append(
            Diagnostic.at_columns(
                "many-chunks",
                f"the record's spans bear {n} chunks under this chunking and hit rule (a record has 1 to "
                f"{MAX_BEARING_CHUNKS}, typically 1 to 3): a span grown too far, or a question too broad "
                "to grade — narrow the spans or split the question",
                *record.field_range("locators"),
                chunks=n,
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


def record_retention(record: QuestionRecord, diags: list[Diagnostic], settings: SetRules) -> None:
    """``retention-expired`` at ``sampled_at`` when the record was drawn from traffic longer ago
    than the set keeps such records (its date part, against the day the set was loaded)."""
    if settings.retention_days is None or settings.today is None:
        return
    sampled = record.value.get("sampled_at")
    if not isinstance(sampled, str) or not is_iso_date(sampled):
        return
    age = (settings.today - date.fromisoformat(sampled[:10])).days
    if age > settings.retention_days:
        diags.append(
            Diagnostic.at_columns(
                "retention-expired",
                f"sampled {age} days ago ({sampled[:10]}), past the set's retention_days = "
                f"{settings.retention_days}: delete the record, or replace its query with a fresh sample",
                *record.field_range("sampled_at"),
            )
        )


#: the fields of a record whose text ``query-pii`` reads
PII_FIELDS = ("query", "expected_answer")


def record_pii(record: QuestionRecord, diags: list[Diagnostic], region: str | None) -> None:
    """``query-pii`` at each identifier in the query and the expected answer. The message names the
    kind and never the value (a CI log must not copy what the finding is about); the data carries
    the whole field redacted, for the quick fix."""
    for name in PII_FIELDS:
        text = getattr(record, name)
        if not text:
            continue
        found = find_pii(text, region)
        if not found:
            continue
        start, end = record.field_range(name)
        columns = string_columns(record.text[start:end])
        redacted = redact(text, found)
        for f in found:
            diags.append(
                Diagnostic.at_columns(
                    "query-pii",
                    f"the {name.replace('_', ' ')} holds {PII_NAMES[f.kind]}: replace it with "
                    f"{f.placeholder} (text drawn from traffic carries personal data)",
                    start + columns[f.start],
                    start + columns[f.end],
                    field=name,
                    kind=f.kind,
                    redacted=redacted,
                )
            )


def string_columns(token: str) -> list[int]:
    """For a JSON string token (quotes included), the column in the token of each character of its
    decoded value, and one past the last: where an escape stands for a character, its backslash."""
    out = []
    i, end = 1, len(token) - 1
    while i < end:
        out.append(i)
        if token[i] != "\\":
            i += 1
        elif token[i + 1] != "u":
            i += 2
        elif 0xD800 <= int(token[i + 2 : i + 6], 16) < 0xDC00 and token[i + 6 : i + 8] == "\\u":
            i += 12  # a surrogate pair decodes to one character
        else:
            i += 6
    out.append(end)
    return out


def folded(query: str) -> str:
    """A query with case and whitespace folded: what counts as "the same query"."""
    return " ".join(query.split()).casefold()


def with_severities(
    diags: list[Diagnostic], table: Mapping[str, str], memo: dict[int, tuple] | None = None
) -> list[Diagnostic]:
    """The findings under a set's severities (``[severity]``, --select/--ignore): "off" drops them.

    ``memo`` (kept by the caller from one analysis to the next) hands back the same re-levelled
    object for a finding the engine handed back unchanged, so the editor converts it only once."""
    if not table:
        return diags
    out = []
    kept = memo if memo is not None else {}
    now: dict[int, tuple] = {}
    for d in diags:
        level = table.get(d.code)
        if level is None:
            out.append(d)
        elif level != "off":
            entry = kept.get(id(d))
            if entry is None or entry[0] is not d:
                entry = (d, dataclasses.replace(d, level=Severity(level)))
            now[id(d)] = entry
            out.append(entry[1])
    if memo is not None:
        memo.clear()
        memo.update(now)
    return out
