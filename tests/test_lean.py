"""A command-line check holds one corpus document's text at a time (``lean``): the same findings
as a set holding the whole corpus, every text let go afterwards, and a document that changes
between being read and being read again is an error, never a silently wrong label."""

from __future__ import annotations

import pytest
from core_support import SAMPLE_LINES, loc, make_project, qline

from golden_lsp.core.corpus.document import CorpusConfigError
from golden_lsp.core.engine import packs, wiring
from golden_lsp.core.goldenset.config import load_config
from golden_lsp.core.goldenset.project import GoldenSet

#: enough quotes for a cold start's batch, an ambiguous one and a missing one with a hint
LINES = SAMPLE_LINES + [
    qline(f"x{i}", [loc("guide.md", q)])
    for i, q in enumerate(
        [
            "Retrieval quality",
            "chunk boundaries",
            "indexing time",
            "second sentence",
            "keeps the block",
            "max_chars",
            "any_overlap",
            "quotes must be unique",
            "nested lists",
            "closes the list",
            "the",
            "Retrieval  quality",
        ]
    )
]


def findings(analysis):
    return [(d.code, d.range, d.message, d.related, d.data) for d in analysis.diagnostics]


@pytest.mark.parametrize("cache", [False, True], ids=["no cache", "warm cache"])
def test_a_lean_check_finds_what_a_whole_corpus_check_finds(tmp_path, monkeypatch, cache):
    monkeypatch.setattr(packs, "enabled", cache)
    root = make_project(tmp_path / "p", lines=LINES)
    config = load_config(root / "golden-lsp.toml")
    whole = GoldenSet(config).check()
    for _ in range(2):  # the second one, with a cache, reads everything from it
        lean = GoldenSet(config, lean=True)
        analysis = lean.check()
        assert findings(analysis) == findings(whole)
        assert {"quote-ambiguous", "quote-not-found"} <= {d.code for d in analysis.diagnostics}
        assert all(doc._text is None and doc._raw is None for doc in lean.corpus.docs.values())
    # a text asked for afterwards (an export, a report) is read back from disk
    doc = lean.corpus.docs["guide.md"]
    assert doc.text == GoldenSet(config).corpus.docs["guide.md"].text


def test_the_cold_reference_answers_what_the_engine_answers(tmp_path, monkeypatch):
    """With the engine taken out of the semantics (``wiring.cold``: no chunk store, no held set, no
    memo) and no disk cache, a check is the reference; the warm, lean check equals it."""
    root = make_project(tmp_path / "p", lines=LINES)
    config = load_config(root / "golden-lsp.toml")
    warm = [GoldenSet(config, lean=True).check() for _ in range(2)]  # the second from the cache
    monkeypatch.setattr(packs, "enabled", False)
    wiring.cold()
    try:
        cold = GoldenSet(config).check()
    finally:
        wiring.install()
    assert findings(warm[0]) == findings(warm[1]) == findings(cold)

    def spans(analysis):
        return [
            [(r.span, r.chunks, r.coverage, r.ambiguous_at) for r in line.result.resolved]
            for line in analysis.records
        ]

    assert spans(warm[1]) == spans(cold) and any(any(s) for s in spans(cold))


def test_a_document_changed_between_reads_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setattr(packs, "enabled", False)
    root = make_project(tmp_path / "p", lines=LINES)
    lean = GoldenSet(load_config(root / "golden-lsp.toml"), lean=True)
    guide = root / "corpus" / "guide.md"
    guide.write_text(guide.read_text(encoding="utf-8").replace("Retrieval", "Recall"), encoding="utf-8")
    assert lean.check().counts()["records"] == sum(
        line.startswith("{") for line in LINES
    )  # all found in one read
    with pytest.raises(CorpusConfigError, match=r"guide\.md changed while golden-lsp was reading it"):
        lean.corpus.docs["guide.md"].text
