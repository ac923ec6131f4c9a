"""Shared fixtures for the core and CLI tests; the helpers themselves live in core_support.py."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from core_support import CONFORMANCE, cli_env, make_project, run_cli

from golden_lsp.core.engine import textcache


@pytest.fixture(autouse=True)
def _own_warm_cache(tmp_path: Path, monkeypatch) -> None:
    """Every test (and the CLI and server it starts) gets an empty warm cache of its own."""
    monkeypatch.setenv("GOLDEN_LSP_CACHE_DIR", str(tmp_path / "golden-lsp-cache"))


@pytest.fixture(autouse=True)
def _empty_text_caches() -> None:
    """Every test starts with nothing cached in memory from a text (``textcache.reset``), so none
    sees what another computed."""
    textcache.reset()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A clean sample golden set with a golden-lsp.toml, in its own folder."""
    return make_project(tmp_path / "proj")


@pytest.fixture
def cli(tmp_path: Path):
    """Run the CLI as a subprocess: ``cli(args, cwd=...)``."""
    env = cli_env(tmp_path)

    def run(args: list, cwd: Path | None = None) -> subprocess.CompletedProcess:
        return run_cli(args, cwd or tmp_path, env)

    return run


@pytest.fixture(scope="session")
def conformance() -> Path:
    """The ai-rag-lab fixture folder beside the repository; tests using it skip when it is absent."""
    if not (CONFORMANCE / "corpus").is_dir():
        pytest.skip(f"conformance fixture not present at {CONFORMANCE}")
    return CONFORMANCE
