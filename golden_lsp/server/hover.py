"""Hover: what a quote resolved to, what a record amounts to, what a document holds.

The author's question on hover is "what will the builder do with this?": for a quote, the span
it expands to (document, line:col, offsets, which expansion rule), the text of that span, its
coverage and the chunks that bear it; for an ``id`` the record's summary; for a ``doc`` the
document's size and chunk count. A quote that does not resolve shows its findings instead, and,
when the corpus change broke it, what it used to span and what re-anchoring does (``reanchor.py``).
"""

from __future__ import annotations

import re

from lsprotocol import types

from ..core.diagnostics import Range, plural
from ..core.model import RecordLine, ResolvedLocator
from ..core.questions import QuestionRecord
from . import reanchor
from .reanchor import Reanchoring
from .view import Target, View

SPAN_PREVIEW_CHARS = 400


def _fenced(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def _preview(text: str) -> str:
    text = text.strip("\n")
    if len(text) <= SPAN_PREVIEW_CHARS:
        return text
    half = SPAN_PREVIEW_CHARS // 2
    return f"{text[:half]}\n… ({len(text) - 2 * half} more characters) …\n{text[-half:]}"


def _quote_markdown(
    view: View, rec: RecordLine, resolved: ResolvedLocator, reanchoring: Reanchoring | None
) -> str:
    span = resolved.span
    if span is None:
        notes = [
            d
            for d in view.analysis.diagnostics
            if d.range.line == rec.line
            and resolved.locator.quote_node is not None
            and d.range.column == resolved.locator.quote_node.start
        ]
        body = "\n\n".join(f"**{d.code}** — {d.message}" for d in notes) or "This quote does not resolve."
        return f"**quote** → not resolved\n\n{body}" + _used_to_span(view, rec, resolved, reanchoring)
    doc = view.golden.corpus.docs[span.doc_id]
    line, col = doc.positions.raw_position(span.quote_start)
    lines = [
        f"**quote** → `{span.doc_id}` {line + 1}:{col + 1} · chars {span.quote_start}–{span.quote_end}"
        + (" · **primary span**" if resolved.locator.primary else ""),
        f"**span** ({span.rule}) chars {span.start}–{span.end} · {span.end - span.start} chars",
        _fenced(_preview(doc.text[span.start : span.end])),
        f"**union coverage** {round(resolved.coverage, 4)} under `{view.golden.hit_rule}`",
    ]
    if resolved.chunks:
        rows = ["| chunk | heading path | chars |", "|---|---|---|"]
        rows += [
            f"| `{c.chunk_id[:12]}` | {_cell(c.heading_path)} | {c.start}–{c.end} |" for c in resolved.chunks
        ]
        lines.append("\n".join(rows))
    else:
        lines.append("**no answer-bearing chunk**")
    return "\n\n".join(lines)


def _record_markdown(r: QuestionRecord, rec: RecordLine) -> str:
    spans = [x.span for x in rec.result.resolved]
    chunk_ids = sorted({c.chunk_id for x in rec.result.resolved for c in x.chunks})
    resolved = sum(1 for s in spans if s is not None)
    out = [
        f"**{r.id}** · {r.hop}-hop · tags: {', '.join(r.tags) or '—'}",
        " · ".join(practice_summary(r)),
        f"*{r.query}*" if r.query else "",
        f"expected answer: {r.expected_answer}" if r.expected_answer else "",
        f"{resolved} of {plural(len(spans), 'locator')} resolved · {plural(len(chunk_ids), 'answer-bearing chunk')}"
        + (": " + ", ".join(f"`{c[:12]}`" for c in chunk_ids) if chunk_ids else ""),
        "in the artifact" if rec.result.buildable else "not buildable yet (see the findings on this line)",
    ]
    return "\n\n".join(x for x in out if x)


def practice_summary(r: QuestionRecord) -> list[str]:
    """The practice fields a record uses, for people (hover, outline)."""
    out = [
        f"{name.replace('_', ' ')}: {value}"
        for name in ("query_type", "split", "annotator", "judged_by")
        if (value := getattr(r, name)) is not None
    ]
    return out + ["unanswerable"] if r.unanswerable else out


def _used_to_span(
    view: View, rec: RecordLine, resolved: ResolvedLocator, reanchoring: Reanchoring | None
) -> str:
    """What a label the corpus change broke used to span, and what re-anchoring does with it."""
    found = reanchor.used_to_span(view, rec, resolved.locator, reanchoring) if reanchoring else None
    if found is None or found.old_span is None or found.old_text is None:
        return ""
    old = found.old_span
    fix = f"**{found.status}**: {found.note}"
    if found.rewritten:
        fix = f"**re-anchor** ({found.summary()}) → `{found.doc}` quote `{_code(found.quote or '')}`: {found.note}"
    return (
        f"\n\n**used to span** at the manifest's corpus_commit: `{found.old_doc}` ({old.rule}) chars "
        f"{old.start}–{old.end}\n\n{_fenced(_preview(found.old_text))}\n\n{fix}"
    )


def _code(text: str) -> str:
    return text.replace("`", "'")


def _doc_markdown(
    view: View, rec: RecordLine, resolved: ResolvedLocator, reanchoring: Reanchoring | None
) -> str:
    doc = view.golden.corpus.docs.get(resolved.locator.doc or "")
    if doc is None:
        return f"`{resolved.locator.doc}` is not in the corpus ({view.golden.corpus.root})" + _used_to_span(
            view, rec, resolved, reanchoring
        )
    n_lines = doc.text.count("\n")
    return (
        f"`{doc.doc_id}` · {doc.chars:,} chars · {n_lines:,} lines · {len(doc.chunks)} chunks "
        f"(`{doc.max_chars}` max chars) · sha256 `{doc.sha256[:12]}`"
    )


def hover(view: View, target: Target, reanchoring: Reanchoring | None = None) -> types.Hover | None:
    rec, resolved = target.record, target.locator
    if target.kind == "quote" and resolved is not None:
        text = _quote_markdown(view, rec, resolved, reanchoring)
    elif target.kind == "doc" and resolved is not None:
        text = _doc_markdown(view, rec, resolved, reanchoring)
    elif target.kind == "id" and rec.record is not None:
        text = _record_markdown(rec.record, rec)
    else:
        return None
    line = target.record.line
    rng = view.range(Range.on_line(line, *target.columns))
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, text), rng)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
