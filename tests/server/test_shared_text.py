"""An open chapter's text is held once: when the editor opens a corpus file as it is on disk, its
buffer and the corpus document share the document's text (the client's copy is let go: 10 MB of
Markdown with an emoji is 40 MB in memory); an open chapter whose text differs is the buffer's own.
In process, on the server's own session (object identity cannot be seen over JSON-RPC)."""

from __future__ import annotations

from core_support import loc, make_project, qline
from pygls.uris import from_fs_path

from golden_lsp.server.session import Session

CHAPTER = "# Chapter\n\nHuts in the far valleys open late in the season 🏔.\n"


def test_an_open_chapter_as_on_disk_shares_the_documents_text(tmp_path):
    make_project(tmp_path, {"ch.md": CHAPTER}, [qline("q1", [loc("ch.md", "open late in the season")])])
    session = Session()
    questions = tmp_path / "questions.jsonl"
    session.open(from_fs_path(str(questions)), questions.read_text(encoding="utf-8"), 1)
    doc = session.view(from_fs_path(str(questions))).golden.corpus.docs["ch.md"]
    client_copy = "".join(CHAPTER)  # the text as the client sent it: equal, another object
    assert client_copy == doc.raw and client_copy is not doc.raw
    uri = from_fs_path(str(tmp_path / "corpus" / "ch.md"))
    session.open(uri, client_copy, 1)
    assert session.buffers[uri].text is doc.raw and doc.pinned
    assert session.sets.corpus_buffers[tmp_path / "corpus" / "ch.md"] is doc.raw
    unsaved = CHAPTER + "An unsaved paragraph.\n"
    session.close(uri)
    session.open(uri, unsaved, 2)
    assert session.buffers[uri].text is unsaved  # not the file's: the buffer's own
