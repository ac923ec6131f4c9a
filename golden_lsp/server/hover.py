"""Hover: what a quote resolved to, what a record amounts to, what a document holds.

The author's question on hover is "what will the builder do with this?": for a quote, the span
it expands to (document, line:col, offsets, which expansion rule), the text of that span, its
coverage and the chunks that bear it; for an ``id`` the record's summary; for a ``doc`` the
document's size and chunk count. A quote that does not resolve names its findings (their messages
are the diagnostics') and shows each occurrence of an ambiguous one in its line, and, when the
corpus change broke it, what it used to span and what re-anchoring does (``reanchor.py``). On
``primary``, ``unanswerable`` or an empty ``locators`` it shows the annotation guidelines
(``core.labels.guidelines``, the text the judge's prompt is built from).
Each is written through a ``markup.Markup``: Markdown, or plain text for a client that renders none.
"""

from __future__ import annotations

import json

from lsprotocol import types

from ..core.check.model import RecordLine, ResolvedLocator
from ..core.check.rules import MAX_LISTED_OCCURRENCES
from ..core.findings.diagnostics import Range, plural
from ..core.io.shown import shown
from ..core.labels.guidelines import PAGE as GUIDELINES
from ..core.labels.questions import QuestionRecord
from ..core.labels.recordmeta import metadata
from . import reanchor
from .markup import Markup
from .reanchor import Reanchoring
from .view import Target, View

SPAN_PREVIEW_CHARS = 400
#: characters of an ambiguous quote's line shown on each side of each occurrence
CONTEXT_CHARS = 40


def _preview(text: str) -> str:
    text = text.strip("\n")
    if len(text) <= SPAN_PREVIEW_CHARS:
        return text
    half = SPAN_PREVIEW_CHARS // 2
    return f"{text[:half]}\n… ({len(text) - 2 * half} more characters) …\n{text[-half:]}"


def _quote_text(
    view: View, rec: RecordLine, resolved: ResolvedLocator, mu: Markup, reanchoring: Reanchoring | None
) -> str:
    span = resolved.span
    if span is None:
        return _unresolved_text(view, rec, resolved, mu) + _used_to_span(view, rec, resolved, mu, reanchoring)
    doc = view.golden.corpus.docs[span.doc_id]
    line, col = doc.positions.raw_position(span.quote_start)
    lines = [
        f"{mu.strong('quote')} → {mu.code(span.doc_id)} {line + 1}:{col + 1} · "
        f"chars {span.quote_start}–{span.quote_end}"
        + (f" · {mu.strong('primary span')}" if resolved.locator.primary else ""),
        f"{mu.strong('span')} ({span.rule}) chars {span.start}–{span.end} · {span.end - span.start} chars",
        mu.block(_preview(doc.text[span.start : span.end])),
        f"{mu.strong('union coverage')} {round(resolved.coverage, 4)} "
        f"under {mu.code(str(view.golden.hit_rule))}",
    ]
    if resolved.chunks:
        rows = [[mu.code(c.chunk_id[:12]), c.heading_path, f"{c.start}–{c.end}"] for c in resolved.chunks]
        lines.append(mu.table(["chunk", "heading path", "chars"], rows))
    else:
        lines.append(mu.strong("no answer-bearing chunk"))
    return "\n\n".join(lines)


def _unresolved_text(view: View, rec: RecordLine, resolved: ResolvedLocator, mu: Markup) -> str:
    """A quote that does not resolve: the codes of its findings, not their messages (VS Code shows
    a finding's message in the same hover), and what the findings do not show: each occurrence of
    an ambiguous quote in its line, for the author to pick the one meant."""
    node = resolved.locator.quote_node
    codes = sorted(
        {
            d.code
            for d in view.analysis.diagnostics
            if d.range.line == rec.line and node is not None and d.range.column == node.start
        }
    )
    head = f"{mu.strong('quote')} → not resolved" + (
        f" ({', '.join(mu.code(c) for c in codes)}: the finding says why)" if codes else ""
    )
    doc = view.golden.corpus.docs.get(resolved.locator.doc or "")
    quote = resolved.locator.quote
    if doc is None or not resolved.ambiguous_at or not isinstance(quote, str):
        return head
    text = doc.text
    rows = []
    for at in resolved.ambiguous_at[:MAX_LISTED_OCCURRENCES]:
        row, col = doc.positions.raw_position(at)
        start = max(text.rfind("\n", 0, at) + 1, at - CONTEXT_CHARS)
        end = text.find("\n", at + len(quote))
        end = min(len(text) if end == -1 else end, at + len(quote) + CONTEXT_CHARS)
        rows.append([f"{row + 1}:{col + 1}", " ".join(text[start:end].split())])
    return head + "\n\n" + mu.table(["occurrence", "in its line"], rows)


