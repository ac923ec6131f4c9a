"""Helpers shared by the core and CLI tests (imported by conftest.py and the test modules).

Small corpora written into tmp_path, question lines built with ``json.dumps``, an in-process
analyzer and a subprocess runner for the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from golden_lsp.core.corpus.index import Corpus, load_corpus
from golden_lsp.core.engine.analysis import Analysis, Analyzer
from golden_lsp.core.labels.scoring import parse_hit_rule

#: the third-party conformance fixture, beside the repository (never copied into it)
CONFORMANCE = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "ai-rag-lab"

GUIDE = """\
# Guide

Retrieval quality depends on the chunk boundaries chosen at indexing time.
A second sentence of the same paragraph keeps the block together.

## Tables

| setting | value | meaning |
|---|---|---|
| max_chars | 1800 | the largest chunk the packer emits |
| hit_rule | any_overlap | a chunk bears a span when they overlap |

## Lists

- The first item explains why quotes must be unique in a document.
- The second item says that spans expand to the enclosing list item.
  It continues on an indented line.
  - A nested item about nested lists lives here.
- The third item closes the list and nothing follows it.
"""

FAQ = """\
# FAQ

Why quote instead of offsets? Because offsets break whenever the text above them changes.

How are answers graded? Against the expected answer written by the author of the question.

Who owns the corpus? The documentation team owns every chapter and reviews each change.
"""

SAMPLE_DOCS = {"guide.md": GUIDE, "faq.md": FAQ}


def loc(doc: str, quote: str, exact: bool | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"doc": doc, "quote": quote}
    if exact is not None:
        out["exact"] = exact
    return out


def qline(
    id: str,
    locators: list[dict],
    query: str | None = None,
    answer: str | None = None,
    hop: str | None = None,
    tags: list[str] | None = None,
) -> str:
    """One questions.jsonl line (no newline), keys in the authoring order."""
    rec: dict[str, Any] = {
        "id": id,
        "query": query if query is not None else f"What does question {id} ask about the corpus?",
        "expected_answer": answer
        if answer is not None
        else f"The answer to question {id}, long enough to grade.",
        "locators": locators,
    }
    if hop is not None:
        rec["hop"] = hop
    if tags is not None:
        rec["tags"] = tags
    return json.dumps(rec, ensure_ascii=False)


#: a clean questions file over SAMPLE_DOCS: spans in both documents, 4 of 8 in each
SAMPLE_LINES = [
    "// sample golden set",
    qline("q1", [loc("guide.md", "depends on the chunk boundaries")], tags=["para"]),
    qline("q2", [loc("guide.md", "the largest chunk the packer emits")], tags=["table", "b"]),
    qline("q3", [loc("guide.md", "A nested item about nested lists")]),
    qline("q4", [loc("faq.md", "offsets break whenever")]),
    "",
    qline(
        "q5",
        [loc("guide.md", "The third item closes the list"), loc("faq.md", "Against the expected answer")],
        hop="multi",
    ),
    qline("q6", [loc("faq.md", "The documentation team owns every chapter")]),
    qline("q7", [loc("faq.md", "How are answers graded?")]),
]


def write_docs(root: Path, docs: dict[str, str | bytes]) -> Path:
    """Write documents (str is written as UTF-8 with no newline translation) under ``root``."""
    for name, content in docs.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return root


def write_questions(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8"))
    return path


def make_project(
    root: Path,
    docs: dict[str, str | bytes] | None = None,
    lines: list[str] | None = None,
    config: str | None = 'corpus = "corpus"\n',
) -> Path:
    """corpus/, questions.jsonl and (unless config is None) golden-lsp.toml under ``root``."""
    write_docs(root / "corpus", SAMPLE_DOCS if docs is None else docs)
    write_questions(root / "questions.jsonl", SAMPLE_LINES if lines is None else lines)
    if config is not None:
        (root / "golden-lsp.toml").write_text(config, encoding="utf-8")
    return root


def analyze_lines(
    root: Path,
    docs: dict[str, str | bytes],
    lines: list[str],
    hit_rule: str = "any_overlap",
    max_chars: int = 1800,
    glob: str = "*.md",
) -> tuple[Corpus, Analysis]:
    """Write the corpus and analyse the questions text in process."""
    write_docs(root / "corpus", docs)
    corpus = load_corpus(root / "corpus", glob, max_chars)
    analysis = Analyzer(corpus, parse_hit_rule(hit_rule)).analyze(
        root / "questions.jsonl", "\n".join(lines) + "\n"
    )
    return corpus, analysis


def codes(analysis: Analysis) -> list[str]:
    return [d.code for d in analysis.diagnostics]


def only(analysis: Analysis, code: str):
    found = [d for d in analysis.diagnostics if d.code == code]
    assert len(found) == 1, (code, [(d.code, d.message) for d in analysis.diagnostics])
    return found[0]


def cli_env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    # keep git from finding a repository above tmp_path (corpus_commit must read "unknown")
    env["GIT_CEILING_DIRECTORIES"] = str(tmp_path.parent)
    for var in ("GIT_DIR", "GIT_WORK_TREE"):
        env.pop(var, None)
    return env


def run_cli(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "golden_lsp", *map(str, args)],
        cwd=cwd,
        env=env or cli_env(cwd),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )
