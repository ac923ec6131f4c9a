"""How often the meaning findings fire on real sets, and what they cost a keystroke.

``answer-unsupported`` and ``query-copies-passage`` guess (``core/check/meaning.py``): their
false-alarm rate on well-made sets is what the docs promise, so it is measured here, by running
``check`` on each set and listing every record they fire on — a person then reads each one and
says whether it is an alarm or a true find (docs/findings.md records the verdicts). Sets: the
bundled example, the conformance fixture (../shared/conformance/ai-rag-lab, when present), and any
``--set DIR`` (a folder holding ``questions.jsonl`` and ``corpus/``).

And the cost: a keystroke re-runs the rules of the edited line (``rules.line_result``); the rows
time every line of each set with ``record_meaning`` and without it, interleaved, as a ratio.

    python benchmarks/meaning_rates.py [--set DIR ...] [--repeat 100]
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from linerules import seconds_per_line

from golden_lsp.core.corpus.index import load_corpus
from golden_lsp.core.engine.analysis import Analyzer
from golden_lsp.core.labels.jsonline import is_skipped
from golden_lsp.core.labels.scoring import parse_hit_rule

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT.parent / "shared" / "conformance" / "ai-rag-lab"
CODES = ("answer-unsupported", "query-copies-passage")


def _lines(folder: Path) -> list[str]:
    text = (folder / "questions.jsonl").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if not is_skipped(line)]


def rates(folder: Path, corpus) -> None:
    analysis = Analyzer(corpus, parse_hit_rule("any_overlap")).analyze(
        folder / "questions.jsonl", (folder / "questions.jsonl").read_text(encoding="utf-8")
    )
    records = len(analysis.records)
    for code in CODES:
        hits = [d for d in analysis.diagnostics if d.code == code]
        print(f"{folder.name}: {code} on {len(hits)} of {records} records")
        for d in hits:
            print(f"    line {d.range.line + 1}: {d.message[:160]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, action="append", default=[])
    parser.add_argument("--repeat", type=int, default=100)
    args = parser.parse_args()
    sets = [ROOT / "examples", *([FIXTURE] if FIXTURE.is_dir() else []), *args.set]
    for folder in sets:
        corpus = load_corpus(folder / "corpus", "*.md", 1800)
        rates(folder, corpus)
        lines = _lines(folder)
        rows = [
            (
                seconds_per_line(corpus, lines, args.repeat, "record_meaning"),
                seconds_per_line(corpus, lines, args.repeat),
            )
            for _ in range(3)
        ]
        base, new = statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)
        print(
            f"{folder.name}: a line's rules {new * 1e6:.1f} µs with the meaning findings, {base * 1e6:.1f} µs "
            f"without: ratio {new / base:.2f}"
        )


if __name__ == "__main__":
    main()
