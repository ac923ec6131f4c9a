"""A build killed half-way, for real: a subprocess ``golden-lsp build`` stops itself (SIGSTOP) at a
chosen point of its writing and is then killed (SIGKILL). What it leaves must be recognisable, the
next check or build must finish or remove it, and a mismatched artifact/manifest pair must be told.

The stop is injected from outside the product: the subprocess runs the real CLI after wrapping
``os.replace``, so the production code has no test-only branch.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from core_support import SAMPLE_LINES, cli_env, loc, qline, write_questions

ARTIFACT, MANIFEST, PASSAGES = (
    "golden-set.v1.jsonl",
    "golden-set.v1.manifest.json",
    "golden-set.v1.passages.json",
)

#: run the real CLI, stopping the process once: before (0) or after (1) the first rename of a temporary
STOPPING_BUILD = """
import os, signal, sys
after = int(sys.argv[1])
real = os.replace
stopped = []
def replace(src, dst):
    if after:
        real(src, dst)
    if ".golden-lsp-tmp-" in str(src) and not stopped:
        stopped.append(src)
        os.kill(os.getpid(), signal.SIGSTOP)
    if not after:
        real(src, dst)
os.replace = replace
from golden_lsp.cli import main
sys.exit(main(["build"]))
"""


def killed_build(project: Path, after_first_rename: bool) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", STOPPING_BUILD, str(int(after_first_rename))],
        cwd=project,
        env=cli_env(project),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _, status = os.waitpid(proc.pid, os.WUNTRACED)  # returns once the build has stopped itself
        assert os.WIFSTOPPED(status), status
    finally:
        proc.kill()
        proc.wait(timeout=60)


def files(project: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in project.iterdir() if p.is_file()}


def temporaries(project: Path) -> list[str]:
    return sorted(n for n in os.listdir(project) if ".golden-lsp-tmp-" in n)


def built_then_grown(project: Path, cli) -> dict[str, bytes]:
    """Build, then add a record, so the next build changes both files; the old files."""
    assert cli(["build"], cwd=project).returncode == 0
    old = files(project)
    write_questions(
        project / "questions.jsonl", SAMPLE_LINES + [qline("q8", [loc("faq.md", "reviews each change")])]
    )
    return old


def test_killed_before_the_first_rename_leaves_the_old_pair_and_the_next_check_removes_the_temporaries(
    project, cli
):
    old = built_then_grown(project, cli)
    killed_build(project, after_first_rename=False)
    pid = temporaries(project)[0].rsplit("-", 1)[1]
    assert temporaries(project) == [
        f".{ARTIFACT}.golden-lsp-tmp-{pid}",
        f".{MANIFEST}.golden-lsp-tmp-{pid}",
        f".{PASSAGES}.golden-lsp-tmp-{pid}",
    ]
    assert {n: files(project)[n] for n in (ARTIFACT, MANIFEST)} == {n: old[n] for n in (ARTIFACT, MANIFEST)}
    proc = cli(["check"], cwd=project)
    assert temporaries(project) == []
    assert "removed the temporary of an interrupted build" in proc.stderr
    assert proc.returncode == 1 and "stale-artifact" in proc.stdout  # the old pair, stale against q8


def test_killed_between_the_renames_the_next_check_finishes_the_build(project, cli):
    built_then_grown(project, cli)
    killed_build(project, after_first_rename=True)
    left = temporaries(project)  # new artifact, old manifest, new manifest and passages waiting
    assert [n.split(".golden-lsp-tmp-")[0] for n in left] == [f".{MANIFEST}", f".{PASSAGES}"]
    proc = cli(["check"], cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"finished an interrupted build: {MANIFEST}" in proc.stderr
    assert temporaries(project) == []
    assert json.loads((project / MANIFEST).read_text(encoding="utf-8"))["n_records"] == 8


def test_killed_between_the_renames_the_next_build_finishes_then_builds(project, cli):
    built_then_grown(project, cli)
    killed_build(project, after_first_rename=True)
    proc = cli(["build"], cwd=project)
    assert proc.returncode == 0 and "finished an interrupted build" in proc.stderr
    assert temporaries(project) == [] and cli(["check"], cwd=project).returncode == 0


def test_a_new_artifact_with_an_old_manifest_is_told_as_a_mismatched_pair(project, cli):
    old = built_then_grown(project, cli)
    assert cli(["build"], cwd=project).returncode == 0
    (project / MANIFEST).write_bytes(old[MANIFEST])
    proc = cli(["check"], cwd=project)
    assert proc.returncode == 1
    (line,) = [ln for ln in proc.stdout.splitlines() if "stale-manifest" in ln]
    assert (
        "n_records" in line
        and f"the artifact {ARTIFACT} is fresh, so the two are from different builds" in line
    )
    assert "stale-artifact" not in proc.stdout


def test_the_temporaries_of_a_build_still_running_are_left_alone(project, cli):
    built_then_grown(project, cli)
    proc = subprocess.Popen(
        [sys.executable, "-c", STOPPING_BUILD, "1"],
        cwd=project,
        env=cli_env(project),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _, status = os.waitpid(proc.pid, os.WUNTRACED)
        assert os.WIFSTOPPED(status)
        left = temporaries(project)
        assert cli(["check"], cwd=project).returncode == 1  # the pair is mismatched while it runs
        assert (
            temporaries(project)
            == left
            == [f".{MANIFEST}.golden-lsp-tmp-{proc.pid}", f".{PASSAGES}.golden-lsp-tmp-{proc.pid}"]
        )
        os.kill(proc.pid, signal.SIGCONT)  # it finishes its own build
        assert proc.wait(timeout=60) == 0
    finally:
        proc.kill()
    assert temporaries(project) == [] and cli(["check"], cwd=project).returncode == 0
