"""Adjudication: the annotators' disagreements written out for a person to resolve, and the
annotators' files merged into one set with the resolutions.

"Two or more annotators label independently, disagreements are adjudicated": after ``agree``
the records the annotators labelled differently (other chunks, span F1 below 0.5, or other
answerability, between any two of them) are written as a questions file of their own — each
record as the first annotator wrote it but with no labels yet, and every annotator's labels kept
in ``meta.adjudication`` — which a person resolves in the editor (a code action takes one
annotator's labels; or they write new locators, with every authoring aid) or by hand. The merge
then makes the set: a record one annotator labelled, as they labelled it; a record the annotators
agree on, the first one's labels, with ``meta.annotators`` naming them all; a disagreement, as
resolved, marked ``annotator: "adjudicated"``, with the annotators' original labels kept beside it
(``meta.adjudication``) as provenance. A disagreement left unresolved (no locators, not marked
unanswerable) stops the merge: nothing is written until each one is decided.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.check.model import RecordLine

ADJUDICATED = "adjudicated"
#: the labels of a record an annotator's version carries (what a person chooses between)
LABEL_FIELDS = ("locators", "unanswerable", "hop", "expected_answer")
HEADER = (
    "// golden-lsp adjudication: each record below was labelled differently by its annotators, whose\n"
    "// labels are in meta.adjudication. Resolve each: take one annotator's labels (in the editor, the\n"
    '// code action "Take <name>\'s labels") or write new locators (or mark it unanswerable); then\n'
    "// golden-lsp adjudicate THE ANNOTATORS' FILES --merge THIS FILE --out questions.jsonl\n"
)


def labels_of(value: dict[str, Any]) -> dict[str, Any]:
    """An annotator's labels of one record: the label fields their version has."""
    return {name: value[name] for name in LABEL_FIELDS if name in value}


def provenance(raters: list[tuple[str, RecordLine]]) -> dict[str, Any]:
    """``meta.adjudication`` of a disagreement: who labelled it, and each one's labels."""
    return {
        "annotators": [name for name, _ in raters],
        "labels": {name: labels_of(rec.record.value) for name, rec in raters if rec.record is not None},
    }


def _meta(value: dict[str, Any]) -> dict[str, Any]:
    meta = value.get("meta")
    return dict(meta) if isinstance(meta, dict) else {}


def open_record(raters: list[tuple[str, RecordLine]]) -> dict[str, Any]:
    """A disagreement to resolve: the first annotator's record without its labels (no locators),
    and every annotator's labels in ``meta.adjudication``."""
    first = raters[0][1].record
    assert first is not None
    base = {
        k: v for k, v in first.value.items() if k not in ("unanswerable", "hop", "annotator", "judged_by")
    }
    base["locators"] = []
    base["meta"] = {**_meta(first.value), "adjudication": provenance(raters)}
    return base


def resolved(value: dict[str, Any]) -> bool:
    """A disagreement a person decided: it has locators, or is marked unanswerable."""
    locators = value.get("locators")
    return value.get("unanswerable") is True or (isinstance(locators, list) and bool(locators))


def take(value: dict[str, Any], labels: dict[str, Any]) -> dict[str, Any]:
    """The record with one annotator's labels in place of its own (the editor's code action)."""
    out = {k: v for k, v in value.items() if k not in ("unanswerable", "hop") or k in labels}
    out.update(labels)
    if "locators" not in labels:
        out["locators"] = []
    return out


@dataclass
class Merged:
    records: list[dict[str, Any]] = field(default_factory=list)
    single: int = 0
    agreed: int = 0
    adjudicated: int = 0
    #: disagreements the adjudication file leaves undecided, or does not hold
    unresolved: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)


def merge(
    files: list[tuple[str, dict[str, RecordLine]]],
    disagreeing: set[str],
    decisions: dict[str, dict[str, Any]],
) -> Merged:
    """The merged set, as the module says, in the first file's order, then each next file's new ids."""
    out = Merged()
    order = list(dict.fromkeys(rid for _, recs in files for rid in recs))
    for rid in order:
        raters = [(name, recs[rid]) for name, recs in files if rid in recs]
        first_name, first = raters[0]
        assert first.record is not None
        if len(raters) == 1:
            out.single += 1
            out.records.append(
                {**first.record.value, "annotator": first.record.value.get("annotator", first_name)}
            )
        elif rid not in disagreeing:
            out.agreed += 1
            meta = {**_meta(first.record.value), "annotators": [name for name, _ in raters]}
            out.records.append(
                {
                    **first.record.value,
                    "annotator": first.record.value.get("annotator", first_name),
                    "meta": meta,
                }
            )
        elif rid not in decisions:
            out.missing.append(rid)
        elif not resolved(decisions[rid]):
            out.unresolved.append(rid)
        else:
            out.adjudicated += 1
            value = decisions[rid]
            meta = {**_meta(value), "adjudication": provenance(raters)}
            out.records.append({**value, "annotator": ADJUDICATED, "meta": meta})
    return out
