"""Fixtures for the real-editor tests (Neovim, VS Code via code-server).

A missing tool skips a test, unless GOLDEN_LSP_REQUIRE_EDITORS is set (CI sets it): then it fails.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from editor_support import REPO, make_ambiguous_copy, server_command


@pytest.fixture
def ambiguous_copy(tmp_path: Path) -> dict:
    return make_ambiguous_copy(tmp_path)


@pytest.fixture
def output_dir(request) -> Path:
    """test-output/editors/<test name>/ in the repo (kept after the run; gitignored)."""
    root = Path(os.environ.get("GOLDEN_LSP_TEST_OUTPUT", REPO / "test-output"))
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    d = root / "editors" / name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    return d


@pytest.fixture
def golden_server() -> list[str]:
    """The server command; fails when the package cannot be imported."""
    import importlib.util

    if importlib.util.find_spec("golden_lsp") is None:
        pytest.fail("golden_lsp is not importable from this Python", pytrace=False)
    return server_command()
