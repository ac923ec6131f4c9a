"""A client that watches no files (Neovim on Linux): the server watches the corpus itself."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from conftest import SERVER, init_params, open_doc, published
from lsprotocol import types


async def watching(client, timeout: float = 15.0) -> str:
    """The server's log message saying it watches the corpus."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        for m in client.log_messages:
            if "watching" in m.message:
                return m.message
        await asyncio.sleep(0.02)
    raise AssertionError(
        f"the server never said it watches the corpus: {[m.message for m in client.log_messages]}"
    )


@pytest.mark.parametrize("pulls", [False, True], ids=["push", "pull-without-refresh"])
async def test_a_change_on_disk_republishes_without_client_file_watching(golden_dir: Path, pulls: bool):
    """As Neovim on Linux: no file watching; and (0.12) pull diagnostics without refresh support,
    so the server could never ask it to pull again: it is pushed to."""
    client = SERVER.client_factory()
    await client.start_io(*SERVER.server_command)
    try:
        params = init_params(golden_dir)
        params.capabilities.workspace.did_change_watched_files = None
        if pulls:
            params.capabilities.text_document.diagnostic = types.DiagnosticClientCapabilities()
        await client.initialize_session(params)
        q = golden_dir / "questions.jsonl"
        text = q.read_text(encoding="utf-8")
        uri = open_doc(client, q, text)
        await published(client, uri)
        assert not client.registrations
        if pulls:  # pushed to, so a pull shows nothing a second time
            report = await client.text_document_diagnostic_async(
                types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri))
            )
            assert list(report.items) == []
        assert str(golden_dir / "corpus") in await watching(client)
        chapter = golden_dir / "corpus" / "01-planning-a-hut-tour.md"
        original = chapter.read_text(encoding="utf-8")
        line, rec = next(
            (i, json.loads(s))
            for i, s in enumerate(text.split("\n"))
            if s.startswith("{")
            and json.loads(s)["locators"]
            and json.loads(s)["locators"][0]["doc"] == chapter.name
        )
        quote = rec["locators"][0]["quote"]
        # another program rewrites the chapter in place
        count = len(client.published)
        chapter.write_text(original.replace(quote, "(removed)"), encoding="utf-8")
        pub = await published(
            client, uri, lambda p: "quote-not-found" in [d.code for d in p.diagnostics], since=count
        )
        assert {d.range.start.line for d in pub.diagnostics if d.code == "quote-not-found"} == {line}
        # `git checkout` puts it back by writing a new file over the old one
        count = len(client.published)
        tmp = chapter.with_name(".checkout.tmp")
        tmp.write_text(original, encoding="utf-8")
        os.replace(tmp, chapter)
        await published(
            client, uri, lambda p: "quote-not-found" not in [d.code for d in p.diagnostics], since=count
        )
        assert not [m.message for m in client.log_messages if m.type == types.MessageType.Error]
    finally:  # shut the session down even after a failed assertion: stop() alone would wait forever
        await asyncio.wait_for(client.shutdown_session(), 15)
        await client.stop()
