"""First contact: the whole workflow as a new user meets it, on a corpus with subfolders.

``init --corpus`` → a record authored into a subfolder's document → ``check`` → ``import --out``
a new questions file and ``--append`` to one → judge-free evaluation (BM25, DuckDB twice, a
baseline of another set) → ``agree`` → ``export``, every step a CLI subprocess over non-ASCII text
with a chapter that has a BOM and CRLF line ends; and what a missing extra or a questions file
kept outside the set does. Each step asserts that none of the first-contact problems of issue 18
appears (a dropped subfolder, a refused new questions file, a traceback, "1 chunks", a
zero-width interval, a baseline refused, rounded JSON, a silent BOM).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from core_support import cli_env, run_cli

pytest.importorskip("duckdb")
pytest.importorskip("bm25s")

CHAPTERS = {
    "index.md": "# Überblick\n\nDieses Handbuch beschreibt die Wetterstation „Säntis“ und ihre Schnittstellen.\n\n"
    "## Installation\n\nDie Installation erfolgt über den Paketmanager und dauert weniger als fünf Minuten.\n",
    "advanced/timeouts.md": "# Zeitüberschreitungen\n\nJede Anfrage an die Station bricht nach dreißig Sekunden "
    "ohne Antwort mit einem Fehler ab.\n\nDie Grenze lässt sich pro Verbindung mit dem Schlüssel `timeout` "
    "in der Konfiguration ändern.\n",
    "advanced/deeper/retries.md": "# Wiederholungen\n\nEine fehlgeschlagene Anfrage wird dreimal wiederholt, "
    "jeweils nach einer Pause von zwei Sekunden.\n",
}
#: a chapter saved by a Windows editor: a BOM and CRLF line ends
BOM_CHAPTER = (
    "\ufeff# Kapitel mit Markierung\r\n\r\nDiese Datei beginnt mit einer Byte-Order-Markierung und hat "
    "Windows-Zeilenenden, wie viele Editoren sie schreiben.\r\n"
)


#: what a count of one is said with, never "1 chunks"
SINGULAR = ("chunk", "record", "document", "sample", "context", "span", "querie", "answerable record")


def record(rid: str, query: str, doc: str, quote: str, answer: str) -> str:
    return json.dumps(
        {"id": rid, "query": query, "expected_answer": answer, "locators": [{"doc": doc, "quote": quote}]},
        ensure_ascii=False,
    )


def ragas(*samples: tuple[str, str]) -> str:
    return "".join(
        json.dumps(
            {"user_input": q, "reference": f"Wie das Handbuch sagt: {c}", "reference_contexts": [c]},
            ensure_ascii=False,
        )
        + "\n"
        for q, c in samples
    )


def clean(proc) -> str:
    """The process's stderr, asserted free of what a new user must never meet."""
    for problem in ("Traceback", "documents)", "refusing", *(f" 1 {w}s" for w in SINGULAR)):
        assert problem not in proc.stderr + proc.stdout, (problem, proc.stderr, proc.stdout)
    return proc.stderr


