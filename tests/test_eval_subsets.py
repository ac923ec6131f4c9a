"""``eval --split/--where/--sample``: the subset scored, recorded in the fingerprint and the DuckDB run
row, refused comparison with the full set, and the opt-in guard on the test split (CLI subprocesses,
real DuckDB files)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from core_support import SAMPLE_LINES, make_project
from test_eval_cli import chunk_ids, run_eval

duckdb = pytest.importorskip("duckdb")


@pytest.fixture
def tagged(tmp_path: Path) -> Path:
    """The sample set (q1..q7) with splits, tags and a tenant: q1, q2 test; acme on odd records."""
    lines = []
    for i, line in enumerate(SAMPLE_LINES):
        if line.startswith("{"):
            rec = json.loads(line)
            rec["split"] = "test" if rec["id"] in ("q1", "q2") else "dev"
            rec["tenant"] = "acme" if i % 2 else "globex"
            rec["meta"] = {"lang": "de" if rec["id"] in ("q3", "q4") else "en"}
            rec["tags"] = ["smoke"] if rec["id"] in ("q1", "q3", "q5") else []
            line = json.dumps(rec)
        lines.append(line)
    project = make_project(tmp_path / "p", lines=lines)
    c = chunk_ids(project)
    run = [{"query_id": f"q{i}", "chunk_ids": [c["G1"], c["F"]]} for i in range(1, 8)]
    (project / "run.jsonl").write_text("".join(json.dumps(r) + "\n" for r in run))
    return project


def ids(out: dict) -> set[str]:
    return {q["query_id"] for q in out["per_query"]}


def records(project: Path) -> dict[str, dict]:
    text = (project / "questions.jsonl").read_text()
    return {r["id"]: r for r in map(json.loads, (x for x in text.splitlines() if x.startswith("{")))}


def test_split_where_and_tags_select_the_records(tagged, cli):
    recs = records(tagged)
    _, full = run_eval(cli, tagged, "--run", "run.jsonl", "--k", "1")
    _, test = run_eval(cli, tagged, "--run", "run.jsonl", "--k", "1", "--split", "test")
    assert ids(test) == {q for q, r in recs.items() if r["split"] == "test"} == {"q1", "q2"}
    assert test["n"] == 2 and test["fingerprint"] != full["fingerprint"]
    assert test["fingerprint_parts"]["subset"]["split"] == "test"
    _, acme_de = run_eval(
        cli, tagged, "--run", "run.jsonl", "--k", "1", "--where", "tenant=acme", "--where", "meta.lang=de"
    )
    want = {q for q, r in recs.items() if r["tenant"] == "acme" and r["meta"]["lang"] == "de"}
    assert want and ids(acme_de) == want
    _, smoke = run_eval(cli, tagged, "--run", "run.jsonl", "--k", "1", "--where", "tags=smoke")
    assert ids(smoke) == {"q1", "q3", "q5"}


def test_stratified_sample_is_seeded_and_proportional(tagged, cli):
    args = ("--run", "run.jsonl", "--k", "1", "--sample", "4", "--stratify", "split")
    _, a = run_eval(cli, tagged, *args, "--seed", "3")
    _, b = run_eval(cli, tagged, *args, "--seed", "3")
    assert ids(a) == ids(b) and len(ids(a)) == 4
    split = {q: r["split"] for q, r in records(tagged).items()}
    # 2 test and 5 dev records: 4 × 2/7 = 1.14 → 1 test, 4 × 5/7 = 2.86 → 3 dev
    assert sorted(split[q] for q in ids(a)) == ["dev", "dev", "dev", "test"]
    seen = {frozenset(ids(run_eval(cli, tagged, *args, "--seed", str(s))[1])) for s in range(8)}
    assert len(seen) > 1  # the seed draws the sample


def test_a_subset_is_not_compared_with_the_full_set(tagged, cli, tmp_path):
    db = tmp_path / "r.duckdb"
    run_eval(cli, tagged, "--run", "run.jsonl", "--k", "1", "--db", db)
    proc = cli(
        ["eval", "--run", "run.jsonl", "--k", "1", "--split", "dev", "--compare", "run.jsonl"], cwd=tagged
    )
    assert proc.returncode == 0  # the compared run is scored on the same subset
    proc = cli(
        ["eval", "--run", "run.jsonl", "--k", "1", "--split", "dev", "--gate", "hit@1"]
        + ["--baseline", "db:latest", "--db", str(db)],
        cwd=tagged,
    )
    assert proc.returncode == 2 and "no stored run has fingerprint" in proc.stderr
    run_eval(cli, tagged, "--run", "run.jsonl", "--k", "1", "--split", "dev", "--db", db)
    con = duckdb.connect(str(db), read_only=True)
    subsets = [
        json.loads(parts).get("subset")
        for (parts,) in con.execute("SELECT fingerprint_parts FROM runs ORDER BY seq").fetchall()
    ]
    assert subsets == [None, {"split": "dev", "where": [], "sample": None, "seed": None, "stratify": []}]
    full_id = con.execute("SELECT run_id FROM runs ORDER BY seq LIMIT 1").fetchone()[0]
    con.close()
    proc = cli(
        ["eval", "--run", "run.jsonl", "--k", "1", "--split", "dev", "--compare", f"db:{full_id}"]
        + ["--db", str(db)],
        cwd=tagged,
    )
    assert proc.returncode == 2 and "subsets (--split, --where, --sample)" in proc.stderr


def test_the_test_split_guard_is_opt_in(tagged, cli):
    base = ["eval", "--run", "run.jsonl", "--k", "1", "--split", "test"]
    assert cli(base, cwd=tagged).returncode == 0
    proc = cli([*base, "--protect-test"], cwd=tagged)
    assert proc.returncode == 2 and "add --release" in proc.stderr
    assert cli([*base, "--protect-test", "--release"], cwd=tagged).returncode == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--where", "tenant"], "expected FIELD=VALUE"),
        (["--stratify", "split"], "--stratify needs --sample"),
        (["--sample", "0"], "positive number"),
        (["--where", "tenant=nobody"], "holds no scorable record"),
    ],
)
def test_bad_subsets_are_usage_errors(tagged, cli, args, message):
    proc = cli(["eval", "--run", "run.jsonl", "--k", "1", *args], cwd=tagged)
    assert proc.returncode == 2 and message in proc.stderr
