"""The server honours what a client says it supports, over real JSON-RPC with clients declaring
different capabilities: plain-text hovers for a client that renders no Markdown, no related
information for one that declared it unsupported (eglot), a message instead of a disabled code
action it cannot show, commands instead of code action literals, the ``golden-lsp/status``
notification only on opt-in; and an unknown request or command answered without an error log or
a traceback."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path

import pytest
import pytest_lsp
from conftest import SERVER, open_doc, published, uri_of
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities
from raw_lsp import RawServer
from test_authoring import pos_of
from test_server import apply_edits, quote_columns, utf16
from test_server_first_contact import CHAPTER as FIRST_CONTACT
from test_server_first_contact import DOC, line_range

from golden_lsp.core.labels.resolve import occurrences


def params(root: Path, caps: types.ClientCapabilities, options: dict | None = None) -> types.InitializeParams:
    return types.InitializeParams(
        capabilities=caps,
        root_uri=uri_of(root),
        initialization_options=options,
        workspace_folders=[types.WorkspaceFolder(uri_of(root), "golden")],
    )


def eglot_capabilities() -> types.ClientCapabilities:
    """Emacs's eglot as recorded by pytest-lsp (relatedInformation false, no disabledSupport),
    without markdown-mode: eglot 1.9 then declares plain-text hovers only."""
    caps = copy.deepcopy(client_capabilities("emacs"))
    caps.text_document.hover.content_format = [types.MarkupKind.PlainText]
    return caps


@pytest_lsp.fixture(config=SERVER)
async def eglot(lsp_client: LanguageClient, golden_dir: Path):
    (golden_dir / "corpus" / DOC).write_text(FIRST_CONTACT, encoding="utf-8")
    await lsp_client.initialize_session(params(golden_dir, eglot_capabilities()))
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def commands_only(lsp_client: LanguageClient, golden_dir: Path):
    caps = copy.deepcopy(client_capabilities("visual-studio-code"))
    caps.text_document.code_action.code_action_literal_support = None
    caps.text_document.diagnostic = None
    await lsp_client.initialize_session(params(golden_dir, caps, {"statusNotification": True}))
    yield lsp_client
    await lsp_client.shutdown_session()


def ambiguous(golden_dir: Path) -> tuple[Path, str, int, str]:
    """The questions file with its first record's quote made ambiguous ("hut")."""
    q = golden_dir / "questions.jsonl"
    lines = q.read_text(encoding="utf-8").split("\n")
    n = next(i for i, line in enumerate(lines) if line.startswith("{"))
    record = json.loads(lines[n])
    record["locators"][0]["quote"] = "hut"
    lines[n] = json.dumps(record, ensure_ascii=False)
    return q, "\n".join(lines), n, record["locators"][0]["doc"]


async def hover_at(client: LanguageClient, uri: str, pos: types.Position) -> types.Hover:
    hov = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), pos))
    assert hov is not None
    return hov


async def test_a_client_that_renders_no_markdown_gets_plain_text_hovers(
    eglot: LanguageClient, golden_dir: Path
):
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8")
    lines = text.split("\n")
    n = next(i for i, line in enumerate(lines) if line.startswith("{"))
    record = json.loads(lines[n])
    uri = open_doc(eglot, q, text)
    await published(eglot, uri)
    s, _ = quote_columns(lines[n])
    hovers = [
        await hover_at(eglot, uri, types.Position(n, utf16(lines[n][: s + 2]))),  # a quote
        await hover_at(eglot, uri, types.Position(n, utf16(lines[n][: lines[n].index(record["id"]) + 1]))),
    ]
    doc_col = lines[n].index('"doc": "') + len('"doc": "') + 1
    hovers.append(await hover_at(eglot, uri, types.Position(n, utf16(lines[n][:doc_col]))))
    chapter = golden_dir / "corpus" / record["locators"][0]["doc"]
    raw = chapter.read_text(encoding="utf-8")
    curi = open_doc(eglot, chapter)
    hovers.append(
        await hover_at(eglot, curi, pos_of(raw, record["locators"][0]["quote"], 2))
    )  # the corpus side
    for hov in hovers:
        assert hov.contents.kind == types.MarkupKind.PlainText, hov
        assert "**" not in hov.contents.value and "`" not in hov.contents.value, hov.contents.value
    assert (
        record["locators"][0]["doc"] in hovers[0].contents.value
        and "union coverage" in hovers[0].contents.value
    )
    assert record["id"] in hovers[1].contents.value and record["query"] in hovers[1].contents.value
    assert "chars" in hovers[2].contents.value
    assert "labelled by" in hovers[3].contents.value and record["id"] in hovers[3].contents.value


async def test_no_related_information_to_a_client_that_declared_it_unsupported(
    eglot: LanguageClient, golden_dir: Path
):
    q, text, _, _ = ambiguous(golden_dir)
    uri = open_doc(eglot, q, text)
    pub = await published(eglot, uri, lambda p: any(d.code == "quote-ambiguous" for d in p.diagnostics))
    assert pub.diagnostics and all(d.related_information is None for d in pub.diagnostics)
    [amb] = [d for d in pub.diagnostics if d.code == "quote-ambiguous"]
    assert "occurs" in amb.message and "(at " in amb.message  # the message still says where
    actions = await eglot.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), amb.range, types.CodeActionContext([amb]))
    )
    lengthen = [a for a in actions if a.title.startswith("Lengthen to the occurrence at ")]
    assert lengthen and all(isinstance(a, types.CodeAction) for a in lengthen)  # eglot takes literals
    assert all(d.related_information is None for a in lengthen for d in a.diagnostics)
    # and the status notification only goes to a client that asks for it
    assert eglot.statuses == []


