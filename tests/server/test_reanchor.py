"""Re-anchoring in the editor, over real JSON-RPC: in a set whose corpus is in git and whose
manifest records the commit v1 was built from, each label the v2 corpus broke gets the quick fix
``golden-lsp migrate`` would apply (the very same rewrite of its line), its hover says what it
used to span, and a set whose corpus is not in git gets no such fix."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import pytest_lsp
from conftest import SERVER, init_params, open_doc, published, uri_of
from core_support import run_cli
from lsprotocol import types
from migrate_support import built_repository
from pytest_lsp import LanguageClient
from test_server import apply_edits, set_quote, utf16

BROKEN = ("quote-not-found", "quote-ambiguous", "unknown-doc")


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    return built_repository(tmp_path)


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, repo: tuple[Path, str]):
    await lsp_client.initialize_session(init_params(repo[0]))
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def plain_client(lsp_client: LanguageClient, golden_dir: Path):
    await lsp_client.initialize_session(init_params(golden_dir))
    yield lsp_client
    await lsp_client.shutdown_session()


async def broken_findings(client: LanguageClient, root: Path) -> tuple[str, str, list[types.Diagnostic]]:
    questions = root / "questions.jsonl"
    text = questions.read_text(encoding="utf-8")
    uri = open_doc(client, questions, text)
    pub = await published(client, uri, lambda p: any(d.code in BROKEN for d in p.diagnostics))
    return uri, text, [d for d in pub.diagnostics if d.code in BROKEN]


async def actions_for(client: LanguageClient, uri: str, d: types.Diagnostic) -> list[types.CodeAction]:
    found = await client.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), d.range, types.CodeActionContext([d]))
    )
    return [a for a in found or [] if isinstance(a, types.CodeAction) and a.title.startswith("Re-anchor")]


async def test_the_quick_fix_is_the_rewrite_migrate_makes(client: LanguageClient, repo, tmp_path: Path):
    root, v1 = repo
    uri, text, broken = await broken_findings(client, root)
    assert len(broken) == 10
    # what migrate --write makes of the same set (in a copy)
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    assert run_cli(["migrate", copy, "--from", v1, "--write"], tmp_path).returncode == 0
    migrated = (copy / "questions.jsonl").read_text(encoding="utf-8").split("\n")
    lines = text.split("\n")
    titles = {}
    for d in broken:
        fixes = await actions_for(client, uri, d)
        line = d.range.start.line
        if lines[line] == migrated[line]:  # lost or ambiguous: migrate leaves it, so does the editor
            assert fixes == [], (d.message, [a.title for a in fixes])
            continue
        (fix,) = fixes
        assert fix.kind == types.CodeActionKind.QuickFix and fix.diagnostics[0].code == d.code
        edits = fix.edit.changes[uri]
        assert all(e.range.start.line == e.range.end.line == line for e in edits)
        assert apply_edits(text, edits).split("\n")[line] == migrated[line]
        titles[line] = (fix.title, fix.is_preferred)
    by_id = {i: re.search(r'"id": "([^"]+)"', lines[i]).group(1) for i in titles}
    got = {by_id[i]: title for i, title in titles.items()}
    assert got["folder"] == ("Re-anchor (moved to wheels/tyres.md)", True)
    assert got["renamed"] == ("Re-anchor (moved to drivetrain.md)", True)
    assert got["copied"] == ("Re-anchor (requoted)", True)
    assert (
        re.fullmatch(r"Re-anchor \(edited, 9\d % similar\)", got["reworded"][0])
        and got["reworded"][1] is False
    )
    assert set(got) == {
        "reworded",
        "folder",
        "renamed",
        "requote-moved",
        "between-files",
        "copied",
        "multi",
        "exact",
    }


async def test_hover_on_a_broken_label_says_what_it_used_to_span(client: LanguageClient, repo):
    root, _ = repo
    uri, text, _ = await broken_findings(client, root)
    lines = text.split("\n")

    async def hover_on(record_id: str, needle: str) -> str:
        line = next(i for i, x in enumerate(lines) if f'"id": "{record_id}"' in x)
        col = lines[line].index(needle) + 2
        h = await client.text_document_hover_async(
            types.HoverParams(
                types.TextDocumentIdentifier(uri), types.Position(line, utf16(lines[line][:col]))
            )
        )
        return h.contents.value

    reworded = await hover_on("reworded", '"check their thickness')
    assert (
        "**quote** → not resolved" in reworded
        and "**used to span** at the manifest's corpus_commit" in reworded
    )
    assert "`brakes.md` (paragraph)" in reworded
    assert (
        "Pads wear faster in gritty conditions; check their thickness before every long descent" in reworded
    )
    assert "**re-anchor** (edited, " in reworded
    folder = await hover_on("folder", '"tyres.md"')  # unknown-doc: hover on the doc
    assert "is not in the corpus" in folder and "`tyres.md` (paragraph)" in folder
    assert "Tubeless tyres seal small punctures on their own" in folder
    assert "**re-anchor** (moved to wheels/tyres.md) → `wheels/tyres.md`" in folder
    deleted = await hover_on("deleted", '"housing lubricated')
    assert "Cable brakes need their housing lubricated every spring" in deleted and "**lost**" in deleted
    kept = await hover_on("kept", '"rotor sits away')
    assert "used to span" not in kept  # a label that resolves shows its span, as always


async def test_no_reanchoring_when_the_corpus_is_not_in_git(plain_client: LanguageClient, golden_dir: Path):
    """The example set copied out of its repository: its manifest names a commit no git can read."""
    root = golden_dir
    questions = root / "questions.jsonl"
    lines = questions.read_text(encoding="utf-8").split("\n")
    first = next(i for i, x in enumerate(lines) if x.startswith("{"))
    lines[first] = set_quote(lines[first], "words the corpus never held")
    client = plain_client
    uri = open_doc(client, questions, "\n".join(lines))
    pub = await published(client, uri, lambda p: any(d.code == "quote-not-found" for d in p.diagnostics))
    d = next(d for d in pub.diagnostics if d.code == "quote-not-found")
    assert await actions_for(client, uri, d) == []
    h = await client.text_document_hover_async(
        types.HoverParams(
            types.TextDocumentIdentifier(uri), types.Position(first, d.range.start.character + 2)
        )
    )
    assert "used to span" not in h.contents.value
    assert uri_of(questions) == uri
