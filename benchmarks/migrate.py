"""``golden-lsp migrate`` through a docs migration of a generated set, beside a cold ``check``.

A set from ``corpora.py`` (SIZE megabytes, N questions) is the old corpus; the new corpus is the
same after a seeded docs migration: every third document moved into a folder (``moved/``), one
paragraph in ten with a word changed (so labels are kept-changed, requoted or edited), one in
thirty deleted (lost), one in a hundred duplicated (ambiguous). ``migrate --from-corpus OLD
--format json`` is timed as a whole process (median of RUNS), beside the baseline ``check
--no-cache --jobs 1`` of the migrated set, the cold check a CI run makes; the statuses are
counted. Nothing here asserts a time.

    python benchmarks/migrate.py [--sizes 0.3,5] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpora import SIZES, generate


def migrate_docs(old: Path, new: Path, seed: int = 21) -> dict[str, int]:
    """Write the migrated corpus of ``old`` under ``new``; returns how many paragraphs of each kind."""
    rng = random.Random(seed)
    done = {"edited": 0, "deleted": 0, "duplicated": 0}
    for i, path in enumerate(sorted(old.glob("*.md"))):
        paragraphs = path.read_bytes().decode("utf-8").split("\n\n")
        out = []
        for p in paragraphs:
            roll, words = rng.random(), p.split(" ")
            if roll < 0.1 and len(words) > 3:
                j = rng.randrange(len(words))
                words[j] = words[j][::-1] + "x"
                out.append(" ".join(words))
                done["edited"] += 1
            elif roll < 0.1 + 1 / 30:
                done["deleted"] += 1
            elif roll < 0.1 + 1 / 30 + 0.01:
                out += [p, p]
                done["duplicated"] += 1
            else:
                out.append(p)
        target = new / ("moved" if i % 3 == 0 else "") / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes("\n\n".join(out).encode("utf-8"))
    return done


def timed(args: list[str], runs: int) -> tuple[float, str]:
    times, out = [], ""
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "golden_lsp", *args], capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        out = proc.stdout
    return statistics.median(times), out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="0.3,5", help=f"set sizes among {', '.join(SIZES)}")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for size in args.sizes.split(","):
        megabytes, n_questions = SIZES[size]
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "set"
            generate(root, megabytes, n_questions)
            old = Path(tmp) / "old"
            shutil.move(root / "corpus", old)
            kinds = migrate_docs(old, root / "corpus")
            (root / "golden-lsp.toml").write_text('corpus = "corpus"\nglob = "**/*.md"\n', encoding="utf-8")
            check, _ = timed(["check", str(root), "--no-cache", "--jobs", "1"], args.runs)
            migrate, out = timed(
                ["migrate", str(root), "--from-corpus", str(old), "--format", "json"], args.runs
            )
            report = json.loads(out)
            n = len(report["locators"])
            print(
                f"{size} MB, {n} locators; paragraphs {kinds}\n"
                f"  migrate {migrate:.2f} s ({migrate / check:.1f}× a cold check, {check:.2f} s)\n"
                f"  {report['counts']}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
