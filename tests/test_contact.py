"""First contact, round four (issue 30), on the command line: a gate that never passes on a file it
did not read, ``sample`` taking a set's path, ``init --corpus`` anchoring its record in prose, and
the messages that name what to do (a trailing comma, every extra a command needs, ``--threshold``)."""

from __future__ import annotations

import json
from pathlib import Path

from core_support import loc, qline, run_cli


def test_check_of_a_folder_refuses_a_questions_file_the_config_found_does_not_name(project: Path):
    """``check set/sub`` found ``set/golden-lsp.toml`` walking up, which checks
    ``set/questions.jsonl``: passing on that while ``set/sub/questions.jsonl`` is broken would be a
    gate passing on a file it did not read."""
    sub = project / "sub"
    sub.mkdir()
    (sub / "questions.jsonl").write_text(
        qline("s1", [loc("guide.md", "words that are nowhere")]) + "\n", encoding="utf-8"
    )
    proc = run_cli(["check", "sub"], cwd=project)
    assert proc.returncode == 2, proc.stderr
    assert "sub/questions.jsonl" in proc.stderr and "golden-lsp check sub/questions.jsonl" in proc.stderr
    assert "golden-lsp.toml" in proc.stderr and proc.stdout == ""
    # the advice works: the file itself is checked (and fails on its broken quote)
    proc = run_cli(["check", "sub/questions.jsonl"], cwd=project)
    assert proc.returncode == 1 and "quote-not-found" in proc.stdout, proc.stdout + proc.stderr
    # the set's own folder, and a subfolder without a questions file, are checked as before
    assert run_cli(["check", "."], cwd=project).returncode == 0
    (project / "notes").mkdir()
    assert run_cli(["check", "notes"], cwd=project).returncode == 0
    # a *.questions.jsonl file there counts too
    (sub / "questions.jsonl").rename(sub / "draft.questions.jsonl")
    proc = run_cli(["check", "sub"], cwd=project)
    assert proc.returncode == 2 and "sub/draft.questions.jsonl" in proc.stderr, proc.stderr


def test_build_of_such_a_folder_refuses_too(project: Path):
    (project / "sub").mkdir()
    (project / "sub" / "questions.jsonl").write_text("", encoding="utf-8")
    proc = run_cli(["build", "sub"], cwd=project)
    assert proc.returncode == 2 and "sub/questions.jsonl" in proc.stderr
    assert not (project / "golden-set.v1.jsonl").exists()  # nothing built from the other file


def test_sample_takes_the_sets_path(project: Path, tmp_path: Path):
    """``sample LOG PATH`` from anywhere: the set's queries are not drawn again and its ids are not
    reused; without a path and no config where it runs, it says where it looked and what to give."""
    lines = (project / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.startswith("{")]
    log = tmp_path / "log.txt"
    log.write_text(records[0]["query"] + "\nA question nobody asked before?\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = run_cli(["sample", log, project, "--n", "5", "--format", "json"], cwd=elsewhere)
    assert proc.returncode == 0, proc.stderr
    drawn = json.loads(proc.stdout)
    assert [r["query"] for r in drawn] == ["A question nobody asked before?"]
    assert drawn[0]["id"] not in {r["id"] for r in records}
    proc = run_cli(["sample", log, "--n", "1"], cwd=elsewhere)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "no golden-lsp.toml in the working directory or above" in proc.stderr
    assert "PATH" in proc.stderr and "--corpus" in proc.stderr
