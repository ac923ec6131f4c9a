"""The not-found hints of a generated set, next to the plain full-document search, as ratios.

``corpora.py`` changes a letter in ~1 % of the quotes: those are the quotes not in their
document, and each gets a hint (``hints.not_found_hint``: loose match, normalisation, case,
else the closest passage). The baseline, written here, is the plain way of the same searches —
the loose pattern over the whole document, ``str.lower()`` of the whole document for every
search in any case — and the two must give the same hints (checked before timing). Rows:

- ``one quote at a time``: ``not_found_hint`` per quote (a keystroke that breaks a quote), with
  the documents' case indexes built (cached per document; the time to build them is printed);
- ``per document``: ``not_found_hints`` per document (the cold check);
- the same two for the largest document's quotes only.

    python benchmarks/hints.py [--data /tmp/scale-data/set-50] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from itertools import islice
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale import _document, _paths

from golden_lsp.core.engine import textcache
from golden_lsp.core.labels import anycase, hints, loose


def plain_hint(text: str, quote: str) -> hints.Hint | None:
    """The baseline: the same hint, every search over the whole document (lowered for any case)."""
    words = quote.split()
    if not words or len(" ".join(words)) > 2 * hints.longest_line(text) + 1:
        return None
    found = list(islice(loose.loose_pattern(quote).pattern.finditer(text), 2))
    if len(found) == 1:
        m = found[0]
        if "\n" in m.group():
            return hints.Hint(
                m.start(), m.end(), "line break", m.group(), hints._line_parts(text, m.start(), m.end())
            )
        return hints.Hint(
            m.start(), m.end(), "whitespace" if m.group().split() == words else "typography", m.group()
        )
    plan = hints._plan(quote)
    composed = plan.composed
    if not found and composed != quote:
        found = [m.start() for m in islice(re.finditer(re.escape(composed), text), 2)]
        if len(found) == 1:
            return hints.Hint(found[0], found[0] + len(composed), "normalisation", composed)
    search = anycase.Search(text)
    if not found:
        search.any_case = anycase._find_any_case(text, plan.needles)  # str.lower() of the whole document
        starts = search.any_case[composed][:2]
        if len(starts) == 1:
            return hints.Hint(starts[0][0], starts[0][1], "case", text[starts[0][0] : starts[0][1]])
        found = starts
    return None if found else hints.closest_passage(text, plan, search)


def missing_quotes(root: Path, docs: dict[str, str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in (root / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        if line.startswith("{"):
            for loc in json.loads(line)["locators"]:
                if loc["doc"] in docs and loc["quote"] not in docs[loc["doc"]]:
                    out.setdefault(loc["doc"], []).append(loc["quote"])
    return out


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("/tmp/scale-data/set-50"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    corpus = args.data / "corpus"
    docs = {
        doc: _document(args.data, doc)
        for doc in (p.relative_to(corpus).as_posix() for p in _paths(args.data))
    }
    by_doc = missing_quotes(args.data, docs)
    largest = max(by_doc, key=lambda doc: len(docs[doc]))
    n = sum(map(len, by_doc.values()))
    print(
        f"{n} not-found quotes over {len(by_doc)} documents; the largest, {largest}, "
        f"{len(docs[largest]) / 1e6:.1f} M characters, has {len(by_doc[largest])}"
    )

    for doc, quotes in by_doc.items():  # same hints, or the timing means nothing
        found = hints.not_found_hints(docs[doc], quotes)
        for quote in quotes:
            assert found[quote] == hints.not_found_hint(docs[doc], quote) == plain_hint(docs[doc], quote), (
                quote
            )
    print("hints identical to the baseline's")

    def rows(label: str, docs_quotes: dict[str, list[str]]) -> None:
        base = best_of(
            args.repeat, lambda: [plain_hint(docs[d], q) for d, qs in docs_quotes.items() for q in qs]
        )
        one = best_of(
            args.repeat,
            lambda: [hints.not_found_hint(docs[d], q) for d, qs in docs_quotes.items() for q in qs],
        )
        batch = best_of(
            args.repeat, lambda: [hints.not_found_hints(docs[d], qs) for d, qs in docs_quotes.items()]
        )
        textcache.reset()
        index = best_of(1, lambda: [anycase.case_index(docs[d]) for d in docs_quotes])
        k = sum(map(len, docs_quotes.values()))
        print(f"{label:<28} baseline {base * 1e3:8.0f} ms ({base / k * 1e3:5.1f} ms/quote)")
        print(
            f"{'':<28} one quote at a time {one * 1e3:8.0f} ms ({one / k * 1e3:5.1f} ms/quote)  "
            f"{base / one:5.1f}x faster (a case index made for a document of {anycase.INDEX_FROM:,} characters "
            f"or more, one pass in lower case for a smaller one; making every one: {index * 1e3:.0f} ms)"
        )
        print(
            f"{'':<28} per document        {batch * 1e3:8.0f} ms ({batch / k * 1e3:5.1f} ms/quote)  "
            f"{base / batch:5.1f}x faster"
        )

    rows("all not-found quotes", by_doc)
    rows(f"{largest} only", {largest: by_doc[largest]})


if __name__ == "__main__":
    main()
