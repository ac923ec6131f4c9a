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
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.goldenset.config import ConfigError
from ..core.io.files import read_regular
from ..core.io.jsontext import dumps

if TYPE_CHECKING:  # numpy is the eval extra, imported when a run is read
    import numpy as np


@dataclass(frozen=True)
class Ranked:
    """A run's rankings as arrays, what ``judging.judge`` reads: each query's ranks, best
    first and each ID once, as indices into the run's distinct chunk IDs."""

    #: the distinct chunk IDs of the run
    ids: list[str]
    #: the run's queries, in order of first appearance
    queries: list[str]
    #: (len(queries) + 1,) where each query's ranks start in ``codes``
    bounds: np.ndarray
    #: every rank, query after query: an index into ``ids``
    codes: np.ndarray
    #: IDs dropped because they were already ranked higher for the same query
    duplicates: int

    def rankings(self) -> dict[str, list[str]]:
        import numpy as np

        ranked = np.asarray(self.ids, dtype=object)[self.codes].tolist()
        b = self.bounds.tolist()
        return {q: ranked[b[i] : b[i + 1]] for i, q in enumerate(self.queries)}


@dataclass(frozen=True)
class Run:
    name: str
    format: str
    #: query id → chunk IDs, best first, each once
    rankings: dict[str, list[str]]
    #: IDs dropped because they were already ranked higher for the same query
    duplicates: int
    digest: str
    #: the rankings as arrays (``ranked_of(rankings)`` when not given)
    ranked: Ranked | None = field(default=None, compare=False, repr=False)


def c_float(scores: np.ndarray) -> np.ndarray:
    """Scores as trec_eval compares them, C ``float``: past its range, ±inf (no warning)."""
    import numpy

    with numpy.errstate(over="ignore"):
        return scores.astype(numpy.float32)


def trec_order(scored: list[tuple[str, float]]) -> list[str]:
    """IDs as trec_eval ranks them: score descending as float32, then docno descending."""
    import numpy  # the eval extra, imported when a run is read

    by_doc = sorted(scored, key=lambda ds: ds[0], reverse=True)  # stable: the second key first
    sims = c_float(numpy.asarray([s for _, s in by_doc], dtype=numpy.float64))
    order = numpy.argsort(-sims, kind="stable")
    return [by_doc[i][0] for i in order]


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


def _read_trec(path: Path, data: bytes) -> Ranked:
    """The run's rankings: parsed by DuckDB when the file is plain (ASCII, fields one space
    apart), else as array work when every line is six fields with a numeric score, else line by
    line, which says where the first bad line is. All three rank alike (``tests/test_eval_arrays.py``)."""
    fast = _read_trec_duckdb(path, data)
    if fast is not None:
        return fast  # the text never decoded: ASCII is UTF-8
    text = _decode(path, data)
    fast = _read_trec_arrays(text)
    return fast if fast is not None else ranked_of(_read_trec_lines(path, text))


_TREC_COLUMNS = "{'qid': 'VARCHAR', 'q0': 'VARCHAR', 'docno': 'VARCHAR', 'rank': 'VARCHAR', 'score': 'VARCHAR', 'tag': 'VARCHAR'}"
#: a score both ``float`` and DuckDB read, to the same double (both round correctly)
_DECIMAL = r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?"


