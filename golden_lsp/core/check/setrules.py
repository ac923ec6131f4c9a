"""The set-level rules: the findings about the whole set, which read every record at once.

Duplicates, split leaks, the lab's shape rules for the set (size, a dominating or an unlabelled
document, the required query types), corpus files that cannot be read and ids the committed
artifact holds for other queries. They run on every keystroke over every record, so they read
counts over the records (``SetTally``) that the engine (``analysis.py``) updates with the records
that changed, and a keystroke costs the changed records, not the whole set. The per-line rules,
the thresholds and the set's settings are in ``rules.py``.
"""

from __future__ import annotations

from collections import Counter
from itertools import islice
from operator import attrgetter
from pathlib import Path
from typing import NamedTuple

from ..corpus.index import Corpus
from ..findings.diagnostics import WHOLE_SET, Diagnostic, Range, Related, plural
from ..labels.questions import QuestionRecord
from .model import Analysis, LineResult, RecordLine
from .rules import MAX_DOC_SHARE, MIN_RECORDS, SetRules, folded, short

#: above this many unlabelled documents, doc-unlabelled is one finding with the count
MAX_UNLABELLED_LISTED = 20
#: the unlabelled documents that one finding names (as related locations too)
UNLABELLED_NAMED = 5
#: the data of a finding about the whole set (never changed in place)
_ON_SET = {WHOLE_SET: True}
#: where a finding about one document sits in it: its start
_DOC_TOP = Range.on_line(0, 0, 0)

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
        #: bumped whenever a document's number of spans changes (the shape findings read them)
        self.spans_version = 0
        #: the duplicate and split-leak findings of the current records (None: to be found again)
        self.duplicates: list[Diagnostic] | None = None
        self.leaks: list[Diagnostic] | None = None
        #: the shape findings, with the corpus's names and the key they were made for (``set_rules``)
        self.shape: tuple[object, tuple, list[Diagnostic]] | None = None

    def update(self, removed: list[LineResult], added: list[LineResult], moved: bool) -> None:
        """Records ``removed`` left the file and ``added`` came (``moved``: later lines shifted)."""
        stale_duplicates = stale_leaks = moved
        spans: Counter = Counter()  # doc → the net change of its spans
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
                    spans[doc] += sign
                self.query_types[record.query_type] += sign
                self.splits[record.split] += sign
                stale_leaks = stale_leaks or record.split in _LEAKING
        if any(spans.values()):
            self.spans.update(spans)
            self.spans_version += 1
        if stale_duplicates:
            self.duplicates = None
        if stale_leaks:
            self.leaks = None


def set_rules(
    corpus: Corpus,
    path: Path,
    top: Range,
    records: list[RecordLine],
    tally: SetTally,
    settings: SetRules,
) -> list[Diagnostic]:
    """The set-level findings of a file whose records are ``records``, counted in ``tally``, those
    about the whole set at ``top`` (``model.set_anchor``). The findings about the set's shape are made again
    only when what they read changed (the corpus, the anchor, the counts): a keystroke that
    leaves them alone hands back the same objects, which the editor then sends as they are."""
    out: list[Diagnostic] = []
    if tally.duplicates is None:
        tally.duplicates = duplicates(path, records, tally.repeated)
    out.extend(tally.duplicates)
    required = tuple(tally.query_types[qt] > 0 for qt in settings.required_query_types)
    key = (top, tally.n_records, tally.spans_version, required, settings)
    kept = tally.shape
    if kept is None or kept[0] is not corpus.names or kept[1] != key:  # an edit keeps the names
        kept = tally.shape = (corpus.names, key, shape_findings(corpus, path, top, tally, settings))
    out.extend(kept[2])
    if all(tally.splits[s] > 0 for s in _LEAKING):
        if tally.leaks is None:
            tally.leaks = split_leaks(path, [r for r in records if r.result.record is not None])
        out.extend(tally.leaks)
    return out


def shape_findings(
    corpus: Corpus, path: Path, top: Range, tally: SetTally, settings: SetRules
) -> list[Diagnostic]:
    """The findings about the set's shape and its corpus: too few records, a dominating or
    unlabelled document, a required query type missing, a corpus file that cannot be read. Each
    sits where a person acts on it: a document's in that document (its first line), the whole
    set's on the config (``SetRules.place``: at the key it is about), never on a record."""
    out: list[Diagnostic] = []
    spans = {doc_id: n for doc_id, n in tally.spans.items() if n > 0 and doc_id in corpus.docs}
    n_records = tally.n_records
    if n_records < MIN_RECORDS:
        out.append(
            Diagnostic(
                "too-few-records",
                f"{plural(n_records, 'record')}: a golden set needs at least "
                f"{MIN_RECORDS} to measure anything",
                *settings.place(path, top),
                data=_ON_SET,
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
                    corpus.docs[doc_id].path,
                    _DOC_TOP,
                    data={**_ON_SET, "doc": doc_id},
                )
            )
    if n_records:
        out.extend(unlabelled(corpus, path, top, spans, settings))
    for qt in settings.required_query_types:
        if tally.query_types[qt] <= 0:
            out.append(
                Diagnostic(
                    "query-type-missing",
                    f"no record has query_type {qt!r} (required_query_types)",
                    *settings.place(path, top, "required_query_types"),
                    data={**_ON_SET, "query_type": qt},
                )
            )
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


def unlabelled(
    corpus: Corpus, path: Path, top: Range, labelled: dict[str, int], settings: SetRules
) -> list[Diagnostic]:
    """doc-unlabelled: one finding per document no question points into (none of the
    ``labelled`` documents of the corpus), in that document; above ``MAX_UNLABELLED_LISTED`` of
    them (unless the run lists them in full, ``SetRules.unlabelled_in_full``) one finding about
    the set with the count and the first few as related locations, so that a large corpus does
    not drown the other findings; that one costs the labelled documents and the first few, not
    the corpus."""

    def related(doc_id: str) -> Related:
        doc = corpus.docs[doc_id]
        return Related(doc.path, _DOC_TOP, "the unlabelled document", doc_id, (0, 0))

    doc_ids = (d for d in corpus.docs if d not in labelled)
    n = len(corpus.docs) - len(labelled)
    if n <= MAX_UNLABELLED_LISTED or settings.unlabelled_in_full:
        return [
            Diagnostic(
                "doc-unlabelled",
                f"no question points into {d}",
                corpus.docs[d].path,
                _DOC_TOP,
                data={**_ON_SET, "doc": d},
            )
            for d in doc_ids
        ]
    first = list(islice(doc_ids, UNLABELLED_NAMED))
    return [
        Diagnostic(
            "doc-unlabelled",
            f"no question points into {n:,} of the {len(corpus.docs):,} documents "
            f"({', '.join(first)}, …): the full list is in `golden-lsp stats`, the report, or "
            "`golden-lsp check --select doc-unlabelled`",
            *settings.place(path, top),
            tuple(map(related, first)),
            {**_ON_SET, "count": n},
        )
    ]


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
