"""The rules: every finding golden-lsp makes about a locator, a record and the whole set.

A rule reads a parsed record (``questions.py``) and the corpus, and returns plain model values
(``model.py``) and ``Diagnostic``s; it keeps no state and knows nothing of caching, which is the
engine's business (``analysis.py``). So each rule can be read, tested and changed on its own, and
a new finding is added here and in ``diagnostics.CODES`` and nowhere else. Per-line findings are
placed on line 0 of no file (``Diagnostic.at_columns``); the engine moves them into place.
"""

from __future__ import annotations

from collections import Counter
from itertools import chain
from pathlib import Path, PurePosixPath

from rapidfuzz import fuzz, process, utils

from .artifact import artifact_line
from .corpus import Corpus
from .diagnostics import Diagnostic, Range, Related
from .model import LineResult, RecordLine, ResolvedLocator
from .questions import JsonNode, Locator, QuestionRecord
from .resolve import not_found_hint, occurrences, span_at
from .scoring import HitRule, bearing_chunks, union_coverage

MIN_SPAN_CHARS = 30
MIN_ANSWER_CHARS = 20
MIN_RECORDS = 50
MAX_DOC_SHARE = 0.6
#: occurrences of an ambiguous quote listed as related locations and counted (beyond: "more than 20")
MAX_LISTED_OCCURRENCES = 20

#: (doc_id, quote) → the first start offsets of the quote, found ahead of time for many quotes
Found = dict[tuple[str, str], list[int]]


def corpus_location(corpus: Corpus, doc_id: str, start: int, end: int, message: str) -> Related:
    """A related location in a corpus file, positioned in the raw file the editor opens."""
    doc = corpus.docs[doc_id]
    line, col = doc.positions.raw_position(start)
    end_line, end_col = doc.positions.raw_position(end)
    return Related(doc.path, Range(line, col, end_line, end_col), message, doc_id, (start, end))


def short(text: str, limit: int = 60) -> str:
    text = text.replace("\n", "⏎")
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --- one line ---------------------------------------------------------------------------------

def line_result(corpus: Corpus, hit_rule: HitRule, record: QuestionRecord | None, diags: list[Diagnostic],
                found: Found) -> LineResult:
    """Everything one parsed line yields: its resolved locators, findings and artifact line."""
    if record is None:
        return LineResult(None, [], diags, None, ())
    deps: dict[str, str | None] = {}
    resolved = []
    for locator in record.locators:
        if locator.doc is not None:
            doc = corpus.docs.get(locator.doc)
            deps[locator.doc] = doc.sha256 if doc else None
        resolved.append(resolve_locator(corpus, hit_rule, locator, diags, found))
    record_shape(record, resolved, diags)
    ok = record.valid and all(r.span is not None and r.chunks for r in resolved)
    artifact = artifact_line(record, resolved) if ok else None
    return LineResult(record, resolved, diags, artifact, tuple(sorted(deps.items())))


def crashed_line(line: str, exc: Exception) -> LineResult:
    """A line whose analysis raised: it costs its own findings, never the whole file's."""
    message = f"cannot analyse this line ({type(exc).__name__}: {exc})"
    return LineResult(None, [], [Diagnostic.at_columns("invalid-json", message, 0, len(line.rstrip()))], None, ())


def resolve_locator(corpus: Corpus, hit_rule: HitRule, locator: Locator, diags: list[Diagnostic],
                    found: Found) -> ResolvedLocator:
    out = ResolvedLocator(locator)
    if not locator.well_formed:
        return out
    doc_id, quote, qnode = locator.doc, locator.quote, locator.quote_node
    if doc_id in corpus.broken:
        return out  # reported once as corpus-error on the file itself
    doc = corpus.docs.get(doc_id)
    if doc is None:
        diags.append(unknown_doc(corpus, locator))
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
    starts = found.get((doc_id, quote))
    if starts is None:
        starts = occurrences(doc.text, quote, MAX_LISTED_OCCURRENCES + 1)
    if not starts:
        diags.append(not_found(corpus, doc_id, doc.text, quote, qnode))
        return out
    if len(starts) > 1:
        total = (str(len(starts)) if len(starts) <= MAX_LISTED_OCCURRENCES
                 else f"more than {MAX_LISTED_OCCURRENCES}")
        out.ambiguous_at = starts
        related = [corpus_location(corpus, doc_id, start, start + len(quote), f"occurrence {i + 1} of {total}")
                   for i, start in enumerate(starts[:MAX_LISTED_OCCURRENCES])]
        where = ", ".join("{0.line}:{0.column}".format(r.range.one_based()) for r in related[:5])
        more = ", …" if len(starts) > 5 else ""
        diags.append(Diagnostic.at_columns(
            "quote-ambiguous", f"quote occurs {total} times in {doc_id} (at {where}{more}): "
            "lengthen it until it is unique", *cols, related, doc_id=doc_id))
        return out
    span = span_at(doc_id, doc.text, starts[0], quote, locator.exact)
    out.span = span
    out.chunks = bearing_chunks(hit_rule, doc.chunks_overlapping(span.start, span.end), span)
    out.coverage = union_coverage(out.chunks, span)
    if not out.chunks:
        diags.append(Diagnostic.at_columns(
            "no-bearing-chunk", f"no chunk bears the span {span.start}–{span.end} of {doc_id} under hit rule "
            f"{hit_rule} (headings are not part of any chunk body)", *cols))
    if len(doc.text[span.start:span.end].strip()) < MIN_SPAN_CHARS:
        diags.append(Diagnostic.at_columns(
            "span-too-short", f"the resolved span ({span.rule}) is under {MIN_SPAN_CHARS} characters: "
            "the label is probably mis-anchored", *cols))
    return out


