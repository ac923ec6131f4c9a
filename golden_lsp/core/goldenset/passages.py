"""The passages a build labelled: a digest of each label's span text, to say which ones changed.

A stale artifact says *that* the corpus moved under the set, once, for the whole file. A person
needs to know *which labels* now span text that differs from the text they were checked against —
those are the ones whose ``expected_answer`` may no longer hold. The artifact cannot carry it (it
stays byte-identical to the reference builder's), so ``build`` writes a side file beside it,
``golden-set.v1.passages.json``: for every record, each locator's doc, quote and the sha256 of its
span's text. ``check`` compares only the records whose artifact line differs from the committed
one (a span whose text changed changes its chunks' ids, so no other record can have changed):
a clean set costs nothing, on a keystroke or in CI.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..check.model import Analysis, LineResult
from ..findings.diagnostics import Diagnostic, Range
from ..io.files import display
from .artifact import CommittedFiles, line_of

VERSION = 1


def passages_path(artifact: Path) -> Path:
    """``golden-set.v1.jsonl`` → ``golden-set.v1.passages.json``, beside it."""
    stem = artifact.name[: -len(".jsonl")] if artifact.name.endswith(".jsonl") else artifact.name
    return artifact.with_name(f"{stem}.passages.json")


def _digest(result: LineResult) -> list[dict[str, Any]] | None:
    out = []
    for r in result.resolved:
        if r.span is None:
            return None
        text = r.passage
        out.append(
            {
                "doc": r.locator.doc,
                "quote": r.locator.quote,
                "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            }
        )
    return out


def passages_text(analysis: Analysis) -> str:
    """The side file a build writes: record id → each locator's doc, quote and span digest."""
    records: dict[str, Any] = {}
    for r in analysis.records:
        record = r.record
        if record is not None and isinstance(record.id, str):
            digests = _digest(r.result)
            if digests is not None:
                records[record.id] = digests
    return (
        json.dumps({"version": VERSION, "records": records}, ensure_ascii=False, indent=1, sort_keys=True)
        + "\n"
    )


def passage_changes(
    analysis: Analysis, path: Path, files: CommittedFiles, artifact: Path, build_command: str
) -> list[Diagnostic]:
    """passage-changed on each locator, of a record whose artifact line is not the committed one,
    that keeps its doc and quote but spans text whose digest is not the one the last build saw."""
    have = files.get(artifact, "artifact").lines
    differing = [
        r
        for r in analysis.records
        if have
        and r.record is not None
        and isinstance(r.record.id, str)
        and (line := r.result.artifact_memo or line_of(r.result)) is not None
        and line not in have
    ]
    if not differing:  # a clean set reads nothing more
        return []
    committed = files.get(path, "passages").parsed
    recorded = (
        committed.get("records")
        if isinstance(committed, dict) and committed.get("version") == VERSION
        else None
    )
    if not isinstance(recorded, dict):
        return []
    out = []
    for r in differing:
        record = r.record
        assert record is not None
        if not isinstance(recorded.get(record.id), list):
            continue
        now = _digest(r.result)
        before = {
            (x.get("doc"), x.get("quote")): x.get("sha256")
            for x in recorded[record.id]
            if isinstance(x, dict)
        }
        for digest, resolved in zip(now or (), r.result.resolved):
            was = before.get((digest["doc"], digest["quote"]))
            node = resolved.locator.quote_node
            if was is None or was == digest["sha256"] or node is None:
                continue
            out.append(
                Diagnostic(
                    "passage-changed",
                    f"the passage this label spans in {digest['doc']} changed since the last build "
                    f"({display(path)}): the quote still resolves, but what it labels may say "
                    "something else now: re-read it against the record's expected_answer, then rebuild; "
                    f"run `{build_command}`",
                    analysis.path,
                    Range.on_line(r.line, node.start, node.end),
                    data={"doc": digest["doc"], "command": build_command},
                )
            )
    return out
