"""Per-query traces (``request_id``, ``latency_ms``, ``cost``) from a JSONL run or a side file for a
TREC run, and the record's slice values, in ``query_results`` of a real DuckDB file; joined to a
trace table with the SQL of docs/evaluation.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_eval_cli import chunk_ids, run_eval, trec

duckdb = pytest.importorskip("duckdb")


def test_jsonl_run_traces_land_in_query_results(project, cli, tmp_path):
    c = chunk_ids(project)
    lines = [
        {"query_id": "q1", "chunk_ids": [c["G1"]], "request_id": "req-1", "latency_ms": 120.5, "cost": 0.002},
        {"query_id": "q2", "chunk_ids": [c["F"]], "request_id": "req-2"},
    ]
    (project / "run.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    db = tmp_path / "r.duckdb"
    _, out = run_eval(cli, project, "--run", "run.jsonl", "--k", "10", "--db", db)
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT query_id, request_id, latency_ms, cost FROM query_results ORDER BY query_id"
    ).fetchall()
    assert rows[:3] == [("q1", "req-1", 120.5, 0.002), ("q2", "req-2", None, None), ("q3", None, None, None)]
    # the join of docs/evaluation.md, run as written against a trace table keyed by request_id
    con.execute(
        "CREATE TEMP TABLE traces AS SELECT * FROM (VALUES ('req-1', 'model-a'), ('req-2', 'model-b')) "
        "AS t(request_id, model)"
    )
    doc = (Path(__file__).resolve().parents[1] / "docs" / "evaluation.md").read_text()
    sql = doc.split("```sql\n", 1)[1].split("```", 1)[0]
    joined = sorted(con.execute(sql).fetchall())
    hit = {q["query_id"]: q["hit@10"] for q in out["per_query"]}
    assert joined == [("model-a", hit["q1"], 120.5, 0.002, 1), ("model-b", hit["q2"], None, None, 1)]


def test_trec_run_takes_a_side_file(project, cli, tmp_path):
    c = chunk_ids(project)
    (project / "run.trec").write_text(trec([("q1", c["G1"], 1.0)]))
    (project / "traces.jsonl").write_text(
        json.dumps({"query_id": "q1", "request_id": "r1", "cost": 1}) + "\n"
    )
    db = tmp_path / "r.duckdb"
    run_eval(cli, project, "--run", "run.trec", "--k", "1", "--traces", "traces.jsonl", "--db", db)
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT request_id, cost FROM query_results WHERE query_id = 'q1'").fetchone() == (
        "r1",
        1.0,
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"query_id": "q1", "latency_ms": -3}', "'latency_ms' must be a non-negative number"),
        ('{"query_id": "q1", "request_id": 7}', "'request_id' must be a string"),
        ("{oops", "traces.jsonl:1: invalid JSON"),
    ],
)
def test_bad_traces_are_located_errors(project, cli, tmp_path, line, message):
    c = chunk_ids(project)
    (project / "run.trec").write_text(trec([("q1", c["G1"], 1.0)]))
    (project / "traces.jsonl").write_text(line + "\n")
    proc = cli(
        ["eval", "--run", "run.trec", "--traces", "traces.jsonl", "--db", str(tmp_path / "r.duckdb")],
        cwd=project,
    )
    assert proc.returncode == 2 and message in proc.stderr


def test_slice_values_are_in_query_results(tmp_path: Path, cli):
    from core_support import SAMPLE_LINES, make_project

    lines = []
    for line in SAMPLE_LINES:
        if line.startswith("{"):
            rec = json.loads(line)
            rec.update(tenant="acme", tags=["smoke"], meta={"lang": "de"})
            line = json.dumps(rec)
        lines.append(line)
    project = make_project(tmp_path / "p", lines=lines)
    (project / "run.jsonl").write_text(json.dumps({"query_id": "q1", "chunk_ids": []}) + "\n")
    db = tmp_path / "r.duckdb"
    run_eval(cli, project, "--run", "run.jsonl", "--k", "1", "--by", "tenant", "--db", db)
    con = duckdb.connect(str(db), read_only=True)
    row = con.execute(
        "SELECT tags, meta->>'tenant', meta->>'$.\"meta.lang\"' FROM query_results WHERE query_id = 'q1'"
    ).fetchone()
    assert row == (["smoke"], "acme", "de")
    slices = con.execute(
        "SELECT group_value, n FROM run_metrics WHERE group_by = 'tenant' LIMIT 1"
    ).fetchone()
    assert slices[0] == "acme"
