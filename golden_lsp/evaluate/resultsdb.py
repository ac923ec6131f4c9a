"""Evaluation results in a DuckDB file: one row per run, per aggregate metric, per (query, k).

A curve printed in a CI log is gone the next day; a table of runs keyed by fingerprint is what a
team charts and gates against (``--baseline db:latest``: the last run measured against the same
set). Per-query rows carry the record's facets (hop, query type, split, documents), so results
join to any other table by query id. DuckDB is the ``eval`` extra: one file, no server, and SQL
that analysts already use. The schema is documented in the README and created here only.

A results file outlives the golden-lsp that wrote it, so it records its layout's version
(``schema_version``) and is brought to this version's layout when opened: each step of
``MIGRATIONS`` takes a file from one version to the next (a file without the table is version
1, the first layout), and a file from a newer golden-lsp is refused rather than written in a
layout it does not know. The metric columns of ``query_results`` follow ``evalspec.METRIC_TABLE``:
a metric added to it gets its column in an existing file too, NULL in the runs before it.
"""

from __future__ import annotations

import json
import math
import stat
import uuid
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..core.findings.diagnostics import plural
from ..core.goldenset.config import ConfigError
from ..core.io.files import kind as file_kind
from .evalspec import METRICS
from .evaluation import Evaluation, Scored
from .targets import Settings
from .traces import Trace

#: the layout this golden-lsp writes (1: the first, without a version table; 2: the version
#: table, and metric columns that take NULL, so a metric added later fits the runs before it; 3:
#: the subset scored on runs, the record's tags and metadata, and its trace on query_results)
SCHEMA_VERSION = 3
RUNS = """CREATE TABLE runs (
    run_id VARCHAR PRIMARY KEY, seq INTEGER NOT NULL, created_at TIMESTAMPTZ NOT NULL,
    fingerprint VARCHAR NOT NULL, fingerprint_parts JSON NOT NULL, run_name VARCHAR NOT NULL,
    run_format VARCHAR NOT NULL, run_digest VARCHAR NOT NULL, settings JSON NOT NULL,
    hit_rule VARCHAR NOT NULL, multi VARCHAR NOT NULL, chunking VARCHAR NOT NULL,
    n_answerable INTEGER NOT NULL, n_unanswerable INTEGER NOT NULL, n_missing INTEGER NOT NULL,
    n_excluded INTEGER NOT NULL, golden_lsp_version VARCHAR NOT NULL)"""
RUN_METRICS = """CREATE TABLE run_metrics (
    run_id VARCHAR NOT NULL, group_by VARCHAR NOT NULL, group_value VARCHAR NOT NULL,
    metric VARCHAR NOT NULL, k INTEGER NOT NULL, value DOUBLE, ci_low DOUBLE, ci_high DOUBLE,
    n INTEGER NOT NULL)"""
VERSION_TABLE = "CREATE TABLE schema_version (version INTEGER NOT NULL)"


def _query_results() -> str:
    metrics = ", ".join(f'"{m}" DOUBLE' for m in METRICS)
    return f"""CREATE TABLE query_results (
    run_id VARCHAR NOT NULL, query_id VARCHAR NOT NULL, k INTEGER NOT NULL, missing BOOLEAN NOT NULL,
    {metrics}, hop VARCHAR, query_type VARCHAR, split VARCHAR, documents VARCHAR[] NOT NULL)"""


def _columns(con, table: str) -> dict[str, tuple[str, bool]]:
    """A table's columns: name → (type, takes NULL)."""
    rows = con.execute(
        "SELECT column_name, data_type, is_nullable FROM information_schema.columns "
        "WHERE table_catalog = current_database() AND table_schema = 'main' AND table_name = ?",
        [table],
    ).fetchall()
    return {name: (kind, nullable == "YES") for name, kind, nullable in rows}


