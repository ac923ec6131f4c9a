"""Anchor here: from a selection (or the cursor in a paragraph) in a chapter, write the label.

This cuts the author's copy–switch–paste loop: "New golden question anchored here" appends a
record with the next free id to the set's questions file (open or not), and "Add as locator to
<id>" extends the record whose line the author last edited. The quote comes from
``anchor.quote_at`` (unique, on one line, its span containing the selection's start); where there
is none, the action is there disabled, its ``disabled.reason`` saying why (``client.py`` makes that
a message for a client that cannot show a disabled action). The person still writes the query and
the answer.
"""

from __future__ import annotations

from lsprotocol import types

from ..assist.anchor import add_locator_edits, new_record_line, no_anchor_reason, quote_at
from ..core.findings.diagnostics import Range
from ..core.labels.ids import next_free_id
from .view import CorpusView, View

NEW_TITLE = "New golden question anchored here"


def line_edits(view: View, line: int, edits: list[tuple[int, int, str]]) -> types.WorkspaceEdit:
    """Column edits on one line of a questions file as a workspace edit."""
    return types.WorkspaceEdit(
        changes={
            view.uri: [types.TextEdit(view.range(Range.on_line(line, s, e)), text) for s, e, text in edits]
        }
    )


def append_edit(view: View, line: str) -> types.WorkspaceEdit:
    """``line`` appended to a questions file as its last line, the file's final line break kept
    last: inserted before that break (an editor holding lines, as Neovim does, makes a text
    inserted after it a line of its own and keeps an empty line after it), into a last line that
    is empty, or with a line break before and after at the end of a file that has no final one."""
    text = view.buffer.text
    ending = next((e for e in ("\r\n", "\n", "\r") if text.endswith(e)), "")
    body = text[: len(text) - len(ending)]
    if not ending:
        new = "\n" + line + "\n" if text else line + "\n"
    elif not body or body.endswith(("\n", "\r")):
        new = line
    else:
        new = ending + line
    at = view.buffer.position_at(len(body))
    return types.WorkspaceEdit(changes={view.uri: [types.TextEdit(types.Range(at, at), new)]})


def free_id(view: View) -> str:
    ids = (r.record.id for r in view.analysis.records if r.record is not None and r.record.id)
    return next_free_id(ids, view.golden.committed_queries())


def code_actions(cv: CorpusView, request: types.Range, last_edited: dict[str, int]) -> list[types.CodeAction]:
    out: list[types.CodeAction] = []
    for source in cv.sources:
        doc = source.doc
        start, end = cv.offset(doc, request.start), cv.offset(doc, request.end)
        quote = quote_at(doc.text, start, end) if source.views else None
        if quote is None:
            if source.views and not out:
                why = types.CodeActionDisabled(
                    f"cannot anchor here: {no_anchor_reason(doc.text, start, end)}"
                )
                out.append(types.CodeAction(NEW_TITLE, kind=types.CodeActionKind.Refactor, disabled=why))
            continue
        home = next(
            (v for v in source.views if v.path.resolve() == v.golden.questions_path.resolve()),
            source.views[0],
        )
        out.append(
            types.CodeAction(
                NEW_TITLE,
                kind=types.CodeActionKind.Refactor,
                edit=append_edit(home, new_record_line(free_id(home), doc.doc_id, quote)),
            )
        )
        for view in source.views:
            line = last_edited.get(view.uri)
            rec = view.analysis.record_at(line) if line is not None else None
            record = rec.record if rec is not None else None
            if rec is None or record is None or not record.id:
                continue
            edits = add_locator_edits(record, doc.doc_id, quote)
            if edits:
                out.append(
                    types.CodeAction(
                        f"Add as locator to {record.id}",
                        kind=types.CodeActionKind.Refactor,
                        edit=line_edits(view, rec.line, edits),
                    )
                )
    return out
