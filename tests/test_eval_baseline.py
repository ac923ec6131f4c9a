"""``eval --write-baseline`` / ``--baseline-file``: the guide's regression check as subprocesses.

Round trip: write, pass against itself, fail on a planted drop of 0.03 with threshold 0.02 (and
pass it with a per-metric threshold of 0.04), refuse another set's baseline unless allowed.
"""

from __future__ import annotations

import json
import math
import shutil

from test_eval_cli import crafted  # noqa: F401  (the fixture)


def test_baseline_file_round_trip(crafted, project, cli, tmp_path):  # noqa: F811
    run, _ = crafted
    base = tmp_path / "baseline.json"
    wrote = cli(["eval", "--run", run, "--k", "1,3", "--write-baseline", base], cwd=project)
    assert wrote.returncode == 0, wrote.stderr
    data = json.loads(base.read_text())
    assert data["hit_rule"] and data["multi"] == "any" and len(data["fingerprint"]) == 16
    assert set(data["metrics"]) == {
        f"{m}@{k}"
        for m in ("hit", "recall", "mrr", "ndcg", "precision", "iou", "map", "rprec")
        for k in (1, 3)
    }

    def against_base(*extra):
        return cli(["eval", *extra, "--run", run, "--k", "1,3", "--baseline-file", base], cwd=project)

    same = against_base("--max-drop", "0.02")
    assert same.returncode == 0, same.stdout + same.stderr
    assert (
        "16 metric values checked against a fixed maximum drop of 0.02" in same.stdout
        and "  pass" in same.stdout
    )

    planted = dict(data, metrics=dict(data["metrics"], **{"hit@3": data["metrics"]["hit@3"] + 0.03}))
    base.write_text(json.dumps(planted))
    failed = against_base("--max-drop", "0.02")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    new = data["metrics"]["hit@3"]
    assert f"hit@3: {new + 0.03:.4f} → {new:.4f} (drop: 0.0300)" in failed.stdout
    assert "FAIL: 1 dropped more than allowed" in failed.stdout
    as_json = against_base("--format", "json")
    assert as_json.returncode == 1 and json.loads(as_json.stdout)["baseline_file"]["drops"] == ["hit@3"]
    per_metric = against_base("--max-drop", "0.02", "--max-drop", "hit@3=0.04")
    assert per_metric.returncode == 0, per_metric.stdout

    other = against_base("--hit-rule", "span_containment")
    assert other.returncode == 2 and "refusing the baseline file" in other.stderr
    assert "--allow-other-baseline" in other.stderr
    allowed = against_base("--hit-rule", "span_containment", "--allow-other-baseline")
    assert allowed.returncode in (0, 1) and "another set or rule allowed" in allowed.stdout


def test_another_sets_baseline_is_refused(crafted, project, cli, tmp_path):  # noqa: F811
    run, _ = crafted
    base = tmp_path / "baseline.json"
    assert cli(["eval", "--run", run, "--k", "1,3", "--write-baseline", base], cwd=project).returncode == 0
    other = tmp_path / "other"
    shutil.copytree(project, other)
    questions = other / "questions.jsonl"
    lines = questions.read_text().splitlines()
    i = next(i for i, ln in enumerate(lines) if ln.startswith("{"))
    first = json.loads(lines[i])
    lines[i] = json.dumps({**first, "query": first["query"] + " (reworded)"})
    questions.write_text("\n".join(lines) + "\n")
    refused = cli(["eval", "--run", run, "--k", "1,3", "--baseline-file", base], cwd=other)
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "refusing the baseline file" in refused.stderr and "fingerprint" in refused.stderr


def test_bad_max_drop_and_baseline_file_are_usage_errors(crafted, project, cli, tmp_path):  # noqa: F811
    run, _ = crafted
    not_a_baseline = tmp_path / "x.json"
    not_a_baseline.write_text("{}")
    proc = cli(["eval", "--run", run, "--baseline-file", not_a_baseline], cwd=project)
    assert proc.returncode == 2 and "not a baseline file" in proc.stderr
    assert cli(["eval", "--run", run, "--max-drop", "0.02"], cwd=project).returncode == 2
    written = tmp_path / "w.json"
    cli(["eval", "--run", run, "--k", "1,3", "--write-baseline", written], cwd=project)
    data = json.loads(written.read_text())
    for planted in ({"run": "x\x1b[2Jy"}, {"metrics": {"hit@3\n": 0.5}}, {"metrics": {"hit@3": math.nan}}):
        not_a_baseline.write_text(json.dumps({**data, **planted}))
        proc = cli(["eval", "--run", run, "--k", "1,3", "--baseline-file", not_a_baseline], cwd=project)
        assert proc.returncode == 2 and "\x1b" not in proc.stdout + proc.stderr, proc.stderr
    base = tmp_path / "b.json"
    cli(["eval", "--run", run, "--k", "1,3", "--write-baseline", base], cwd=project)
    proc = cli(
        ["eval", "--run", run, "--k", "1,3", "--baseline-file", base, "--max-drop", "hit@3=x"], cwd=project
    )
    assert proc.returncode == 2 and "--max-drop" in proc.stderr
