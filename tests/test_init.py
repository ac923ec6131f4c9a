"""``golden-lsp init``: a skeleton that checks clean and builds at once, never over existing files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from golden_lsp.practice.skeleton import HELP

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def findings(cli, cwd: Path, target: str) -> tuple[int, list[dict]]:
    proc = cli(["check", target, "--format", "json"], cwd=cwd)
    return proc.returncode, json.loads(proc.stdout)


def test_init_then_check_is_clean_and_build_works(tmp_path, cli):
    proc = cli(["init", "new"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    root = tmp_path / "new"
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) == [
        "corpus/01-writing-a-golden-set.md",
        "golden-lsp.toml",
        "questions.jsonl",
    ]
    assert "wrote new/questions.jsonl" in proc.stderr
    lines = (root / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines[: len(HELP.splitlines())] == HELP.splitlines()
    assert all(line.startswith("//") for line in HELP.splitlines())
    (record,) = [json.loads(line) for line in lines if not line.startswith("//")]
    assert record["locators"][0]["doc"] == "01-writing-a-golden-set.md"
    rc, found = findings(cli, tmp_path, "new")
    assert rc == 0 and found == []  # the config turns off what a one-record set cannot meet
    build = cli(["build", "new"], cwd=tmp_path)
    assert build.returncode == 0, build.stderr
    artifact = [
        json.loads(line) for line in (root / "golden-set.v1.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert [a["query_id"] for a in artifact] == ["q001"]
    assert cli(["check", "new"], cwd=tmp_path).returncode == 0  # the artifact just built is not stale


def test_init_never_overwrites(tmp_path, cli):
    root = tmp_path / "set"
    (root / "corpus").mkdir(parents=True)
    mine = b"// my own questions\n"
    (root / "questions.jsonl").write_bytes(mine)
    proc = cli(["init", str(root)], cwd=tmp_path)
    assert proc.returncode == 0
    assert "kept existing set/questions.jsonl" in proc.stderr and "wrote set/golden-lsp.toml" in proc.stderr
    assert (root / "questions.jsonl").read_bytes() == mine
    snapshot = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    again = cli(["init"], cwd=root)
    assert again.returncode == 0 and "wrote" not in again.stderr and again.stderr.count("kept existing") == 3
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == snapshot


def test_init_with_an_existing_corpus_anchors_the_record_there(tmp_path, cli):
    shutil.copytree(EXAMPLES / "corpus", tmp_path / "docs")
    proc = cli(["init", "set", "--corpus", "docs"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "set" / "corpus").exists()
    assert 'corpus = "../docs"' in (tmp_path / "set" / "golden-lsp.toml").read_text(encoding="utf-8")
    rc, found = findings(cli, tmp_path, "set")
    assert rc == 0 and {f["code"] for f in found} == {"doc-unlabelled"}, (
        found
    )  # the to-do list: 3 more chapters
    assert len(found) == 3
    (record,) = [
        json.loads(line)
        for line in (tmp_path / "set" / "questions.jsonl").read_text().splitlines()
        if not line.startswith("//")
    ]
    (locator,) = record["locators"]
    assert (tmp_path / "docs" / locator["doc"]).read_text(encoding="utf-8").count(locator["quote"]) == 1
    assert cli(["build", "set"], cwd=tmp_path).returncode == 0


def test_init_refuses_a_file_or_a_missing_corpus(tmp_path, cli):
    (tmp_path / "afile").write_text("x")
    for args, reason in (
        (["init", "afile"], "not a folder"),
        (["init", "s", "--corpus", "nope"], "corpus folder not found"),
    ):
        proc = cli(args, cwd=tmp_path)
        assert proc.returncode == 2 and reason in proc.stderr, proc.stderr
    assert (tmp_path / "afile").read_text() == "x" and not (tmp_path / "s").exists()
