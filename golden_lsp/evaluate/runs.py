"""Retrieval runs: read TREC, JSONL and ranx files into one ranking per query, and write them.

A run is scored by rank, so how a file becomes a ranking decides the numbers. TREC and ranx runs
carry scores, and trec_eval ignores the rank column: it re-sorts each query by score, descending,
compared as C ``float`` (32 bits), and breaks ties by docno in *descending* ``strcmp`` order
(``comp_sim_docno`` in trec_eval's ``form_res_rels.c``). Both are ranked here exactly so, so a
number from golden-lsp and one from trec_eval agree on tied scores. JSONL runs list IDs in rank
order. A chunk ID listed twice for a query counts once, at its best rank, and is counted.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from ..core.goldenset.config import ConfigError
from ..core.io.files import read_regular
from ..core.io.jsontext import dumps


@dataclass(frozen=True)
class Run:
    name: str
    format: str
    #: query id → chunk IDs, best first, each once
    rankings: dict[str, list[str]]
    #: IDs dropped because they were already ranked higher for the same query
    duplicates: int
    digest: str


def trec_order(scored: list[tuple[str, float]]) -> list[str]:
    """IDs as trec_eval ranks them: score descending as float32, then docno descending."""
    import numpy  # the eval extra, imported when a run is read

    by_doc = sorted(scored, key=lambda ds: ds[0], reverse=True)  # stable: the second key first
    sims = numpy.asarray([s for _, s in by_doc], dtype=numpy.float32)
    order = numpy.argsort(-sims, kind="stable")
    return [by_doc[i][0] for i in order]


def _dedup(ids: list[str]) -> tuple[list[str], int]:
    seen: dict[str, None] = dict.fromkeys(ids)
    return list(seen), len(ids) - len(seen)


def detect_format(text: str) -> str:
    head = text.lstrip()
    if not head.startswith("{"):
        return "trec"
    try:
        whole = json.loads(text)
    except (ValueError, RecursionError):  # the reader of either format says what is wrong
        return "jsonl"
    return "jsonl" if isinstance(whole, dict) and "query_id" in whole else "ranx"


def _json(path: Path, line: int | None, text: str) -> object:
    """``text`` (line ``line`` of the file, or all of it when None) decoded, or an error naming
    the line: invalid, or nested too deeply to decode."""
    try:
        return json.loads(text)
    except RecursionError:
        raise _fail(path, line or 1, "invalid JSON: nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise _fail(path, line or exc.lineno, f"invalid JSON: {exc}") from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise _fail(path, line or 1, f"invalid JSON: {exc}") from None


def _fail(path: Path, line: int | None, message: str) -> ConfigError:
    return ConfigError(f"{path}:{line}: {message}" if line else f"{path}: {message}")


def _score(path: Path, no: int | None, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise _fail(path, no, f"score {value!r} is not a number")
    try:
        score = float(value)
    except ValueError:
        raise _fail(path, no, f"score {value!r} is not a number") from None
    if score != score:
        raise _fail(path, no, "score is NaN")
    return score


def _read_trec(path: Path, text: str) -> dict[str, list[str]]:
    """The run's rankings: as array work when every line is six fields with a numeric score,
    else line by line, which says where the first bad line is."""
    fast = _read_trec_arrays(text)
    return fast if fast is not None else _read_trec_lines(path, text)


def _read_trec_arrays(text: str) -> dict[str, list[str]] | None:
    """Every query ranked at once, as ``trec_order`` ranks each: one stable sort by query (in
    order of first appearance), float32 score descending, docno descending. None when a line is
    not six fields or a score not a number (the line reader then locates it)."""
    import numpy as np  # the eval extra, imported when a run is read

    tokens = text.split()
    lines = sum(1 for line in text.splitlines() if line.strip()) if len(tokens) % 6 == 0 else -1
    if lines * 6 != len(tokens):
        return None
    try:
        scores = np.asarray(tokens[4::6], dtype=np.float64)
    except ValueError:
        return None
    if np.isnan(scores).any():
        return None
    qids, qcode = np.unique(np.asarray(tokens[0::6]), return_inverse=True)
    docs = np.asarray(tokens[2::6])
    _, drank = np.unique(docs, return_inverse=True)
    order = np.lexsort((-drank, -scores.astype(np.float32), qcode))
    # the queries in order of first appearance, as a dict of the lines would hold them
    first = np.full(len(qids), len(tokens), dtype=np.int64)
    np.minimum.at(first, qcode, np.arange(len(qcode)))
    bounds = np.searchsorted(qcode[order], np.arange(len(qids) + 1))
    ranked = docs[order].tolist()
    return {str(qids[q]): ranked[bounds[q] : bounds[q + 1]] for q in np.argsort(first, kind="stable")}


def _read_trec_lines(path: Path, text: str) -> dict[str, list[str]]:
    scored: dict[str, list[tuple[str, float]]] = {}
    for no, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 6:
            raise _fail(
                path, no, f"a TREC run line has 6 fields (qid Q0 docno rank score tag), not {len(fields)}"
            )
        scored.setdefault(fields[0], []).append((fields[2], _score(path, no, fields[4])))
    return {qid: trec_order(docs) for qid, docs in scored.items()}


def _read_jsonl(path: Path, text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for no, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        obj = _json(path, no, line)
        if not isinstance(obj, dict) or not isinstance(obj.get("query_id"), str):
            raise _fail(path, no, 'each line is {"query_id": "...", "chunk_ids": ["...", ...]}')
        ids = obj.get("chunk_ids")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise _fail(path, no, "'chunk_ids' must be a list of strings, best first")
        if obj["query_id"] in out:
            raise _fail(path, no, f"query_id {obj['query_id']!r} is listed twice")
        out[obj["query_id"]] = ids
    return out


def _read_ranx(path: Path, text: str) -> dict[str, list[str]]:
    obj = _json(path, None, text)
    if not isinstance(obj, dict):
        raise _fail(
            path,
            1,
            f"a ranx run is one JSON object {{query_id: {{chunk_id: score}}}}, not {type(obj).__name__}",
        )
    out = {}
    for qid, docs in obj.items():
        if not isinstance(docs, dict):
            raise _fail(path, None, f"query {qid!r}: a ranx run maps each query id to {{chunk_id: score}}")
        out[qid] = trec_order([(d, _score(path, None, s)) for d, s in docs.items()])
    return out


_READERS = {"trec": _read_trec, "jsonl": _read_jsonl, "ranx": _read_ranx}


def read_run(path: Path, fmt: str | None = None) -> Run:
    """A run file as rankings; ``fmt`` None detects it (``{``-lines: JSONL, one object: ranx)."""
    try:
        data = read_regular(path)  # a FIFO is refused, never waited on
    except OSError as exc:
        raise ConfigError(f"cannot read run {path}: {exc.strerror}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"run {path} is not UTF-8 (byte {exc.start})") from None
    fmt = fmt or detect_format(text)
    rankings, dropped = {}, 0
    for qid, ids in _READERS[fmt](path, text).items():
        rankings[qid], n = _dedup(ids)
        dropped += n
    return Run(str(path), fmt, rankings, dropped, hashlib.sha256(data).hexdigest())


def in_memory_run(name: str, rankings: dict[str, list[str]]) -> Run:
    """A run made in this process (a retriever), digested as its JSONL text."""
    deduped = {}
    dropped = 0
    for qid, ids in rankings.items():
        deduped[qid], n = _dedup(ids)
        dropped += n
    text = run_text(deduped, {}, "jsonl", name)
    return Run(name, "in-process", deduped, dropped, hashlib.sha256(text.encode("utf-8")).hexdigest())


def run_text(rankings: dict[str, list[str]], scores: dict[str, list[float]], fmt: str, tag: str) -> str:
    """A run file's text: TREC (``qid Q0 docno rank score tag``; scores are required there) or JSONL."""
    if fmt == "jsonl":
        return "".join(dumps({"query_id": q, "chunk_ids": ids}) + "\n" for q, ids in rankings.items())
    lines = []
    for qid, ids in rankings.items():
        if any(c.isspace() for c in qid):
            raise ConfigError(f"query id {qid!r} holds whitespace: a TREC run cannot carry it (use .jsonl)")
        for rank, (cid, score) in enumerate(zip(ids, scores[qid]), 1):
            lines.append(f"{qid} Q0 {cid} {rank} {float(score)!r} {tag}\n")
    return "".join(lines)
