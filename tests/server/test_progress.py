"""The server over JSON-RPC: ``serverInfo`` carries the package version, and the first open of a
set reports work-done progress (create, begin, end) while the corpus is indexed."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest_lsp
from conftest import init_params, make_client, open_doc, published
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

import golden_lsp

SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "golden_lsp", "--stdio"], client_factory=make_client
)
N_DOCS = 300


def large_set(root: Path) -> Path:
    """A corpus of N_DOCS chapters and a questions file quoting the first."""
    corpus = root / "corpus"
    corpus.mkdir(parents=True)
    for i in range(N_DOCS):
        paragraphs = "\n\n".join(
            f"Chapter {i} paragraph {j} tells of valley {i * 100 + j} and its path." for j in range(40)
        )
        (corpus / f"ch{i:03}.md").write_text(f"# Chapter {i}\n\n{paragraphs}\n", encoding="utf-8")
    (root / "golden-lsp.toml").write_text('corpus = "corpus"\n', encoding="utf-8")
    record = {
        "id": "p1",
        "query": "What does chapter 0 tell of valley 3?",
        "expected_answer": "That it has a path.",
        "locators": [{"doc": "ch000.md", "quote": "tells of valley 3 and"}],
    }
    q = root / "questions.jsonl"
    q.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return q


async def ended(client: LanguageClient, token, timeout: float = 30.0) -> list:
    """The reports of a progress token once its end arrived (it follows the publication)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not (
        (reports := client.progress_reports[token]) and isinstance(reports[-1], types.WorkDoneProgressEnd)
    ):
        assert loop.time() < deadline, f"progress {token} did not end: {reports}"
        await asyncio.sleep(0.02)
    return reports


@pytest_lsp.fixture(config=SERVER)
async def bare(lsp_client: LanguageClient):
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_server_info_reports_the_package_version(bare: LanguageClient, tmp_path: Path):
    result = await bare.initialize_session(init_params(tmp_path))
    assert result.server_info.name == "golden-lsp"
    assert result.server_info.version == golden_lsp.__version__


async def test_first_open_reports_progress_while_indexing(bare: LanguageClient, tmp_path: Path):
    await bare.initialize_session(init_params(tmp_path))
    q = large_set(tmp_path)
    uri = open_doc(bare, q)
    await published(bare, uri, timeout=60)
    (token,) = bare.progress_reports
    begin, end = await ended(bare, token)
    assert isinstance(begin, types.WorkDoneProgressBegin) and isinstance(end, types.WorkDoneProgressEnd)
    assert begin.title == "golden-lsp" and begin.message == "indexing the corpus of questions.jsonl"
    assert end.message.startswith(f"{N_DOCS} documents, ")
    # the set is indexed now: opening its file again reports nothing new
    bare.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    since = len(bare.published)
    open_doc(bare, q, version=2)
    await published(bare, uri, lambda p: p.version == 2, since=since)
    assert list(bare.progress_reports) == [token]


async def test_no_progress_for_a_client_without_work_done_progress(bare: LanguageClient, tmp_path: Path):
    params = init_params(tmp_path)
    caps = client_capabilities("visual-studio-code")
    caps.window = types.WindowClientCapabilities(work_done_progress=False)
    params.capabilities = caps
    await bare.initialize_session(params)
    uri = open_doc(bare, large_set(tmp_path))
    pub = await published(bare, uri, timeout=60)
    assert bare.progress_reports == {}
    assert not [d for d in pub.diagnostics if d.severity == types.DiagnosticSeverity.Error]
