"""The judge's proposals in the editor: an inlay hint on each record that has some, and one code
action per relevant proposal ("Accept <doc>:<line> — <reason>"), "Mark unanswerable" where the
judge proposed it.

``golden-lsp judge`` writes proposals, never labels; this is where a person reads them and
accepts each one, on the record's own line. The hint says how many candidates the judge found
relevant and at which confidence, its tooltip the reason for each; an action writes the locator
``keep.accept`` makes of the proposal (a unique quote inside the passage) and a ``judged_by``
note. Only fresh proposals are shown — the record's query and the passage's text unchanged since
they were judged — and not those whose passage the record labels already. The proposals file is
read again when it changes (its mtime and size; the watched-files event refreshes the hints).
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from ..core.check.model import RecordLine
from ..core.check.rules import short
from ..core.goldenset.config import ConfigError
from ..keep.accept import accept_edits, unanswerable_edits
from ..keep.proposals import CONFIDENCES, Proposal, by_record, proposed_unanswerable, read_proposals
from .anchor import line_edits
from .view import View

#: proposals files read, by path: (mtime_ns, size) → proposals by record id
_READ: dict[Path, tuple[tuple[int, int], dict[str, list[Proposal]]]] = {}


def _proposals(view: View) -> dict[str, list[Proposal]]:
    """The set's proposals by record id (none when there is no file, or a broken one: ``judge``
    and ``accept`` say what is wrong with it)."""
    path = view.golden.config.proposals_path()
    try:
        st = path.stat()
    except OSError:
        return {}
    key = (st.st_mtime_ns, st.st_size)
    cached = _READ.get(path)
    if cached is None or cached[0] != key:
        try:
            found = by_record(read_proposals(path))
        except ConfigError:
            found = {}
        cached = _READ[path] = (key, found)
    return cached[1]


def open_proposals(view: View, rec: RecordLine) -> tuple[list[Proposal], bool]:
    """A record's fresh proposals whose passage it does not label yet, and whether it may be
    marked unanswerable as the judge proposed (every proposal fresh, no locator yet)."""
    record = rec.record
    if record is None or record.id is None:
        return [], False
    mine = _proposals(view).get(record.id, [])
    corpus = view.golden.corpus
    fresh = [p for p in mine if p.fresh(record.query, corpus)]
    spans = [r.span for r in rec.result.resolved if r.span is not None]
    shown = [
        p
        for p in fresh
        if not any(s.doc_id == p.doc and s.start < p.char_end and p.char_start < s.end for s in spans)
    ]
    unanswerable = (
        fresh == mine and proposed_unanswerable(fresh) and not record.locators and not record.unanswerable
    )
    return shown, unanswerable


def _line_of(view: View, p: Proposal) -> int:
    return view.golden.corpus.docs[p.doc].positions.raw_position(p.char_start)[0] + 1


def _ordered(shown: list[Proposal]) -> list[Proposal]:
    """Relevant proposals, the surest first, then by rank."""
    relevant = [p for p in shown if p.relevant]
    return sorted(relevant, key=lambda p: (CONFIDENCES.index(p.confidence or "low"), p.rank))


def inlay_hints(view: View, request: types.Range) -> list[types.InlayHint]:
    hints = []
    for rec in view.records_in(request):
        shown, unanswerable = open_proposals(view, rec)
        if not shown or rec.record is None:
            continue
        relevant = _ordered(shown)
        levels = ", ".join(f"{n} {c}" for c in CONFIDENCES if (n := sum(p.confidence == c for p in relevant)))
        label = f"judge: {len(relevant)} of {len(shown)} relevant" + (f" ({levels})" if levels else "")
        if unanswerable:
            label = f"judge: none of {len(shown)} relevant — unanswerable?"
        tooltip = (
            "\n".join(f"{p.doc}:{_line_of(view, p)} · {p.confidence} — {p.reason}" for p in relevant)
            or "every candidate judged not relevant"
        )
        pos = view.buffer.core_position(rec.line, rec.record.span[1])
        hints.append(
            types.InlayHint(
                pos, label, tooltip=f"{tooltip}\n(proposed by {shown[0].model})", padding_left=True
            )
        )
    return hints


def code_actions(view: View, request: types.Range) -> list[types.CodeAction]:
    out = []
    for rec in view.records_in(request):
        record = rec.record
        shown, unanswerable = open_proposals(view, rec)
        if record is None or not shown:
            continue
        for p in _ordered(shown):
            edits = accept_edits(record, view.golden.corpus, p)
            if edits is None:
                continue
            out.append(
                types.CodeAction(
                    f"Accept {p.doc}:{_line_of(view, p)} — {short(p.reason or '', 70)}",
                    kind=types.CodeActionKind.Refactor,
                    edit=line_edits(view, rec.line, edits),
                )
            )
        if unanswerable:
            out.append(
                types.CodeAction(
                    "Mark unanswerable (the judge found no relevant candidate)",
                    kind=types.CodeActionKind.Refactor,
                    edit=line_edits(view, rec.line, unanswerable_edits(record, shown[0])),
                )
            )
    return out
