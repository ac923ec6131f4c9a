"""First contact, round four (issue 30), over real JSON-RPC: completion items that replace exactly
what is typed inside a string, so that every client leaves the same line."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from conftest import SERVER, change_doc, init_params, open_doc, published, uri_of
from lsprotocol import types
from pytest_lsp import LanguageClient
from test_authoring import code_actions, complete, pos_of
from test_server import apply_edits, quote_columns, set_quote, utf16

SUBDOC = "user-guide/deploying-your-docs.md"
SUBCHAPTER = (
    "# Deploying your docs\n\nYou can deploy your documentation to any static host 🎉 once the site "
    'is built.\n\nThe build writes every page into the "site" folder for the host to serve.\n'
)


@pytest.fixture
def subfolder_set(golden_dir: Path) -> Path:
    """The example set with a chapter in a subfolder (the glob reads subfolders)."""
    (golden_dir / "corpus" / "user-guide").mkdir()
    (golden_dir / "corpus" / SUBDOC).write_text(SUBCHAPTER, encoding="utf-8")
    config = golden_dir / "golden-lsp.toml"
    config.write_text(config.read_text(encoding="utf-8").replace('glob = "*.md"', 'glob = "**/*.md"'))
    return golden_dir


async def complete_at(client: LanguageClient, golden_dir: Path, line: str) -> tuple[str, list]:
    """Completion at the ``|`` of ``line``, typed as the last line of the questions file; the line
    without the marker and the items."""
    return line.replace("|", "", 1), await complete(client, golden_dir, line)


def applied(line: str, item: types.CompletionItem) -> str:
    """The line with the item's edit applied (UTF-16 columns)."""
    edit = item.text_edit
    units = line.encode("utf-16-le")
    s, e = edit.range.start.character * 2, edit.range.end.character * 2
    return (units[:s] + edit.new_text.encode("utf-16-le") + units[e:]).decode("utf-16-le")


def typed_in_range(line: str, item: types.CompletionItem) -> str:
    units = line.encode("utf-16-le")
    r = item.text_edit.range
    return units[r.start.character * 2 : r.end.character * 2].decode("utf-16-le")


HEAD = '{"id": "ex900", "query": "q", "expected_answer": "An answer long enough to grade.", "locators": [{"doc": '


async def test_completion_replaces_what_is_typed_inside_a_closed_string(
    client: LanguageClient, subfolder_set: Path
):
    # a doc in a subfolder, the string closed by the editor: only the docs that match are offered
    line, items = await complete_at(client, subfolder_set, HEAD + '"user-guide/dep|"}]}')
    assert [i.label for i in items] == [SUBDOC]
    [item] = items
    assert typed_in_range(line, item) == "user-guide/dep" and item.filter_text == SUBDOC
    after = applied(line, item)
    assert json.loads(after)["locators"][0]["doc"] == SUBDOC
    # what a client that inserts the filterText over the typed text leaves is the same line
    assert line.replace("user-guide/dep", item.filter_text, 1) == after
    # a quote after an emoji, with a JSON escape typed: UTF-16 columns, escaped text in and out
    line, items = await complete_at(
        client,
        subfolder_set,
        HEAD + f'"{SUBDOC}", "quote": "The build writes every page into the \\"si|"}}]}}',
    )
    assert items and all(i.label.startswith('The build writes every page into the "si') for i in items)
    item = items[0]
    assert typed_in_range(line, item) == 'The build writes every page into the \\"si'
    assert item.filter_text == json.dumps(item.label, ensure_ascii=False)[1:-1]
    assert json.loads(applied(line, item))["locators"][0]["quote"] == item.label
    line, items = await complete_at(
        client, subfolder_set, HEAD + f'"{SUBDOC}", "quote": "any static host 🎉 on|"}}]}}'
    )
    assert items and typed_in_range(line, items[0]) == "any static host 🎉 on"
    assert json.loads(applied(line, items[0]))["locators"][0]["quote"] == items[0].label


async def test_completion_in_an_unclosed_string_closes_it(client: LanguageClient, subfolder_set: Path):
    line, items = await complete_at(client, subfolder_set, HEAD + '"user-guide/|')
    assert [i.label for i in items] == [SUBDOC]
    assert typed_in_range(line, items[0]) == "user-guide/" and items[0].text_edit.new_text == SUBDOC + '"'
    # keys: inside a closed key string only the name; outside a string the whole key and a colon
    line, items = await complete_at(client, subfolder_set, '{"id": "ex901", "qu|"')
    # every known key holding what is typed: request_id too, a record metadata field
    assert [i.label for i in items] == ["query", "query_type", "request_id"]
    assert items[0].text_edit.new_text == "query" and typed_in_range(line, items[0]) == "qu"
    line, items = await complete_at(client, subfolder_set, '{"id": "ex901", qu|')
    assert items[0].text_edit.new_text == '"query": ' and typed_in_range(line, items[0]) == "qu"
    # nothing is offered that does not match what is typed
    _line, items = await complete_at(client, subfolder_set, HEAD + '"zzz|')
    assert items == []


