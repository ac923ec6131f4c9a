"""Every writer of the questions file, as a subprocess: a save made while ``accept`` or ``migrate
--write`` ran is kept (the file is read again right before the atomic replace, and the run
refuses), a read-only questions file is refused by every writer, the temporary a killed writer
left is removed by the next run of its kind, and a record without a ``locators`` member takes the
judge's proposals like one with an empty list.

The save and the kill are injected from outside the product: the subprocess runs the real CLI
after wrapping one of its functions (or ``os.replace``), so the production code has no test-only
branch.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from core_support import cli_env, make_project, write_docs
from judge_support import write_judge
from migrate_support import CONFIG, V1, V2, case_lines
from test_accept_audit import VERDICTS, records
from test_judge import DOCS, LINES

SAVED = '{"id": "saved", "query": "A line the editor saved meanwhile", "locators": []}\n'

#: the real CLI, after wrapping ``module.name`` so that it appends a line to the questions file
#: (an editor's save) before answering
SAVING_RUN = """
import importlib, sys
module, name, questions = sys.argv[1:4]
mod = importlib.import_module(module)
real = getattr(mod, name)
def saving(*args, **kwargs):
    result = real(*args, **kwargs)
    with open(questions, "a", encoding="utf-8") as f:
        f.write(sys.argv[4])
    return result
setattr(mod, name, saving)
from golden_lsp.cli import main
sys.exit(main(sys.argv[5:]))
"""

#: the real CLI, stopping itself (SIGSTOP) as it renames its first temporary, for a SIGKILL
STOPPING_RUN = """
import os, signal, sys
real = os.replace
def replace(src, dst):
    if ".golden-lsp-tmp-" in str(src):
        os.kill(os.getpid(), signal.SIGSTOP)
    real(src, dst)
os.replace = replace
from golden_lsp.cli import main
sys.exit(main(sys.argv[1:]))
"""


def judged(cli, tmp_path: Path, lines: list[str] | None = None) -> Path:
    root = make_project(tmp_path / "tea", DOCS, lines or LINES)
    command, _ = write_judge(tmp_path / "judge", VERDICTS)
    proc = cli(["judge", root, "--command", command, "--k", "3"])
    assert proc.returncode == 0, proc.stderr
    return root


def migrating(tmp_path: Path) -> tuple[Path, list]:
    root = make_project(tmp_path / "set", V2, case_lines(), CONFIG)
    old = write_docs(tmp_path / "old", V1)
    return root, ["migrate", str(root), "--from-corpus", str(old), "--write"]


def python(code: str, args: list, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        cwd=cwd,
        env=cli_env(cwd),
        capture_output=True,
        text=True,
        timeout=300,
    )


def leftovers(folder: Path) -> list[str]:
    return sorted(n for n in os.listdir(folder) if ".golden-lsp-tmp-" in n)


def test_a_record_without_a_locators_member_takes_the_judges_proposals(cli, tmp_path):
    first = json.loads(LINES[0])
    del first["locators"]
    root = judged(cli, tmp_path, [json.dumps(first), *LINES[1:]])
    proc = cli(["accept", root, "--ids", "t1", "--format", "json"])
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["accepted"] == 2 and result["records"][0]["skipped"] == [], result
    t1 = records(root / "questions.jsonl")["t1"]
    assert [x["doc"] for x in t1["locators"]] == ["tea.md", "tea.md"] and t1["hop"] == "multi"
    assert t1["annotator"].startswith("judge:")
    assert cli(["check", root]).returncode == 0


@pytest.mark.parametrize("kind", ["accept", "migrate"])
def test_a_save_made_while_the_writer_ran_is_kept(cli, tmp_path, kind):
    if kind == "accept":
        root = judged(cli, tmp_path)
        hook, args = ("golden_lsp.cli.accept", "accept_text"), ["accept", root, "--confidence", "high"]
    else:
        root, args = migrating(tmp_path)
        hook = ("golden_lsp.cli.migrate", "rewritten")
    questions = root / "questions.jsonl"
    before = questions.read_text(encoding="utf-8")
    proc = python(SAVING_RUN, [*hook, questions, SAVED, *args], root)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert f"changed while golden-lsp was running {kind}: nothing written" in proc.stderr
    assert questions.read_text(encoding="utf-8") == before + SAVED  # the save, nothing else
    assert leftovers(root) == []


def test_a_read_only_questions_file_is_refused_by_every_writer(cli, tmp_path):
    root = judged(cli, tmp_path)
    mroot, margs = migrating(tmp_path)
    src = tmp_path / "src.jsonl"
    sample = {"user_input": "Is oolong steeped twice?", "reference_contexts": ["Green tea is steeped"]}
    src.write_text(json.dumps(sample) + "\n", encoding="utf-8")
    runs = [
        (root, ["accept", root, "--confidence", "high"]),
        (mroot, margs),
        (root, ["import", src, "--from", "ragas", "--out", root / "questions.jsonl", "--append"]),
    ]
    for folder, args in runs:
        questions = folder / "questions.jsonl"
        before = questions.read_bytes()
        questions.chmod(0o444)
        proc = cli(args, cwd=folder)
        assert proc.returncode == 2 and "is read-only" in proc.stderr and "Traceback" not in proc.stderr, (
            args,
            proc.stderr,
        )
        assert questions.read_bytes() == before and stat.S_IMODE(questions.stat().st_mode) == 0o444
        assert leftovers(folder) == []


@pytest.mark.parametrize("kind", ["accept", "migrate"])
def test_the_temporary_of_a_killed_writer_is_removed_by_its_next_run(cli, tmp_path, kind):
    if kind == "accept":
        root = judged(cli, tmp_path)
        args = ["accept", str(root), "--confidence", "high"]
    else:
        root, args = migrating(tmp_path)
    questions = root / "questions.jsonl"
    before = questions.read_bytes()
    proc = subprocess.Popen(
        [sys.executable, "-c", STOPPING_RUN, *args],
        cwd=root,
        env=cli_env(root),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _, status = os.waitpid(proc.pid, os.WUNTRACED)  # once it has stopped itself
        assert os.WIFSTOPPED(status), status
    finally:
        proc.kill()
        proc.wait(timeout=60)
    [left] = leftovers(root)
    assert questions.read_bytes() == before
    again = cli(args, cwd=root)
    assert again.returncode == 0, again.stderr
    assert f"removed the temporary of an interrupted {kind}" in again.stderr and left in again.stderr
    assert leftovers(root) == [] and questions.read_bytes() != before
