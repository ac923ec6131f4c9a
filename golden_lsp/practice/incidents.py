"""Production incidents into records: a trace or incident export read into skeleton records whose
retrieved chunks become the LLM judge's candidates.

"Every production incident becomes a new record": a question that went wrong in production is the
best test the set can gain, and the trace already says what retrieval returned for it. This module
reads an export as JSON lines — ``query`` (required), ``request_id``, and the chunk ids retrieval
returned, best first, as ``chunk_ids`` or ``retrieved`` (strings, or objects with ``chunk_id`` or
``id``) — and makes a skeleton record of each new query (a fresh id continuing the set's numbering,
tagged ``incident``, with its ``source``, ``request_id`` and ``sampled_at``, and its place in the
export in ``meta``) and a JSONL run of the retrieved chunks under the new ids, which
``golden-lsp judge --run`` takes as the candidates to judge: the judge proposes which of the chunks
production retrieved bear the answer, and a person accepts its proposals.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..core.check.rules import folded
from ..core.goldenset.config import ConfigError
from ..core.labels.ids import free_ids
from ..core.labels.jsonline import split_lines

TAG = "incident"


@dataclass(frozen=True)
class Incident:
    query: str
    request_id: str | None
    chunk_ids: list[str]
    line: int


def _chunk_ids(value: Any, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ConfigError(f"{where}: the retrieved chunks must be a list, best first")
    out = []
    for item in value:
        cid = item.get("chunk_id", item.get("id")) if isinstance(item, dict) else item
        if not isinstance(cid, str) or not cid:
            raise ConfigError(
                f"{where}: each retrieved chunk is a chunk id, or an object with 'chunk_id' or 'id'"
            )
        if cid not in out:
            out.append(cid)
    return out


def read_export(text: str, where: str) -> list[Incident]:
    """The export's incidents in order; a bad line raises ConfigError naming ``where`` and the line."""
    out = []
    for no, line in enumerate(split_lines(text), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            obj = None
        if not isinstance(obj, dict) or not isinstance(obj.get("query"), str) or not obj["query"].strip():
            raise ConfigError(
                f"{where}:{no}: each line must be a JSON object with a non-empty string 'query'"
            )
        request_id = obj.get("request_id")
        if request_id is not None and (
            isinstance(request_id, bool) or not isinstance(request_id, (str, int))
        ):
            raise ConfigError(f"{where}:{no}: 'request_id' must be a string")
        retrieved = obj["chunk_ids"] if "chunk_ids" in obj else obj.get("retrieved")
        out.append(
            Incident(
                obj["query"].strip(),
                None if request_id is None else str(request_id),
                _chunk_ids(retrieved, f"{where}:{no}"),
                no,
            )
        )
    return out


@dataclass(frozen=True)
class Intake:
    records: list[dict[str, Any]]
    #: record id → the chunks production retrieved for it (the judge's candidates)
    run: dict[str, list[str]]
    #: (line, the id of the record that already asks the query)
    skipped: list[tuple[int, str]]


def intake(
    incidents: list[Incident], existing: dict[str, str], used_ids: list[str], source: str, sampled_at: str
) -> Intake:
    """Skeleton records for the incidents whose query the set (``existing``: folded query → id) does
    not ask yet, each once, and the run of their retrieved chunks."""
    fresh = free_ids(used_ids)
    records, run, skipped = [], {}, []
    seen = dict(existing)
    for inc in incidents:
        key = folded(inc.query)
        if key in seen:
            skipped.append((inc.line, seen[key]))
            continue
        rid = next(fresh)
        seen[key] = rid
        rec: dict[str, Any] = {
            "id": rid,
            "query": inc.query,
            "expected_answer": "",
            "locators": [],
            "tags": [TAG],
            "source": source,
        }
        if inc.request_id is not None:
            rec["request_id"] = inc.request_id
        rec["sampled_at"] = sampled_at
        rec["meta"] = {"incident_line": inc.line, "retrieved": len(inc.chunk_ids)}
        records.append(rec)
        run[rid] = inc.chunk_ids
    return Intake(records, run, skipped)
