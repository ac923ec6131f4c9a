"""The channels users install from: the pre-commit hook (``pre-commit try-repo``), the sdist and
wheel from ``python -m build`` installed into a fresh venv, and the one version they all report.

Both build from a committed snapshot of this working tree (tracked and untracked, not ignored
files), as ``try-repo`` would, so nothing is written into the checkout. The hook's environment
is installed once per session by pre-commit itself (pip, from its cache or PyPI) and reused for
the second run; the wheel goes into a venv without pip, with ``--no-deps``, its dependencies
coming from this test venv through a ``.pth`` line (so the test needs no network).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import golden_lsp

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
GIT = [
    "git",
    "-c",
    "user.name=golden-lsp tests",
    "-c",
    "user.email=tests@golden-lsp.invalid",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "init.defaultBranch=main",
]


def run(args: list, cwd: Path, timeout: float = 300, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def git_repo(path: Path) -> str:
    """Commit everything under ``path`` into a new repository there; the commit's sha."""
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "snapshot"]):
        res = run([*GIT, *args], cwd=path)
        assert res.returncode == 0, res.stderr
    return run([*GIT, "rev-parse", "HEAD"], cwd=path).stdout.strip()


@pytest.fixture(scope="session")
def snapshot(tmp_path_factory) -> tuple[Path, str]:
    """(folder, sha): this working tree as one commit, without ignored files."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    listed = run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO)
    if listed.returncode != 0:
        pytest.skip(f"not a git checkout: {listed.stderr.strip()}")
    dest = tmp_path_factory.mktemp("snapshot") / "golden-lsp"
    for name in filter(None, listed.stdout.split("\0")):
        src = REPO / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest, git_repo(dest)


@pytest.fixture
def example_repo(tmp_path) -> Path:
    repo = tmp_path / "user-repo"
    shutil.copytree(EXAMPLES, repo)
    git_repo(repo)
    return repo


def test_pre_commit_hook_passes_then_fails_on_a_broken_quote(snapshot, example_repo, tmp_path_factory):
    source, sha = snapshot
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path_factory.mktemp("pre-commit-home"))}
    try_repo = [
        sys.executable,
        "-m",
        "pre_commit",
        "try-repo",
        source,
        "golden-lsp",
        "--ref",
        sha,
        "--all-files",
        "--color",
        "never",
    ]
    clean = run(try_repo, cwd=example_repo, timeout=600, env=env)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "golden-lsp check" in clean.stdout and "Passed" in clean.stdout

    questions = example_repo / "questions.jsonl"
    lines = questions.read_text(encoding="utf-8").splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if line.startswith("{"))
    record = json.loads(lines[first])
    record["locators"][0]["quote"] += " and then some words that are nowhere"
    lines[first] = json.dumps(record, ensure_ascii=False) + "\n"
    questions.write_text("".join(lines), encoding="utf-8")
    assert run([*GIT, "add", "-A"], cwd=example_repo).returncode == 0
    broken = run(try_repo, cwd=example_repo, timeout=600, env=env)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "Failed" in broken.stdout
    assert f"questions.jsonl:{first + 1}:" in broken.stdout and "error[quote-not-found]" in broken.stdout


def fresh_venv(path: Path) -> Path:
    """A venv without pip whose dependencies come from this test venv (a .pth line)."""
    res = run([sys.executable, "-m", "venv", "--without-pip", path], cwd=path.parent)
    assert res.returncode == 0, res.stderr
    python = path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=path
    ).stdout.strip()
    Path(purelib, "test-venv-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    return python


def test_build_gives_an_sdist_and_a_wheel_that_install_and_check_the_example(snapshot, tmp_path):
    source, _ = snapshot
    dist = tmp_path / "dist"
    res = run([sys.executable, "-m", "build", "--outdir", dist, source], cwd=tmp_path, timeout=600)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    version = golden_lsp.__version__
    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    assert (
        sdist.name == f"golden_lsp-{version}.tar.gz"
        and wheel.name == f"golden_lsp-{version}-py3-none-any.whl"
    )
    example = tmp_path / "example"
    shutil.copytree(EXAMPLES, example)
    here = run(
        [sys.executable, "-m", "golden_lsp", "check", example], cwd=tmp_path
    )  # this checkout's verdict
    assert here.returncode == 0 and " 0 errors, 0 warnings" in here.stderr, here.stderr
    for kind, package in (("wheel", wheel), ("sdist", sdist)):
        venv = tmp_path / f"venv-{kind}"
        python = fresh_venv(venv)
        res = run(
            [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", package],
            cwd=tmp_path,
            timeout=600,
        )
        assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
        where = run(
            [python, "-c", "import golden_lsp; print(golden_lsp.__file__)"], cwd=tmp_path
        ).stdout.strip()
        assert Path(where).is_relative_to(venv), where  # the installed copy, not this checkout
        exe = python.parent / ("golden-lsp.exe" if os.name == "nt" else "golden-lsp")
        assert run([exe, "--version"], cwd=tmp_path).stdout == f"golden-lsp {version}\n"
        checked = run([exe, "check", example], cwd=tmp_path)
        assert (checked.returncode, checked.stdout, checked.stderr) == (0, here.stdout, here.stderr)


def test_the_version_lives_in_one_place():
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in pyproject and 'attr = "golden_lsp.__version__"' in pyproject
    assert f'"{golden_lsp.__version__}"' not in pyproject