async def test_a_disabled_action_becomes_a_message_for_a_client_that_cannot_show_it(
    eglot: LanguageClient, golden_dir: Path
):
    chapter = golden_dir / "corpus" / DOC
    uri = open_doc(eglot, chapter)
    rng = line_range(FIRST_CONTACT, "yes", nth=1)
    automatic = await eglot.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri),
            rng,
            types.CodeActionContext([], trigger_kind=types.CodeActionTriggerKind.Automatic),
        )
    )
    assert not automatic and not eglot.messages  # asked on its own: no message
    # eglot 1.9 sends no triggerKind: the author asked
    actions = await eglot.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), rng, types.CodeActionContext([]))
    )
    assert not actions
    [message] = eglot.messages
    assert message.message == (
        "golden-lsp: New golden question anchored here: cannot anchor here: every quote of the words "
        "here also occurs at line 8"
    )
    # asked again for the same place (a client that asks on every cursor move, without triggerKind,
    # as lsp-mode's modeline does): not repeated; asked explicitly: shown again
    for kind in (None, types.CodeActionTriggerKind.Invoked):
        await eglot.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(uri), rng, types.CodeActionContext([], trigger_kind=kind)
            )
        )
    assert [m.message for m in eglot.messages] == [message.message] * 2
    # where a quote exists, the action is there as for any client
    rng = line_range(FIRST_CONTACT, "Pay the warden", nth=1)
    actions = await eglot.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), rng, types.CodeActionContext([]))
    )
    assert [a.title for a in actions][:1] == ["New golden question anchored here"]
    assert len(eglot.messages) == 2  # no new message


async def test_a_client_without_code_action_literals_gets_commands_that_apply_the_edit(
    commands_only: LanguageClient, golden_dir: Path
):
    client = commands_only
    q, text, n, doc = ambiguous(golden_dir)
    uri = open_doc(client, q, text)
    pub = await published(client, uri, lambda p: any(d.code == "quote-ambiguous" for d in p.diagnostics))
    [amb] = [d for d in pub.diagnostics if d.code == "quote-ambiguous"]
    assert amb.related_information  # VS Code takes them
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), amb.range, types.CodeActionContext([amb]))
    )
    assert actions and all(isinstance(a, types.Command) for a in actions), actions
    lengthen = [a for a in actions if a.title.startswith("Lengthen to the occurrence at ")]
    assert lengthen and {a.command for a in actions} == {"golden-lsp.applyEdit"}
    assert await client.workspace_execute_command_async(
        types.ExecuteCommandParams(lengthen[0].command, lengthen[0].arguments)
    )
    [edit] = client.applied
    new_text = apply_edits(text, edit.changes[uri])
    quote = json.loads(new_text.split("\n")[n])["locators"][0]["quote"]
    corpus = (golden_dir / "corpus" / doc).read_text(encoding="utf-8")
    assert "hut" in quote and len(occurrences(corpus, quote)) == 1
    # a malformed argument applies nothing, and the server carries on
    for junk in ([], ["no edit"], [{"changes": 5}], [{}]):
        assert not await client.workspace_execute_command_async(
            types.ExecuteCommandParams("golden-lsp.applyEdit", junk)
        )
    assert len(client.applied) == 1
    assert client.statuses  # opted in
    assert not [m for m in client.log_messages if m.type == types.MessageType.Error]


@pytest.fixture
def raw(golden_dir: Path):
    server = RawServer(golden_dir)
    server.initialize(golden_dir)
    yield server
    if server.proc.poll() is None:
        server.proc.kill()
    server.close()


def test_an_unknown_request_or_command_is_answered_without_an_error_log(raw: RawServer):
    reply = raw.call("golden-lsp/noSuchThing", {})
    assert reply["error"]["code"] == -32601 and "golden-lsp/noSuchThing" in reply["error"]["message"]
    reply = raw.call("workspace/executeCommand", {"command": "golden-lsp.noSuchCommand", "arguments": []})
    assert reply["error"]["code"] == -32602
    assert (
        "golden-lsp.noSuchCommand" in reply["error"]["message"]
        and "golden-lsp.build" in reply["error"]["message"]
    )
    assert raw.call("workspace/executeCommand", {"command": "golden-lsp.check"})["result"]["records"] == 0
    # nothing was logged as an error, to the client or on stderr
    assert not [
        m for m in raw.received if m.get("method") == "window/logMessage" and m["params"]["type"] == 1
    ]
    assert "Traceback" not in raw.stderr and "unknown method" not in raw.stderr, raw.stderr


async def test_a_client_answering_apply_edit_with_null_still_gets_the_command_answered(
    commands_only: LanguageClient, golden_dir: Path
):
    """A client whose ``workspace/applyEdit`` handler answers ``null`` (no result object): the
    ``golden-lsp.applyEdit`` command answers (false: nothing known to be applied), the server
    carries on, and the session shuts down cleanly (the fixture's shutdown)."""
    client = commands_only
    client.apply_answer = None
    q, text, _, _ = ambiguous(golden_dir)
    uri = open_doc(client, q, text)
    pub = await published(client, uri, lambda p: any(d.code == "quote-ambiguous" for d in p.diagnostics))
    [amb] = [d for d in pub.diagnostics if d.code == "quote-ambiguous"]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), amb.range, types.CodeActionContext([amb]))
    )
    [lengthen, *_] = [a for a in actions if a.title.startswith("Lengthen to the occurrence at ")]
    answer = await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(lengthen.command, lengthen.arguments)
        ),
        timeout=30,
    )
    assert answer is False and len(client.applied) == 1
    hov = await hover_at(client, uri, amb.range.start)  # still serving
    assert hov.contents
    assert not [m for m in client.log_messages if m.type == types.MessageType.Error]
