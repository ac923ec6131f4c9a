"""``golden-lsp migrate`` as labels × documents grow: the new code beside an older checkout's,
run side by side on the same sets, with identical results required.

Each set has N labels, two per document (N/2 documents), and every document renamed in the new
corpus (``doc-I.md`` → ``renamed/doc-I-v2.md``), so every label is looked for in every document;
the last set puts 10,000 labels in 500 documents (20 per document). ``migrate --from-corpus OLD
--format json`` is timed once per code as a whole process; the baseline is the code of a git
revision (``--baseline``, default main's commit this tree branched from, so that only this
tree's own changes differ) extracted with ``git archive`` into a temporary
folder. Nothing here asserts a time; the ratio old / new is printed.

    python benchmarks/migrate_scaling.py [--baseline REV] [--sets 2500:1250,5000:2500,10000:5000,10000:500]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def paragraph(doc: int, j: int) -> str:
    return f"Entry {doc}.{j} records that valve {doc * 37 + j} opens at {doc % 97}.{j} bar in winter."


def write_set(root: Path, old: Path, labels: int, docs: int) -> None:
    """The old corpus under ``old``, the renamed new one under ``root/corpus``, and the labels."""
    per = labels // docs
    lines = []
    for d in range(docs):
        text = "# Valves\n\n" + "\n\n".join(paragraph(d, j) for j in range(per)) + "\n"
        (old / f"doc-{d}.md").write_text(text, encoding="utf-8")
        new = root / "corpus" / "renamed" / f"doc-{d}-v2.md"
        new.parent.mkdir(parents=True, exist_ok=True)
        new.write_text(text, encoding="utf-8")
        for j in range(per):
            quote = f"valve {d * 37 + j} opens at {d % 97}.{j} bar"
            record = {
                "id": f"q{d}-{j}",
                "query": f"At what pressure does valve {d * 37 + j} open?",
                "hop": "single",
                "locators": [{"doc": f"doc-{d}.md", "quote": quote}],
            }
            lines.append(json.dumps(record) + "\n")
    (root / "questions.jsonl").write_text("".join(lines), encoding="utf-8")
    (root / "golden-lsp.toml").write_text('corpus = "corpus"\nglob = "**/*.md"\n', encoding="utf-8")


def run(code: Path, root: Path, old: Path) -> tuple[float, str]:
    env = {**os.environ, "PYTHONPATH": str(code)}
    start = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "golden_lsp",
            "migrate",
            str(root),
            "--from-corpus",
            str(old),
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
    )
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"migrate failed with {code}: {proc.stderr}")
    return took, proc.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--baseline", help="git revision of the old code (default: merge-base of main and HEAD)"
    )
    parser.add_argument(
        "--sets", default="2500:1250,5000:2500,10000:5000,10000:500", help="LABELS:DOCUMENTS,…"
    )
    args = parser.parse_args()
    if args.baseline is None:
        merge_base = ["git", "merge-base", "main", "HEAD"]
        args.baseline = subprocess.run(
            merge_base, cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
    with tempfile.TemporaryDirectory() as tmp:
        baseline = Path(tmp) / "baseline"
        archive = subprocess.run(
            ["git", "archive", args.baseline, "golden_lsp"], cwd=REPO, capture_output=True, check=True
        ).stdout
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(baseline, filter="data")
        print(f"migrate, every document renamed: {args.baseline} ({baseline}) vs this tree ({REPO})")
        for spec in args.sets.split(","):
            labels, docs = map(int, spec.split(":"))
            root, old = Path(tmp) / f"set-{spec}", Path(tmp) / f"old-{spec}"
            (root / "corpus").mkdir(parents=True)
            old.mkdir()
            write_set(root, old, labels, docs)
            before, out_before = run(baseline, root, old)
            after, out_after = run(REPO, root, old)
            same = json.loads(out_before) == json.loads(out_after)
            counts = json.loads(out_after)["counts"]
            print(
                f"  {labels:>6} labels in {docs:>5} documents: {args.baseline} {before:6.2f} s, "
                f"new {after:6.2f} s, ratio {before / after:5.1f}×; results identical: {same}; {counts}"
            )
            if not same:
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
