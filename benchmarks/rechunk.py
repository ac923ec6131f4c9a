"""Re-chunking an edited corpus document (``chunker.rechunk``) beside chunking it afresh.

An edit to an open chapter makes the language server build the document anew; its chunks come
from the previous version's, with only the sections the edit touched chunked again. For one
document of each size class of a ``corpora.py`` set, and for each kind of edit (a character
typed mid-paragraph, a new paragraph, a heading added — which re-labels the sections under it —
and an unclosed fence, which turns everything after it into code), this prints the median time
of ``rechunk`` next to ``chunk_document`` of the edited text (the baseline: what the server did
before) and their ratio. Both must give the same chunks; the script checks that it is so.

    python benchmarks/rechunk.py [--data DIR] [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpora import SIZES, generate

from golden_lsp.core.text.chunker import chunk_document, rechunk, sections


def median_ms(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def edits(text: str) -> list[tuple[str, str]]:
    """(kind, edited text) around the middle of ``text``."""
    at = text.index("\n\n", len(text) // 2) - 5  # inside a paragraph
    return [
        ("type a character", text[:at] + "x" + text[at:]),
        ("new paragraph", text[:at] + "\n\nA new paragraph." + text[at:]),
        ("add a heading", text[:at] + "\n\n## Added\n" + text[at:]),
        ("unclosed fence", text[:at] + "\n\n```\n" + text[at:]),
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="a set from corpora.py (default: generate the 5 MB one)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.data or Path(tmp)
        if args.data is None:
            generate(root, *SIZES["5"])
        print(f"{'document, edit':<44} {'rechunk':>10} {'chunk_document':>16} {'ratio':>7}")
        for name in ("chapter-00.md", "quoted.md", "large.md"):
            raw = (root / "corpus" / name).read_bytes().decode("utf-8")
            old = unicodedata.normalize("NFC", raw)
            old_sections, old_chunks = sections(name, old), chunk_document(name, old)
            for kind, new in edits(old):
                if rechunk(name, old, old_sections, old_chunks, new)[1] != chunk_document(name, new):
                    raise SystemExit(f"rechunk differs from chunk_document: {name}, {kind}")
                inc = median_ms(lambda: rechunk(name, old, old_sections, old_chunks, new), args.runs)  # noqa: B023 (called here)
                full = median_ms(lambda: chunk_document(name, new), args.runs)  # noqa: B023 (called here)
                label = f"{name} ({len(raw.encode('utf-8')) / 1e6:.1f} MB), {kind}"
                print(f"{label:<44} {inc:>8.1f}ms {full:>14.1f}ms {inc / full:>7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
