"""``eval --by FIELD`` and ``--gate-slices`` as subprocesses: a slice per value of any record field,
with N and interval; a slice that dropped fails the gate while the aggregate holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from core_support import SAMPLE_LINES, make_project
from test_eval_cli import chunk_ids, run_eval

pytest.importorskip("duckdb")


@pytest.fixture
def tenants(tmp_path: Path) -> Path:
    """The sample set copied to 60 records: 50 of tenant big, 10 of tenant broken (meta.lang en/de)."""
    records = [json.loads(x) for x in SAMPLE_LINES if x.startswith("{")]
    lines = []
    for i in range(60):
        rec = dict(records[i % len(records)], id=f"r{i}")
        rec["tenant"] = "broken" if i < 10 else "big"
        rec["meta"] = {"lang": "de" if i % 3 == 0 else "en"}
        lines.append(json.dumps(rec))
    project = make_project(tmp_path / "p", lines=lines)
    c = chunk_ids(project)
    every = [c["G1"], c["G2"], c["G3"], c["F"]]
    # the baseline misses 10 records of tenant big; the candidate finds them and misses the 10 of
    # tenant broken instead: the aggregate is unchanged, the broken tenant dropped from 1 to 0
    for name, missed in (("base", range(10, 20)), ("cand", range(10))):
        (project / f"{name}.jsonl").write_text(
            "".join(
                json.dumps({"query_id": f"r{i}", "chunk_ids": [] if i in missed else every}) + "\n"
                for i in range(60)
            )
        )
    return project


def test_by_any_field_gives_n_and_interval_per_slice(tenants, cli):
    _, out = run_eval(cli, tenants, "--run", "cand.jsonl", "--k", "10", "--by", "tenant", "--by", "meta.lang")
    tenant = {b["value"]: b for b in out["breakdowns"] if b["by"] == "tenant"}
    assert {v: b["n"] for v, b in tenant.items()} == {"big": 50, "broken": 10}
    hit = {v: next(m for m in b["metrics"] if m["metric"] == "hit") for v, b in tenant.items()}
    assert hit["broken"]["value"] == 0.0 and hit["big"]["value"] == 1.0 and hit["broken"]["n"] == 10
    assert hit["big"]["ci"][0] is not None and not tenant["big"]["small"]
    lang = {b["value"]: b["n"] for b in out["breakdowns"] if b["by"] == "meta.lang"}
    assert lang == {"de": 20, "en": 40}
    text = cli(["eval", "--run", "cand.jsonl", "--k", "10", "--by", "tenant"], cwd=tenants).stdout
    assert "by tenant" in text and "broken         N=10" in text


def test_a_broken_slice_fails_the_gate_when_the_aggregate_holds(tenants, cli):
    gate = ["--run", "cand.jsonl", "--k", "10", "--baseline", "base.jsonl", "--gate", "hit@10"]
    code, out = run_eval(cli, tenants, *gate)
    assert code == 0 and out["gates"][0]["delta"] == 0.0 and not out["gates"][0]["failed"]
    assert out["slice_gates"] == []  # slices gate only when asked
    code, out = run_eval(cli, tenants, *gate, "--by", "tenant", "--gate-slices")
    per = {g["value"]: g for g in out["slice_gates"]}
    assert per["broken"]["failed"] and per["broken"]["delta"] == -1.0 and per["broken"]["n"] == 10
    assert not per["big"]["failed"] and per["big"]["delta"] == 0.2
    assert code == 1 and not out["gates"][0]["failed"]
    text = cli(["eval", *gate, "--by", "tenant", "--gate-slices"], cwd=tenants).stdout
    assert "gate hit@10 on slice tenant=broken (N=10): Δ = -1.000" in text
    assert "FAIL: dropped and the interval excludes 0" in text


def test_small_slices_are_marked_and_not_gated(tenants, cli):
    args = ["--run", "cand.jsonl", "--k", "10", "--baseline", "base.jsonl", "--gate", "hit@10"]
    _, out = run_eval(cli, tenants, *args, "--by", "tenant", "--gate-slices", "--where", "meta.lang=de")
    small = [b for b in out["breakdowns"] if b["by"] == "tenant" and b["small"]]
    assert small and all(b["n"] < 5 for b in small)
    assert all(not g["gated"] and not g["failed"] for g in out["slice_gates"] if g["n"] < 5)
    text = cli(
        ["eval", *args, "--by", "tenant", "--gate-slices", "--where", "meta.lang=de"], cwd=tenants
    ).stdout
    assert "not gated, fewer than 5 records" in text


def test_gate_slices_needs_a_gate_and_by(tenants, cli):
    proc = cli(["eval", "--run", "cand.jsonl", "--gate-slices"], cwd=tenants)
    assert proc.returncode == 2 and "--gate-slices needs" in proc.stderr
