"""Two ``golden-lsp build``s of one set at once, as subprocesses, repeated: the artifact and the
manifest left are always one build's pair (writers of a set lock the artifact's folder, ``files.locked``).

The two builds differ (one with ``--max-chars 900``), so a pair made of one build's artifact and
the other's manifest is told apart from both reference pairs, each built alone beforehand.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from core_support import cli_env

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ARTIFACT, MANIFEST = "golden-set.v1.jsonl", "golden-set.v1.manifest.json"
BUILDS = (["build"], ["build", "--max-chars", "900"])


def pair(folder: Path) -> tuple[bytes, bytes]:
    return (folder / ARTIFACT).read_bytes(), (folder / MANIFEST).read_bytes()


def build(folder: Path, args: list[str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "golden_lsp", *args],
        cwd=folder,
        env=cli_env(folder),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_builds_racing_always_leave_one_builds_pair(tmp_path):
    references = []
    for i, args in enumerate(BUILDS):
        folder = shutil.copytree(EXAMPLES, tmp_path / f"alone{i}")
        proc = build(folder, args)
        assert proc.wait(timeout=300) == 0, proc.stderr.read()
        references.append(pair(folder))
    assert references[0][0] != references[1][0] and references[0][1] != references[1][1]
    folder = shutil.copytree(EXAMPLES, tmp_path / "raced")
    for _ in range(20):
        procs = [build(folder, args) for args in BUILDS]
        for proc in procs:
            assert proc.wait(timeout=300) == 0, proc.stderr.read()
            proc.stderr.close()
        left = pair(folder)
        assert left in references, "the artifact and the manifest come from different builds"
    assert sorted(n for n in (p.name for p in folder.iterdir()) if ".golden-lsp-tmp-" in n) == []
