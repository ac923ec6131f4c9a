"""The code checks CI enforces, run inside the suite so the README's test command and `.ci/run` keep
them: ruff (lint and the format check), the layer contracts of import-linter, the type checker, and
the sizes past which a module, class or function is doing several jobs. Each tool is the one the
test extra installs, run over the files its configuration in pyproject.toml names, failing with the
tool's own report."""

from __future__ import annotations

import ast
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


def test_types_check():
    run(tool("mypy"))


#: the sizes a newcomer can read: past these a module, class or function is doing several jobs
MAX_MODULE_LINES, MAX_CLASS_METHODS, MAX_FUNCTION_LINES = 600, 20, 80


def oversized(package: Path) -> list[str]:
    """Every module, class and function of ``package`` over the sizes above, named with its size."""
    found = []
    for path in sorted(package.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(package.parent)
        if (lines := len(text.splitlines())) > MAX_MODULE_LINES:
            found.append(f"{where}: {lines} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                methods = [b for b in node.body if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef))]
                if len(methods) > MAX_CLASS_METHODS:
                    found.append(f"{where}:{node.lineno}: class {node.name} has {len(methods)} methods")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.end_lineno is not None
                if (length := node.end_lineno - node.lineno + 1) > MAX_FUNCTION_LINES:
                    found.append(f"{where}:{node.lineno}: {node.name} is {length} lines")
    return found


def test_no_module_class_or_function_is_over_its_size():
    assert not oversized(ROOT / "golden_lsp"), "\n".join(oversized(ROOT / "golden_lsp"))


def test_the_size_check_sees_a_long_function_and_a_big_class(tmp_path: Path):
    package = tmp_path / "pkg"
    package.mkdir()
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    methods = "\n".join(f"    def m{i}(self):\n        pass" for i in range(MAX_CLASS_METHODS + 1))
    (package / "m.py").write_text(f"def long():\n{body}\n\n\nclass Big:\n{methods}\n")
    found = oversized(package)
    assert any("long is 81 lines" in f for f in found) and any("class Big has 21 methods" in f for f in found)
