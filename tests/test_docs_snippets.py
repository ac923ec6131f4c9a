"""The manual's loader snippets, run as written: every ```python block of docs/ whose first line is
a ``# golden-lsp export …`` command is a reader's recipe for loading an export into another tool.
The command is run on a copy of the example set (the ``golden-lsp`` program as this Python's
``-m golden_lsp``), then the block, unchanged, with this Python in that folder; it must load
every answerable record and say how many (its last line printed)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
_BLOCK = re.compile(r"^```python\n(# golden-lsp export [^\n]*)\n(.*?)^```$", re.M | re.S)


def snippets() -> list[tuple[str, str, str]]:
    """(page and block number, the export command, the whole block) of every loader snippet."""
    out = []
    for page in sorted((ROOT / "docs").glob("*.md")):
        for n, m in enumerate(_BLOCK.finditer(page.read_text(encoding="utf-8")), 1):
            out.append((f"{page.name}#{n}", m.group(1)[2:], m.group(1) + "\n" + m.group(2)))
    return out


SNIPPETS = snippets()


def test_the_export_page_has_a_snippet_for_each_loader():
    formats = {shlex.split(command)[3] for _, command, _ in SNIPPETS}
    assert formats >= {"dataset", "ragas", "deepeval", "qrels", "ranx", "beir", "chroma"}, formats


@pytest.mark.parametrize("where, command, block", SNIPPETS, ids=[s[0] for s in SNIPPETS])
def test_a_loader_snippet_runs_as_written(where, command, block, tmp_path):
    needs = [
        m for m in re.findall(r"^(?:from|import) (\w+)", block, re.M) if m not in sys.stdlib_module_names
    ]
    for module in needs:
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{where} loads with {module}, which is not installed here")
    folder = tmp_path / "set"
    shutil.copytree(EXAMPLES, folder)
    env = {"IR_DATASETS_HOME": str(tmp_path / "ir_datasets"), "DEEPEVAL_TELEMETRY_OPT_OUT": "YES"}
    args = shlex.split(command)
    assert args[0] == "golden-lsp"
    exported = subprocess.run(
        [sys.executable, "-m", "golden_lsp", *args[1:]],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert exported.returncode == 0, exported.stderr
    ran = subprocess.run(
        [sys.executable, "-c", block],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )
    assert ran.returncode == 0, f"{where} fails as written:\n{block}\n{ran.stderr[-3000:]}"
    dataset = json.loads(
        subprocess.run(
            [sys.executable, "-m", "golden_lsp", "export", "--format", "dataset"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout
    )
    answerable = sum(1 for s in dataset["samples"] if not s["is_unanswerable"])
    assert ran.stdout.strip().splitlines()[-1] == f"{answerable} answerable queries", (where, ran.stdout)
