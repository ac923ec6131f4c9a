"""The editor's "report" command over JSON-RPC: the page is written outside the workspace from the
saved files, and opened with window/showDocument in the user's browser."""

from __future__ import annotations

from pathlib import Path

import pytest_lsp
from conftest import SERVER, init_params, open_doc
from lsprotocol import types
from pygls.uris import to_fs_path
from pytest_lsp import LanguageClient


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, golden_dir: Path):
    await lsp_client.initialize_session(init_params(golden_dir))
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_report_command_writes_and_opens_the_page(client: LanguageClient, golden_dir: Path):
    uri = open_doc(client, golden_dir / "questions.jsonl")
    before = sorted(p.name for p in golden_dir.iterdir())
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("golden-lsp.report", [uri])
    )
    assert result["ok"] is True, result
    page = Path(to_fs_path(result["uri"]))
    html = page.read_text(encoding="utf-8")
    assert "Coverage of the corpus" in html and 'class="cell' in html
    assert sorted(p.name for p in golden_dir.iterdir()) == before  # nothing written into the workspace
    [shown] = client.shown
    assert shown.uri == result["uri"] and shown.external is True


async def test_report_command_without_a_set_says_why(
    client: LanguageClient, golden_dir: Path, tmp_path: Path
):
    stray = tmp_path / "elsewhere" / "questions.jsonl"
    stray.parent.mkdir()
    stray.write_text("", encoding="utf-8")
    uri = open_doc(client, stray)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("golden-lsp.report", [uri])
    )
    assert result["ok"] is False and "corpus" in result["message"]
    assert client.shown == []
