"""Auditing the judge: how far it agrees with the human labels a set already has.

An LLM judge is only worth its proposals if it labels as the set's people do, and that is
measured the way two annotators are (``practice.agreement``: Cohen's kappa, the same bands — good
above 0.7, acceptable 0.5–0.7, below 0.5 revise the guidelines). The items are (record, candidate
passage) pairs over records with human labels: a passage is *human-relevant* when it bears one of
the record's spans under the set's hit rule (``scoring.bearing_chunks``, as the build decides a
chunk's), and *judge-relevant* when the judge said relevant with high or medium confidence (the
proposals good practice keeps). Beside kappa: the judge's precision and recall against the
humans, a breakdown by confidence, and every disagreement. The result is written as ``audit.json``
beside the proposals (the report reads it there).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.check.model import RecordLine
from ..core.goldenset.config import ConfigError
from ..core.io.files import display, write_atomically
from ..core.labels.scoring import HitRule, bearing_chunks
from ..practice.agreement import Counts, kappa_summary, spans_of
from .judge import Judgment, Outcome, Passage
from .prompt import Prompt
from .proposals import CONFIDENCES, KEPT
from .providers import Provider


def _human_relevant(rule: HitRule, passages: list[Passage], rec: RecordLine) -> set[int]:
    """The positions (in ``passages``, all of one record) of the passages bearing a human span."""
    out: set[int] = set()
    for span in spans_of(rec):
        same_doc = [i for i, p in enumerate(passages) if p.doc == span.doc_id]
        bearing = bearing_chunks(rule, [passages[i] for i in same_doc], span)
        out.update(i for i in same_doc if passages[i] in bearing)
    return out


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def audit(
    outcome: Outcome, records: dict[str, RecordLine], rule: HitRule, provider: Provider, prompt: Prompt
) -> dict[str, Any]:
    """The audit's figures and items; the keys are the JSON contract of ``judge --audit``."""
    by_record: dict[str, list[int]] = {}
    for i, p in enumerate(outcome.passages):
        if isinstance(outcome.judged.get(i), Judgment):
            by_record.setdefault(p.record, []).append(i)
    items, tables = [], []
    levels = {c: {"relevant": [0, 0], "not_relevant": [0, 0]} for c in CONFIDENCES}
    for rid, idx in by_record.items():
        passages = [outcome.passages[i] for i in idx]
        human_set = _human_relevant(rule, passages, records[rid])
        table = Counts()
        for n, i in enumerate(idx):
            p, j = outcome.passages[i], outcome.judged[i]
            assert isinstance(j, Judgment)
            human, judge = n in human_set, j.relevant and j.confidence in KEPT
            table += Counts(
                int(human and judge),
                int(human and not judge),
                int(judge and not human),
                int(not (human or judge)),
            )
            level = levels[j.confidence]["relevant" if j.relevant else "not_relevant"]
            level[0] += 1
            level[1] += human
            items.append(
                {
                    "id": rid,
                    "doc": p.doc,
                    "char_start": p.start,
                    "char_end": p.end,
                    "rank": p.rank,
                    "human": human,
                    "judge": judge,
                    "relevant": j.relevant,
                    "confidence": j.confidence,
                    "reason": j.reason,
                }
            )
        tables.append(table)
    total, head = kappa_summary(tables)
    return {
        **head,
        "n_records": len(tables),
        "n_items": total.n,
        "human_relevant": total.both + total.only_a,
        "judge_relevant": total.both + total.only_b,
        "precision": _ratio(total.both, total.both + total.only_b),
        "recall": _ratio(total.both, total.both + total.only_a),
        "by_confidence": {
            c: {k: {"n": v[0], "human_relevant": v[1]} for k, v in by.items()} for c, by in levels.items()
        },
        "disagreements": sum(1 for it in items if it["human"] != it["judge"]),
        "n_errors": len(outcome.errors()),
        "not_judged": outcome.remaining,
        "provider": provider.name,
        "model": provider.model,
        "prompt": prompt.name,
        "prompt_digest": prompt.digest,
        "hit_rule": str(rule),
        "items": items,
    }


def write_audit(path: Path, result: dict[str, Any]) -> None:
    try:
        write_atomically({path: json.dumps(result, ensure_ascii=False, indent=2) + "\n"})
    except OSError as exc:
        raise ConfigError(f"cannot write {display(path)}: {exc.strerror or exc}") from None