def _record_text(r: QuestionRecord, rec: RecordLine, mu: Markup) -> str:
    spans = [x.span for x in rec.result.resolved]
    chunk_ids = sorted({c.chunk_id for x in rec.result.resolved for c in x.chunks})
    resolved = sum(1 for s in spans if s is not None)
    out = [
        f"{mu.strong(r.id or '')} · {r.hop}-hop · tags: {', '.join(r.tags) or '—'}",
        " · ".join(practice_summary(r)),
        mu.em(shown(r.query)) if r.query else "",
        f"expected answer: {shown(r.expected_answer)}" if r.expected_answer else "",
        f"{resolved} of {plural(len(spans), 'locator')} resolved · {plural(len(chunk_ids), 'answer-bearing chunk')}"
        + (": " + ", ".join(mu.code(c[:12]) for c in chunk_ids) if chunk_ids else ""),
        "in the artifact" if rec.result.buildable else "not buildable yet (see the findings on this line)",
        _metadata_text(r, mu),
    ]
    return "\n\n".join(x for x in out if x)


#: the most characters of one metadata value, and the most metadata lines, a hover shows
METADATA_VALUE_CHARS = 200
METADATA_LINES = 20


def _shown(value: object) -> str:
    """A metadata key or value on one line: JSON-escaped (no raw break or control character), cut."""
    text = shown(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
    return text if len(text) <= METADATA_VALUE_CHARS else text[:METADATA_VALUE_CHARS] + "…"


def _metadata_text(r: QuestionRecord, mu: Markup) -> str:
    """The record's metadata (``recordmeta``), one ``name: value`` line each, ``meta.KEY`` for
    each pair of ``meta``, shown as it is (a fenced block) and bounded."""
    rows = []
    for name, value in metadata(r.value).items():
        if name == "meta":
            rows += [f"meta.{_shown(k)}: {_shown(v)}" for k, v in value.items()]
        else:
            rows.append(f"{name}: {_shown(value)}")
    if not rows:
        return ""
    if len(rows) > METADATA_LINES:
        rows[METADATA_LINES:] = [f"… {len(rows) - METADATA_LINES} more"]
    return f"{mu.strong('metadata')}\n\n{mu.block(chr(10).join(rows))}"


def practice_summary(r: QuestionRecord) -> list[str]:
    """The practice fields a record uses, for people (hover, outline)."""
    out = [
        f"{name.replace('_', ' ')}: {value}"
        for name in ("query_type", "split", "annotator", "judged_by")
        if (value := getattr(r, name)) is not None
    ]
    return out + ["unanswerable"] if r.unanswerable else out


def _used_to_span(
    view: View, rec: RecordLine, resolved: ResolvedLocator, mu: Markup, reanchoring: Reanchoring | None
) -> str:
    """What a label the corpus change broke used to span, and what re-anchoring does with it."""
    found = reanchor.used_to_span(view, rec, resolved.locator, reanchoring) if reanchoring else None
    if found is None or found.old_span is None or found.old_text is None:
        return ""
    old = found.old_span
    fix = f"{mu.strong(found.status)}: {found.note}"
    if found.rewritten:
        fix = (
            f"{mu.strong('re-anchor')} ({found.summary()}) → {mu.code(str(found.doc))} quote "
            f"{mu.code(_code(found.quote or ''))}: {found.note}"
        )
    return (
        f"\n\n{mu.strong('used to span')} at the manifest's corpus_commit: {mu.code(str(found.old_doc))} "
        f"({old.rule}) chars {old.start}–{old.end}\n\n{mu.block(_preview(found.old_text))}\n\n{fix}"
    )


def _code(text: str) -> str:
    return text.replace("`", "'")


def _doc_text(
    view: View, rec: RecordLine, resolved: ResolvedLocator, mu: Markup, reanchoring: Reanchoring | None
) -> str:
    doc = view.golden.corpus.docs.get(resolved.locator.doc or "")
    if doc is None:
        return f"{mu.code(str(resolved.locator.doc))} is not in the corpus ({view.golden.corpus.root})" + (
            _used_to_span(view, rec, resolved, mu, reanchoring)
        )
    n_lines = doc.text.count("\n")
    return (
        f"{mu.code(doc.doc_id)} · {doc.chars:,} chars · {n_lines:,} lines · {len(doc.chunks)} chunks "
        f"({mu.code(str(doc.max_chars))} max chars) · sha256 {mu.code(doc.sha256[:12])}"
    )


def hover(
    view: View, target: Target, mu: Markup, reanchoring: Reanchoring | None = None
) -> types.Hover | None:
    rec, resolved = target.record, target.locator
    if target.kind == "quote" and resolved is not None:
        text = _quote_text(view, rec, resolved, mu, reanchoring)
    elif target.kind == "doc" and resolved is not None:
        text = _doc_text(view, rec, resolved, mu, reanchoring)
    elif target.kind == "id" and rec.record is not None:
        text = _record_text(rec.record, rec, mu)
    elif target.kind == "guidelines":
        text = GUIDELINES
    else:
        return None
    line = target.record.line
    rng = view.range(Range.on_line(line, *target.columns))
    return types.Hover(mu.content(shown(text, lines=True)), rng)