def _read_trec_duckdb(path: Path, data: bytes) -> Ranked | None:
    """The run parsed by DuckDB's CSV reader (in parallel, no Python string per line), then
    ranked as ``_read_trec_arrays`` ranks. Only for a file ``str.split`` splits exactly where
    a one-space delimiter does: ASCII, no control character but \n, every line six non-empty
    fields, every score a plain decimal; None otherwise, or when the file changed since ``data``
    was read, or DuckDB (the eval extra) is missing or refuses the file."""
    import os

    import numpy as np

    name = str(path.resolve())
    if not data.isascii() or any(c in name for c in "*?[{"):
        return None
    # no ASCII byte that is whitespace to str.split or a line break to str.splitlines (or NUL)
    # but space and \n: every byte below 0x20 is a \n
    if np.count_nonzero(np.frombuffer(data, dtype=np.uint8) < 0x20) != data.count(b"\n"):
        return None
    try:
        import duckdb
    except ImportError:
        return None
    before = os.stat(path)
    con = duckdb.connect()
    try:
        con.execute("SET enable_progress_bar = false")  # nothing printed beside eval's output
        con.execute(
            "CREATE TABLE t AS SELECT * FROM read_csv(?, delim = ' ', header = false, quote = '', "
            f"escape = '', new_line = '\\n', auto_detect = false, strict_mode = true, columns = {_TREC_COLUMNS})",
            [name],
        )
        whole = con.execute(
            "SELECT count(*) = count(qid) AND count(*) = count(q0) AND count(*) = count(docno) AND "
            "count(*) = count(rank) AND count(*) = count(tag) AND "
            f"count(*) = count(*) FILTER (WHERE regexp_full_match(score, '{_DECIMAL}')) FROM t"
        ).fetchone()
        if not whole or not whole[0]:
            return None
        cols = con.execute(
            # each query's and ID's place in code-point order, by a join (a window over the
            # lines sorts them all: four times slower)
            "WITH q AS (SELECT qid, row_number() OVER (ORDER BY qid) - 1 AS q FROM (SELECT DISTINCT qid FROM t)), "
            "d AS (SELECT docno, row_number() OVER (ORDER BY docno) - 1 AS d FROM (SELECT DISTINCT docno FROM t)) "
            "SELECT q, d, CAST(score AS DOUBLE) AS s FROM t JOIN q USING (qid) JOIN d USING (docno) ORDER BY t.rowid"
        ).fetchnumpy()
        names = [r[0] for r in con.execute("SELECT DISTINCT qid FROM t ORDER BY qid").fetchall()]
        ids = [r[0] for r in con.execute("SELECT DISTINCT docno FROM t ORDER BY docno").fetchall()]
    except duckdb.Error:
        return None
    finally:
        con.close()
    after = os.stat(path)
    if not before.st_size == after.st_size == len(data) or before.st_mtime_ns != after.st_mtime_ns:
        return None  # changed while read: the bytes read first (and digested) are ranked in Python
    qsorted, dcode = np.asarray(cols["q"], dtype=np.int64), np.asarray(cols["d"], dtype=np.int64)
    scores = np.asarray(cols["s"], dtype=np.float64)
    # the queries in order of first appearance; the IDs are in code-point order, so a code is a place
    first = np.full(len(names), len(qsorted), dtype=np.int64)
    np.minimum.at(first, qsorted, np.arange(len(qsorted)))
    appearance = np.argsort(first, kind="stable")
    renumber = np.empty(len(names), dtype=np.int64)
    renumber[appearance] = np.arange(len(names))
    qcode = renumber[qsorted]
    order = np.lexsort((-dcode, -c_float(scores), qcode))
    return _table(ids, [names[i] for i in appearance], qcode[order], dcode[order])


