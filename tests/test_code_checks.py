"""The code checks CI enforces, run inside the suite so the README's test command and `.ci/run` keep
them: ruff (lint and the format check), the layer contracts of import-linter, and the type checker.
Each runs the tool the test extra installs, over the files its configuration in pyproject.toml
names, and fails with the tool's own report."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TREES = ["golden_lsp", "tests", "benchmarks"]


def tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: pip install -e '.[test]'")
    return found


def run(*cmd: str) -> None:
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}"


def test_ruff_lint_is_clean():
    run(tool("ruff"), "check", "--no-cache", *TREES)


def test_ruff_format_is_applied():
    run(tool("ruff"), "format", "--check", "--no-cache", *TREES)


def test_the_layers_hold():
    run(tool("lint-imports"), "--no-cache")
