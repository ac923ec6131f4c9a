"""The relocation itself (``keep.migrate.Relocator``), in process: the preferences that decide
between candidates (the same document first, a tie is ambiguous, the threshold counts), one
locator alone gives what it gives in a batch (the editor's quick fix and ``migrate`` agree),
exact locators, and the conformance set relocated onto itself."""

from __future__ import annotations

import json

import pytest
from migrate_support import CASES, V1, V2

from golden_lsp.core.corpus.index import load_corpus
from golden_lsp.core.labels.resolve import occurrences, span_at
from golden_lsp.core.text.canon import canonicalize
from golden_lsp.keep.relocate import STATUSES, Relocator

OLD_PARA = (
    "Spoke tension should be even around the wheel, and a truing stand makes the job far easier "
    "than doing it in the frame.\n"
)
#: the paragraph with one word changed (~97 % similar) and with several changed (~86 %)
CLOSE = OLD_PARA.replace("far easier", "much easier")
FARTHER = OLD_PARA.replace("should be even", "must stay uniform").replace("far easier", "simpler")


def texts(docs: dict[str, str]) -> dict[str, str]:
    return {k: canonicalize(v) for k, v in docs.items()}


def old() -> dict[str, str]:
    return texts({"a.md": f"# A\n\n{OLD_PARA}", "b.md": "# B\n\nNothing about wheels here at all.\n"})


def test_the_same_document_is_searched_first():
    """A passage that stayed in its document wins over a closer one elsewhere."""
    new = texts({"a.md": f"# A\n\n{FARTHER}", "b.md": f"# B\n\n{CLOSE}"})
    r = Relocator(old(), new).relocate("a.md", "the job far easier")
    assert (r.status, r.doc) == ("edited", "a.md")
    assert 0.8 <= r.similarity < 0.9


def test_elsewhere_when_the_document_has_nothing_close():
    new = texts({"a.md": "# A\n\nUnrelated text about chains.\n", "b.md": f"# B\n\n{CLOSE}"})
    r = Relocator(old(), new).relocate("a.md", "the job far easier")
    assert (r.status, r.doc, r.old_doc) == ("edited", "b.md", "a.md")
    assert r.summary() == f"edited, {int(r.similarity * 100)} % similar in b.md"


def test_two_equally_close_passages_are_ambiguous():
    new = texts({"a.md": f"# A\n\n{CLOSE}\n## Again\n\n{CLOSE}"})
    r = Relocator(old(), new).relocate("a.md", "the job far easier")
    assert r.status == "ambiguous" and r.doc is None and r.quote is None
    assert "two passages are" in r.note


def test_the_threshold_is_inclusive():
    new = texts({"a.md": f"# A\n\n{FARTHER}"})
    similarity = Relocator(old(), new).relocate("a.md", "the job far easier").similarity
    assert (
        Relocator(old(), new, threshold=similarity).relocate("a.md", "the job far easier").status == "edited"
    )
    lost = Relocator(old(), new, threshold=similarity + 1e-9).relocate("a.md", "the job far easier")
    assert (lost.status, lost.similarity) == ("lost", similarity)
    assert "the closest, in a.md, is" in lost.note
    # the note names the threshold that takes it, and that threshold does
    taken = float(lost.note.split("--threshold ")[1].split()[0])
    again = Relocator(old(), new, threshold=taken).relocate("a.md", "the job far easier")
    assert again.status == "edited" and taken <= similarity


def test_an_edited_label_gets_a_unique_quote_expanding_to_the_passage():
    new = texts({"a.md": f"# A\n\n{FARTHER}\nThe truing stand is in the shed.\n"})
    r = Relocator(old(), new).relocate("a.md", "Spoke tension should be even")
    text = new["a.md"]
    (at,) = occurrences(text, r.quote)
    span = span_at("a.md", text, at, r.quote, exact=False)
    assert text[span.start : span.end] == FARTHER


def test_one_locator_alone_gives_what_it_gives_in_a_batch():
    """The editor relocates one locator at a time, migrate all of them at once (one automaton
    pass per document): the answers are the same."""
    wanted = [
        (x["doc"], x["quote"], x.get("exact", False)) for locators, _ in CASES.values() for x in locators
    ]
    wanted += [(doc, quote + " ", exact) for doc, quote, exact in wanted]  # more than quoteindex.MIN_QUOTES
    batch = Relocator(texts(V1), texts(V2)).relocate_all(wanted)
    alone = [Relocator(texts(V1), texts(V2)).relocate(*w) for w in wanted]
    assert batch == alone
    assert {r.status for r in batch} == set(STATUSES) - {"fact-changed"}  # the record decides that one


def test_an_exact_locator_edited_gets_the_closest_words_on_one_line():
    before = texts(
        {"t.md": "# T\n\nTubeless tyres seal small punctures with the latex sealant inside them.\n"}
    )
    after = texts(
        {"t.md": "# T\n\nTubeless tyres seal small punctures with the latex sealants inside them.\n"}
    )
    r = Relocator(before, after).relocate("t.md", "the latex sealant inside", exact=True)
    assert (r.status, r.quote) == ("edited", "the latex sealants inside")
    assert r.similarity == pytest.approx(2 * 24 / 49)


def test_an_empty_quote_or_a_missing_document_has_nothing_to_relocate_from():
    r = Relocator(old(), old()).relocate("a.md", "")
    assert (r.status, r.note) == ("lost", "the quote is empty: nothing to relocate from")
    r = Relocator(old(), old()).relocate("gone.md", "anything")
    assert (r.status, r.note) == ("lost", "gone.md is not in the old corpus: nothing to relocate from")


def test_the_conformance_set_relocated_onto_its_own_corpus_is_all_kept(conformance):
    corpus = load_corpus(conformance / "corpus")
    same = {d: doc.text for d, doc in corpus.docs.items()}
    wanted = [
        (x["doc"], x["quote"], x.get("exact", False))
        for line in (conformance / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip().startswith("{")
        for x in json.loads(line)["locators"]
    ]
    found = Relocator(same, same).relocate_all(wanted)
    assert len(found) == 65 and {r.status for r in found} == {"kept"}


def test_similarities_are_shown_rounded_down():
    """99.6 % similar is not shown as 100 % (that would read as unchanged)."""
    from golden_lsp.keep.relocate import Relocation

    r = Relocation("edited", "a.md", "a.md", "x", "y", similarity=0.996)
    assert r.summary() == "edited, 99 % similar"
    assert Relocation("moved", "a.md", "b/a.md", "x", "x", 1.0).summary() == "moved to b/a.md"
