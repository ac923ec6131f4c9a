"""What an accepted proposal becomes: a locator whose quote is unique and lies inside the passage.

A person accepts the judge's proposals one at a time in the editor (a code action) or in bulk
(``golden-lsp accept``); both come here, so both write the same label for the same proposal. The
quote is the one golden-lsp writes for any place (``assist.anchor.quote_at``, which calls the one
quote picker): at the first line of the passage that is not a heading and holds a unique quote,
its span containing that place; the record gains ``hop: multi`` with its second span. A label
the judge had a hand in says so: in bulk the record's ``annotator`` becomes ``judge:<model>`` (a
record with its own annotator keeps it and gains ``judged_by``), and accepted in the editor, by a
person reading it, it gains the ``judged_by`` note — so ``stats``, ``agree`` and the audit tell
machine labels from human ones. Edits change only the record's line, as "Add as locator" does.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..assist.anchor import add_locator_edits, field_edit, quote_at
from ..core.check.model import Analysis, RecordLine
from ..core.corpus.index import Corpus
from ..core.labels.questions import JUDGE_PREFIX, QuestionRecord, parse_record
from ..core.labels.resolve import Span, occurrences, span_at
from ..practice.agreement import spans_of
from .proposals import Proposal

Edits = list[tuple[int, int, str]]


def judge_name(proposal: Proposal) -> str:
    return f"{JUDGE_PREFIX}{proposal.model}"


def passage_quote(corpus: Corpus, proposal: Proposal, answer: str = "") -> str | None:
    """A unique quote inside the proposal's passage, at its first line (not a heading) that has
    one and whose span contains it; None when no line of the passage has one."""
    doc = corpus.docs.get(proposal.doc)
    if doc is None:
        return None
    text, pos, end = doc.text, proposal.char_start, min(proposal.char_end, doc.chars)
    while pos < end:
        stop = text.find("\n", pos, end)
        stop = end if stop == -1 else stop
        line = text[pos:stop]
        if line.strip() and not line.lstrip().startswith("#"):
            quote = quote_at(text, pos, end, answer)
            if quote is not None:
                return quote
        pos = stop + 1
    return None


def quote_span(corpus: Corpus, doc_id: str, quote: str) -> Span:
    """The span a (unique) quote written by ``passage_quote`` resolves to."""
    text = corpus.docs[doc_id].text
    return span_at(doc_id, text, occurrences(text, quote)[0], quote, exact=False)


def note_edit(record: QuestionRecord, judge: str, bulk: bool) -> tuple[int, int, str] | None:
    """The edit marking the judge's hand in a record's labels, if it is not marked yet."""
    if record.judge_labelled or record.judged_by is not None:
        return None
    if bulk and record.annotator is None:
        return field_edit(record, "annotator", judge)
    return field_edit(record, "judged_by", judge)


def accept_edits(record: QuestionRecord, corpus: Corpus, proposal: Proposal) -> Edits | None:
    """The editor's "Accept": the locator and the ``judged_by`` note, on the record's line."""
    quote = passage_quote(corpus, proposal, record.expected_answer or "")
    edits = add_locator_edits(record, proposal.doc, quote) if quote is not None else None
    if edits is None:
        return None
    note = note_edit(record, judge_name(proposal), bulk=False)
    return edits + [note] if note else edits


def unanswerable_edits(record: QuestionRecord, proposal: Proposal) -> Edits:
    """The editor's "Mark unanswerable": ``unanswerable: true`` and the ``judged_by`` note."""
    note = note_edit(record, judge_name(proposal), bulk=False)
    return [field_edit(record, "unanswerable", True)] + ([note] if note else [])


def apply(line: str, edits: Edits) -> str:
    """Column edits applied to a line (from the last one back, so earlier columns stay put)."""
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        line = line[:start] + new + line[end:]
    return line


@dataclass
class Accepted:
    """What ``accept`` did to one record: locators added (with their proposals), unanswerable."""

    id: str
    line: int
    added: list[tuple[Proposal, str]] = field(default_factory=list)
    unanswerable: bool = False
    #: proposals not accepted, with why (stale, labelled already, no unique quote)
    skipped: list[tuple[Proposal, str]] = field(default_factory=list)


#: for a record's fresh proposals, the ones to accept and whether to mark it unanswerable
Chooser = Callable[[list[Proposal]], tuple[list[Proposal], bool]]


def _reparsed(line: str) -> QuestionRecord:
    record = parse_record(line)[0]
    assert record is not None  # the line parsed before the edit, which only added members
    return record


def _accept_record(
    line: str, rec_line: RecordLine, corpus: Corpus, proposals: list[Proposal], choose: Chooser
) -> tuple[str, Accepted]:
    """One record's line with its chosen proposals accepted (``line`` is the file's, as read)."""
    record = _reparsed(line)
    done = Accepted(record.id or "", rec_line.line)
    fresh = [p for p in proposals if p.fresh(record.query, corpus)]
    stale = "stale: the query or the passage changed since it was judged"
    done.skipped += [(p, stale) for p in proposals if p not in fresh]
    chosen, unanswerable = choose(fresh)
    spans = spans_of(rec_line)
    for p in chosen:
        if any(s.doc_id == p.doc and s.start < p.char_end and p.char_start < s.end for s in spans):
            done.skipped.append((p, "the passage is labelled already"))
            continue
        quote = passage_quote(corpus, p, record.expected_answer or "")
        edits = add_locator_edits(record, p.doc, quote) if quote is not None else None
        if quote is None or edits is None:
            done.skipped.append((p, "no quote golden-lsp may write in the passage"))
            continue
        line = apply(line, edits)
        record = _reparsed(line)
        spans.append(quote_span(corpus, p.doc, quote))
        done.added.append((p, quote))
    if unanswerable and fresh == proposals and not record.locators and not record.unanswerable:
        line = apply(line, [field_edit(record, "unanswerable", True)])
        record = _reparsed(line)
        done.unanswerable = True
    if done.added or done.unanswerable:
        note = note_edit(record, judge_name(done.added[0][0] if done.added else fresh[0]), bulk=True)
        line = apply(line, [note]) if note else line
    return line, done


_BREAK = re.compile(r"(\r\n|\r|\n)")


def accept_text(
    text: str, analysis: Analysis, corpus: Corpus, proposals: dict[str, list[Proposal]], choose: Chooser
) -> tuple[str, list[Accepted]]:
    """The questions file's text with the chosen proposals accepted, and what was done per record.

    ``text`` is the file as read (line ends kept, a BOM too); ``analysis`` is of that text, so its
    lines are the text's lines. Each record's line is edited where it is; nothing else changes.
    """
    parts = _BREAK.split(text)
    out: list[Accepted] = []
    seen: set[str] = set()
    for rec_line in analysis.records:
        record = rec_line.record
        if record is None or record.id is None or record.id in seen or record.id not in proposals:
            continue
        seen.add(record.id)
        line, done = _accept_record(parts[2 * rec_line.line], rec_line, corpus, proposals[record.id], choose)
        parts[2 * rec_line.line] = line
        if done.added or done.unanswerable or done.skipped:
            out.append(done)
    return "".join(parts), out
