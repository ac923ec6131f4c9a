"""Evaluation results in a DuckDB file: one row per run, per aggregate metric, per (query, k).

A curve printed in a CI log is gone the next day; a table of runs keyed by fingerprint is what a
team charts and gates against (``--baseline db:latest``: the last run measured against the same
set). Per-query rows carry the record's facets (hop, query type, split, documents), so results
join to any other table by query id. DuckDB is the ``eval`` extra: one file, no server, and SQL
that analysts already use. The schema is documented in the README and created here only.
"""

from __future__ import annotations

import json
import uuid
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from .. import __version__
from ..core.config import ConfigError
from .evalspec import METRICS
from .evaluation import Evaluation, Scored, Settings

SCHEMA = [
    """CREATE TABLE IF NOT EXISTS runs (
        run_id VARCHAR PRIMARY KEY, seq INTEGER NOT NULL, created_at TIMESTAMPTZ NOT NULL,
        fingerprint VARCHAR NOT NULL, fingerprint_parts JSON NOT NULL, run_name VARCHAR NOT NULL,
        run_format VARCHAR NOT NULL, run_digest VARCHAR NOT NULL, settings JSON NOT NULL,
        hit_rule VARCHAR NOT NULL, multi VARCHAR NOT NULL, chunking VARCHAR NOT NULL,
        n_answerable INTEGER NOT NULL, n_unanswerable INTEGER NOT NULL, n_missing INTEGER NOT NULL,
        n_excluded INTEGER NOT NULL, golden_lsp_version VARCHAR NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS run_metrics (
        run_id VARCHAR NOT NULL, group_by VARCHAR NOT NULL, group_value VARCHAR NOT NULL,
        metric VARCHAR NOT NULL, k INTEGER NOT NULL, value DOUBLE, ci_low DOUBLE, ci_high DOUBLE,
        n INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS query_results (
        run_id VARCHAR NOT NULL, query_id VARCHAR NOT NULL, k INTEGER NOT NULL, missing BOOLEAN NOT NULL,
        hit DOUBLE NOT NULL, recall DOUBLE NOT NULL, mrr DOUBLE NOT NULL, ndcg DOUBLE NOT NULL,
        "precision" DOUBLE NOT NULL, iou DOUBLE NOT NULL, hop VARCHAR, query_type VARCHAR, split VARCHAR,
        documents VARCHAR[] NOT NULL)""",
]


def _connect(path: Path, create: bool):
    try:
        import duckdb
    except ImportError:  # pragma: no cover - the eval and test extras install it
        raise ConfigError("--db needs DuckDB: pip install 'golden-lsp[eval]'") from None
    if not create and not path.is_file():
        raise ConfigError(f"no results database at {path}")
    try:
        con = duckdb.connect(str(path))
        for statement in SCHEMA:
            con.execute(statement)
    except duckdb.Error as exc:
        raise ConfigError(f"{path}: not a usable DuckDB results file: {exc}") from None
    return con


def _insert(con, table: str, columns: dict[str, np.ndarray], select: str = "*") -> None:
    """Bulk insert column arrays (DuckDB scans numpy; row-by-row ``executemany`` is ~100 rows/s)."""
    con.register("_rows", columns)
    con.execute(f"INSERT INTO {table} SELECT {select} FROM _rows")
    con.unregister("_rows")


def _strings(values) -> np.ndarray:
    return np.asarray(list(values), dtype=object)


def store(path: Path, ev: Evaluation) -> str:
    """Append the evaluation; returns its run id."""
    con = _connect(path, create=True)
    tg, st = ev.targets, ev.settings
    run_id = uuid.uuid4().hex[:12]
    nm, nk = len(METRICS), len(st.ks)
    con.begin()
    seq = con.execute("SELECT coalesce(max(seq), 0) + 1 FROM runs").fetchone()[0]
    con.execute(
        "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            run_id,
            seq,
            datetime.now(timezone.utc),
            tg.fingerprint,
            json.dumps(tg.fingerprint_parts),
            ev.run.name,
            ev.run.format,
            ev.run.digest,
            json.dumps(st.as_dict()),
            str(tg.hit_rule),
            st.multi,
            tg.chunking.name,
            ev.n,
            len(tg.unanswerable),
            len(ev.missing),
            tg.excluded,
            __version__,
        ],
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
        missing = set(ev.missing)
        rows = ev.n * nk
        answerable = tg.answerable
        columns = {
            "run_id": _strings([run_id] * rows),
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
        columns["documents"] = _strings(json.dumps(list(t.docs)) for t in answerable for _ in st.ks)
        _insert(con, "query_results", columns, "* EXCLUDE (documents), from_json(documents, '[\"VARCHAR\"]')")
    con.commit()
    con.close()
    return run_id


def _aggregates(ev: Evaluation):
    yield "all", "all", ev.mean, ev.lo, ev.hi, ev.n
    for g in ev.groups:
        mean, lo, hi = ev.group_stats(g)
        yield g.by, g.value, mean, lo, hi, len(g.rows)


def load(path: Path, ref: str, fingerprint: str) -> Scored:
    """A stored run's per-query values: ``latest`` (the last with ``fingerprint``) or a run id."""
    con = _connect(path, create=False)
    if ref == "latest":
        row = con.execute(
            "SELECT run_id, fingerprint, settings, run_name FROM runs WHERE fingerprint = ? "
            "ORDER BY seq DESC LIMIT 1",
            [fingerprint],
        ).fetchone()
        if row is None:
            others = con.execute("SELECT count(*) FROM runs").fetchone()[0]
            raise ConfigError(
                f"{path}: no stored run has fingerprint {fingerprint} ({others} runs with other "
                "fingerprints); name one as db:RUN_ID with --allow-different-sets to compare anyway"
            )
    else:
        row = con.execute(
            "SELECT run_id, fingerprint, settings, run_name FROM runs WHERE run_id = ?", [ref]
        ).fetchone()
        if row is None:
            raise ConfigError(f"{path}: no stored run {ref!r}")
    run_id, fp, settings_json, run_name = row
    s = json.loads(settings_json)
    settings = Settings(tuple(s["k"]), s["multi"], s["bootstrap"], s["seed"])
    cols = ", ".join(f'"{m}"' for m in METRICS)
    data = con.execute(
        f"SELECT query_id, k, {cols} FROM query_results WHERE run_id = ? ORDER BY query_id, k", [run_id]
    ).fetchall()
    con.close()
    ids = list(dict.fromkeys(r[0] for r in data))
    kpos = {k: j for j, k in enumerate(settings.ks)}
    qpos = {q: i for i, q in enumerate(ids)}
    values = np.zeros((len(ids), len(METRICS), len(settings.ks)))
    for qid, k, *vals in data:
        values[qpos[qid], :, kpos[k]] = vals
    return Scored(f"db:{run_id} ({run_name})", fp, settings, ids, values)