# --- a chapter renamed on disk while open ---------------------------------------------------------


def watched(client: LanguageClient, *changes: tuple[Path, types.FileChangeType]) -> None:
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(uri_of(p), kind) for p, kind in changes])
    )


def codes_on(pub, line: int) -> set[str]:
    return {str(d.code) for d in pub.diagnostics if d.range.start.line == line}


@pytest.mark.parametrize("told", [True, False])
async def test_an_open_chapter_renamed_on_disk_is_no_document(client: LanguageClient, golden_dir: Path, told):
    """The editor keeps the buffer of a chapter renamed on disk under its old name: it is no corpus
    document any more (``check`` sees no file there), told by a watcher (``told``) or found on the
    buffer's next edit; its lenses go, and its edits count for nothing."""
    q = golden_dir / "questions.jsonl"
    lines = q.read_text(encoding="utf-8").split("\n")
    line = next(i for i, s in enumerate(lines) if s.startswith("{") and json.loads(s)["locators"])
    doc = json.loads(lines[line])["locators"][0]["doc"]
    old = golden_dir / "corpus" / doc
    text = old.read_text(encoding="utf-8")
    quri, curi = open_doc(client, q), open_doc(client, old)
    pub = await published(client, quri)
    assert "unknown-doc" not in codes_on(pub, line)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(curi))
    )
    assert lenses
    new = old.with_name("renamed-" + old.name)
    old.rename(new)
    if told:
        watched(client, (old, types.FileChangeType.Deleted), (new, types.FileChangeType.Created))
    else:  # no watcher: the buffer's next edit finds its file gone
        change_doc(client, curi, 2, text + "\nAn edit of the orphaned buffer.\n")
    pub = await published(client, quri, lambda p: "unknown-doc" in codes_on(p, line))
    # an edit of the orphaned buffer (its old quote still there) does not bring the document back
    change_doc(client, curi, 3, text)
    assert not await client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(curi))
    )
    counts = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("golden-lsp.check", [quri])
    )
    assert counts["errors"] >= 1
    assert "unknown-doc" in codes_on([p for p in client.published if p.uri == quri][-1], line)


# --- the encoding a client counts in --------------------------------------------------------------


@pytest.mark.parametrize(
    "name, offered, negotiated",
    [
        ("emacs", None, "utf-32"),  # lsp-mode 8.0: counts code points, offers nothing
        ("emacs", ["utf-16"], "utf-16"),  # a client that offers is taken at its word
        ("Eglot", None, "utf-16"),  # eglot counts UTF-16, the default
    ],
)
async def test_a_client_that_counts_code_points_without_saying_so_gets_them(
    name: str, offered, negotiated: str, golden_dir: Path
):
    lsp_client = SERVER.client_factory()
    await lsp_client.start_io(*SERVER.server_command)
    try:
        params = init_params(golden_dir, offered)
        params.client_info = types.ClientInfo(name=name, version="28.2")
        result = await lsp_client.initialize_session(params)
        assert result.capabilities.position_encoding == negotiated
        q = golden_dir / "questions.jsonl"
        lines = q.read_text(encoding="utf-8").split("\n")
        n = next(i for i, s in enumerate(lines) if s.startswith("{") and json.loads(s)["locators"])
        rec = json.loads(lines[n])
        rec["query"] = "Where 🎉 is it?"
        rec["locators"][0]["quote"] = "X" + rec["locators"][0]["quote"]
        lines[n] = json.dumps(rec, ensure_ascii=False)
        uri = open_doc(lsp_client, q, "\n".join(lines))
        pub = await published(
            lsp_client, uri, lambda p: any(d.code == "quote-not-found" for d in p.diagnostics)
        )
        [nf] = [d for d in pub.diagnostics if d.code == "quote-not-found"]
        at = lines[n].index('"X')
        units = at if negotiated == "utf-32" else utf16(lines[n][:at])
        assert (nf.range.start.line, nf.range.start.character) == (n, units)
    finally:
        await lsp_client.shutdown_session()
        await lsp_client.stop()


# --- anchor here appends a line, not a blank one -----------------------------------------------------