def _v1_to_v2(con) -> None:
    """Version 2: the version table, and metric columns (the DOUBLEs of query_results) that take NULL."""
    for name, (kind, nullable) in _columns(con, "query_results").items():
        if kind == "DOUBLE" and not nullable:
            con.execute(f'ALTER TABLE query_results ALTER COLUMN "{name}" DROP NOT NULL')
    con.execute(VERSION_TABLE)


#: the columns version 3 adds (each table's base columns are those every version has)
V3_COLUMNS = {
    "runs": {"subset": "JSON"},
    "query_results": {
        "tags": "VARCHAR[]",
        "meta": "JSON",
        "request_id": "VARCHAR",
        "latency_ms": "DOUBLE",
        "cost": "DOUBLE",
    },
}


def _v2_to_v3(con) -> None:
    """Version 3: ``runs.subset`` (the --split/--where/--sample scored; NULL for the full set and
    older runs), ``query_results.tags``/``meta`` (the record's slice values) and its trace
    (``request_id``, ``latency_ms``, ``cost``)."""
    for table, columns in V3_COLUMNS.items():
        for name, kind in columns.items():
            con.execute(f'ALTER TABLE {table} ADD COLUMN "{name}" {kind}')


#: version → the step that takes a file of that version to the next
MIGRATIONS: dict[int, Callable[[Any], None]] = {1: _v1_to_v2, 2: _v2_to_v3}


def _version(con) -> int | None:
    """The file's layout version; None for a file holding none of the tables yet."""
    tables = {
        r[0]
        for r in con.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_catalog = current_database() AND table_schema = 'main'"
        ).fetchall()
    }
    if "schema_version" in tables:
        return con.execute("SELECT max(version) FROM schema_version").fetchone()[0]
    return 1 if "runs" in tables else None


def _prepare(con, path: Path) -> None:
    """Create the tables in a new file, or migrate an older one, in one transaction."""
    version = _version(con)
    if version is not None and version > SCHEMA_VERSION:
        raise ConfigError(
            f"{path}: a results database of schema version {version}, newer than this golden-lsp's "
            f"({SCHEMA_VERSION}): upgrade golden-lsp (pip install -U 'golden-lsp[eval]') to use it"
        )
    problem = _layout_problem(con) if version is not None else None
    if problem is not None:  # never migrated, nor written into
        raise ConfigError(f"{path}: not a golden-lsp results database: {problem}")
    con.begin()
    if version is None:  # the tables every version has, then the steps from version 2
        for statement in (RUNS, RUN_METRICS, _query_results(), VERSION_TABLE):
            con.execute(statement)
        version = 2
    for step in range(version, SCHEMA_VERSION):
        MIGRATIONS[step](con)
    have = _columns(con, "query_results")
    for name in METRICS:
        if name not in have:
            con.execute(f'ALTER TABLE query_results ADD COLUMN "{name}" DOUBLE')
    if version != SCHEMA_VERSION:
        con.execute("DELETE FROM schema_version")
        con.execute("INSERT INTO schema_version VALUES (?)", [SCHEMA_VERSION])
    con.commit()


def _layout_problem(con) -> str | None:
    """Why the file's tables are not those of a golden-lsp results database (every version has
    these columns, but for metrics added since), or None."""
    import duckdb

    model = duckdb.connect(":memory:")
    try:
        for statement in (RUNS, RUN_METRICS, _query_results()):
            model.execute(statement)
        for table in ("runs", "run_metrics", "query_results"):
            have = {name: kind for name, (kind, _) in _columns(con, table).items()}
            wrong = [
                name
                for name, (kind, _) in _columns(model, table).items()
                if name not in METRICS and have.get(name) != kind
            ]
            if not have:
                return f"it has no table {table}"
            if wrong:
                names = ", ".join(wrong[:4]) + (f" and {len(wrong) - 4} more" if len(wrong) > 4 else "")
                return f"its table {table} lacks the columns {names} (or holds them as other types)"
    finally:
        model.close()
    return None


