"""The CLI's progress line: on a terminal stderr only, after a threshold (GOLDEN_LSP_PROGRESS_AFTER,
set to 0 here so the test needs no slow corpus and no timing), erased when the work ends."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from core_support import cli_env

pty = pytest.importorskip("pty")


def stderr_on_a_terminal(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str, bytes]:
    """(exit code, stdout, what the terminal on stderr received)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "golden_lsp", *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=slave,
    )
    os.close(slave)
    received = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        received += chunk
    os.close(master)
    out = proc.stdout.read().decode()
    return proc.wait(timeout=60), out, received


def piped(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "golden_lsp", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_progress_line_on_a_terminal_then_erased(project, tmp_path):
    env = {**cli_env(tmp_path), "GOLDEN_LSP_PROGRESS_AFTER": "0"}
    summary = piped(["check"], project, env).stderr.strip().encode()
    assert summary.startswith(b"questions.jsonl: 7 records, 0 errors")
    rc, out, tty = stderr_on_a_terminal(["check"], project, env)
    assert rc == 0 and "too-few-records" in out
    line = "golden-lsp: checking .\u2026".encode()
    assert tty.startswith(line)
    assert tty[len(line) :].startswith(b"\r\x1b[K")  # erased before the summary
    assert tty[len(line) + len(b"\r\x1b[K") :].strip() == summary
    rc, _, tty = stderr_on_a_terminal(["build"], project, env)
    assert rc == 0 and tty.startswith("golden-lsp: building .\u2026".encode())


def test_no_progress_line_when_stderr_is_not_a_terminal(project, tmp_path):
    env = {**cli_env(tmp_path), "GOLDEN_LSP_PROGRESS_AFTER": "0"}
    proc = piped(["check"], project, env)
    assert proc.returncode == 0
    assert proc.stderr.startswith("questions.jsonl: 7 records, 0 errors") and proc.stderr.count("\n") == 1
    assert "checking" not in proc.stderr and "\x1b" not in proc.stderr


def test_work_shorter_than_the_threshold_prints_no_progress_line(project, tmp_path):
    env = {**cli_env(tmp_path), "GOLDEN_LSP_PROGRESS_AFTER": "3600"}
    rc, _, tty = stderr_on_a_terminal(["check"], project, env)
    assert rc == 0 and b"checking" not in tty and b"7 records" in tty
