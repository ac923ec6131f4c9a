"""Governance as subprocesses: the owner in stats, retention by date (``retention-expired`` on the
records sampled too long ago, none on the others or without ``retention_days``), incidents into
skeleton records whose retrieved chunks are the judge's candidates, and the stored agreement printed
beside eval's metrics and in the report."""

from __future__ import annotations

import json
from datetime import date, timedelta

import pytest
from core_support import loc, make_project, qline


def sampled(rid: str, days_ago: int, time: str = "") -> str:
    rec = json.loads(qline(rid, [loc("faq.md", "offsets break whenever")], query=f"Why quote, asks {rid}?"))
    rec["sampled_at"] = (date.today() - timedelta(days=days_ago)).isoformat() + time
    return json.dumps(rec)


def test_retention_by_date(tmp_path, cli):
    lines = [
        sampled("old", 400),
        sampled("edge", 365),
        sampled("fresh", 10, "T08:30:00Z"),
        sampled("older", 366, "T23:59:59+02:00"),
        qline("curated", [loc("faq.md", "How are answers graded?")]),
    ]
    root = make_project(tmp_path / "p", lines=lines, config='corpus = "corpus"\nretention_days = 365\n')
    found = json.loads(cli(["check", "--format", "json", root]).stdout)
    expired = {f["line"]: f for f in found if f["code"] == "retention-expired"}
    assert sorted(expired) == [1, 4]  # more than 365 days; day 365 itself is still kept
    assert "sampled 400 days ago" in expired[1]["message"] and expired[1]["severity"] == "warning"
    col = lines[0].index('"sampled_at": ') + len('"sampled_at": ') + 1
    assert expired[1]["column"] == col
    (root / "golden-lsp.toml").write_text('corpus = "corpus"\n', encoding="utf-8")
    assert "retention-expired" not in cli(["check", root]).stdout
    (root / "golden-lsp.toml").write_text('corpus = "corpus"\nretention_days = 0\n', encoding="utf-8")
    bad = cli(["check", root])
    assert bad.returncode == 2 and "retention_days" in bad.stderr


def test_owner_in_stats(tmp_path, cli):
    root = make_project(tmp_path / "p", config='corpus = "corpus"\nowner = "search-quality team"\n')
    figures = json.loads(cli(["stats", "--format", "json", root]).stdout)
    assert figures["owner"] == "search-quality team"
    assert cli(["stats", root]).stdout.startswith("owner: search-quality team\n")
    assert "**Owner:** search-quality team" in cli(["stats", "--format", "markdown", root]).stdout
    (root / "golden-lsp.toml").write_text('corpus = "corpus"\n', encoding="utf-8")
    assert "owner" not in json.loads(cli(["stats", "--format", "json", root]).stdout)


def test_incidents_become_records_and_their_retrieved_chunks_the_judges_candidates(examples, cli):
    artifact = [
        json.loads(x) for x in (examples / "golden-set.v1.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    chunks = list(dict.fromkeys(c for r in artifact for c in r["answer_bearing_chunk_ids"]))
    asked = artifact[0]["query"]
    rows = [
        {
            "query": "Can I pay at the hut by card? mail me at jane@example.org",
            "request_id": "req-1",
            "chunk_ids": chunks[:2],
        },
        {"query": asked.upper(), "request_id": "req-2", "chunk_ids": chunks[2:3]},
        {
            "query": "Is there a shower in the hut?",
            "request_id": 7,
            "retrieved": [{"chunk_id": chunks[3]}, {"id": chunks[4]}],
        },
    ]
    export = examples / "incidents.jsonl"
    export.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out, run = examples / "questions.jsonl", examples / "incidents.run.jsonl"
    args = [
        "incidents",
        export,
        "--out",
        out,
        "--append",
        "--run-out",
        run,
        "--redact",
        "--sampled-at",
        "2026-05-01",
    ]
    proc = cli([*args, "--format", "json"], cwd=examples)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["records"] == ["ex074", "ex075"] and summary["retrieved"] == 4
    assert summary["skipped"] == [{"line": 2, "asked_by": artifact[0]["query_id"]}]
    new = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()[-2:]]
    assert new[0]["query"] == "Can I pay at the hut by card? mail me at <EMAIL>"
    assert [(r["request_id"], r["tags"], r["sampled_at"], r["source"]) for r in new] == [
        ("req-1", ["incident"], "2026-05-01", "incidents.jsonl"),
        ("7", ["incident"], "2026-05-01", "incidents.jsonl"),
    ]
    assert [json.loads(x) for x in run.read_text(encoding="utf-8").splitlines()] == [
        {"query_id": "ex074", "chunk_ids": chunks[:2]},
        {"query_id": "ex075", "chunk_ids": chunks[3:5]},
    ]
    check = json.loads(cli(["check", "--format", "json"], cwd=examples).stdout)
    assert {f["code"] for f in check if f["severity"] == "error"} == {"stale-artifact", "stale-manifest"}
    # the judge's candidates are exactly what production retrieved
    plan = cli(
        [
            "judge",
            "--run",
            run,
            "--records",
            "ex074,ex075",
            "--dry-run",
            "--provider",
            "command",
            "--command",
            "true",
        ],
        cwd=examples,
    )
    assert plan.returncode == 0, plan.stderr
    assert "2 records, top 10 of run" in plan.stdout and plan.stdout.count("  ex074  #") == 2
    assert plan.stdout.count("  ex075  #") == 2
    bad = examples / "bad.jsonl"
    bad.write_text('{"query": "ok"}\n{"query": "x", "chunk_ids": "c1"}\n', encoding="utf-8")
    proc = cli(["incidents", bad], cwd=examples)
    assert proc.returncode == 2 and "bad.jsonl:2:" in proc.stderr


def test_eval_and_the_report_print_the_stored_agreement_beside_the_metrics(examples, cli):
    run = ["eval", "--retriever", "bm25"]
    before = cli([*run, "--format", "json"], cwd=examples)
    assert before.returncode == 0, before.stderr
    assert json.loads(before.stdout)["agreement"] is None
    assert "labels: no agreement measured" in cli(run, cwd=examples).stdout
    q = examples / "questions.jsonl"
    assert cli(["agree", q, q], cwd=examples).returncode == 0
    got = json.loads(cli([*run, "--format", "json"], cwd=examples).stdout)
    assert got["agreement"]["alpha"] == 1.0 and got["agreement"]["n_records"] == 73
    text = cli(run, cwd=examples).stdout
    line = next(x for x in text.splitlines() if x.startswith("labels:"))
    assert "Krippendorff's alpha 1.000 (good)" in line and "over 73 records" in line
    assert "no metric is more trustworthy than the labels" in line
    (examples / "agreement.json").write_text(
        '{"format": "golden-lsp agreement v1", "band": "\\u001b[31m"}', encoding="utf-8"
    )
    assert "is not an agreement file" in cli(run, cwd=examples).stdout
    cli(["agree", q, q], cwd=examples)
    config = examples / "golden-lsp.toml"
    config.write_text(
        config.read_text(encoding="utf-8") + 'owner = "search <quality> team"\n', encoding="utf-8"
    )
    page = examples / "report.html"
    proc = cli(["report", "--retriever", "bm25", "--out", page], cwd=examples)
    if proc.returncode == 2 and "extra" in proc.stderr:
        pytest.skip(proc.stderr)
    html = page.read_text(encoding="utf-8")
    assert 'id="agreement">labels: Krippendorff&#39;s alpha 1.000 (good)' in html
    assert 'owner <span id="owner">search &lt;quality&gt; team</span>' in html
