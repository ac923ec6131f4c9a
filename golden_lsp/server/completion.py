"""Completion in questions files, also on half-typed lines.

The cursor's context comes from ``View.target_at`` and its tolerant scanner (``cursor.context_at``),
so it works while the line is not JSON yet. Offered: record and locator keys not yet on the line, ``doc`` values
(the corpus's doc IDs), ``hop``, ``split`` and ``query_type`` values (the set's vocabulary), ``true``/
``false`` for ``unanswerable``, ``exact`` and ``primary``, the next free ``id`` (never one the committed artifact
holds), and inside a quote the continuations of the typed words from the corpus text, unique
ones first, each with its match count. Every item replaces exactly the token being typed.
"""

from __future__ import annotations

import json

from lsprotocol import types

from ..assist.continuations import MAX_COUNT, continuations
from ..core.findings.diagnostics import Range
from ..core.labels.ids import next_free_id
from ..core.labels.questions import HOPS, LOCATOR_FIELDS, RECORD_FIELDS, SPLITS
from .view import View

TRIGGERS = ['"', ":", " "]


def _matches(n: int) -> str:
    if n >= MAX_COUNT:
        return f"{MAX_COUNT}+ matches"
    return "1 match — unique" if n == 1 else f"{n} matches"


def completions(view: View, pos: types.Position) -> types.CompletionList | None:
    target = view.target_at(pos)
    if target is None or target.context is None:
        return None
    line, ctx = target.record.line, target.context
    rng = view.range(Range.on_line(line, ctx.start, ctx.end))
    line_text = view.line_text(line)
    options: list[tuple[str, str, types.CompletionItemKind, str | None]] = []  # label, new text, kind, detail
    if ctx.kind == "key":
        keys = LOCATOR_FIELDS if ctx.in_locator else RECORD_FIELDS
        typed = ctx.prefix if ctx.in_string else None
        colon = "" if line_text[ctx.end :].lstrip().startswith(":") else ": "
        options = [
            (
                k,
                json.dumps(k) + colon,
                types.CompletionItemKind.Property,
                "locator key" if ctx.in_locator else "record key",
            )
            for k in keys
            if k not in ctx.members or k == typed
        ]
    elif ctx.kind == "value" and ctx.in_locator and ctx.key == "doc":
        options = [
            (
                d,
                json.dumps(d, ensure_ascii=False),
                types.CompletionItemKind.File,
                f"{doc.chars:,} chars · {doc.n_chunks} chunks",
            )
            for d, doc in view.golden.corpus.docs.items()
        ]
    elif ctx.kind == "value" and ctx.in_locator and ctx.key == "quote":
        doc_id = ctx.members.get("doc")
        doc = view.golden.corpus.docs.get(doc_id) if isinstance(doc_id, str) else None
        if doc is not None:
            options = [
                (q, json.dumps(q, ensure_ascii=False), types.CompletionItemKind.Text, _matches(n))
                for q, n in continuations(doc.text, ctx.prefix)
            ]
    elif ctx.kind == "value" and ctx.key in ("hop", "split") and not ctx.in_locator:
        options = [
            (v, json.dumps(v), types.CompletionItemKind.EnumMember, ctx.key)
            for v in (HOPS if ctx.key == "hop" else SPLITS)
        ]
    elif ctx.kind == "value" and ctx.key == "query_type" and not ctx.in_locator:
        options = [
            (v, json.dumps(v, ensure_ascii=False), types.CompletionItemKind.EnumMember, "query_type")
            for v in view.golden.config.query_types
        ]
    elif ctx.kind == "value" and ctx.key in (("exact", "primary") if ctx.in_locator else ("unanswerable",)):
        options = [(v, v, types.CompletionItemKind.Keyword, ctx.key) for v in ("true", "false")]
    elif ctx.kind == "value" and ctx.key == "id" and not ctx.in_locator:
        ids = (r.record.id for r in view.analysis.records if r.record and r.record.id and r.line != line)
        new = next_free_id(ids, view.golden.committed_queries())
        options = [(new, json.dumps(new), types.CompletionItemKind.Value, "next free id")]
    if not options:
        return None
    items = [
        types.CompletionItem(
            label,
            kind=kind,
            detail=detail,
            sort_text=f"{i:04d}",
            filter_text=text,
            text_edit=types.TextEdit(rng, text),
        )
        for i, (label, text, kind, detail) in enumerate(options)
    ]
    return types.CompletionList(is_incomplete=ctx.key == "quote", items=items)