def _connect(path: Path, create: bool):
    try:
        import duckdb
    except ImportError:  # pragma: no cover - the eval and test extras install it
        raise ConfigError("--db needs DuckDB: pip install 'golden-lsp[eval]'") from None
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        if not create:
            raise ConfigError(f"no results database at {path}") from None
    except OSError as exc:
        raise ConfigError(f"cannot open the results database {path}: {exc.strerror}") from None
    else:
        if not stat.S_ISREG(mode):  # DuckDB would wait on a FIFO for good
            raise ConfigError(f"the results database {path} is {file_kind(mode)}, not a regular file")
    try:
        con = duckdb.connect(str(path))
    except duckdb.Error as exc:
        raise ConfigError(f"{path}: not a usable DuckDB results file: {exc}") from None
    try:
        _prepare(con, path)
    except duckdb.Error as exc:
        con.close()
        raise ConfigError(f"{path}: not a usable DuckDB results file: {exc}") from None
    except ConfigError:
        con.close()
        raise
    return con


def _insert(con, table: str, columns: dict[str, np.ndarray], select: str = "*") -> None:
    """Bulk insert column arrays (DuckDB scans numpy; row-by-row ``executemany`` is ~100 rows/s),
    into the table's columns of the same names (``select``: the values, in ``columns``' order)."""
    names = ", ".join(f'"{name}"' for name in columns)
    con.register("_rows", columns)
    con.execute(f"INSERT INTO {table} ({names}) SELECT {select} FROM _rows")
    con.unregister("_rows")


def _strings(values) -> np.ndarray:
    return np.asarray(list(values), dtype=object)


def _run_row(ev: Evaluation, run_id: str, seq: int) -> dict[str, Any]:
    tg, st = ev.targets, ev.settings
    return {
        "run_id": run_id,
        "seq": seq,
        "created_at": datetime.now(timezone.utc),
        "fingerprint": tg.fingerprint,
        "fingerprint_parts": json.dumps(tg.fingerprint_parts),
        "run_name": ev.run.name,
        "run_format": ev.run.format,
        "run_digest": ev.run.digest,
        "settings": json.dumps(st.as_dict()),
        "hit_rule": str(tg.hit_rule),
        "multi": st.multi,
        "chunking": tg.chunking.name,
        "n_answerable": ev.n,
        "n_unanswerable": len(tg.unanswerable),
        "n_missing": len(ev.missing),
        "n_excluded": tg.excluded,
        "golden_lsp_version": __version__,
        "subset": json.dumps(tg.fingerprint_parts["subset"]) if "subset" in tg.fingerprint_parts else None,
    }


def _query_rows(ev: Evaluation, run_id: str, traces: dict[str, Trace]) -> dict[str, np.ndarray]:
    """query_results' columns: one row per answerable record and k, each metric a column."""
    st, answerable = ev.settings, ev.targets.answerable
    nk, missing = len(st.ks), set(ev.missing)
    columns = {
        "run_id": _strings([run_id] * (ev.n * nk)),
        "query_id": _strings(t.query_id for t in answerable for _ in st.ks),
        "k": np.tile(np.asarray(st.ks), ev.n),
        "missing": np.repeat([t.query_id in missing for t in answerable], nk),
    }
    # values is (query, metric, k): each metric's column in (query, k) order
    columns.update({m: ev.values[:, i, :].ravel() for i, m in enumerate(METRICS)})
    columns.update(
        {
            f: _strings(getattr(t, f) for t in answerable for _ in st.ks)
            for f in ("hop", "query_type", "split")
        }
    )
    columns["meta"] = _strings(json.dumps(t.meta) if t.meta else None for t in answerable for _ in st.ks)
    found = [traces.get(t.query_id, Trace()) for t in answerable]
    columns["request_id"] = _strings(x.request_id for x in found for _ in st.ks)
    # the columns converted by the SELECT of ``_store`` come last, in its order
    columns["documents"] = _strings(json.dumps(list(t.docs)) for t in answerable for _ in st.ks)
    columns["tags"] = _strings(json.dumps(list(t.tags)) for t in answerable for _ in st.ks)
    for name in ("latency_ms", "cost"):
        values = [getattr(x, name) for x in found]
        columns[name] = np.repeat([math.nan if v is None else v for v in values], nk)
    return columns