def test_init_author_check_import_evaluate_agree_export_on_a_corpus_with_subfolders(tmp_path, cli):
    docs = tmp_path / "docs"
    for name, text in CHAPTERS.items():
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(text, encoding="utf-8")
    (docs / "guide").mkdir()
    (docs / "guide" / "bom.md").write_bytes(BOM_CHAPTER.encode("utf-8"))

    # init: the corpus has subfolders, so the glob recurses
    made = cli(["init", "set", "--corpus", "docs"], cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    root = tmp_path / "set"
    assert 'glob = "**/*.md"' in (root / "golden-lsp.toml").read_text(encoding="utf-8")

    # author a record into a document two folders down, and one into the BOM chapter
    questions = root / "questions.jsonl"
    with questions.open("a", encoding="utf-8") as f:
        f.write(
            record(
                "q002",
                "Wie oft wird eine fehlgeschlagene Anfrage wiederholt?",
                "advanced/deeper/retries.md",
                "dreimal wiederholt",
                "Dreimal, jeweils nach einer Pause von zwei Sekunden.",
            )
            + "\n"
            + record(
                "q003",
                "Womit beginnt die Datei im Leitfaden?",
                "guide/bom.md",
                "Byte-Order-Markierung",
                "Mit einer Byte-Order-Markierung, und sie hat Windows-Zeilenenden.",
            )
            + "\n"
        )
    check = cli(["check", "set", "--format", "json"], cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    clean(check)
    found = json.loads(check.stdout)
    assert not [f for f in found if f["severity"] == "error"], found
    assert "unknown-doc" not in {f["code"] for f in found}

    # import: a new set's questions file is created by the import, then appended to
    other = tmp_path / "imported"
    other.mkdir()
    shutil.copy(root / "golden-lsp.toml", other / "golden-lsp.toml")  # the same corpus, ../docs
    first = tmp_path / "first.jsonl"
    first.write_text(
        ragas(
            (
                "Wie lange dauert die Installation?",
                "Die Installation erfolgt über den Paketmanager und dauert weniger als fünf Minuten.",
            ),
        ),
        encoding="utf-8",
    )
    created = cli(["import", "--from", "ragas", first, "--out", "questions.jsonl"], cwd=other)
    assert created.returncode == 0, created.stderr
    assert "imported 1 sample to questions.jsonl: 1 context anchored" in clean(created)
    second = tmp_path / "second.jsonl"
    second.write_text(
        ragas(
            (
                "Wie lange dauert die Installation?",
                "Die Installation erfolgt über den Paketmanager und dauert weniger als fünf Minuten.",
            ),
            (
                "Wann bricht eine Anfrage ab?",
                "Jede Anfrage an die Station bricht nach dreißig Sekunden ohne Antwort mit einem Fehler ab.",
            ),
            (
                "Wo ändert man die Grenze?",
                "Die Grenze lässt sich pro Verbindung mit dem Schlüssel `timeout` in der Konfiguration ändern.",
            ),
        ),
        encoding="utf-8",
    )
    for folder in (other, root):
        added = cli(["import", "--from", "ragas", second, "--out", "questions.jsonl", "--append"], cwd=folder)
        assert added.returncode == 0, added.stderr
        assert "(appended)" in clean(added)
    ids = [
        json.loads(line)["id"]
        for line in questions.read_text(encoding="utf-8").splitlines()
        if line.startswith("{")
    ]
    assert ids == ["q001", "q002", "q003", "q004", "q005", "q006"]  # the set's numbering, continued
    imported = (other / "questions.jsonl").read_text(encoding="utf-8")
    assert imported.count('"query": "Wie lange dauert die Installation?"') == 1  # never asked twice
    assert cli(["check", "set"], cwd=tmp_path).returncode == 0

    # judge-free evaluation: BM25, stored twice, then a baseline of another set allowed
    evaluated = cli(["eval", "--retriever", "bm25"], cwd=root)
    assert evaluated.returncode in (0, 1), evaluated.stderr
    clean(evaluated)
    text = evaluated.stdout
    small = [line for line in text.splitlines() if re.search(r" N=[1-4] ", line)]
    assert small and all("[" not in line and line.endswith("(no interval: N<5)") for line in small)
    db = tmp_path / "results.duckdb"
    for _ in range(2):
        stored = cli(["eval", "--retriever", "bm25", "--db", db], cwd=root)
        assert stored.returncode in (0, 1) and "stored as run" in stored.stdout, clean(stored)
    baseline = cli(
        [
            "eval",
            "--retriever",
            "bm25",
            "--hit-rule",
            "span_containment",
            "--db",
            db,
            "--baseline",
            "db:latest",
            "--allow-different-sets",
        ],
        cwd=root,
    )
    assert baseline.returncode in (0, 1), baseline.stderr
    clean(baseline)
    assert "the latest stored run of any set" in baseline.stdout
    assert "was measured against another golden set" in baseline.stdout

    # agree: annotator B moved one label to the other paragraph of the same chunk
    b = root / "b.questions.jsonl"
    b.write_text(_moved(questions.read_text(encoding="utf-8")), encoding="utf-8")
    agree = cli(["agree", "--format", "json", questions, b], cwd=root)
    assert agree.returncode == 0, clean(agree)
    got = json.loads(agree.stdout)
    moved = [r for r in got["records"] if r["chunks_agree"] and r["span_f1"] < 0.5]
    assert moved and all(r["disagree"] for r in moved)
    assert got["span_f1"] != round(got["span_f1"], 4)  # full precision in JSON
    headline = cli(["agree", questions, b], cwd=root).stdout.splitlines()[0]
    assert "Cohen's kappa" in headline and "spans: mean character-level F1" in headline

    # export: the BOM chapter's offsets are canonical, and stderr says so
    exported = cli(["export", "--format", "chroma", "--out", tmp_path / "chroma.csv"], cwd=root)
    assert exported.returncode == 0
    assert "guide/bom.md: a BOM, CRLF line ends" in clean(exported)
    assert "a BOM shifts every offset by one" in exported.stderr


def _moved(text: str) -> str:
    """The questions file with the timeouts label moved to the chapter's other paragraph."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("{") and "advanced/timeouts.md" in line:
            rec = json.loads(line)
            rec["locators"] = [{"doc": "advanced/timeouts.md", "quote": "in der Konfiguration ändern"}]
            lines[i] = json.dumps(rec, ensure_ascii=False)
    return "\n".join(lines) + "\n"


# --- a missing extra ------------------------------------------------------------------------------

#: makes ``import numpy`` and ``import duckdb`` fail in the CLI, as in an install without the extras
BLOCKER = """\
import sys


class _Missing:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("numpy", "duckdb"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, _Missing())
"""


@pytest.mark.parametrize(
    "args, extras",
    [
        # every extra the command needs with these flags, at once (BM25 needs numpy too)
        (["eval", "--retriever", "bm25"], "eval,search"),
        (["retrieve", "--out", "run.trec"], "search"),
        (["qrels", "--out", "qrels.txt"], "eval"),
        (["report", "--retriever", "bm25", "--out", "r.html"], "eval,search"),
    ],
)
def test_a_command_without_its_extra_says_which_to_install(project, cli, tmp_path, args, extras):
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
    env = {**cli_env(tmp_path), "PYTHONPATH": str(shim)}
    proc = run_cli(args, project, env)
    assert proc.returncode == 2, proc.stderr
    names = " and ".join(extras.split(",")) + (" extras" if "," in extras else " extra")
    assert proc.stderr == (
        f"golden-lsp: {args[0]} needs the {names}: pip install 'golden-lsp[{extras}]' "
        "(No module named 'numpy')\n"
    )
    assert not (project / args[-1]).exists()
    assert run_cli(["check"], project, env).returncode == 0  # check needs no extra


def test_the_extras_named_are_the_ones_pyproject_declares():
    tomllib = pytest.importorskip("tomllib")
    from golden_lsp.cli import LIBRARY_EXTRAS

    pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text("utf-8"))
    declared = pyproject["project"]["optional-dependencies"]
    names = {"vl_convert": "vl-convert-python"}
    for library, extras in LIBRARY_EXTRAS.items():
        for extra in extras:
            assert any(re.match(rf"{names.get(library, library)}\b", d) for d in declared[extra]), (
                library,
                extra,
            )


# --- a questions file outside the set -------------------------------------------------------------


def test_check_questions_elsewhere_uses_the_config_of_the_set_it_is_run_in(tmp_path, cli):
    root = tmp_path / "set"
    (root / "docs" / "advanced").mkdir(parents=True)
    (root / "docs" / "advanced" / "timeouts.md").write_text(
        CHAPTERS["advanced/timeouts.md"], encoding="utf-8"
    )
    (root / "golden-lsp.toml").write_text('corpus = "docs"\nglob = "**/*.md"\n', encoding="utf-8")
    elsewhere = tmp_path / "elsewhere" / "draft.jsonl"
    elsewhere.parent.mkdir()
    elsewhere.write_text(
        record(
            "d1",
            "Wann bricht eine Anfrage ab?",
            "advanced/timeouts.md",
            "nach dreißig Sekunden",
            "Nach dreißig Sekunden ohne Antwort.",
        )
        + "\n",
        encoding="utf-8",
    )
    proc = cli(["check", "--questions", elsewhere, "--format", "json"], cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "config-error" not in proc.stdout and "no corpus" not in proc.stderr
    assert not [f for f in json.loads(proc.stdout) if f["severity"] == "error"]
    # a folder that has a config of its own keeps it
    (elsewhere.parent / "golden-lsp.toml").write_text('corpus = "nowhere"\n', encoding="utf-8")
    assert cli(["check", "--questions", elsewhere], cwd=root).returncode == 2


def test_a_count_of_one_is_singular(tmp_path, cli):
    root = tmp_path / "one"
    (root / "corpus").mkdir(parents=True)
    (root / "corpus" / "only.md").write_text(CHAPTERS["advanced/timeouts.md"], encoding="utf-8")
    (root / "golden-lsp.toml").write_text('corpus = "corpus"\n', encoding="utf-8")
    (root / "questions.jsonl").write_text(
        record(
            "q1",
            "Wann bricht eine Anfrage ab?",
            "only.md",
            "nach dreißig Sekunden",
            "Nach dreißig Sekunden ohne Antwort.",
        )
        + "\n",
        encoding="utf-8",
    )
    runs = {
        "eval": cli(["eval", "--retriever", "bm25"], cwd=root),
        "retrieve": cli(["retrieve", "--out", "run.trec"], cwd=root),
        "qrels": cli(["qrels", "--out", "qrels.txt"], cwd=root),
        "export": cli(["export", "--format", "ragas", "--out", "ragas.jsonl"], cwd=root),
        "report": cli(["report", "--out", "report.html"], cwd=root),
        "agree": cli(["agree", "questions.jsonl", "questions.jsonl"], cwd=root),
    }
    for proc in runs.values():
        clean(proc)
    assert "(md-struct-v1/max_chars=1800, 1 chunk)" in runs["eval"].stdout
    assert "N = 1 answerable record;" in runs["eval"].stdout
    assert "top 50 of 1 chunk (md-struct-v1) for 1 query by bm25" in runs["retrieve"].stderr
    assert "qrels of 1 answerable record over md-struct-v1" in runs["qrels"].stderr
    assert "exported 1 query as ragas" in runs["export"].stderr
    assert "disagreements: 0 of 1 record (" in runs["agree"].stdout
    assert "· 1 chunk ·" in (root / "report.html").read_text(encoding="utf-8")
