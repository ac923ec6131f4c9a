"""Per-query traces of a run: ``request_id``, ``latency_ms`` and ``cost``, to join evaluation to traffic.

A trace, an eval and a cost row that cannot be joined answer no question worth asking. A JSONL run
may carry these fields on each line beside ``query_id`` and ``chunk_ids``; a TREC or ranx run,
which has no room for them, takes a side file of the same JSONL lines without ``chunk_ids``
(``eval --traces FILE``). They are stored in ``query_results`` so the SQL of the docs joins them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from ..core.goldenset.config import ConfigError

#: a side file larger than this is refused (a run's traces are a few lines per query)
MAX_TRACE_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True)
class Trace:
    request_id: str | None = None
    latency_ms: float | None = None
    cost: float | None = None


def _number(path: Path, no: int, name: str, value: object) -> float | None:
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < 0
    ):
        raise ConfigError(f"{path}:{no}: {name!r} must be a non-negative number, not {value!r}")
    return float(value)


def read_traces(path: Path) -> dict[str, Trace]:
    """query_id → its trace, from JSONL lines ``{"query_id", "request_id"?, "latency_ms"?, "cost"?}``
    (other keys, such as ``chunk_ids``, are ignored); lines with none of the three are skipped."""
    try:
        if path.stat().st_size > MAX_TRACE_BYTES:
            raise ConfigError(f"{path}: larger than {MAX_TRACE_BYTES:,} bytes, not a trace file")
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the traces {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    out: dict[str, Trace] = {}
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (json.JSONDecodeError, RecursionError, ValueError) as exc:
            raise ConfigError(f"{path}:{no}: invalid JSON: {exc}") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("query_id"), str):
            raise ConfigError(f'{path}:{no}: each line is {{"query_id": "...", "request_id": "...", ...}}')
        rid = obj.get("request_id")
        if rid is not None and not isinstance(rid, str):
            raise ConfigError(f"{path}:{no}: 'request_id' must be a string, not {rid!r}")
        trace = Trace(
            rid,
            _number(path, no, "latency_ms", obj.get("latency_ms")),
            _number(path, no, "cost", obj.get("cost")),
        )
        if trace != Trace():
            out[obj["query_id"]] = trace
    return out
