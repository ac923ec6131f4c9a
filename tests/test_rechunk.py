"""Re-chunking after an edit (``chunker.rechunk``) equals chunking the edited text from scratch.

An editor buffer of a corpus chapter changes a few characters at a time; ``rechunk`` keeps the
chunks of every section the edit did not touch and chunks only the rest. Whatever the edit —
inside a paragraph, across sections, inserting or deleting a heading or a fence line, turning a
line into one, other line breaks — the sections and chunks must be exactly ``sections`` and
``chunk_document`` of the new text.
"""

from __future__ import annotations

import pytest
from core_support import GUIDE, SAMPLE_DOCS, make_project
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_chunker_spec import MARKDOWN

from golden_lsp.core.corpus.index import load_corpus
from golden_lsp.core.engine import diskcache, packs
from golden_lsp.core.goldenset.artifact import artifact_text
from golden_lsp.core.goldenset.config import load_config
from golden_lsp.core.goldenset.project import GoldenSet
from golden_lsp.core.text.canon import canonicalize
from golden_lsp.core.text.chunker import chunk_document, rechunk, sections

#: what an edit inserts: text, line breaks, and the lines that shape sections and blocks
INSERTS = st.one_of(
    st.sampled_from(
        [
            "x",
            " ",
            "\n",
            "\n\n",
            "# ",
            "\n# New\n",
            "## ",
            "```",
            "\n```\n",
            "~~~\n",
            "---\n",
            "#",
            "`",
            "~",
            "- ",
            "\u2028",
            "\x85",
            "\v",
            "é🙂",
            "\r",
            "\n\n# H\nbody\n\n",
        ]
    ),
    st.text(st.sampled_from("ab #`~-\n\u2028 "), max_size=10),
    MARKDOWN.map(lambda t: t[:60]),
)


def edit(draw, text: str) -> str:
    """``text`` with a few stretches replaced (each possibly empty, or replaced by nothing)."""
    for _ in range(draw(st.integers(1, 3))):
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + draw(st.sampled_from([0, 1, 3, 20, 200])))))
        text = text[:start] + draw(INSERTS | st.just("")) + text[end:]
    return text


@st.composite
def edits(draw):
    old = draw(MARKDOWN) + draw(st.sampled_from(["", "\n", "tail"]))
    return old, edit(draw, old)


def as_tuples(chunks):
    return [(c.doc_id, c.start, c.end, c.heading_path, c.chunk_id) for c in chunks]


@settings(max_examples=2000, deadline=None)
@given(edit=edits(), max_chars=st.sampled_from([8, 40, 200, 1800]))
def test_rechunk_equals_chunking_the_new_text(edit, max_chars):
    old, new = edit
    old_chunks = chunk_document("d.md", old, max_chars)
    new_sections, new_chunks = rechunk("d.md", old, sections("d.md", old), old_chunks, new, max_chars)
    assert new_sections == sections("d.md", new)
    assert as_tuples(new_chunks) == as_tuples(chunk_document("d.md", new, max_chars))


# --- the corpus: an edited document's chunks come from its previous version ------------------


def corpus_with(tmp_path, text: str, max_chars: int = 1800):
    (tmp_path / "corpus").mkdir(exist_ok=True)
    (tmp_path / "corpus" / "ch.md").write_text(text, encoding="utf-8", newline="")
    return load_corpus(tmp_path / "corpus", max_chars=max_chars)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), first=MARKDOWN)
def test_a_chain_of_buffer_edits_chunks_like_reading_each_version_afresh(tmp_path_factory, data, first):
    # each buffer is an edit of the one before; a version whose chunks nobody asked for hands
    # on nothing (the next one is chunked afresh), so versions never chain
    tmp_path = tmp_path_factory.mktemp("c")
    corpus = corpus_with(tmp_path, first, max_chars=40)
    path = tmp_path / "corpus" / "ch.md"
    text = first
    for _ in range(data.draw(st.integers(1, 5))):
        text = data.draw(st.composite(lambda draw, text=text: edit(draw, text))())
        corpus = corpus.with_document(path, text)
        doc = corpus.docs["ch.md"]
        assert doc.previous is None or doc.previous.previous is None
        if data.draw(st.booleans()):
            assert as_tuples(doc.chunks) == as_tuples(chunk_document("ch.md", canonicalize(text), 40))
            assert doc.sections == sections("ch.md", doc.text)
            assert doc.previous is None  # let go once used


