"""One metric registry (``evalspec.METRIC_TABLE``) drives the per-query array, ``eval --help`` and
the results database's columns; and the database's layout version: ``eval --db`` brings a file of
an older layout to the current one (its rows kept), refuses a file of a newer golden-lsp, and gives
a metric added to the registry its column in a file written before it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from golden_lsp.evaluate import metrics, resultsdb
from golden_lsp.evaluate.evalspec import METRIC_TABLE, METRICS

duckdb = pytest.importorskip("duckdb")

#: the first layout, as golden-lsp wrote it before the file recorded a version
VERSION_1 = [
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
OLD_SETTINGS = {"k": [1], "multi": "any", "bootstrap": 100, "seed": 0}


def test_each_metric_of_the_registry_is_one_function_and_one_column_of_per_query(cli):
    assert list(metrics.PER_QUERY) == list(METRICS) == [m.name for m in METRIC_TABLE]
    rng = np.random.default_rng(0)
    rel = rng.random((9, 5)) < 0.4
    judged = metrics.Judged(rel, rng.integers(0, 4, 9), rng.integers(0, 6, 9), rng.random((9, 2)))
    values = metrics.per_query(judged, (1, 5))
    assert values.shape == (9, len(METRICS), 2)
    for i, name in enumerate(METRICS):
        assert np.array_equal(values[:, i, :], metrics.PER_QUERY[name](metrics.Cutoffs(judged, (1, 5))))
    with pytest.raises(ValueError, match=r"not in evalspec\.METRIC_TABLE"):
        metrics.metric("bpref")
    shown = " ".join(cli(["eval", "--help"]).stdout.split())
    assert all(f"{m.name}@k: {m.description}" in shown for m in METRIC_TABLE)


def version_1_file(path: Path) -> None:
    con = duckdb.connect(str(path))
    for statement in VERSION_1:
        con.execute(statement)
    con.execute(
        "INSERT INTO runs VALUES ('old000000001', 1, '2025-01-02 03:04:05+00', 'f0f0', '{}', 'old.trec', "
        "'trec', 'abc', ?, 'any_overlap', 'any', 'md-struct-v1', 1, 0, 0, 0, '0.1.0')",
        [json.dumps(OLD_SETTINGS)],
    )
    con.execute("INSERT INTO run_metrics VALUES ('old000000001', 'all', 'all', 'hit', 1, 1.0, 1.0, 1.0, 1)")
    con.execute(
        "INSERT INTO query_results VALUES ('old000000001', 'q1', 1, false, 1.0, 1.0, 1.0, 1.0, 1.0, 0.25, "
        "'single', NULL, NULL, ['guide.md'])"
    )
    con.close()


def eval_db(cli, project: Path, db: Path, *args):
    (project / "run.jsonl").write_text(json.dumps({"query_id": "q1", "chunk_ids": []}) + "\n")
    return cli(["eval", "--run", "run.jsonl", "--k", "1", "--format", "json", "--db", db, *args], cwd=project)


def test_a_version_1_file_is_migrated_on_open_and_keeps_its_rows(project, cli, tmp_path):
    db = tmp_path / "results.duckdb"
    version_1_file(db)
    proc = eval_db(cli, project, db, "--compare", "db:old000000001", "--allow-different-sets")
    assert proc.returncode in (0, 1), proc.stderr
    out = json.loads(proc.stdout)
    (compared,) = out["comparisons"]
    delta = {(d["metric"], d["k"]): d["value"] for d in compared["deltas"]}
    assert compared["n"] == 1 and delta[("hit", 1)] == -1.0 and delta[("iou", 1)] == -0.25
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT version FROM schema_version").fetchall() == [(resultsdb.SCHEMA_VERSION,)]
    runs = con.execute("SELECT run_id, seq, run_name FROM runs ORDER BY seq").fetchall()
    assert runs == [("old000000001", 1, "old.trec"), (out["db_run_id"], 2, "run.jsonl")]
    metrics = ", ".join(f'"{m}"' for m in METRICS)
    old = con.execute(
        f"SELECT query_id, k, {metrics}, hop, documents FROM query_results WHERE run_id = 'old000000001'"
    ).fetchall()
    # the metrics registered after version 1 (map, rprec, ...) are NULL in its rows
    after_v1 = (None,) * (len(METRICS) - 6)
    assert old == [("q1", 1, 1.0, 1.0, 1.0, 1.0, 1.0, 0.25, *after_v1, "single", ["guide.md"])]
    new = con.execute("SELECT count(*) FROM query_results WHERE run_id = ?", [out["db_run_id"]]).fetchone()
    assert new == (out["n"],)
    nullable = con.execute(
        "SELECT column_name, is_nullable FROM information_schema.columns WHERE table_name = 'query_results' "
        "AND data_type = 'DOUBLE'"
    ).fetchall()
    traced = ("latency_ms", "cost")  # version 3: the trace columns, DOUBLE and NULL when not given
    assert sorted(nullable) == sorted((m, "YES") for m in (*METRICS, *traced))  # version 2: metrics take NULL
    added = con.execute(
        "SELECT tags, meta, request_id, latency_ms, cost FROM query_results WHERE run_id = 'old000000001'"
    ).fetchall()
    assert added == [(None, None, None, None, None)]
    assert con.execute("SELECT subset FROM runs WHERE run_id = 'old000000001'").fetchone() == (None,)
    assert con.execute("SELECT count(*) FROM run_metrics WHERE run_id = 'old000000001'").fetchone() == (1,)


def test_a_file_from_a_newer_golden_lsp_is_refused(project, cli, tmp_path):
    db = tmp_path / "results.duckdb"
    assert eval_db(cli, project, db).returncode in (0, 1)
    con = duckdb.connect(str(db))
    con.execute("UPDATE schema_version SET version = ?", [resultsdb.SCHEMA_VERSION + 1])
    con.close()
    for extra in ([], ["--baseline", "db:latest"]):
        proc = eval_db(cli, project, db, *extra)
        assert proc.returncode == 2 and proc.stdout == ""
        assert f"schema version {resultsdb.SCHEMA_VERSION + 1}, newer than this golden-lsp's" in proc.stderr
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM runs").fetchone() == (1,)
    assert con.execute("SELECT version FROM schema_version").fetchall() == [(resultsdb.SCHEMA_VERSION + 1,)]


def test_a_metric_added_to_the_registry_gets_its_column_null_in_the_runs_before_it(
    project, cli, tmp_path, monkeypatch
):
    db = tmp_path / "results.duckdb"
    stored = eval_db(cli, project, db)
    out = json.loads(stored.stdout)
    monkeypatch.setattr(resultsdb, "METRICS", (*METRICS, "bpref"))
    scored = resultsdb.load(db, out["db_run_id"], out["fingerprint"])
    assert scored.values.shape == (out["n"], len(METRICS) + 1, 1)
    assert np.isnan(scored.values[:, -1, 0]).all() and not np.isnan(scored.values[:, :-1]).any()
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM query_results WHERE bpref IS NULL").fetchone() == (out["n"],)
