"""Editing a corpus chapter in the editor: the chunks re-used from the buffer's previous version
(``chunker.rechunk``) are those of a cold start on the edited text, over real JSON-RPC."""

from __future__ import annotations

import asyncio
import json
import re
import shutil
from pathlib import Path

from conftest import analysed, change_doc, open_doc
from lsprotocol import types
from pytest_lsp import LanguageClient
from test_server import CHAPTER, opened_chapter_record, quote_columns, utf16

from golden_lsp.core.goldenset.config import load_config
from golden_lsp.core.goldenset.project import GoldenSet

ROW = re.compile(r"^\| `([0-9a-f]{12})` \| .* \| (\d+)–(\d+) \|$", re.M)


def cold(golden_dir: Path, folder: Path, chapter_text: str, record_id: str):
    """(chunk rows of the record's first quote, diagnostic codes) of a cold check of the project
    with the chapter as ``chapter_text`` on disk."""
    shutil.copytree(golden_dir, folder)
    (folder / "corpus" / CHAPTER).write_text(chapter_text, encoding="utf-8", newline="")
    analysis = GoldenSet(load_config(folder / "golden-lsp.toml")).check()
    rec = next(r for r in analysis.records if r.record is not None and r.record.id == record_id)
    rows = [(c.chunk_id[:12], c.start, c.end) for c in rec.result.resolved[0].chunks]
    return rows, sorted(str(d.code) for d in analysis.diagnostics)


async def hover_rows(
    client: LanguageClient, uri: str, position: types.Position, expected, timeout: float = 15.0
):
    """The chunk rows of the quote's hover, once they are ``expected`` (the server analyses an edit
    in the background); the last ones seen when they never are."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        hover = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), position)
        )
        rows = [(i, int(s), int(e)) for i, s, e in ROW.findall(hover.contents.value)] if hover else None
        if rows == expected or loop.time() > deadline:
            return rows
        await asyncio.sleep(0.05)


async def test_edits_of_a_corpus_buffer_give_the_chunks_and_diagnostics_of_a_cold_start(
    client: LanguageClient, golden_dir: Path, tmp_path: Path
):
    uri, _text, n, line = await opened_chapter_record(client, golden_dir)
    record_id, quote = json.loads(line)["id"], json.loads(line)["locators"][0]["quote"]
    position = types.Position(n, utf16(line[: quote_columns(line)[0] + 3]))
    chapter = golden_dir / "corpus" / CHAPTER
    corpus_uri = open_doc(client, chapter)
    body = chapter.read_text(encoding="utf-8")
    para = body.rfind("\n\n", 0, body.index(quote)) + 2  # the quote's paragraph
    # each buffer an edit of the one before: the quote's paragraph grows, a heading and a fence
    # come and go above it, and the text far below changes
    words = body[:para] + "A sentence more. " + body[para:]
    headed = words[:para] + "## A heading added above\n\n" + words[para:]
    fenced = "```\n" + headed
    buffers = [words, headed, fenced, headed, headed + "\nA closing paragraph.\n", headed]
    seen = set()
    for version, buffer in enumerate(buffers, start=2):
        rows, codes = cold(golden_dir, tmp_path / f"cold-{version}", buffer, record_id)
        count = len(client.statuses)
        change_doc(client, corpus_uri, version, buffer)
        status = await analysed(client, uri, since=count)
        assert await hover_rows(client, uri, position, rows) == rows, f"buffer {version}"
        assert sorted(str(d.code) for d in client.diagnostics[uri]) == codes, f"buffer {version}"
        seen.add(tuple(rows))
        assert status["records"] > 0
    assert len(seen) >= 3  # the edits did change the quote's chunks
