"""The one-pass quote index must answer exactly as one scan per quote does."""

from __future__ import annotations

import json
import random

from core_support import SAMPLE_DOCS, SAMPLE_LINES, analyze_lines, loc, make_project, qline

from golden_lsp.core.engine import packs, quoteindex
from golden_lsp.core.engine.analysis import Analyzer
from golden_lsp.core.goldenset.artifact import artifact_text
from golden_lsp.core.labels.resolve import occurrences
from golden_lsp.core.labels.scoring import parse_hit_rule


def test_find_all_equals_occurrences_including_overlaps_and_the_limit():
    rng = random.Random(3)
    text = "".join(rng.choice("ab \n") for _ in range(5000)) + " abab abababa é😀é"
    quotes = {"abab", "aaaa", "b ab", "a\nb", "abababa", "é😀é", "zzzz", " a b"}
    for limit in (1, 2, 21, 10_000):
        found = quoteindex.find_all(text, quotes, limit)
        assert found == {q: occurrences(text, q, limit) for q in quotes}


def test_a_cold_start_through_the_index_gives_the_same_findings_and_artifact(tmp_path, monkeypatch):
    extra = [
        qline(f"x{i}", [loc("faq.md", q)])
        for i, q in enumerate(
            [
                "offsets break",
                "quote",
                "the corpus",
                "golden",
                "Chunk IDs",
                "nowhere at all",
                "span",
                "labels rot",
            ]
        )
    ]
    _corpus, batched = analyze_lines(tmp_path / "a", SAMPLE_DOCS, SAMPLE_LINES + extra)
    monkeypatch.setattr(quoteindex, "MIN_QUOTES", 10**9)  # every quote scanned on its own
    _, single = analyze_lines(tmp_path / "b", SAMPLE_DOCS, SAMPLE_LINES + extra)
    assert [(d.code, d.range, d.message) for d in batched.diagnostics] == [
        (d.code, d.range, d.message) for d in single.diagnostics
    ]
    assert artifact_text(batched) == artifact_text(single)


def test_the_index_is_used_on_a_cold_start(tmp_path, monkeypatch):
    monkeypatch.setattr(packs, "enabled", False)  # a cold start every time
    lines = SAMPLE_LINES + [qline(f"x{i}", [loc("faq.md", f"missing quote {i}")]) for i in range(10)]
    corpus, _ = analyze_lines(tmp_path, SAMPLE_DOCS, lines)
    calls = []
    real = quoteindex.find_all
    monkeypatch.setattr(quoteindex, "find_all", lambda *a: calls.append(a[1]) or real(*a))
    analyzer = Analyzer(corpus, parse_hit_rule("any_overlap"))
    analyzer.analyze(tmp_path / "q.jsonl", "\n".join(lines))
    assert len(calls) == 1 and {f"missing quote {i}" for i in range(10)} <= set(calls[0])
    calls.clear()
    analyzer.analyze(tmp_path / "q.jsonl", "\n".join(lines) + "\n")  # a keystroke: no batch
    assert calls == []


def test_a_megabyte_quote_among_many_is_found_by_scan_and_crashes_nothing(tmp_path, cli):
    # a trie as deep as a 1 MB quote overflowed the C stack when freed (exit 139): such a quote
    # goes to str.find, and the check answers with its findings
    words = " ".join(f"w{i}" for i in range(200_000))  # one line of ~1.3 MB
    big = words[:1_000_000].rsplit(" ", 1)[0]
    doc = (
        "# Big\n\n" + words + "\n\n" + "".join(f"Para {i} is about topic number {i}.\n\n" for i in range(12))
    )
    lines = [qline("big", [loc("big.md", big)])]
    lines += [qline(f"p{i}", [loc("big.md", f"about topic number {i}.")]) for i in range(10)]
    lines += [qline("gone", [loc("big.md", "no such words here")])]
    root = make_project(tmp_path / "p", {"big.md": doc}, lines)
    assert quoteindex.batchable(big) is False and len(big) > quoteindex.MAX_QUOTE_CHARS
    proc = cli(["check", "--format", "json"], cwd=root)
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    found = json.loads(proc.stdout)
    assert [(f["line"], f["code"]) for f in found if f["severity"] == "error"] == [(12, "quote-not-found")]
