"""Fixtures for end-to-end server tests: a real golden-lsp process driven over JSON-RPC."""

from __future__ import annotations

import asyncio
import copy
import shutil
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def make_client() -> LanguageClient:
    """pytest-lsp's client, keeping every publication and answering what editors answer."""
    client = LanguageClient(converter_factory=default_converter)
    client.published = []
    client.registrations = []
    client.statuses = []
    client.refreshes = []
    client.shown = []
    client.applied = []
    client.apply_answer = types.ApplyWorkspaceEditResult(applied=True)  # None: a client answering null

    def publish(ls: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        ls.published.append(params)
        ls.diagnostics[params.uri] = params.diagnostics

    def register(ls: LanguageClient, params: types.RegistrationParams) -> None:
        ls.registrations.extend(params.registrations)

    def status(ls: LanguageClient, params) -> None:
        ls.statuses.append(params._asdict() if hasattr(params, "_asdict") else dict(params))

    def refresh(method: str):
        def record(ls: LanguageClient, params) -> None:
            ls.refreshes.append(method)

        return record

    def show_document(ls: LanguageClient, params: types.ShowDocumentParams) -> types.ShowDocumentResult:
        ls.shown.append(params)
        return types.ShowDocumentResult(success=True)

    def apply_edit(ls: LanguageClient, params: types.ApplyWorkspaceEditParams):
        ls.applied.append(params.edit)
        return ls.apply_answer

    refreshes = {
        m: refresh(m)
        for m in (
            types.WORKSPACE_DIAGNOSTIC_REFRESH,
            types.WORKSPACE_INLAY_HINT_REFRESH,
            types.WORKSPACE_CODE_LENS_REFRESH,
        )
    }
    register_lsp_features(
        client,
        {
            **DEFAULT_CLIENT_FEATURES,
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish,
            types.CLIENT_REGISTER_CAPABILITY: register,
            "golden-lsp/status": status,
            types.WINDOW_SHOW_DOCUMENT: show_document,
            types.WORKSPACE_APPLY_EDIT: apply_edit,
            **refreshes,
        },
    )
    return client


SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "golden_lsp", "--stdio"], client_factory=make_client
)


@pytest.fixture
def golden_dir(tmp_path: Path) -> Path:
    """A private copy of the bundled example golden set."""
    dest = tmp_path / "golden"
    shutil.copytree(EXAMPLES, dest)
    return dest


def uri_of(path: Path) -> str:
    return from_fs_path(str(path))


def init_params(
    root: Path, encodings: list[str] | None = None, pull: bool = False, options: dict | None = None
) -> types.InitializeParams:
    """VS Code's capabilities; without ``pull`` minus pull diagnostics (a client that is pushed to).
    Opted in to the ``golden-lsp/status`` notification, as the VS Code extension is."""
    caps = copy.deepcopy(client_capabilities("visual-studio-code"))  # pytest-lsp shares one object
    if not pull:
        caps.text_document.diagnostic = None
    else:  # as VS Code declares them (pytest-lsp's recorded capabilities predate them)
        caps.text_document.diagnostic = types.DiagnosticClientCapabilities(related_document_support=True)
        caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    caps.workspace.inlay_hint = types.InlayHintWorkspaceClientCapabilities(refresh_support=True)
    if encodings is not None:
        caps.general = types.GeneralClientCapabilities(position_encodings=encodings)
    return types.InitializeParams(
        capabilities=caps,
        root_uri=uri_of(root),
        initialization_options={"statusNotification": True, **(options or {})},
        workspace_folders=[types.WorkspaceFolder(uri_of(root), "golden")],
    )


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, golden_dir: Path):
    await lsp_client.initialize_session(init_params(golden_dir))
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def pull_client(lsp_client: LanguageClient, golden_dir: Path):
    """A client that pulls diagnostics (``textDocument/diagnostic``), its initialize result kept."""
    lsp_client.init_result = await lsp_client.initialize_session(init_params(golden_dir, pull=True))
    yield lsp_client
    await lsp_client.shutdown_session()


def open_doc(client: LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    uri = uri_of(path)
    text = path.read_text(encoding="utf-8") if text is None else text
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(
                uri, "golden-questions" if path.suffix == ".jsonl" else "markdown", version, text
            )
        )
    )
    return uri


def change_doc(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=version, uri=uri),
            [types.TextDocumentContentChangeWholeDocument(text)],
        )
    )


def latest_publications(client: LanguageClient) -> dict:
    """The last diagnostics published for each URI (a questions file, and the chapters and config
    the set's findings sit in)."""
    return {p.uri: p for p in client.published}


async def published(
    client: LanguageClient, uri: str, predicate=lambda p: True, timeout: float = 15.0, since: int = 0
):
    """The first publication for ``uri`` (from the ``since``-th received on) satisfying ``predicate``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    seen = 0
    while True:
        pubs = [p for p in client.published[since:] if p.uri == uri]
        for p in pubs[seen:]:
            if predicate(p):
                return p
        seen = len(pubs)
        if loop.time() > deadline:
            raise AssertionError(f"no matching diagnostics for {uri}; last: {pubs[-1:]}")
        await asyncio.sleep(0.02)


async def analysed(
    client: LanguageClient, uri: str, since: int, version: int | None = None, timeout: float = 15.0
) -> dict:
    """The first ``golden-lsp/status`` of ``uri`` (of ``version``, when given) from the
    ``since``-th received on: the server analysed the file again (it publishes diagnostics only
    when they changed)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        for status in client.statuses[since:]:
            if status.get("uri") == uri and version in (None, status.get("version")):
                return status
        if loop.time() > deadline:
            raise AssertionError(f"no status for {uri}")
        await asyncio.sleep(0.02)