#: line breaks of ``str.splitlines`` other than \n and \r, and NUL (the fast path's line mark)
_ODD_BREAKS = re.compile("[\x00\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def _read_trec_arrays(text: str) -> Ranked | None:
    """Every query ranked at once, as ``trec_order`` ranks each: one stable sort by query (in
    order of first appearance), float32 score descending, docno descending. None when the line
    reader must decide: a line not six fields, a score ``float`` refuses or NaN, a blank line
    between lines, or a line break other than \n, \r\n (the line reader then locates the bad
    line, or reads what this one does not)."""
    import numpy as np  # the eval extra, imported when a run is read

    body = text.strip()
    if "\r" in body:
        body = body.replace("\r\n", "\n")
        if "\r" in body:
            return None
    if _ODD_BREAKS.search(body):
        return None
    # each line's end as a token of its own: six fields then the mark, line after line
    tokens = body.replace("\n", " \x00 ").split()
    marks = tokens[6::7]
    if len(tokens) % 7 != 6 or marks.count("\x00") != len(marks):
        return None
    try:
        scores = np.fromiter(map(float, tokens[4::7]), dtype=np.float64, count=len(marks) + 1)
    except ValueError:
        return None
    if np.isnan(scores).any():
        return None
    qids, docs = tokens[0::7], tokens[2::7]
    queries, qcode = _codes(qids)
    ids, dcode = _codes(docs)
    # docno descending: each distinct ID's place in code-point (UTF-8 byte) order
    place = np.empty(len(ids), dtype=np.int64)
    place[sorted(range(len(ids)), key=ids.__getitem__)] = np.arange(len(ids))
    order = np.lexsort((-place[dcode], -c_float(scores), qcode))
    return _table(ids, queries, qcode[order], dcode[order])


def _codes(values: list[str]) -> tuple[list[str], np.ndarray]:
    """The distinct values in order of first appearance, and each value's index into them."""
    import numpy as np

    index = {v: i for i, v in enumerate(dict.fromkeys(values))}
    return list(index), np.fromiter(map(index.__getitem__, values), dtype=np.int64, count=len(values))


def _table(ids: list[str], queries: list[str], qcode: np.ndarray, dcode: np.ndarray) -> Ranked:
    """``Ranked`` of ranks sorted by query (``qcode`` non-decreasing), best first, an ID listed
    again for a query dropped there (it counts once, at its best rank)."""
    import numpy as np

    key = qcode * max(len(ids), 1) + dcode
    _, first = np.unique(key, return_index=True)
    keep = np.zeros(len(key), dtype=bool)
    keep[first] = True
    bounds = np.searchsorted(qcode[keep], np.arange(len(queries) + 1))
    return Ranked(ids, queries, bounds, dcode[keep], int(len(key) - keep.sum()))


def ranked_of(rankings: dict[str, list[str]]) -> Ranked:
    """``Ranked`` of rankings held as lists (IDs best first)."""
    import numpy as np

    ids, dcode = _codes([cid for ranking in rankings.values() for cid in ranking])
    sizes = np.fromiter(map(len, rankings.values()), dtype=np.int64, count=len(rankings))
    return _table(ids, list(rankings), np.repeat(np.arange(len(rankings)), sizes), dcode)


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


#: the ASCII characters ``str.strip`` strips
_ASCII_SPACE = bytes(c for c in range(128) if chr(c).isspace())


def _decode(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"run {path} is not UTF-8 (byte {exc.start})") from None


def read_run(path: Path, fmt: str | None = None) -> Run:
    """A run file as rankings; ``fmt`` None detects it (``{``-lines: JSONL, one object: ranx)."""
    try:
        data = read_regular(path)  # a FIFO is refused, never waited on
    except OSError as exc:
        raise ConfigError(f"cannot read run {path}: {exc.strerror}") from None
    if fmt is None and data.isascii() and not data.lstrip(_ASCII_SPACE).startswith(b"{"):
        fmt = "trec"  # as detect_format decides, without decoding a large run first
    fmt = fmt or detect_format(_decode(path, data))
    if fmt == "trec":
        ranked = _read_trec(path, data)
    else:
        text = _decode(path, data)
        ranked = ranked_of(_read_jsonl(path, text) if fmt == "jsonl" else _read_ranx(path, text))
    return Run(str(path), fmt, ranked.rankings(), ranked.duplicates, hashlib.sha256(data).hexdigest(), ranked)


def in_memory_run(name: str, rankings: dict[str, list[str]]) -> Run:
    """A run made in this process (a retriever), digested as its JSONL text."""
    ranked = ranked_of(rankings)
    deduped = ranked.rankings()
    text = run_text(deduped, {}, "jsonl", name)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return Run(name, "in-process", deduped, ranked.duplicates, digest, ranked)


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
