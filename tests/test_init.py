"""``golden-lsp init``: a skeleton that checks clean and builds at once, never over existing files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from golden_lsp.core.labels.guidelines import PAGE, RULES
from golden_lsp.keep.prompt import SYSTEM
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
        "GUIDELINES.md",
        "corpus/01-writing-a-golden-set.md",
        "golden-lsp.toml",
        "questions.jsonl",
    ]
    # the annotation guidelines beside the set: the judge's own text, and the manual's page
    assert (root / "GUIDELINES.md").read_text(encoding="utf-8") == PAGE
    assert RULES in SYSTEM
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
    (root / "GUIDELINES.md").write_bytes(b"# Our own rules\n")
    proc = cli(["init", str(root)], cwd=tmp_path)
    assert proc.returncode == 0
    assert "kept existing set/questions.jsonl" in proc.stderr and "wrote set/golden-lsp.toml" in proc.stderr
    assert "kept existing set/GUIDELINES.md" in proc.stderr
    assert (root / "questions.jsonl").read_bytes() == mine
    assert (root / "GUIDELINES.md").read_bytes() == b"# Our own rules\n"
    snapshot = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    again = cli(["init"], cwd=root)
    assert again.returncode == 0 and "wrote" not in again.stderr and again.stderr.count("kept existing") == 4
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


def test_init_with_a_corpus_in_subfolders_writes_a_recursive_glob(tmp_path, cli):
    docs = tmp_path / "docs"
    (docs / "advanced").mkdir(parents=True)
    (docs / "index.md").write_text("# Start\n\nThe service answers every request within a second.\n", "utf-8")
    (docs / "advanced" / "timeouts.md").write_text(
        "# Timeouts\n\nA request without an answer fails after thirty seconds, with an error.\n", "utf-8"
    )
    proc = cli(["init", "set", "--corpus", "docs"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert 'glob = "**/*.md"' in (tmp_path / "set" / "golden-lsp.toml").read_text(encoding="utf-8")
    questions = tmp_path / "set" / "questions.jsonl"
    (first,) = [json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines()[-1:]]
    assert first["locators"][0]["doc"] == "advanced/timeouts.md"  # the first document, in a subfolder
    record = {
        "id": "q002",
        "query": "How fast is a request answered?",
        "expected_answer": "Within a second, every request.",
        "locators": [{"doc": "index.md", "quote": "within a second"}],
    }
    with questions.open("a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")
    rc, found = findings(cli, tmp_path, "set")
    assert rc == 0 and found == [], found  # both documents read, both labelled


def test_init_of_a_flat_corpus_keeps_the_flat_glob(tmp_path, cli):
    shutil.copytree(EXAMPLES / "corpus", tmp_path / "docs")
    assert cli(["init", "set", "--corpus", "docs"], cwd=tmp_path).returncode == 0
    assert 'glob = "*.md"' in (tmp_path / "set" / "golden-lsp.toml").read_text(encoding="utf-8")


def test_unknown_doc_says_when_the_glob_leaves_the_file_out(tmp_path, cli):
    root = tmp_path / "set"
    (root / "corpus" / "advanced").mkdir(parents=True)
    (root / "corpus" / "index.md").write_text("# Start\n\nEvery request is answered within a second.\n")
    (root / "corpus" / "advanced" / "timeouts.md").write_text(
        "# Timeouts\n\nRequests fail after thirty seconds.\n"
    )
    (root / "golden-lsp.toml").write_text('corpus = "corpus"\nglob = "*.md"\n', encoding="utf-8")
    line = json.dumps(
        {
            "id": "q1",
            "query": "When do requests fail?",
            "expected_answer": "After thirty seconds without an answer.",
            "locators": [{"doc": "advanced/timeouts.md", "quote": "fail after thirty seconds"}],
        }
    )
    (root / "questions.jsonl").write_text(line + "\n", encoding="utf-8")
    rc, found = findings(cli, tmp_path, "set")
    (unknown,) = [f for f in found if f["code"] == "unknown-doc"]
    assert rc == 1
    assert "the file is in the corpus folder, but the corpus glob '*.md' leaves it out" in unknown["message"]
    assert '"**/*.md" reads subfolders too' in unknown["message"]
    # a doc that is nowhere still gets the corpus listing, without a word about the glob
    (root / "questions.jsonl").write_text(line.replace("advanced/timeouts.md", "advanced/none.md") + "\n")
    rc, found = findings(cli, tmp_path, "set")
    (unknown,) = [f for f in found if f["code"] == "unknown-doc"]
    assert "glob" not in unknown["message"] and "index.md" in unknown["message"]


def test_init_inside_its_corpus_writes_no_guidelines_page_there(tmp_path, cli):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\nThe kettle is descaled every month with vinegar.\n")
    proc = cli(["init", ".", "--corpus", "."], cwd=docs)
    assert proc.returncode == 0, proc.stderr
    assert not (docs / "GUIDELINES.md").exists()  # it would be a document of the corpus
    rc, found = findings(cli, docs, ".")
    assert rc == 0, found
