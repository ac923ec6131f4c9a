"""Hostile inputs to the newer commands (report, import, export, eval, qrels, sample), each a
subprocess: a FIFO is refused at once (never waited on), JSON nested 100,000 deep, a ranx run
that is a list, a DuckDB file of another shape and out-of-range arguments are located errors
with exit 2 — never a traceback, never a hang."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_robust_outputs import peak_mb

pytest.importorskip("numpy")
duckdb = pytest.importorskip("duckdb")

DEEP_ARRAY = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a":' * 100_000 + "1" + "}" * 100_000


@pytest.fixture
def run_file(project: Path) -> Path:
    path = project / "run.jsonl"
    path.write_text(
        "".join(json.dumps({"query_id": f"q{i}", "chunk_ids": ["x"]}) + "\n" for i in range(1, 8))
    )
    return path


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def refused(proc, *says: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    for text in says:
        assert text in proc.stderr, proc.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
@pytest.mark.parametrize(
    "args, says",
    [
        (["report", "--out", "{fifo}"], "is a FIFO"),
        (["report", "--run", "{fifo}", "--out", "r.html"], "cannot read run {fifo}: is a FIFO"),
        (["eval", "--run", "{fifo}"], "cannot read run {fifo}: is a FIFO"),
        (["eval", "--run", "{run}", "--chunks", "{fifo}"], "cannot read chunk file {fifo}: is a FIFO"),
        (["qrels", "--chunks", "{fifo}"], "cannot read chunk file {fifo}: is a FIFO"),
        (["eval", "--run", "{run}", "--compare", "{fifo}"], "cannot read run {fifo}: is a FIFO"),
        (["eval", "--run", "{run}", "--db", "{fifo}"], "the results database {fifo} is a FIFO"),
    ],
    ids=["report-out", "report-run", "eval-run", "eval-chunks", "qrels-chunks", "eval-compare", "eval-db"],
)
def test_a_fifo_with_no_writer_is_refused_not_waited_on(cli, project, run_file, fifo, args, says):
    names = {"fifo": str(fifo), "run": str(run_file)}
    if args[0] == "report":
        pytest.importorskip("jinja2")
    proc = cli([a.format(**names) for a in args], cwd=project)
    refused(proc, says.format(**names))


@pytest.mark.parametrize("fmt", ["ragas", "deepeval"])
@pytest.mark.parametrize("body", [DEEP_ARRAY, DEEP_OBJECT], ids=["array", "object"])
def test_deeply_nested_json_to_import_is_a_located_error(cli, project, tmp_path, fmt, body):
    first = json.dumps({"user_input" if fmt == "ragas" else "input": "Which hut?"})
    for name, text in (("deep.json", body), ("deep.jsonl", first + "\n" + body + "\n")):
        source = tmp_path / name
        source.write_text(text)
        proc = cli(["import", source, "--from", fmt], cwd=project)
        line = 2 if name.endswith("l") else 1
        refused(proc, f"{source}:{line}:", "nested too deeply")


@pytest.mark.parametrize(
    "name, text, fmt, where",
    [
        ("deep.jsonl", '{"query_id": "q1", "chunk_ids": []}\n' + DEEP_OBJECT + "\n", None, ":2:"),
        ("deep.json", DEEP_OBJECT, "ranx", ":1:"),
        ("deep-array.json", DEEP_ARRAY, "ranx", ":1:"),
    ],
    ids=["jsonl", "ranx-object", "ranx-array"],
)
def test_deeply_nested_runs_are_located_errors(cli, project, tmp_path, name, text, fmt, where):
    run = tmp_path / name
    run.write_text(text)
    proc = cli(["eval", "--run", run, *(["--run-format", fmt] if fmt else [])], cwd=project)
    refused(proc, f"{run}{where}", "nested too deeply")


def test_deeply_nested_chunk_file_is_a_located_error(cli, project, tmp_path):
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text(DEEP_ARRAY + "\n")
    refused(cli(["qrels", "--chunks", chunks], cwd=project), f"{chunks}:1:", "nested too deeply")


def test_a_ranx_run_that_is_a_list_is_a_located_error(cli, project, tmp_path):
    run = tmp_path / "run.json"
    run.write_text('[{"q1": {"x": 1.0}}]')
    proc = cli(["eval", "--run", run, "--run-format", "ranx"], cwd=project)
    refused(proc, f"{run}:1: a ranx run is one JSON object", "not list")


def test_a_duckdb_file_of_another_shape_is_refused_untouched(cli, project, run_file, tmp_path):
    db = tmp_path / "other.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE runs (name VARCHAR, score DOUBLE)")
    con.execute("INSERT INTO runs VALUES ('mine', 1.0)")
    con.close()
    for extra in ([], ["--baseline", "db:latest", "--gate", "hit@1"]):
        proc = cli(["eval", "--run", run_file, "--k", "1", "--db", db, *extra], cwd=project)
        refused(proc, f"{db}: not a golden-lsp results database", "its table runs lacks the columns")
    con = duckdb.connect(str(db))
    tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert tables == {"runs"} and con.execute("SELECT * FROM runs").fetchall() == [("mine", 1.0)]
    con.close()


def test_settings_of_another_shape_in_a_results_database_are_a_located_error(
    cli, project, run_file, tmp_path
):
    db = tmp_path / "results.duckdb"
    assert cli(["eval", "--run", run_file, "--k", "1", "--db", db], cwd=project).returncode == 0
    con = duckdb.connect(str(db))
    con.execute("UPDATE runs SET settings = '[1, 2]'")
    con.close()
    proc = cli(
        ["eval", "--run", run_file, "--k", "1", "--db", db, "--baseline", "db:latest", "--gate", "hit@1"],
        cwd=project,
    )
    refused(proc, f"{db}: run ", "its settings are not golden-lsp's")


@pytest.mark.parametrize(
    "args, says",
    [
        (["--k", "1,100000000"], "--k '1,100000000': a cutoff is at most 1,000,000, not 100,000,000"),
        (["--bootstrap", "-5"], "--bootstrap -5: the number of resamples is from 0 (no interval) to 100,000"),
        (["--bootstrap", "100000001"], "--bootstrap 100000001: the number of resamples"),
    ],
    ids=["k-too-large", "bootstrap-negative", "bootstrap-too-many"],
)
def test_arguments_out_of_range_are_usage_errors(cli, project, run_file, args, says):
    refused(cli(["eval", "--run", run_file, *args], cwd=project), says)


def test_retrieve_k_out_of_range_is_a_usage_error(cli, project, tmp_path):
    pytest.importorskip("bm25s")
    proc = cli(
        ["retrieve", "--retriever", "bm25", "--k", "100000000", "--out", tmp_path / "r.jsonl"], cwd=project
    )
    refused(proc, "--k must be from 1 to 1,000,000, not 100,000,000")
    assert not (tmp_path / "r.jsonl").exists()


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_a_cutoff_past_the_deepest_ranking_costs_and_scores_what_that_ranking_does(cli, project, tmp_path):
    qrels = tmp_path / "qrels.json"
    assert cli(["export", "--format", "ranx", "--out", qrels], cwd=project).returncode == 0
    run = tmp_path / "run.json"  # each query: a stranger first, then its answer-bearing chunks
    run.write_text(
        json.dumps(
            {q: {"x": 9.0, **dict.fromkeys(rel, 1.0)} for q, rel in json.loads(qrels.read_text()).items()}
        )
    )
    results = {}
    for deep in (50, 1_000_000):
        args = ["eval", "--run", run, "--run-format", "ranx", "--k", f"1,3,{deep}", "--format", "json"]
        mb, proc = peak_mb(args, project)
        metrics = json.loads(proc.stdout)["metrics"]
        results[deep] = mb, {(m["metric"], m["k"] if m["k"] != deep else "deep"): m["value"] for m in metrics}
    (shallow_mb, shallow), (deep_mb, deep) = results[50], results[1_000_000]
    precision = ("precision", "deep")  # relevant found / k: the one metric whose k divides
    assert deep.pop(precision) * 1_000_000 == pytest.approx(shallow.pop(precision) * 50)
    assert deep == shallow and shallow[("hit", "deep")] == 1.0 and shallow[("hit", 1)] == 0.0
    assert deep_mb - shallow_mb < 50, f"--k 1000000 took {deep_mb:.0f} MB, --k 50 {shallow_mb:.0f} MB"
