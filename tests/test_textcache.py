"""The memos kept from a document's text: the latest texts only, none after its document let go,
all emptied by one ``textcache.reset`` — and a cold run, with nothing remembered, answers the same."""

from __future__ import annotations

from pathlib import Path

from golden_lsp.core.corpus.index import load_corpus
from golden_lsp.core.engine import textcache, wiring
from golden_lsp.core.labels import anycase, hints, quotepick
from golden_lsp.core.text.memo import finish

#: short lines first, so the hint's search asks for the document's longest line
TEXT = "# Doc\n\n" + "- a\n" * 70 + "\nThe Quick brown Fox jumps over the lazy dog.\n\nthe lazy dog sleeps.\n"


def cached_texts() -> list[set[str]]:
    return [
        set(textcache.memo_of(f).values) for f in (hints.longest_line, anycase.case_index, quotepick.lengthen)
    ]


def fill(text: str) -> None:
    """What the server's idle preparation, a broken quote and a "Lengthen" request in ``text``
    leave cached."""
    finish(hints.prepare_hints(text))  # the case index
    hints.not_found_hint(text, "the quick brown fox")  # a case hint: the longest line
    quotepick.lengthen(text, "the lazy dog", text.index("the lazy dog"))


def test_reset_empties_every_cache():
    fill(TEXT)
    assert cached_texts() == [{TEXT}] * 3
    quotepick.lengthen(TEXT, "the lazy dog", TEXT.index("the lazy dog"))
    assert textcache.memo_of(quotepick.lengthen).hits == 1
    textcache.reset()
    assert cached_texts() == [set()] * 3
    assert textcache.memo_of(quotepick.lengthen).hits == 0


def test_a_released_or_edited_document_leaves_nothing_cached_from_its_text(tmp_path: Path):
    (tmp_path / "a.md").write_text(TEXT, encoding="utf-8")
    (tmp_path / "b.md").write_text(TEXT.replace("Doc", "Other"), encoding="utf-8")
    corpus = load_corpus(tmp_path, "*.md", 1800)
    a, b = corpus.docs["a.md"].text, corpus.docs["b.md"].text
    fill(a)
    fill(b)
    corpus.docs["a.md"].release()
    assert cached_texts() == [{b}] * 3
    edited = corpus.with_document(tmp_path / "b.md", b + "\nmore\n")
    assert cached_texts() == [set()] * 3
    fill(edited.docs["b.md"].text)
    assert cached_texts() == [{edited.docs["b.md"].text}] * 3


def test_only_the_latest_texts_are_kept():
    texts = [f"{TEXT}{i}\n" for i in range(quotepick.lengthen.texts + 1)]
    for text in texts:
        quotepick.lengthen(text, "the lazy dog", text.index("the lazy dog"))
    assert set(textcache.memo_of(quotepick.lengthen).values) == set(
        texts[1:]
    )  # the least recently used went first
    quotepick.lengthen(texts[1], "the lazy dog", texts[1].index("the lazy dog"))  # now the most recent
    quotepick.lengthen(texts[0], "the lazy dog", texts[0].index("the lazy dog"))
    assert set(textcache.memo_of(quotepick.lengthen).values) == {texts[0], texts[1], *texts[3:]}


def test_a_cold_run_remembers_nothing_and_answers_the_same(tmp_path: Path):
    """The semantics only declare what is worth remembering (``text/memo.py``); with the engine's
    memos taken out (``wiring.cold``) each call computes its answer, the same one."""
    warm = [
        hints.not_found_hint(TEXT, "the quick brown fox"),
        quotepick.lengthen(TEXT, "the lazy dog", TEXT.index("the lazy dog")),
    ]
    textcache.reset()
    wiring.cold()
    try:
        cold = [
            hints.not_found_hint(TEXT, "the quick brown fox"),
            quotepick.lengthen(TEXT, "the lazy dog", TEXT.index("the lazy dog")),
        ]
        assert cached_texts() == [set()] * 3
    finally:
        wiring.install()
    assert cold == warm and warm[0] is not None
