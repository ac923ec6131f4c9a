"""A corpus before and after a docs migration, with every kind of change a label meets, and the
questions whose locators meet them (the tests of ``golden-lsp migrate`` and of the editor's
re-anchoring quick fix).

v1 → v2: a paragraph edited around a quote (``kept-changed``), a file moved into a folder and one
renamed, a passage moved to another file (``moved``, once with a new quote because the old one is
ambiguous where the passage went), a copied section that makes a quote ambiguous
(``requoted``), a reworded sentence (``edited``), a deleted passage (``lost``), a duplicated
passage (``ambiguous``) and a multi-hop record with one locator moved.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from core_support import cli_env, loc, make_project, qline, run_cli, write_docs

BRAKES_V1 = """\
# Brakes

Disc brakes stop a loaded bike in the wet far better than rim brakes do, because the rotor sits away from the spray of the tyre.

Bleed hydraulic brakes once a year, or sooner when the lever feels spongy under a firm squeeze.

Pads wear faster in gritty conditions; check their thickness before every long descent and replace them below one millimetre of material.

Cable brakes need their housing lubricated every spring so that the pull stays light and even.

Rotors warp when they overheat on a long descent, and a warped rotor rubs the pads on every turn.
"""

BRAKES_V2 = """\
# Brakes

Disc brakes stop a loaded bike in the wet far better than rim brakes do, because the rotor sits away from the spray of the tyre.

Bleed hydraulic brakes every two years with fresh mineral oil, or sooner when the lever feels spongy.

Pads wear faster in gritty conditions; measure their thickness before each long descent and replace them below one millimetre of material.
"""

TYRES = """\
# Tyres

Tubeless tyres seal small punctures on their own with the latex sealant inside them.
"""

CHAIN_V1 = """\
# Chain

A chain stretched past half a percent wears the cassette and the chainrings along with it.
"""

DRIVETRAIN_V2 = """\
# Drivetrain

A chain stretched past half a percent wears the cassette and the chainrings along with it.

A cable stretched past half a percent is rare, but a chain stretched past half a percent is common.
"""

MAINTENANCE_V2 = """\
# Maintenance

Rotors warp when they overheat on a long descent, and a warped rotor rubs the pads on every turn.
"""

LIGHTS_V1 = """\
# Lights

A dynamo hub powers the lights without batteries and costs almost nothing to run for years.

## Rear

A rear light with a reflector keeps the rider visible from behind on unlit roads at night.
"""

LIGHTS_V2 = """\
# Lights

A dynamo hub powers the lights without batteries and costs almost nothing to run for years.

## Rear

A rear light with a reflector keeps the rider visible from behind on unlit roads at night.

## Commuting

For commuting, a dynamo hub powers the lights on dark winter mornings as well.

A rear light with a reflector keeps the rider visible from behind on unlit roads at night.
"""

V1 = {
    "brakes.md": BRAKES_V1,
    "tyres.md": TYRES,
    "chain.md": CHAIN_V1,
    "lights.md": LIGHTS_V1,
}
V2 = {
    "brakes.md": BRAKES_V2,
    "wheels/tyres.md": TYRES,
    "drivetrain.md": DRIVETRAIN_V2,
    "maintenance.md": MAINTENANCE_V2,
    "lights.md": LIGHTS_V2,
}

#: the config of the set: both corpora have documents in a folder
CONFIG = 'corpus = "corpus"\nglob = "**/*.md"\n'

#: record id → (its locators, the status each gets from v1 to v2)
CASES = {
    "kept": ([loc("brakes.md", "rotor sits away from the spray")], ["kept"]),
    "changed": ([loc("brakes.md", "lever feels spongy")], ["kept-changed"]),
    "reworded": ([loc("brakes.md", "check their thickness before every long descent")], ["edited"]),
    "deleted": ([loc("brakes.md", "housing lubricated every spring")], ["lost"]),
    "folder": ([loc("tyres.md", "seal small punctures on their own")], ["moved"]),
    "renamed": ([loc("chain.md", "wears the cassette")], ["moved"]),
    "requote-moved": ([loc("chain.md", "stretched past half a percent")], ["moved"]),
    "between-files": ([loc("brakes.md", "Rotors warp when they overheat")], ["moved"]),
    "copied": ([loc("lights.md", "dynamo hub powers the lights")], ["requoted"]),
    "duplicated": ([loc("lights.md", "reflector keeps the rider visible")], ["ambiguous"]),
    "multi": (
        [loc("brakes.md", "far better than rim brakes"), loc("tyres.md", "latex sealant inside them")],
        ["kept", "moved"],
    ),
    "exact": ([loc("tyres.md", "latex sealant", exact=True)], ["moved"]),
}


def case_lines() -> list[str]:
    """The questions file: a comment, then one record per case (multi-hop where it has two)."""
    lines = ["// labels written against v1 of the corpus"]
    for rid, (locators, _) in CASES.items():
        lines.append(qline(rid, locators, hop="multi" if len(locators) > 1 else None))
    return lines


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=repo, env=cli_env(repo), capture_output=True, text=True, check=True
    )
    return proc.stdout.strip()


def built_repository(tmp_path: Path, lines: list[str] | None = None) -> tuple[Path, str]:
    """A git repository holding the set, with v1 built (its manifest records v1's commit) before the corpus changed."""
    repo = make_project(tmp_path / "repo", V1, case_lines() if lines is None else lines, CONFIG)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "Test Author")
    git(repo, "config", "user.email", "author@example.com")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "v1")
    v1 = git(repo, "rev-parse", "HEAD")
    assert run_cli(["build", repo], repo).returncode == 0
    assert json.loads((repo / "golden-set.v1.manifest.json").read_text())["corpus_commit"] == v1
    shutil.rmtree(repo / "corpus")
    write_docs(repo / "corpus", V2)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "v2 and the build of v1")
    return repo, v1