_WHY = {"line break": "the same words occur across a line break", "whitespace": "the same words occur with "
        "different whitespace", "typography": "the same words occur with different quotes or dashes",
        "normalisation": "the quote is Unicode NFD (decomposed accents) and the corpus NFC; the composed "
        "text occurs", "case": "the same words occur with different capitalisation"}


def not_found(corpus: Corpus, doc_id: str, text: str, quote: str, qnode: JsonNode) -> Diagnostic:
    """quote-not-found, with where the author probably meant (a hint and a fix, never a relabel)."""
    hint = not_found_hint(text, quote)
    if hint is None:
        return Diagnostic.at_columns("quote-not-found", f"quote not found in {doc_id}", qnode.start, qnode.end)
    loc = corpus_location(corpus, doc_id, hint.start, hint.end, f"the text as it is in {doc_id}")
    where = loc.range.one_based()
    data = {"doc_id": doc_id, "hint": hint.kind}
    if hint.kind == "closest":
        message = (f"quote not found in {doc_id}; the closest passage ({hint.score:.0f}% similar) is at "
                   f"{where.line}:{where.column}: {short(hint.corpus_text)!r}")
    else:
        message = f"quote not found in {doc_id}; {_WHY[hint.kind]} at {where.line}:{where.column}: " \
                  f"{short(hint.corpus_text)!r}"
        # a fix never writes a quote spanning lines: for a line break, the parts on one line
        choices = [text[a:b] for a, b in hint.parts] if hint.kind == "line break" else [hint.corpus_text]
        if choices:
            data["replacement"] = choices[0]
            data["replacements"] = [[text[a:b], "{0.line}:{0.column}".format(
                corpus_location(corpus, doc_id, a, b, "").range.one_based())] for a, b in hint.parts]
    return Diagnostic.at_columns("quote-not-found", message, qnode.start, qnode.end, (loc,), **data)


def unknown_doc(corpus: Corpus, locator: Locator) -> Diagnostic:
    """unknown-doc, naming the closest doc IDs (rapidfuzz) or, for a small corpus, all of them."""
    doc_id = locator.doc
    stems = {d: PurePosixPath(d).stem for d in corpus.docs}  # ".md" alike in every name: compare the rest
    close = [d for _, _, d in process.extract(PurePosixPath(doc_id).stem, stems, scorer=fuzz.WRatio,
                                              processor=utils.default_process, limit=3, score_cutoff=70)]
    if close:
        known = f"did you mean {', '.join(map(repr, close))}?"
    else:
        known = "corpus: " + (", ".join(corpus.docs) if len(corpus.docs) <= 8 else f"{len(corpus.docs)} documents")
    return Diagnostic.at_columns("unknown-doc", f"unknown doc {doc_id!r} ({known})", locator.doc_node.start,
                                 locator.doc_node.end, suggestions=close)


def record_shape(record: QuestionRecord, resolved: list[ResolvedLocator], diags: list[Diagnostic]) -> None:
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


# --- the whole set ----------------------------------------------------------------------------

def set_rules(corpus: Corpus, path: Path, text: str, records: list[RecordLine]) -> list[Diagnostic]:
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
                out.append(duplicate(path, name, value, first[value], r))
    spans = Counter(chain.from_iterable(r.result.span_docs for r in recs))
    for doc_id in [d for d in spans if d not in corpus.docs]:
        del spans[doc_id]
    if n_records < MIN_RECORDS:
        out.append(Diagnostic("too-few-records", f"{n_records} records: a golden set needs at least "
                              f"{MIN_RECORDS} to measure anything", path, top))
    total = sum(spans.values())
    for doc_id, n in spans.items():
        if total and n / total > MAX_DOC_SHARE:
            out.append(Diagnostic("doc-dominates", f"{doc_id} holds {n} of {total} spans "
                                  f"({n / total:.0%} > {MAX_DOC_SHARE:.0%}): the set is lopsided", path, top))
    for doc_id, doc in corpus.docs.items():
        if spans[doc_id] == 0 and n_records:
            related = Related(doc.path, Range.on_line(0, 0, 0), "the unlabelled document", doc_id, (0, 0))
            out.append(Diagnostic("doc-unlabelled", f"no question points into {doc_id}", path, top, (related,)))
    for broken in corpus.broken.values():
        out.append(Diagnostic("corpus-error", f"{broken.doc_id}: {broken.message}", broken.path,
                              Range.on_line(broken.line, broken.column, broken.column + 1)))
    return out


def duplicate(path: Path, name: str, value: str, first: RecordLine, again: RecordLine) -> Diagnostic:
    code = "duplicate-id" if name == "id" else "duplicate-query"
    s, e = first.record.field_range(name)
    related = Related(path, Range.on_line(first.line, s, e), f"first used on line {first.line + 1}")
    s, e = again.record.field_range(name)
    return Diagnostic(code, f"{name} {short(value)!r} already used on line {first.line + 1}",
                      path, Range.on_line(again.line, s, e), (related,))
