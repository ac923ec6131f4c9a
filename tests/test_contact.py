"""First contact, round four (issue 30), on the command line: a gate that never passes on a file it
did not read, ``sample`` taking a set's path, ``init --corpus`` anchoring its record in prose, and
the messages that name what to do (a trailing comma, every extra a command needs, ``--threshold``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from core_support import loc, qline, run_cli

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


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


#: a documentation site's pages as mkdocs and mkdocstrings write them: a page of API directives
#: first, admonitions and code, prose further on
DOC_SITE = {
    "api.md": "# API\n\n::: mkdocs.structure.files.InclusionLevel\n    options:\n      show_source: false\n\n"
    "::: mkdocs.config.base.Config\n",
    "user-guide/configuration.md": "---\ntitle: Configuration\n---\n\n# Configuration\n\n"
    '!!! note "Read this first before you change any of the settings below"\n\n'
    "```yaml\nsite_name: My Docs And A Long Name For The Site\n```\n\n"
    "- a list item that has quite a few words in it too\n\n"
    "The configuration file lives at the root of the project and every setting in it has a default.\n",
    "user-guide/writing.md": "# Writing\n\nEvery page is a Markdown file under the docs folder of the project.\n",
}


def test_init_on_a_documentation_site_anchors_its_record_in_prose(tmp_path: Path):
    """Never on a generator's directive (``::: module.Class``), an admonition, code, a list or front
    matter; and the new set's findings about its unlabelled pages sit in those pages, none on the
    record."""
    for name, text in DOC_SITE.items():
        (tmp_path / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "docs" / name).write_text(text, encoding="utf-8")
    proc = run_cli(["init", "set", "--corpus", "docs"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = (tmp_path / "set" / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    [record] = [json.loads(line) for line in lines if line.startswith("{")]
    [locator] = record["locators"]
    assert locator["doc"] == "user-guide/configuration.md", record
    prose = "The configuration file lives at the root of the project and every setting in it has a default."
    assert locator["quote"] in prose
    assert record["expected_answer"].startswith("The configuration file lives")
    assert ":::" not in json.dumps(record) and "!!!" not in json.dumps(record)
    check = run_cli(["check", "set", "--format", "json"], cwd=tmp_path)
    found = json.loads(check.stdout)
    assert check.returncode == 0 and {f["code"] for f in found} == {"doc-unlabelled"}, found
    assert sorted(f["path"] for f in found) == ["docs/api.md", "docs/user-guide/writing.md"]


def test_judge_dry_run_lists_its_calls_before_a_judge_is_chosen(tmp_path: Path):
    """``judge --dry-run`` without ``--provider`` lists the calls a run would make (none cached: that
    depends on the judge); a run without one still refuses, naming what to give."""
    pytest.importorskip("bm25s")
    shutil.copytree(EXAMPLES, tmp_path / "set")
    proc = run_cli(["judge", "set", "--dry-run", "--records", "ex001", "--format", "json"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    plan = json.loads(proc.stdout)
    assert plan["provider"] is None and plan["calls"] == plan["candidates"] > 0 and plan["cached"] == 0
    assert {p["id"] for p in plan["planned"]} == {"ex001"}
    text = run_cli(["judge", "set", "--dry-run", "--records", "ex001"], cwd=tmp_path)
    assert (
        text.returncode == 0 and "no judge chosen yet" in text.stdout and "nothing was called" in text.stdout
    )
    refused = run_cli(["judge", "set", "--records", "ex001"], cwd=tmp_path)
    assert refused.returncode == 2 and "--provider" in refused.stderr


def test_a_trailing_comma_is_called_one(project: Path):
    line = qline("q9", [loc("faq.md", "offsets break whenever")])
    broken = line[:-1] + ", }"  # {"id": …, "locators": […], }
    q = project / "questions.jsonl"
    q.write_text(q.read_text(encoding="utf-8") + broken + "\n  [1, 2,]\n", encoding="utf-8")
    proc = run_cli(["check", "--format", "json"], cwd=project)
    found = [f for f in json.loads(proc.stdout) if f["code"] == "invalid-json"]
    assert [f["message"].split(" (")[0] for f in found] == [
        "invalid JSON: a trailing comma before }",
        "invalid JSON: a trailing comma before ]",
    ]
    assert all("remove it" in f["message"] and "Expecting" not in f["message"] for f in found)
    lines = q.read_text(encoding="utf-8").split("\n")
    for f in found:  # each located at its comma
        assert lines[f["line"] - 1][f["column"] - 1] == "," and f["end_column"] == f["column"] + 1


#: numpy and DuckDB installed, bm25s not: the eval extra is there, the search extra is not
NO_BM25 = """\
import sys


class _Missing:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "bm25s":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _Missing())
"""


def test_every_extra_a_command_needs_is_named_at_once(project: Path, tmp_path: Path):
    """``eval --retriever bm25`` without numpy names the eval and the search extras together (it
    used to name eval, then search once eval was installed); with eval installed, search alone."""
    from core_support import cli_env

    from golden_lsp.cli import needed_extras

    assert needed_extras("eval", ["eval", "--retriever", "bm25"]) == ["eval", "search"]
    assert needed_extras("eval", ["eval", "--run", "r.trec"]) == ["eval"]
    assert needed_extras("report", ["report", "--retriever=bm25"]) == ["report", "eval", "search"]
    assert needed_extras("judge", ["judge"]) == ["search"]
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(NO_BM25, encoding="utf-8")
    env = {**cli_env(tmp_path), "PYTHONPATH": str(shim)}
    proc = run_cli(["eval", "--retriever", "bm25"], project, env)
    assert proc.returncode == 2 and "needs the search extra: pip install 'golden-lsp[search]'" in proc.stderr
    assert "eval]" not in proc.stderr and "eval," not in proc.stderr


def test_the_middle_band_of_the_ratio_signal_says_what_it_means(tmp_path: Path):
    pytest.importorskip("bm25s")
    pytest.importorskip("duckdb")
    shutil.copytree(EXAMPLES, tmp_path / "set")
    proc = run_cli(["eval", "set", "--retriever", "bm25", "--format", "json"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    [note] = [
        n["message"] for n in json.loads(proc.stdout)["notes"] if n["message"].startswith("hit@1/hit@10")
    ]
    ratio = float(note.split("= ")[1].split()[0])
    assert 0.6 <= ratio <= 0.85, note  # the example set's BM25 sits in the band
    assert "between 0.6 and 0.85 — neither signal" in note and "reranker" in note and "more answers" in note
