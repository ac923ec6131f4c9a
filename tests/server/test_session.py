"""The session's invalidation and its cache keys, over real JSON-RPC on the example set.

Each event that changes what a view shows from outside its own buffer — the editor's overrides, a
config saved or changed on disk, an artifact changed on disk — goes through one invalidation: the
open questions file is published again at the same version, with findings that follow the change,
and the client is asked to refresh its inlay hints and code lenses. A questions file that is not
open is read again when its saved text changes. A diagnostic pull's result id names one analysis:
a file closed and opened again at the same version with another text is answered in full. A
chapter closed while its last edit waits for the debounce leaves its file on disk in the corpus.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from conftest import change_doc, open_doc, published, uri_of
from lsprotocol import types
from pytest_lsp import LanguageClient
from test_authoring import records
from test_server import CHAPTER, set_quote

from golden_lsp.server.scheduler import CORPUS_DEBOUNCE

REFRESHES = {types.WORKSPACE_INLAY_HINT_REFRESH, types.WORKSPACE_CODE_LENS_REFRESH}


def without_the_corpus(golden_dir: Path) -> None:
    """The config, its glob now matching the first chapter only: locators into the others name unknown docs."""
    config = golden_dir / "golden-lsp.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace('glob = "*.md"', 'glob = "01-*.md"'), encoding="utf-8")


def overrides(client: LanguageClient, golden_dir: Path) -> None:
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams({"goldenLsp": {"overrides": {"glob": "01-*.md"}}})
    )


def config_saved(client: LanguageClient, golden_dir: Path) -> None:
    without_the_corpus(golden_dir)
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri_of(golden_dir / "golden-lsp.toml")))
    )


def config_on_disk(client: LanguageClient, golden_dir: Path) -> None:
    without_the_corpus(golden_dir)
    change = types.FileEvent(uri_of(golden_dir / "golden-lsp.toml"), types.FileChangeType.Changed)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams([change]))


def artifact_on_disk(client: LanguageClient, golden_dir: Path) -> None:
    artifact = golden_dir / "golden-set.v1.jsonl"
    lines = artifact.read_text(encoding="utf-8").split("\n")
    artifact.write_text("\n".join(lines[1:]), encoding="utf-8")  # a record short
    change = types.FileEvent(uri_of(artifact), types.FileChangeType.Changed)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams([change]))


@pytest.mark.parametrize(
    "event, code",
    [
        (overrides, "unknown-doc"),
        (config_saved, "unknown-doc"),
        (config_on_disk, "unknown-doc"),
        (artifact_on_disk, "stale-artifact"),
    ],
)
async def test_a_change_outside_the_buffer_republishes_and_refreshes(
    client: LanguageClient, golden_dir: Path, event, code: str
):
    q = golden_dir / "questions.jsonl"
    uri = open_doc(client, q)
    first = await published(client, uri, lambda p: p.version == 1)
    assert not [d for d in first.diagnostics if d.code == code]
    since, refreshed = len(client.published), len(client.refreshes)
    event(client, golden_dir)
    again = await published(client, uri, lambda p: any(d.code == code for d in p.diagnostics), since=since)
    assert again.version == 1  # the buffer is as it was: the change came from outside it
    assert set(client.refreshes[refreshed:]) >= REFRESHES


async def test_a_questions_file_not_open_is_read_again_when_saved(client: LanguageClient, golden_dir: Path):
    q = golden_dir / "questions.jsonl"
    chapter = open_doc(client, golden_dir / "corpus" / CHAPTER)  # the questions file is read from disk

    async def labelled_by() -> set[str]:
        lenses = await client.text_document_code_lens_async(
            types.CodeLensParams(types.TextDocumentIdentifier(chapter))
        )
        return {
            name for lens in lenses for name in lens.command.title.removeprefix("labelled by ").split(", ")
        }

    assert "ex001" in await labelled_by()
    q.write_text(q.read_text(encoding="utf-8").replace('"ex001"', '"ex001-renamed"', 1), encoding="utf-8")
    names = await labelled_by()
    assert "ex001-renamed" in names and "ex001" not in names


async def test_a_pull_after_reopening_at_the_same_version_is_answered_in_full(
    pull_client: LanguageClient, golden_dir: Path
):
    client = pull_client
    q = golden_dir / "questions.jsonl"
    line, rec = records(q)["ex001"]
    rows = q.read_text(encoding="utf-8").split("\n")
    saved = "\n".join(rows)
    rows[line] = set_quote(json.dumps(rec), "hut")  # an ambiguous quote
    ask = types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri_of(q)))
    uri = open_doc(client, q, "\n".join(rows), version=1)
    report = await client.text_document_diagnostic_async(ask)
    assert [d.range.start.line for d in report.items if d.code == "quote-ambiguous"] == [line]
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    open_doc(client, q, saved, version=1)  # the same version, another text
    ask.previous_result_id = report.result_id
    again = await client.text_document_diagnostic_async(ask)
    assert again.kind == "full" and again.result_id != report.result_id
    assert not [d for d in again.items if d.code == "quote-ambiguous"]


async def test_a_chapter_closed_during_its_debounce_counts_as_saved(client: LanguageClient, golden_dir: Path):
    """Closed right after an edit (an editor's "don't save"): the edit still waiting for the
    chapter's debounce is dropped with the buffer, so the file on disk counts from then on."""
    q = golden_dir / "questions.jsonl"
    chapter = golden_dir / "corpus" / CHAPTER
    _, rec = records(q)["ex001"]
    uri = open_doc(client, q)
    await published(client, uri, lambda p: p.version == 1)
    chapter_uri = open_doc(client, chapter)
    change_doc(
        client,
        chapter_uri,
        2,
        chapter.read_text(encoding="utf-8").replace(rec["locators"][0]["quote"], "gone"),
    )
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(chapter_uri))
    )
    await asyncio.sleep(10 * CORPUS_DEBOUNCE)  # the debounce would have ended
    change_doc(client, uri, 2, q.read_text(encoding="utf-8") + "\n")
    pub = await published(client, uri, lambda p: p.version == 2)
    assert not [d for d in pub.diagnostics if d.code == "quote-not-found"]
