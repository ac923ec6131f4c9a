"""Workspace symbols: every record of every golden set the server knows, by id and query.

"Where is the question about huts in winter?" across several sets: the author types a few words
of an id or a query and jumps to the record, whichever questions file it is in and whether it is
open or not.
"""

from __future__ import annotations

from lsprotocol import types

from .view import View


def workspace_symbols(views: list[View], query: str) -> list[types.WorkspaceSymbol]:
    words = query.lower().split()
    out = []
    for view in views:
        for rec in view.analysis.records:
            r = rec.record
            if r is None or not r.id:
                continue
            name = f"{r.id} — {r.query}" if r.query else r.id
            if all(w in name.lower() for w in words):
                s, e = r.field_range("id")
                out.append(
                    types.WorkspaceSymbol(
                        name=name,
                        kind=types.SymbolKind.Object,
                        location=view.location(rec.line, s, e),
                        container_name=view.path.name,
                    )
                )
    return out