def test_an_edit_keeps_the_other_sections_chunks_and_neither_reads_nor_writes_the_cache(
    tmp_path, monkeypatch
):
    base = "# One\nFirst body.\n\n# Two\nSecond body.\n\n```\n# not a heading\n```\n\n# Three\nThird body.\n"
    corpus = corpus_with(tmp_path, base)
    old = corpus.docs["ch.md"].chunks  # chunked cold, and so now in the warm cache
    cache = tmp_path / "golden-lsp-cache"

    def entries() -> int:
        diskcache.flush()
        return sum(len(packs.parse_pack(p.read_bytes())) for p in cache.rglob("*.pack"))

    assert entries() == 1
    path = tmp_path / "corpus" / "ch.md"
    edited = base.replace("Second body.", "Second body, longer now.\n\nAnd a paragraph more.")
    doc = corpus.with_document(path, edited).docs["ch.md"]
    # a wrong entry under the edited text's key: the edit does not read it
    diskcache.store_chunks("ch.md", doc.sha256, 1800, old)
    monkeypatch.setattr(
        "golden_lsp.core.corpus.document.chunk_document", lambda *a: pytest.fail("chunked the whole document")
    )
    new = doc.chunks
    assert as_tuples(new) == as_tuples(chunk_document("ch.md", doc.text))
    assert new[0] is old[0]  # the section before the edit keeps its very chunks
    assert (new[-1].chunk_id, new[-1].start - old[-1].start) == (old[-1].chunk_id, len(edited) - len(base))
    assert entries() == 2  # the edited buffer wrote no entry
    # the saved file, read from disk, re-uses the buffer's chunks as they are
    path.write_text(edited, encoding="utf-8")
    saved = corpus.with_document(path, edited)
    saved.docs["ch.md"].chunks
    assert saved.with_file(path).docs["ch.md"].chunks is saved.docs["ch.md"].chunks


def test_a_version_never_chunked_is_chunked_cold_through_the_warm_cache(tmp_path):
    corpus = corpus_with(tmp_path, "# A\nalpha\n")
    path = tmp_path / "corpus" / "ch.md"
    doc = corpus.with_document(path, "# A\nalpha beta\n").docs["ch.md"]  # its previous version never chunked
    assert doc.previous is None
    assert as_tuples(doc.chunks) == as_tuples(chunk_document("ch.md", "# A\nalpha beta\n"))
    assert diskcache.load_chunks("ch.md", doc.sha256, len(doc.text), 1800) == doc.chunks  # stored as before


@pytest.mark.parametrize(
    "edit_at, insert",
    [
        ("## Lists", "A new paragraph before the list.\n\n"),  # inside a section
        ("## Tables", "## Inserted\n\nIts text.\n\n"),  # a heading: the sections after it change paths
        ("## Tables", "```\n"),  # an unclosed fence: every heading after it is code
    ],
)
def test_a_golden_sets_analysis_after_a_buffer_edit_is_that_of_a_cold_start(
    tmp_path, monkeypatch, edit_at, insert
):
    project = make_project(tmp_path / "live")
    golden = GoldenSet(load_config(project / "golden-lsp.toml"))
    golden.check()  # chunks every document
    edited = GUIDE.replace(edit_at, insert + edit_at)
    golden.set_corpus(golden.corpus.with_document(project / "corpus" / "guide.md", edited))
    monkeypatch.setattr(
        "golden_lsp.core.corpus.document.chunk_document", lambda *a: pytest.fail("chunked the whole document")
    )
    live = golden.check()
    monkeypatch.undo()
    cold = GoldenSet(
        load_config(
            make_project(tmp_path / "cold", docs={**SAMPLE_DOCS, "guide.md": edited}) / "golden-lsp.toml"
        )
    ).check()
    assert [(d.code, d.range, d.message) for d in live.diagnostics] == [
        (d.code, d.range, d.message) for d in cold.diagnostics
    ]
    assert [[as_tuples(r.chunks) for r in rec.result.resolved] for rec in live.records if rec.result] == [
        [as_tuples(r.chunks) for r in rec.result.resolved] for rec in cold.records if rec.result
    ]
    assert artifact_text(live) == artifact_text(cold)


def test_a_released_version_hands_on_nothing(tmp_path):
    # its text would be read back from disk, where the file may already be the new version
    corpus = corpus_with(tmp_path, "# A\nalpha\n")
    doc = corpus.docs["ch.md"]
    doc.chunks
    doc.release()
    path = tmp_path / "corpus" / "ch.md"
    path.write_text("# A\nalpha beta\n", encoding="utf-8")
    new = corpus.with_file(path).docs["ch.md"]
    assert new.previous is None
    assert as_tuples(new.chunks) == as_tuples(chunk_document("ch.md", "# A\nalpha beta\n"))
