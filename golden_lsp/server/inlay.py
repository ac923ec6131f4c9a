"""Inlay hints: each quote's resolution written after its closing ``"``.

A JSONL line is long and its quote usually sits off screen, so without hints the label is readable
only by hovering. The hint says in a few characters what the builder does with the quote —
``→ line 27 · list item · 2 chunks`` (the line of the chapter where its span starts; the chapter is
the locator's ``doc``, just before it) when it resolves, ``✗ not found`` / ``✗ 2×`` when it does
not — and the tooltip says it in full. Only hints inside the requested range are made (editors ask
for the visible lines).

VS Code draws at most ``editor.inlayHints.maximumLength`` (default 43) characters of hints per
*line*, all hints of the line together: past that it cuts the hint with ``…`` and drops the hints
after it. So the hints of one record share ``LINE_BUDGET``: what matters comes first in each label
(where the quote lands, or why it does not), and the details (the chunk count, then the rule) are
left out of every hint of a line whose labels would not fit otherwise.
"""

from __future__ import annotations

from lsprotocol import types

from ..core.check.model import ResolvedLocator
from ..core.check.rules import MAX_LISTED_OCCURRENCES
from ..core.io.shown import shown
from .view import View

#: VS Code's default ``editor.inlayHints.maximumLength``, which counts all the hints of a line
LINE_BUDGET = 43


def labels(view: View, resolved: ResolvedLocator) -> tuple[list[str], str] | None:
    """The hint for one locator: its labels from the fullest to the shortest, and its tooltip;
    None when there is nothing to say (a malformed locator)."""
    loc, span = resolved.locator, resolved.span
    if not loc.well_formed:
        return None
    corpus = view.golden.corpus
    if span is not None:
        line = corpus.docs[span.doc_id].positions.raw_position(span.start)[0] + 1
        n = len(resolved.chunks)
        chunks = f"{n} chunk{'' if n == 1 else 's'}"
        where = f"→ line {line}"
        full = [f"{where} · {span.rule} · {chunks}", f"{where} · {span.rule}", where]
        return full, f"{span.doc_id}:{line} · {span.rule} · {chunks}"
    if loc.doc in corpus.broken:
        return ["✗ corpus file unreadable"], f"{loc.doc} cannot be read"
    if loc.doc not in corpus.docs:
        return ["✗ unknown doc"], f"{loc.doc} is not a document of the corpus"
    if not loc.quote:
        return ["✗ empty quote"], "the quote is empty"
    if resolved.ambiguous_at:
        n = len(resolved.ambiguous_at)
        times = f"{n}" if n <= MAX_LISTED_OCCURRENCES else f">{MAX_LISTED_OCCURRENCES}"
        return [f"✗ {times}×"], f"the quote occurs {times} times in {loc.doc}: it must occur once"
    return ["✗ not found"], f"the quote is not in {loc.doc}"


def fit(hints: list[list[str]], budget: int = LINE_BUDGET) -> list[str]:
    """One label per hint of a line: the fullest level at which all of them fit in ``budget``
    characters together (the shortest when none does)."""
    deepest = max((len(h) for h in hints), default=1)
    for level in range(deepest):
        chosen = [h[min(level, len(h) - 1)] for h in hints]
        if sum(map(len, chosen)) <= budget:
            return chosen
    return [h[-1] for h in hints]


def _before(a: types.Position, b: types.Position) -> bool:
    return (a.line, a.character) <= (b.line, b.character)


def inlay_hints(view: View, request: types.Range) -> list[types.InlayHint]:
    hints = []
    for rec in view.records_in(request):
        line_hints = []  # (position, labels, tooltip) of every hint of the record's line
        for resolved in rec.result.resolved:
            node = resolved.locator.quote_node
            if node is None or (got := labels(view, resolved)) is None:
                continue
            line_hints.append((view.buffer.core_position(rec.line, node.end), *got))
        texts = fit([h[1] for h in line_hints])
        for (pos, _, tooltip), text in zip(line_hints, texts, strict=True):
            if _before(request.start, pos) and _before(pos, request.end):
                hints.append(
                    types.InlayHint(pos, shown(text), tooltip=shown(tooltip, lines=True), padding_left=True)
                )
    return hints
