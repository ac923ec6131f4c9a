"""What ``query-pii`` costs on the keystroke path: one line's rules with it, next to the same rules
without it, side by side, as a ratio — and what the first candidate costs once (the libraries'
import in a fresh interpreter).

A keystroke re-runs the rules of the line being edited (``rules.line_result``); ``query-pii`` adds
``core.pii.find`` over the query and the expected answer. Rows, on the lines of the conformance
fixture (../shared/conformance/ai-rag-lab: real questions over a 300 KB corpus) or the bundled
example, each line's rules run ``--repeat`` times:

- ``rules, no identifier``: the lines as they are (no candidate: one regular-expression search);
- ``rules, an identifier``: each line's query given an e-mail address and a phone number (the
  libraries already imported: what every later keystroke on such a line costs);
- baseline for both: the same rules with ``record_pii`` left out.

And ``first candidate``: a fresh interpreter's ``find`` of a card number and a phone number, minus
a fresh interpreter's ``find`` of a plain query (the imports of phonenumbers and python-stdnum).

    python benchmarks/pii.py [--fixture DIR] [--repeat 200]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from linerules import seconds_per_line

from golden_lsp.core.corpus.index import load_corpus
from golden_lsp.core.labels.jsonline import is_skipped

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT.parent / "shared" / "conformance" / "ai-rag-lab"


def _lines(fixture: Path, identifier: bool) -> list[str]:
    out = []
    for line in (fixture / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        if is_skipped(line):
            continue
        if identifier:
            rec = json.loads(line)
            rec["query"] = f"I am jane.doe@example.org, +44 20 7946 0958: {rec['query']}"
            line = json.dumps(rec, ensure_ascii=False)
        out.append(line)
    return out


def _fresh(text: str) -> float:
    code = (
        "import time; from golden_lsp.core.check.pii import find; t = time.perf_counter(); "
        f"find({text!r}); print(time.perf_counter() - t)"
    )
    return float(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixture", type=Path, default=FIXTURE if FIXTURE.is_dir() else ROOT / "examples")
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    corpus = load_corpus(args.fixture / "corpus", "*.md", 1800)
    for label, identifier in (("rules, no identifier", False), ("rules, an identifier", True)):
        lines = _lines(args.fixture, identifier)
        rows = []
        for _ in range(3):  # interleaved, so both see the same machine
            rows.append(
                (
                    seconds_per_line(corpus, lines, args.repeat, "record_pii"),
                    seconds_per_line(corpus, lines, args.repeat),
                )
            )
        base = statistics.median(r[0] for r in rows)
        with_pii = statistics.median(r[1] for r in rows)
        print(
            f"{label:<22} {len(lines)} lines: {with_pii * 1e6:7.1f} µs a line with query-pii, "
            f"{base * 1e6:7.1f} µs without: ratio {with_pii / base:.2f}"
        )
    plain = statistics.median(_fresh("What is a hut tour?") for _ in range(3))
    for text in ("card 4111 1111 1111 1111", "call +44 20 7946 0958"):
        first = statistics.median(_fresh(text) for _ in range(3))
        print(f"first candidate {text!r}: {(first - plain) * 1e3:.1f} ms once (imports and metadata)")


if __name__ == "__main__":
    main()