def _usable(path: Path, con: Any, work: Callable[[Any], Any]) -> Any:
    """``work(con)``, with any DuckDB error (a table of another shape, a full disk) a ConfigError
    naming the file; the connection is closed either way."""
    import duckdb

    try:
        return work(con)
    except duckdb.Error as exc:
        raise ConfigError(f"{path}: not a usable golden-lsp results database: {exc}") from None
    finally:
        con.close()


def store(path: Path, ev: Evaluation, traces: dict[str, Trace] | None = None) -> str:
    """Append the evaluation (with the run's per-query traces); returns its run id."""
    return _usable(path, _connect(path, create=True), lambda con: _store(con, ev, traces or {}))


def _store(con: Any, ev: Evaluation, traces: dict[str, Trace]) -> str:
    st = ev.settings
    run_id = uuid.uuid4().hex[:12]
    nm, nk = len(METRICS), len(st.ks)
    con.begin()
    seq = con.execute("SELECT coalesce(max(seq), 0) + 1 FROM runs").fetchone()[0]
    row = _run_row(ev, run_id, seq)
    con.execute(
        f"INSERT INTO runs ({', '.join(row)}) VALUES ({', '.join('?' for _ in row)})", list(row.values())
    )
    groups = list(_aggregates(ev))
    cells = len(groups) * nm * nk
    _insert(
        con,
        "run_metrics",
        {
            "run_id": _strings([run_id] * cells),
            "group_by": _strings(g[0] for g in groups for _ in range(nm * nk)),
            "group_value": _strings(g[1] for g in groups for _ in range(nm * nk)),
            "metric": _strings(m for _ in groups for m in METRICS for _ in st.ks),
            "k": np.tile(np.asarray(st.ks), len(groups) * nm),
            "value": np.concatenate([g[2].ravel() for g in groups]),
            "ci_low": np.concatenate([g[3].ravel() for g in groups]),
            "ci_high": np.concatenate([g[4].ravel() for g in groups]),
            "n": np.repeat([g[5] for g in groups], nm * nk),
        },
        "run_id, group_by, group_value, metric, k, CASE WHEN isnan(value) THEN NULL ELSE value END, "
        "CASE WHEN isnan(ci_low) THEN NULL ELSE ci_low END, CASE WHEN isnan(ci_high) THEN NULL ELSE ci_high END, n",
    )
    if ev.n:
        _insert(
            con,
            "query_results",
            _query_rows(ev, run_id, traces),
            "* EXCLUDE (documents, tags, latency_ms, cost), from_json(documents, '[\"VARCHAR\"]'), "
            "from_json(tags, '[\"VARCHAR\"]'), CASE WHEN isnan(latency_ms) THEN NULL ELSE latency_ms END, "
            "CASE WHEN isnan(cost) THEN NULL ELSE cost END",
        )
    con.commit()
    return run_id


def _aggregates(ev: Evaluation):
    yield "all", "all", ev.mean, ev.lo, ev.hi, ev.n
    for g in ev.groups:
        mean, lo, hi = ev.group_stats(g)
        yield g.by, g.value, mean, lo, hi, len(g.rows)


def load(path: Path, ref: str, fingerprint: str, any_fingerprint: bool = False) -> Scored:
    """A stored run's per-query values: ``latest`` (the last with ``fingerprint``, or the last of
    all with ``any_fingerprint``: --allow-different-sets) or a run id."""
    return _usable(
        path, _connect(path, create=False), lambda con: _load(con, path, ref, fingerprint, any_fingerprint)
    )


