"""A lean corpus holds texts only while they are needed: none after a set is loaded, a text read
back for a request held in one bounded set (``held.HELD``) and let go when pushed out, an editor
buffer's never; a pass over the whole corpus (the BM25 candidate index) holds none and ranks as
an index over the texts held in memory did; an edit of a released document chunks afresh."""

from __future__ import annotations

import sys

import bm25s
import numpy
import pytest
from core_support import SAMPLE_LINES, make_project
from test_rechunk import as_tuples, corpus_with

from golden_lsp.assist.anchor import quote_at
from golden_lsp.assist.candidates import SEARCH_DEPTH, CandidateIndex, blocks
from golden_lsp.core.corpus.document import DocumentChanged
from golden_lsp.core.corpus.index import load_corpus
from golden_lsp.core.engine import packs
from golden_lsp.core.engine.held import HELD
from golden_lsp.core.goldenset.config import load_config
from golden_lsp.core.goldenset.project import GoldenSet
from golden_lsp.core.text.chunker import chunk_document


@pytest.fixture(autouse=True)
def nothing_held():
    HELD.clear()
    yield
    HELD.clear()


def held(corpus) -> set[str]:
    return {d.doc_id for d in corpus.docs.values() if d._text is not None or d._raw is not None}


@pytest.mark.parametrize("cache", [False, True], ids=["no cache", "warm cache"])
def test_after_a_lean_load_no_document_holds_its_text_and_one_asked_for_is_held_bounded(
    tmp_path, monkeypatch, cache
):
    monkeypatch.setattr(packs, "enabled", cache)
    root = make_project(tmp_path / "p", lines=SAMPLE_LINES)
    config = load_config(root / "golden-lsp.toml")
    whole = GoldenSet(config).corpus
    for _ in range(2):  # the second one, with a cache, from it
        lean = GoldenSet(config, lean=True, first=(root / "questions.jsonl").read_text().split("\n"))
        lean.check()
        assert held(lean.corpus) == set() and len(HELD) == 0
    guide, faq = lean.corpus.docs["guide.md"], lean.corpus.docs["faq.md"]
    assert guide.text == whole.docs["guide.md"].text  # read back for a request: held
    # counted by the memory its text takes (one object: its raw text is the canonical one)
    assert guide.raw is guide.text and HELD.holds(guide) and not HELD.holds(faq)
    assert held(lean.corpus) == {"guide.md"} and HELD.used == sys.getsizeof(guide.text)
    monkeypatch.setattr(
        HELD, "budget", sys.getsizeof(guide.text) + sys.getsizeof(whole.docs["faq.md"].text) - 1
    )
    assert faq.raw == whole.docs["faq.md"].raw  # the least recently used one goes
    assert held(lean.corpus) == {"faq.md"} and HELD.used == sys.getsizeof(faq.text)
    assert guide.text == whole.docs["guide.md"].text  # and is read back when asked for again
    assert held(lean.corpus) == {"guide.md"}


def test_an_editor_buffer_is_never_let_go(tmp_path, monkeypatch):
    root = make_project(tmp_path / "p", lines=SAMPLE_LINES)
    lean = GoldenSet(load_config(root / "golden-lsp.toml"), lean=True)
    lean.check()
    path = root / "corpus" / "guide.md"
    buffer = path.read_text(encoding="utf-8") + "\nAn unsaved paragraph.\n"
    corpus = lean.corpus.with_document(path, buffer)
    monkeypatch.setattr(HELD, "budget", 1)
    corpus.docs["faq.md"].text  # a read-back text pushes out nothing but read-back texts
    corpus.docs["guide.md"].release()  # an analysis that lets go of what it read
    assert corpus.docs["guide.md"].raw == buffer


def test_a_pass_over_the_corpus_holds_no_text_and_ranks_as_before(conformance):
    corpus = load_corpus(conformance / "corpus", "**/*.md")
    texts = {d: doc.text for d, doc in corpus.docs.items()}
    for doc in corpus.docs.values():
        doc.release()
    index = CandidateIndex()
    steps = sum(1 for _ in index.steps(corpus))
    assert steps == len(corpus.docs) and held(corpus) == set()
    # the ranking of the index that held every block's text (before the index went lean)
    found = [(d, lo, hi) for d, text in texts.items() for lo, hi in blocks(text)]
    old = bm25s.BM25(method="lucene", k1=1.5, b=0.75)
    old.index(
        bm25s.tokenize([texts[d][s:e] for d, s, e in found], stopwords="en", show_progress=False),
        show_progress=False,
    )
    queries = ["How are chunks sized?", "what does the retriever return", "evaluation metrics recall"]
    for query in queries:
        words = bm25s.tokenize([query], stopwords="en", show_progress=False, return_ids=False)[0]
        scores = old.get_scores(words)
        order = numpy.argsort(-scores, kind="stable")[:SEARCH_DEPTH]
        expected = [
            (found[i][0], found[i][1], found[i][2], quote_at(texts[found[i][0]], found[i][1], found[i][2]))
            for i in order
            if scores[i] > 0
        ]
        expected = [e for e in expected if e[3] is not None][:5]
        ranked = index.rank(corpus, query, 5)
        assert ranked and [(c.doc_id, c.start, c.end, c.quote) for c in ranked] == expected
    assert len(held(corpus)) <= 5  # the documents of the offered quotes, read back for them


def test_an_edit_of_a_document_let_go_since_chunks_afresh(tmp_path):
    corpus = corpus_with(tmp_path, "# A\nalpha\n\n# B\nbeta\n")
    old = corpus.docs["ch.md"]
    old.chunks  # chunked, its text at hand: the new version would re-use its chunks
    path = tmp_path / "corpus" / "ch.md"
    path.write_text("# A\nalpha\n\n# B\nbeta gamma\n", encoding="utf-8")
    new = corpus.with_file(path).docs["ch.md"]
    assert new.previous is old
    old.release()  # pushed out of the held texts before the new version was chunked
    assert as_tuples(new.chunks) == as_tuples(chunk_document("ch.md", "# A\nalpha\n\n# B\nbeta gamma\n"))


def test_a_file_changed_behind_our_back_names_its_path(tmp_path):
    corpus = corpus_with(tmp_path, "# A\nalpha\n")
    doc = corpus.docs["ch.md"]
    doc.release()
    path = tmp_path / "corpus" / "ch.md"
    path.write_text("# A\nomega\n", encoding="utf-8")
    with pytest.raises(DocumentChanged, match="changed while golden-lsp was reading it") as caught:
        doc.text
    assert caught.value.path == path
    assert corpus.with_file(caught.value.path).docs["ch.md"].text == "# A\nomega\n"
