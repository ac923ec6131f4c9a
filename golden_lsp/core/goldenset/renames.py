"""A document renamed without history: where the labels of a doc the corpus no longer holds resolve.

``unknown-doc`` names the documents whose names are close to the one a label gives — no help when a
file was renamed to something unrelated (``setup.md`` → ``getting-started/install.md``) and the
corpus is not in git for ``migrate`` to follow. But the labels still say where they point: when
every quote given for the unknown doc occurs exactly once in one and the same other document,
that document is where the text went, and a fix can name it (``check``'s text and JSON, the
editor's quick fix). A quote found in two documents, or not at all, is no evidence, and nothing
is said. This reads every document of the corpus once for all such quotes (one Aho–Corasick pass
per document when there are many), so it runs only when there is an unknown doc, and never on a
keystroke: ``check`` after the analysis, the editor when asked for code actions.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ..check.model import Analysis
from ..corpus.index import Corpus
from ..engine import quoteindex
from ..findings.diagnostics import Diagnostic
from ..labels.resolve import occurrences


def renamed(corpus: Corpus, analysis: Analysis, only: str | None = None) -> dict[str, str]:
    """Unknown doc ID → the one document of ``corpus`` in which every quote the analysis's records
    give for it occurs exactly once (``only``: that unknown doc alone)."""
    wanted: dict[str, set[str]] = {}
    for record in analysis.records:
        for resolved in record.result.resolved:
            loc = resolved.locator
            if (
                loc.well_formed
                and loc.doc
                and loc.quote
                and loc.doc not in corpus.docs
                and (only is None or loc.doc == only)
            ):
                wanted.setdefault(loc.doc, set()).add(loc.quote)
    if not wanted:
        return {}
    quotes = set().union(*wanted.values())
    once: dict[str, set[str]] = {q: set() for q in quotes}  # quote → the documents it occurs once in
    more: set[str] = set()  # quotes occurring twice somewhere: no evidence
    batched = {q for q in quotes if quoteindex.batchable(q)}
    automaton = quoteindex.build(batched) if len(batched) >= quoteindex.MIN_QUOTES else None
    alone = quotes - batched if automaton is not None else quotes
    for doc_id, doc in corpus.docs.items():
        text = doc.passing_text()
        found = quoteindex.find_with(automaton, text, 2) if automaton is not None else {}
        found.update((q, occurrences(text, q, 2)) for q in alone)  # a batched quote not found: nowhere
        for q, starts in found.items():
            if len(starts) == 1:
                once[q].add(doc_id)
            elif starts:
                more.add(q)
    out = {}
    for unknown, qs in wanted.items():
        places = {frozenset(once[q]) for q in qs}
        if not qs & more and len(places) == 1 and len(target := next(iter(places))) == 1:
            out[unknown] = next(iter(target))
    return out


def with_renames(diagnostics: Sequence[Diagnostic], renames: dict[str, str]) -> list[Diagnostic]:
    """``diagnostics`` with each ``unknown-doc`` of a renamed doc saying where its text went, and
    that document as its fix (``data["renamed_to"]``)."""
    out = []
    for d in diagnostics:
        target = renames.get(d.data.get("doc_id", "")) if d.code == "unknown-doc" else None
        if target is not None:
            d = dataclasses.replace(
                d,
                message=f"{d.message}; every quote labelled with it occurs once in {target!r}: "
                f"renamed? set doc to {target!r}",
                data={**d.data, "renamed_to": target},
            )
        out.append(d)
    return out
