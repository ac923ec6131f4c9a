"""The CI scripts say on stderr what they install and why before they install it.

``scripts/editor-deps.sh`` runs against stub ``dpkg`` / ``apt-get`` / ``sudo`` on PATH (every
package missing, apt-get failing), with an empty cache: it must announce the Debian packages and
the reason before calling apt-get, and stop there without installing anything.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def stub(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(0o755)


@pytest.mark.skipif(sys.platform != "linux", reason="the script is for Debian CI machines")
def test_editor_deps_says_what_it_installs_and_why_before_installing(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    stub(bin_dir, "dpkg", "exit 1")  # nothing is installed
    stub(bin_dir, "apt-get", f'echo "apt-get $*" >> {calls}; echo "apt-get $*" >&2; exit 1')
    stub(bin_dir, "sudo", 'shift; exec "$@"')  # sudo -n CMD…
    env = {
        **os.environ,
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "GOLDEN_LSP_CACHE": str(tmp_path / "cache"),
        "PYTHON": sys.executable,
    }
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "editor-deps.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode != 0
    err = proc.stderr
    said = err.index("about to install the Debian package(s) libkrb5-dev")
    assert "code-server's kerberos module compiles against it" in err[said : err.index("\n", said)]
    assert said < err.index("apt-get update")  # told before apt-get ran
    assert calls.read_text(encoding="utf-8").splitlines() == ["apt-get update -qq"]


def test_ci_run_announces_its_installs_first():
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    announce = script.index('echo ".ci/run: installing')
    assert (
        announce < script.index("pip install")
        and "Chromium" in script[announce : script.index(">&2", announce)]
    )