def _load(con: Any, path: Path, ref: str, fingerprint: str, any_fingerprint: bool) -> Scored:
    if ref == "latest":
        row = con.execute(
            "SELECT run_id, fingerprint, settings, run_name FROM runs WHERE fingerprint = ? OR ? "
            "ORDER BY seq DESC LIMIT 1",
            [fingerprint, any_fingerprint],
        ).fetchone()
        if row is None:
            others = con.execute("SELECT count(*) FROM runs").fetchone()[0]
            raise ConfigError(
                f"{path}: no stored run has fingerprint {fingerprint} ({plural(others, 'run')} with other "
                "fingerprints); pass --allow-different-sets to compare with the latest of them anyway"
                if others
                else f"{path}: no run stored yet"
            )
    else:
        row = con.execute(
            "SELECT run_id, fingerprint, settings, run_name FROM runs WHERE run_id = ?", [ref]
        ).fetchone()
        if row is None:
            raise ConfigError(f"{path}: no stored run {ref!r}")
    run_id, fp, settings_json, run_name = row
    try:
        s = json.loads(settings_json)
        settings = Settings(tuple(s["k"]), s["multi"], s["bootstrap"], s["seed"])
    except (ValueError, TypeError, KeyError, RecursionError):
        raise ConfigError(
            f"{path}: run {run_id}: its settings are not golden-lsp's: {settings_json!r:.200}"
        ) from None
    cols = ", ".join(f'"{m}"' for m in METRICS)
    data = con.execute(
        f"SELECT query_id, k, {cols} FROM query_results WHERE run_id = ? ORDER BY query_id, k", [run_id]
    ).fetchall()
    ids = list(dict.fromkeys(r[0] for r in data))
    kpos = {k: j for j, k in enumerate(settings.ks)}
    qpos = {q: i for i, q in enumerate(ids)}
    values = np.zeros((len(ids), len(METRICS), len(settings.ks)))
    for qid, k, *vals in data:
        values[qpos[qid], :, kpos[k]] = vals  # NULL (a metric added after the run) is NaN
    latest = (
        ", the latest stored run" + ("" if fp == fingerprint else " of any set") if ref == "latest" else ""
    )
    return Scored(f"db:{run_id} ({run_name}{latest})", fp, settings, ids, values)


#: answer grades (``golden-lsp grade --db``): created when missing, beside the retrieval tables, so
#: a file of any schema version takes them without a migration step
GRADES = """CREATE TABLE IF NOT EXISTS grades (
    grade_run VARCHAR NOT NULL, created_at TIMESTAMPTZ NOT NULL, query_id VARCHAR NOT NULL,
    grade VARCHAR, reason VARCHAR, error VARCHAR, answers VARCHAR NOT NULL, provider VARCHAR NOT NULL,
    model VARCHAR NOT NULL, prompt VARCHAR NOT NULL, prompt_digest VARCHAR NOT NULL, hop VARCHAR,
    query_type VARCHAR, split VARCHAR, tags VARCHAR[] NOT NULL)"""


def store_grades(path: Path, rows: list[dict[str, Any]], ident: dict[str, str]) -> str:
    """Append one grading run's rows (``keep.grade.rows`` with ``ident``: answers, provider,
    model, prompt, prompt_digest); returns its id."""

    def work(con: Any) -> str:
        grade_run = uuid.uuid4().hex[:12]
        now = datetime.now(timezone.utc)
        con.execute(GRADES)
        for r in rows:
            sl = {}
            tags = []
            for name, value in r["slices"]:
                if name == "tag":
                    tags.append(value)
                elif value != "(none)":
                    sl[name] = value
            con.execute(
                "INSERT INTO grades VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    grade_run,
                    now,
                    r["id"],
                    r["grade"],
                    r["reason"],
                    r["error"],
                    ident["answers"],
                    ident["provider"],
                    ident["model"],
                    ident["prompt"],
                    ident["prompt_digest"],
                    sl.get("hop"),
                    sl.get("query_type"),
                    sl.get("split"),
                    tags,
                ],
            )
        return grade_run

    return _usable(path, _connect(path, create=True), work)
