"""What a label means: does its passage still say the answer, and does its question copy it?

The other rules prove where a label points. These two read what it points at. A quote can resolve
once and still label a passage whose fact changed ("requires Python 3.6+" became "3.8+") — then the
record's ``expected_answer`` relies on tokens no span holds (``answer-unsupported``). And a question
worded like its passage measures string matching, not retrieval (``query-copies-passage``). Both
are heuristics: how each decides, and how often it fires on well-made sets, is in
``docs/findings.md``; ``benchmarks/meaning_rates.py`` measures it.
"""

from __future__ import annotations

from ..findings.diagnostics import Diagnostic, short
from ..labels.answertokens import unsupported
from ..labels.questions import QuestionRecord
from ..labels.quotepolicy import content_words
from .model import ResolvedLocator

#: the content words in a row that a query shares with its passage before it copies it (measured:
#: no natural question of the bundled example reaches it; see docs/findings.md)
COPIED_RUN = 5
#: the longest passage excerpt a message quotes
_SHOWN = 80


def record_meaning(record: QuestionRecord, resolved: list[ResolvedLocator], diags: list[Diagnostic]) -> None:
    """answer-unsupported and query-copies-passage for a record whose every locator resolved
    (each span's text comes with its facts: no document is read back)."""
    if not resolved or any(r.span is None for r in resolved) or record.unanswerable:
        return
    passages = [r.passage for r in resolved]
    query = record.query or ""
    if record.expected_answer:
        answer_unsupported(record, query, passages, diags)
    if query:
        query_copies(record, query, passages, diags)


def answer_unsupported(
    record: QuestionRecord, query: str, passages: list[str], diags: list[Diagnostic]
) -> None:
    assert record.expected_answer is not None
    missing = unsupported(record.expected_answer, query, passages)
    if not missing:
        return
    names = ", ".join(repr(t.text) for t in missing)
    where = "its span does not hold" if len(passages) == 1 else "none of its spans holds"
    diags.append(
        Diagnostic.at_columns(
            "answer-unsupported",
            f"expected_answer relies on {names}, which {where} (span: "
            f"'{_excerpt(passages[0])}'): the passage may have changed under the label, or the answer "
            "says more than its spans — re-read the passage, then correct the answer or the label",
            *record.field_range("expected_answer"),
            missing=[t.text for t in missing],
        )
    )


def query_copies(record: QuestionRecord, query: str, passages: list[str], diags: list[Diagnostic]) -> None:
    run = copied_run(query, "\n".join(passages))
    if len(run) < COPIED_RUN:
        return
    diags.append(
        Diagnostic.at_columns(
            "query-copies-passage",
            f"the query copies its passage ({len(run)} content words in a row: '{' '.join(run)}'): a "
            "question worded like the document measures string matching, not retrieval — ask it as a "
            "user who has not read the passage would",
            *record.field_range("query"),
            words=len(run),
        )
    )


def copied_run(query: str, passage: str) -> list[str]:
    """The longest run of the query's content words (case folded) that occurs, in order and in a
    row, among the passage's content words; empty when shorter than ``COPIED_RUN``."""
    q = _words(query)
    if len(q) < COPIED_RUN:
        return []
    p = _words(passage)
    seeds = {tuple(p[i : i + COPIED_RUN]) for i in range(len(p) - COPIED_RUN + 1)}
    best: list[str] = []
    for i in range(len(q) - COPIED_RUN + 1):
        if tuple(q[i : i + COPIED_RUN]) not in seeds:
            continue
        n = COPIED_RUN
        while i + n < len(q) and _occurs(q[i : i + n + 1], p):
            n += 1
        if n > len(best):
            best = q[i : i + n]
    return best


def _words(text: str) -> list[str]:
    return [w.casefold() for w in content_words(text) if len(w) > 1]


def _occurs(run: list[str], words: list[str]) -> bool:
    n = len(run)
    return any(words[i : i + n] == run for i in range(len(words) - n + 1))


def _excerpt(passage: str) -> str:
    """The passage's start on one line, cut at a word."""
    return short(" ".join(passage.split()), _SHOWN)
