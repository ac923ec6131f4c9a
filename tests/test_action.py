"""action.yml, the composite GitHub Action: its shape, and its own shell steps run here as the
runner would run them (bash, the step's env, RUNNER_TEMP and GITHUB_OUTPUT files)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml
from core_support import SAMPLE_LINES, loc, qline, write_questions

REPO = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
STEPS = ACTION["runs"]["steps"]
SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


def step(name: str) -> dict:
    return next(s for s in STEPS if s.get("name") == name)


def run_step(s: dict, tmp_path: Path, cwd: Path, **inputs: str) -> tuple[subprocess.CompletedProcess, dict]:
    """Run a step's script with its env (inputs substituted) the way the runner does: bash -e."""
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    values = {"path": ".", "args": "", **inputs}
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "RUNNER_TEMP": str(tmp_path / "runner-temp"),
        "GITHUB_OUTPUT": str(tmp_path / "github-output"),
    }
    (tmp_path / "runner-temp").mkdir(exist_ok=True)
    for key, value in s.get("env", {}).items():
        name = value.removeprefix("${{ inputs.").removesuffix(" }}")
        env[key] = values[name]
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s["run"]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = Path(env["GITHUB_OUTPUT"])
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines()) if out.exists() else {}
    return proc, outputs


def test_composite_action_sets_up_python_installs_itself_and_checks():
    assert ACTION["runs"]["using"] == "composite"
    assert STEPS[0]["uses"].startswith("actions/setup-python@")
    assert '"$GITHUB_ACTION_PATH"' in STEPS[1]["run"] and "pip install" in STEPS[1]["run"]
    assert "golden-lsp check --format github" in step("golden-lsp check")["run"]
    upload = STEPS[-1]
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert "inputs.sarif == 'true'" in upload["if"] and "always()" in upload["if"]
    assert set(ACTION["inputs"]) == {"path", "python-version", "sarif", "args", "cache"}
    assert all(s.get("shell") == "bash" for s in STEPS if "run" in s)
    assert not any("${{" in s["run"] for s in STEPS if "run" in s)  # inputs reach scripts through env only


def test_check_step_annotates_and_fails_on_an_error(project, tmp_path):
    write_questions(
        project / "questions.jsonl", SAMPLE_LINES + [qline("q9", [loc("faq.md", "no such words")])]
    )
    proc, _ = run_step(step("golden-lsp check"), tmp_path, project.parent, path=project.name)
    assert proc.returncode == 1
    assert f"::error file={project.name}/questions.jsonl,line={len(SAMPLE_LINES) + 1}," in proc.stdout


def test_sarif_step_writes_a_valid_log_and_does_not_fail_on_findings(project, tmp_path):
    write_questions(
        project / "questions.jsonl", SAMPLE_LINES + [qline("q9", [loc("faq.md", "no such words")])]
    )
    proc, outputs = run_step(step("golden-lsp check --format sarif"), tmp_path, project)
    assert proc.returncode == 0, proc.stderr
    log = json.loads(Path(outputs["file"]).read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert "quote-not-found" in {r["ruleId"] for r in log["runs"][0]["results"]}


def test_sarif_step_fails_on_a_usage_error(project, tmp_path):
    (project / "golden-lsp.toml").write_text('corpus = "missing"\n', encoding="utf-8")
    proc, outputs = run_step(step("golden-lsp check --format sarif"), tmp_path, project)
    assert proc.returncode == 2 and "corpus folder not found" in proc.stderr
    assert "file" not in outputs


def test_the_warm_cache_is_kept_between_runs_with_actions_cache(tmp_path):
    folder = step("The warm cache's folder")
    restore = step("Restore the warm cache (saved again when the job ends)")
    assert restore["uses"].startswith("actions/cache@") and ACTION["inputs"]["cache"]["default"] == "true"
    assert folder["if"] == restore["if"] == "${{ inputs.cache == 'true' }}"
    assert restore["with"]["path"] == "${{ runner.temp }}/golden-lsp-warm"
    assert restore["with"]["restore-keys"] == "golden-lsp-warm-${{ runner.os }}-"  # any earlier run's
    assert STEPS.index(folder) < STEPS.index(restore) < STEPS.index(step("golden-lsp check"))
    env_file = tmp_path / "github-env"
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", folder["run"]],
        env={**os.environ, "RUNNER_TEMP": str(tmp_path), "GITHUB_ENV": str(env_file)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert env_file.read_text(encoding="utf-8") == f"GOLDEN_LSP_CACHE_DIR={tmp_path}/golden-lsp-warm\n"
