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

from . import __version__
from .config import ConfigError
from .evaluation import Evaluation, Scored, Settings
from .evalspec import METRICS

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


def _nan_none(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def store(path: Path, ev: Evaluation) -> str:
    """Append the evaluation; returns its run id."""
    con = _connect(path, create=True)
    tg, st = ev.targets, ev.settings
    run_id = uuid.uuid4().hex[:12]
    seq = con.execute("SELECT coalesce(max(seq), 0) + 1 FROM runs").fetchone()[0]
    con.begin()
    con.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [
        run_id, seq, datetime.now(timezone.utc), tg.fingerprint, json.dumps(tg.fingerprint_parts),
        ev.run.name, ev.run.format, ev.run.digest, json.dumps(st.as_dict()), str(tg.hit_rule), st.multi,
        tg.chunking.name, ev.n, len(tg.unanswerable), len(ev.missing), tg.excluded, __version__])
    rows = []
    for group_by, value, mean, lo, hi, n in _aggregates(ev):
        for i, metric in enumerate(METRICS):
            for j, k in enumerate(st.ks):
                rows.append([run_id, group_by, value, metric, k, _nan_none(mean[i, j]), _nan_none(lo[i, j]),
                             _nan_none(hi[i, j]), n])
    con.executemany("INSERT INTO run_metrics VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    missing = set(ev.missing)
    per_query = []
    for q, t in enumerate(tg.answerable):
        for j, k in enumerate(st.ks):
            per_query.append([run_id, t.query_id, k, t.query_id in missing,
                              *(float(ev.values[q, i, j]) for i in range(len(METRICS))),
                              t.hop, t.query_type, t.split, list(t.docs)])
    if per_query:
        con.executemany("INSERT INTO query_results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", per_query)
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
        row = con.execute("SELECT run_id, fingerprint, settings, run_name FROM runs WHERE fingerprint = ? "
                          "ORDER BY seq DESC LIMIT 1", [fingerprint]).fetchone()
        if row is None:
            others = con.execute("SELECT count(*) FROM runs").fetchone()[0]
            raise ConfigError(f"{path}: no stored run has fingerprint {fingerprint} ({others} runs with other "
                              "fingerprints); name one as db:RUN_ID with --allow-different-sets to compare anyway")
    else:
        row = con.execute("SELECT run_id, fingerprint, settings, run_name FROM runs WHERE run_id = ?",
                          [ref]).fetchone()
        if row is None:
            raise ConfigError(f"{path}: no stored run {ref!r}")
    run_id, fp, settings_json, run_name = row
    s = json.loads(settings_json)
    settings = Settings(tuple(s["k"]), s["multi"], s["bootstrap"], s["seed"])
    cols = ", ".join(f'"{m}"' for m in METRICS)
    data = con.execute(f"SELECT query_id, k, {cols} FROM query_results WHERE run_id = ? ORDER BY query_id, k",
                       [run_id]).fetchall()
    con.close()
    ids = list(dict.fromkeys(r[0] for r in data))
    kpos = {k: j for j, k in enumerate(settings.ks)}
    qpos = {q: i for i, q in enumerate(ids)}
    values = np.zeros((len(ids), len(METRICS), len(settings.ks)))
    for qid, k, *vals in data:
        values[qpos[qid], :, kpos[k]] = vals
    return Scored(f"db:{run_id} ({run_name})", fp, settings, ids, values)