@pytest.mark.parametrize(
    "ending, expected",
    [
        ("}\n", "}\n{new}\n"),  # before the final line break
        ("}\r\n", "}\r\n{new}\r\n"),  # a CRLF file stays one
        ("}\n\n", "}\n{new}\n"),  # into an empty last line
        ("}", "}\n{new}\n"),  # a file without a final line break
    ],
)
async def test_anchor_here_appends_the_last_line(client: LanguageClient, golden_dir: Path, ending, expected):
    q = golden_dir / "questions.jsonl"
    saved = q.read_text(encoding="utf-8").rstrip("\n")
    saved = saved[: saved.rindex("}")] + ending
    q.write_text(saved, encoding="utf-8", newline="")
    chapter = golden_dir / "corpus" / "01-planning-a-hut-tour.md"
    raw = chapter.read_text(encoding="utf-8")
    at = pos_of(raw, "plan with times too", 5)
    actions = await code_actions(client, open_doc(client, chapter), types.Range(at, at))
    new = next(a for a in actions if a.title == "New golden question anchored here")
    [edit] = new.edit.changes[uri_of(q)]
    text = apply_edits(saved, [edit])
    added = edit.new_text.strip("\r\n")
    assert text == saved[: saved.rindex("}")] + expected.replace("{new}", added)
    assert json.loads(added)["locators"][0]["doc"] == chapter.name


# --- a questions file with no config --------------------------------------------------------------


async def test_a_questions_file_without_a_config_is_told_how_to_make_one(
    client: LanguageClient, tmp_path: Path
):
    folder = tmp_path / "loose"
    (folder / "docs" / "guide").mkdir(parents=True)
    (folder / "docs" / "guide" / "start.md").write_text(
        "# Start\n\nInstall the tool with pip and run the development server to preview.\n", encoding="utf-8"
    )
    q = folder / "questions.jsonl"
    record = {
        "id": "q1",
        "query": "How is the tool installed?",
        "expected_answer": "With pip, then run the development server.",
        "locators": [{"doc": "guide/start.md", "quote": "Install the tool with pip"}],
    }
    q.write_text(json.dumps(record) + "\n", encoding="utf-8")
    uri = open_doc(client, q)
    pub = await published(client, uri, lambda p: p.diagnostics)
    [d] = pub.diagnostics
    assert d.code == "config-error" and "--corpus" not in d.message
    assert "create golden-lsp.toml beside this file" in d.message and 'corpus = "docs"' in d.message
    # VS Code creates files through edits: the quick fix is one, with the config's text
    actions = await code_actions(client, uri, d.range)
    [fix] = [a for a in actions if a.title.startswith("Create golden-lsp.toml here")]
    assert fix.kind == types.CodeActionKind.QuickFix and "(corpus docs)" in fix.title
    create, insert = fix.edit.document_changes
    assert create.kind == "create" and create.uri == uri_of(folder / "golden-lsp.toml")
    config = insert.edits[0].new_text
    assert 'corpus = "docs"' in config and 'glob = "**/*.md"' in config
    # a client that does not (eglot 1.9) runs the server's command, which writes the same file
    done = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("golden-lsp.createConfig", [uri])
    )
    assert done["ok"] is True and (folder / "golden-lsp.toml").read_text(encoding="utf-8") == config
    # the file is checked at once with it: the record resolves
    pub = await published(client, uri, lambda p: not any(x.code == "config-error" for x in p.diagnostics))
    assert not [x for x in pub.diagnostics if str(x.code).startswith(("quote-", "unknown-doc"))]
    # never over an existing file
    again = await client.workspace_execute_command_async(
        types.ExecuteCommandParams("golden-lsp.createConfig", [uri])
    )
    assert again["ok"] is False and (folder / "golden-lsp.toml").read_text(encoding="utf-8") == config


def test_without_file_creation_through_edits_the_quick_fix_is_the_command(tmp_path: Path):
    from golden_lsp.server.newconfig import CREATE_CONFIG_COMMAND
    from golden_lsp.server.newconfig import code_actions as config_actions

    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.md").write_text("# A\n", encoding="utf-8")
    q = tmp_path / "questions.jsonl"
    [fix] = config_actions(uri_of(q), q, create_files=False)
    assert fix.edit is None and fix.command.command == CREATE_CONFIG_COMMAND
    assert fix.command.arguments == [uri_of(q)] and fix.title.endswith("(corpus corpus)")


# --- nothing benign is logged as an error ---------------------------------------------------------


