"""The server's commands that write act only inside the client's workspace folders, over real
JSON-RPC: ``golden-lsp.build`` (and ``golden-lsp.report``, ``golden-lsp.applyEdit``) given a set
outside them is refused with a message, nothing written; the same build inside the workspace is
done. ``golden-lsp.createConfig`` writes only beside an open questions file without a config
(``test_server_contact``: a loose one outside the folders), and nothing for any other URI."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import EXAMPLES, open_doc, uri_of
from lsprotocol import types
from pytest_lsp import LanguageClient

ARTIFACT = "golden-set.v1.jsonl"


async def test_commands_that_write_refuse_a_set_outside_the_workspace(
    client: LanguageClient, golden_dir: Path
):
    other = shutil.copytree(EXAMPLES, golden_dir.parent / "elsewhere")
    (other / ARTIFACT).write_text("", encoding="utf-8")  # stale: a build would rewrite it
    before = {p.name: p.read_bytes() for p in other.iterdir() if p.is_file()}
    questions = other / "questions.jsonl"
    open_doc(client, questions)
    for command in ("golden-lsp.build", "golden-lsp.report"):
        answer = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command, [uri_of(questions)])
        )
        assert answer["ok"] is False and "outside the workspace folders" in answer["message"], answer
    edit = {
        "changes": {
            uri_of(questions): [
                {
                    "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                    "newText": "x",
                }
            ]
        }
    }
    assert not await client.workspace_execute_command_async(
        types.ExecuteCommandParams("golden-lsp.applyEdit", [edit])
    )
    assert client.applied == []
    refused = [m.message for m in client.messages if "outside the workspace folders" in m.message]
    assert len(refused) == 3 and all(str(other) in m for m in refused), client.messages
    assert {p.name: p.read_bytes() for p in other.iterdir() if p.is_file()} == before
    # the same command on the workspace's own set writes
    (golden_dir / ARTIFACT).write_text("", encoding="utf-8")
    inside = golden_dir / "questions.jsonl"
    answer = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("golden-lsp.build", [uri_of(inside)])
    )
    assert answer["ok"] is True, answer
    assert (golden_dir / ARTIFACT).read_text(encoding="utf-8")


async def test_create_config_writes_nothing_for_a_file_not_open_or_configured(
    client: LanguageClient, golden_dir: Path
):
    loose = golden_dir.parent / "loose"
    (loose / "docs").mkdir(parents=True)
    (loose / "docs" / "a.md").write_text("# A\n\nSome text to label here.\n", encoding="utf-8")
    questions = loose / "questions.jsonl"
    questions.write_text("", encoding="utf-8")
    configured = golden_dir / "questions.jsonl"
    open_doc(client, configured)
    for uri in (uri_of(questions), uri_of(configured), "file:///etc/passwd", 7):
        answer = await client.workspace_execute_command_async(
            types.ExecuteCommandParams("golden-lsp.createConfig", [uri])
        )
        assert answer["ok"] is False and "not an open questions file without a config" in answer["message"]
    assert not (loose / "golden-lsp.toml").exists()
