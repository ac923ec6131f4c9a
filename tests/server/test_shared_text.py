"""An open chapter's text is held once: when the editor opens a corpus file as it is on disk, its
buffer and the corpus document hold one text, not the client's copy beside the document's (10 MB
of Markdown with an emoji is 40 MB in memory). A document that let go of its text takes the
client's (its bytes hash to the file's: the file is not read back); one that holds its text keeps
it, and the buffer holds that one. An open chapter whose text differs is the buffer's own. In
process, on the server's own session (object identity cannot be seen over JSON-RPC)."""

from __future__ import annotations

import pytest
from core_support import loc, make_project, qline
from pygls.uris import from_fs_path

from golden_lsp.core.corpus.document import CorpusDoc
from golden_lsp.server.session import Session

CHAPTER = "# Chapter\n\nHuts in the far valleys open late in the season 🏔.\n"


@pytest.mark.parametrize("held", [False, True], ids=["let go", "held"])
def test_an_open_chapter_as_on_disk_is_held_once(tmp_path, monkeypatch, held):
    make_project(tmp_path, {"ch.md": CHAPTER}, [qline("q1", [loc("ch.md", "open late in the season")])])
    session = Session()
    questions = tmp_path / "questions.jsonl"
    session.open(from_fs_path(str(questions)), questions.read_text(encoding="utf-8"), 1)
    doc = session.view(from_fs_path(str(questions))).golden.corpus.docs["ch.md"]
    doc.release()
    if held:
        assert doc.text == CHAPTER  # read back: held
    else:
        monkeypatch.setattr(CorpusDoc, "_read_back", lambda self: pytest.fail("read back"))
    mine = doc.text if held else None
    client_copy = "".join(CHAPTER)  # the text as the client sent it: equal, another object
    assert client_copy is not CHAPTER and client_copy is not mine
    uri = from_fs_path(str(tmp_path / "corpus" / "ch.md"))
    session.open(uri, client_copy, 1)
    kept = mine if held else client_copy
    assert doc.pinned and doc.raw is kept and doc.text is kept
    assert session.buffers[uri].text is kept
    assert session.sets.corpus_buffers[tmp_path / "corpus" / "ch.md"] is kept


def test_an_open_chapter_with_other_text_is_the_buffers_own(tmp_path):
    make_project(tmp_path, {"ch.md": CHAPTER}, [qline("q1", [loc("ch.md", "open late in the season")])])
    session = Session()
    questions = tmp_path / "questions.jsonl"
    session.open(from_fs_path(str(questions)), questions.read_text(encoding="utf-8"), 1)
    doc = session.view(from_fs_path(str(questions))).golden.corpus.docs["ch.md"]
    doc.release()
    unsaved = CHAPTER + "An unsaved paragraph.\n"
    uri = from_fs_path(str(tmp_path / "corpus" / "ch.md"))
    session.open(uri, unsaved, 1)
    assert session.buffers[uri].text is unsaved and not doc.pinned
    assert session.view(from_fs_path(str(questions))).golden.corpus.docs["ch.md"].raw is unsaved