def test_a_cancel_of_a_request_already_answered_writes_nothing_to_stderr(golden_dir: Path):
    """Clients log a server's stderr as errors (Neovim's lsp.log): cancelling a request the server
    has answered — the usual race — must write nothing there; the server still answers."""
    from raw_lsp import RawServer

    server = RawServer(golden_dir)
    try:
        server.initialize(golden_dir)
        answered = server.call("workspace/symbol", {"query": "hut"})
        assert "result" in answered
        server.notify("$/cancelRequest", {"id": answered["id"]})
        server.notify("$/cancelRequest", {"id": 4242})
        assert "result" in server.call("workspace/symbol", {"query": "hut"})
        server.call("shutdown")
        server.notify("exit")
    finally:
        server.close()
    assert server.stderr.strip() == ""


# --- the hover of an ambiguous quote ----------------------------------------------------------------


async def test_the_hover_of_an_ambiguous_quote_shows_its_occurrences_not_the_findings_message(
    client: LanguageClient, golden_dir: Path
):
    """VS Code shows a finding's message in the hover beside the server's: the hover names the
    finding and shows what the finding does not, each occurrence in its line."""
    q = golden_dir / "questions.jsonl"
    lines = q.read_text(encoding="utf-8").split("\n")
    n = next(i for i, s in enumerate(lines) if s.startswith("{") and json.loads(s)["locators"])
    doc = json.loads(lines[n])["locators"][0]["doc"]
    lines[n] = set_quote(lines[n], "hut")
    uri = open_doc(client, q, "\n".join(lines))
    pub = await published(client, uri, lambda p: any(d.code == "quote-ambiguous" for d in p.diagnostics))
    [amb] = [d for d in pub.diagnostics if d.code == "quote-ambiguous" and d.range.start.line == n]
    s, _ = quote_columns(lines[n])
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(n, utf16(lines[n][: s + 2])))
    )
    text = hover.contents.value
    assert "quote-ambiguous" in text and amb.message not in text
    chapter = (golden_dir / "corpus" / doc).read_text(encoding="utf-8").split("\n")
    shown = [row for row in text.split("\n") if row.startswith("| ") and ":" in row.split("|")[1]]
    assert len(shown) >= 2
    for row in shown:
        place, context = row.split("|")[1].strip(), row.split("|")[2].strip()
        line_no, _col = map(int, place.split(":"))
        assert "hut" in context and context.replace("\\|", "|") in " ".join(chapter[line_no - 1].split())


# --- the set's findings sit where a person acts on them ---------------------------------------------


async def test_a_documents_finding_is_published_in_that_document(client: LanguageClient, golden_dir: Path):
    """doc-unlabelled goes to the chapter no question points into (as check prints it there), not
    to the questions file's first record; labelled at last, the chapter's finding is withdrawn."""
    chapter = golden_dir / "corpus" / "05-unlabelled.md"
    chapter.write_text(
        "# Unlabelled\n\nNobody has asked about the winter room of the hut yet.\n", encoding="utf-8"
    )
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8")
    uri = open_doc(client, q, text)
    pub = await published(client, uri_of(chapter), lambda p: p.diagnostics)
    [d] = pub.diagnostics
    assert d.code == "doc-unlabelled" and d.range.start.line == 0 and "05-unlabelled.md" in d.message
    assert not [x for x in (await published(client, uri)).diagnostics if x.code == "doc-unlabelled"]
    record = {
        "id": "ex900",
        "query": "Has anyone asked about the winter room?",
        "expected_answer": "Nobody has asked about the winter room of the hut yet.",
        "locators": [{"doc": chapter.name, "quote": "the winter room of the hut"}],
    }
    since = len(client.published)
    change_doc(client, uri, 2, text.rstrip("\n") + "\n" + json.dumps(record) + "\n")
    await published(client, uri_of(chapter), lambda p: not p.diagnostics, since=since)


async def test_a_client_that_pulls_gets_a_chapters_finding_when_it_pulls_the_chapter(
    pull_client: LanguageClient, golden_dir: Path
):
    chapter = golden_dir / "corpus" / "05-unlabelled.md"
    chapter.write_text(
        "# Unlabelled\n\nNobody has asked about the winter room of the hut yet.\n", encoding="utf-8"
    )
    q = golden_dir / "questions.jsonl"
    uri = open_doc(pull_client, q)
    curi = open_doc(pull_client, chapter)

    async def pulled(target: str):
        report = await pull_client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(types.TextDocumentIdentifier(target))
        )
        return [d.code for d in report.items]

    await pulled(uri)  # the questions file analysed (the chapter's findings placed)
    for _ in range(100):
        if "doc-unlabelled" in await pulled(curi):
            break
        await asyncio.sleep(0.05)
    assert await pulled(curi) == ["doc-unlabelled"]
    assert "doc-unlabelled" not in await pulled(uri)
