"""Completion in questions files, also on half-typed lines.

The cursor's context comes from ``View.target_at`` and its tolerant scanner (``cursor.context_at``),
so it works while the line is not JSON yet. Offered: record and locator keys not yet on the line, ``doc`` values
(the corpus's doc IDs), ``hop``, ``split`` and ``query_type`` values (the set's vocabulary), ``true``/
``false`` for ``unanswerable``, ``exact`` and ``primary``, the next free ``id`` (never one the committed artifact
holds), and inside a quote the continuations of the typed words from the corpus text, unique
ones first, each with its match count.

Every item's ``textEdit`` replaces exactly what the user typed of the token before the cursor —
inside a string, what is typed after its opening quote — and its ``filterText`` is the item as
written there, so a client that inserts the item itself and one that applies the edit leave the
same line: the quotes stay the user's, nothing after the cursor is touched (Neovim cannot replace
past the cursor, and inserts a single candidate at once), and no client doubles the typed text
(lsp-mode inserts the ``filterText`` from where the edit starts). Only items that match what is
typed are offered (eglot 1.9 filters by the symbol at the cursor, not by the edit's range).
"""

from __future__ import annotations

import json

from lsprotocol import types

from ..assist.continuations import MAX_COUNT, continuations
from ..assist.cursor import CursorContext
from ..core.findings.diagnostics import Range
from ..core.labels.ids import next_free_id
from ..core.labels.questions import HOPS, LOCATOR_FIELDS, RECORD_FIELDS, SPLITS
from .view import View

TRIGGERS = ['"', ":", " "]


def _matches(n: int) -> str:
    if n >= MAX_COUNT:
        return f"{MAX_COUNT}+ matches"
    return "1 match — unique" if n == 1 else f"{n} matches"


def _matches_typed(text: str, typed: str) -> bool:
    """Whether ``typed`` is a subsequence of ``text``, ignoring case: what a client's fuzzy filter
    keeps, at least (offered alone, items a client would filter out never show in one that does
    not filter by the edit's range, as eglot 1.9 does not)."""
    rest = iter(text.casefold())
    return all(c in rest for c in typed.casefold())


def completions(view: View, pos: types.Position) -> types.CompletionList | None:
    target = view.target_at(pos)
    if target is None or target.context is None:
        return None
    line, ctx = target.record.line, target.context
    line_text = view.line_text(line)
    options: list[tuple[str, str, types.CompletionItemKind, str | None]] = []  # label, value, kind, detail
    if ctx.kind == "key":
        keys = LOCATOR_FIELDS if ctx.in_locator else RECORD_FIELDS
        typed = ctx.prefix if ctx.in_string else None
        options = [
            (k, k, types.CompletionItemKind.Property, "locator key" if ctx.in_locator else "record key")
            for k in keys
            if k not in ctx.members or k == typed
        ]
    elif ctx.kind == "value" and ctx.in_locator and ctx.key == "doc":
        options = [
            (d, d, types.CompletionItemKind.File, f"{doc.chars:,} chars · {doc.n_chunks} chunks")
            for d, doc in view.golden.corpus.docs.items()
        ]
    elif ctx.kind == "value" and ctx.in_locator and ctx.key == "quote":
        doc_id = ctx.members.get("doc")
        doc = view.golden.corpus.docs.get(doc_id) if isinstance(doc_id, str) else None
        if doc is not None:
            options = [
                (q, q, types.CompletionItemKind.Text, _matches(n))
                for q, n in continuations(doc.text, ctx.prefix)
            ]
    elif ctx.kind == "value" and ctx.key in ("hop", "split") and not ctx.in_locator:
        options = [
            (v, v, types.CompletionItemKind.EnumMember, ctx.key)
            for v in (HOPS if ctx.key == "hop" else SPLITS)
        ]
    elif ctx.kind == "value" and ctx.key == "query_type" and not ctx.in_locator:
        options = [
            (v, v, types.CompletionItemKind.EnumMember, "query_type") for v in view.golden.config.query_types
        ]
    elif ctx.kind == "value" and ctx.key in (("exact", "primary") if ctx.in_locator else ("unanswerable",)):
        if not ctx.in_string:
            options = [(v, v, types.CompletionItemKind.Keyword, ctx.key) for v in ("true", "false")]
    elif ctx.kind == "value" and ctx.key == "id" and not ctx.in_locator:
        ids = (r.record.id for r in view.analysis.records if r.record and r.record.id and r.line != line)
        new = next_free_id(ids, view.golden.committed_queries())
        options = [(new, new, types.CompletionItemKind.Value, "next free id")]
    start, end = ctx.typed
    typed = line_text[start:end]
    rng = view.range(Range.on_line(line, start, end))
    items = []
    for i, (label, value, kind, detail) in enumerate(options):
        shown = value if kind == types.CompletionItemKind.Keyword else json.dumps(value, ensure_ascii=False)
        inside = shown[1:-1] if shown.startswith('"') else shown  # as it is written inside the quotes
        if not _matches_typed(inside, typed):
            continue
        text = _new_text(ctx, shown, inside, line_text)
        items.append(
            types.CompletionItem(
                label,
                kind=kind,
                detail=detail,
                sort_text=f"{i:04d}",
                filter_text=inside,
                text_edit=types.TextEdit(rng, text),
            )
        )
    if not items:
        return None
    return types.CompletionList(is_incomplete=ctx.key == "quote" or len(items) < len(options), items=items)


def _new_text(ctx: CursorContext, shown: str, inside: str, line_text: str) -> str:
    """What replaces the typed text: inside a string its escaped content (with the closing quote,
    and a key's colon, when the string is not closed on the line), else the whole JSON value (a
    key with its colon when none follows)."""
    if ctx.in_string:
        return inside if ctx.closed else inside + ('": ' if ctx.kind == "key" else '"')
    colon = ctx.kind == "key" and not line_text[ctx.end :].lstrip().startswith(":")
    return shown + (": " if colon else "")
