"""Paths that are no document (symlink loops) reach the server as URIs: nothing raises."""

from __future__ import annotations

from pathlib import Path

from conftest import open_doc, published, uri_of
from lsprotocol import types
from pytest_lsp import LanguageClient


async def test_symlink_loops_are_not_documents(client: LanguageClient, golden_dir: Path):
    q = golden_dir / "questions.jsonl"
    uri = open_doc(client, q)
    await published(client, uri)
    loops = [
        golden_dir / "self.questions.jsonl",
        golden_dir / "corpus" / "loop.md",
        golden_dir / "looped" / "questions.jsonl",
    ]
    loops[0].symlink_to(loops[0].name)
    loops[1].symlink_to(loops[1].name)
    (golden_dir / "looped").symlink_to("looped")
    (golden_dir / "loop.toml").symlink_to("loop.toml")
    for path in loops:
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(
                    uri_of(path),
                    "markdown" if path.suffix == ".md" else "golden-questions",
                    1,
                    "# a chapter\n\nSome text.\n",
                )
            )
        )
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=2, uri=uri_of(path)),
                [types.TextDocumentContentChangeWholeDocument("# changed\n")],
            )
        )
        await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri_of(path)), types.Position(0, 1))
        )
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            [
                types.FileEvent(uri_of(p), types.FileChangeType.Changed)
                for p in [*loops, golden_dir / "loop.toml", golden_dir / "looped" / "golden-lsp.toml"]
            ]
        )
    )
    for path in loops:
        client.text_document_did_close(
            types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri_of(path)))
        )
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    questions = (golden_dir / "questions.jsonl").read_text(encoding="utf-8")
    n_records = sum(line.startswith("{") for line in questions.split("\n"))
    assert len(symbols) == n_records
    assert not [m.message for m in client.log_messages if m.type == types.MessageType.Error]
    assert not [p for p in client.published if p.uri in map(uri_of, loops) and p.diagnostics]
