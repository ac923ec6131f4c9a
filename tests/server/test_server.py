"""End-to-end tests of the language server over real JSON-RPC (pytest-lsp)."""

from __future__ import annotations

import ast
import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SERVER, change_doc, init_params, latest_publications, open_doc, published, uri_of
from lsprotocol import types
from pytest_lsp import LanguageClient

from golden_lsp.core.labels.resolve import occurrences

CHAPTER = "01-planning-a-hut-tour.md"


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return utf16(text)


def record_lines(text: str) -> list[int]:
    return [i for i, line in enumerate(text.split("\n")) if line.startswith("{")]


def set_quote(line: str, quote: str, index: int = 0) -> str:
    """The JSONL line with its index-th locator's quote replaced (serialised like an author would)."""
    obj = json.loads(line)
    obj["locators"][index]["quote"] = quote
    return json.dumps(obj, ensure_ascii=False)


def quote_columns(line: str, index: int = 0) -> tuple[int, int]:
    """Code-point [start, end) of the index-th quote's JSON string token in ``line``."""
    pos = -1
    for _ in range(index + 1):
        pos = line.index('"quote": ', pos + 1)
    start = pos + len('"quote": ')
    token = json.dumps(json.loads(line)["locators"][index]["quote"], ensure_ascii=False)
    assert line[start : start + len(token)] == token
    return start, start + len(token)


def first_record_in(text: str, doc: str) -> int:
    lines = text.split("\n")
    return next(i for i in record_lines(text) if json.loads(lines[i])["locators"][0]["doc"] == doc)


async def opened_chapter_record(client: LanguageClient, golden_dir: Path) -> tuple[str, str, int, str]:
    """The example questions file opened and analysed: its URI and text, and the number and text
    of its first line with a record into CHAPTER."""
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8")
    uri = open_doc(client, q, text)
    await published(client, uri)
    n = first_record_in(text, CHAPTER)
    return uri, text, n, text.split("\n")[n]


def client_lines(text: str) -> list[str]:
    """Lines as an LSP client counts them, each with its line break."""
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)


def apply_edits(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP (UTF-16) edits to ``text`` the way an editor does."""
    lines = client_lines(text)

    def offset(pos: types.Position) -> int:
        base = sum(len(x) for x in lines[: pos.line])
        line, units_left, i = lines[pos.line], pos.character, 0
        while units_left > 0:
            units_left -= utf16(line[i])
            i += 1
        return base + i

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


def action_command(action) -> dict | None:
    """The command of a code action as sent on the wire.

    lsprotocol's client-side hook structures every CodeAction that carries a ``command`` as a
    bare ``Command`` (it only tests for the key), stringifying the nested command; undo that.
    """
    if isinstance(action, types.CodeAction):
        return (
            None
            if action.command is None
            else {"command": action.command.command, "arguments": action.command.arguments}
        )
    if action.command.startswith("{"):
        return ast.literal_eval(action.command)
    return {"command": action.command, "arguments": action.arguments}


def codes(diags) -> list[str]:
    return sorted(str(d.code) for d in diags)


@pytest.fixture
def ambiguous_set(golden_dir: Path) -> tuple[Path, str, int]:
    """The example set with the first locator into CHAPTER replaced by the ambiguous quote 'hut'."""
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8")
    n = first_record_in(text, CHAPTER)
    lines = text.split("\n")
    lines[n] = set_quote(lines[n], "hut")
    return q, "\n".join(lines), n


async def test_diagnostics_match_the_cli(client: LanguageClient, ambiguous_set, golden_dir: Path):
    q, text, n = ambiguous_set
    lines = text.split("\n")
    other = record_lines(text)[-1]
    lines[other] = set_quote(lines[other], "words that are nowhere in the chapter")
    text = "\n".join(lines)
    q.write_text(text, encoding="utf-8")
    uri = open_doc(client, q, text)
    pub = await published(client, uri, lambda p: p.diagnostics)
    assert pub.version == 1
    by_code = {d.code: d for d in pub.diagnostics}
    amb = by_code["quote-ambiguous"]
    start, end = quote_columns(lines[n])
    assert (amb.range.start.line, amb.range.start.character, amb.range.end.character) == (
        n,
        utf16(lines[n][:start]),
        utf16(lines[n][:end]),
    )
    corpus_text = (golden_dir / "corpus" / CHAPTER).read_text(encoding="utf-8")
    assert len(amb.related_information) == len(occurrences(corpus_text, "hut"))
    corpus_lines = corpus_text.split("\n")
    for rel in amb.related_information:
        assert rel.location.uri == uri_of(golden_dir / "corpus" / CHAPTER)
        r = rel.location.range
        assert r.start.line == r.end.line
        assert (
            corpus_lines[r.start.line]
            .encode("utf-16-le")[2 * r.start.character : 2 * r.end.character]
            .decode("utf-16-le")
            == "hut"
        )
    nf = by_code["quote-not-found"]
    start, _ = quote_columns(lines[other])
    assert (nf.range.start.line, nf.range.start.character) == (other, utf16(lines[other][:start]))
    # The CLI reports the very same findings (stale-* are hints in the editor, errors in CI).
    cli = subprocess.run(
        [sys.executable, "-m", "golden_lsp", "check", "--format", "json", str(q)],
        capture_output=True,
        text=True,
        cwd=golden_dir,
    )
    assert cli.returncode == 1
    cli_findings = sorted((f["code"], f["line"] - 1, f["message"]) for f in json.loads(cli.stdout))
    lsp_findings = sorted((d.code, d.range.start.line, d.message) for d in pub.diagnostics)
    assert lsp_findings == cli_findings
    severities = {d.code: d.severity for d in pub.diagnostics}
    assert severities["quote-ambiguous"] == types.DiagnosticSeverity.Error


async def test_hover_on_quote_id_and_doc(client: LanguageClient, golden_dir: Path):
    uri, _text, n, line = await opened_chapter_record(client, golden_dir)
    start, _end = quote_columns(line)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(n, utf16(line[: start + 3])))
    )
    value = hover.contents.value
    artifact = [
        json.loads(x) for x in (golden_dir / "golden-set.v1.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    rec = next(r for r in artifact if r["query_id"] == json.loads(line)["id"])
    span = rec["answer_spans"][0]
    assert f"`{CHAPTER}`" in value
    assert f"chars {span['char_start']}–{span['char_end']}" in value
    assert "(paragraph)" in value or "(list item)" in value or "(table row)" in value
    assert all(f"`{cid[:12]}`" in value for cid in rec["answer_bearing_chunk_ids"])
    assert "union coverage** 1.0" in value
    assert hover.range.start == types.Position(n, utf16(line[:start]))
    id_col = line.index('"id": ') + 8
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(n, id_col))
    )
    assert f"**{rec['query_id']}**" in hover.contents.value and "in the artifact" in hover.contents.value
    doc_col = line.index(f'"{CHAPTER}"') + 2
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(n, doc_col))
    )
    chars = len((golden_dir / "corpus" / CHAPTER).read_text(encoding="utf-8"))
    assert f"{chars:,} chars" in hover.contents.value and "chunks" in hover.contents.value


async def test_lengthen_action_resolves_to_the_chosen_occurrence(
    client: LanguageClient, ambiguous_set, golden_dir: Path
):
    q, text, n = ambiguous_set
    uri = open_doc(client, q, text)
    pub = await published(client, uri, lambda p: any(d.code == "quote-ambiguous" for d in p.diagnostics))
    amb = next(d for d in pub.diagnostics if d.code == "quote-ambiguous")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), amb.range, types.CodeActionContext([amb]))
    )
    lengthen = [a for a in actions if a.title.startswith("Lengthen to the occurrence at ")]
    corpus_text = (golden_dir / "corpus" / CHAPTER).read_text(encoding="utf-8")
    found = occurrences(corpus_text, "hut")
    assert len(lengthen) == len(found) >= 2
    choice = 1
    action = lengthen[choice]
    edits = action.edit.changes[uri]
    assert len(edits) == 1 and edits[0].range.start.line == edits[0].range.end.line == n
    new_text = apply_edits(text, edits)
    old_lines, new_lines = text.split("\n"), new_text.split("\n")
    assert [i for i, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b] == [n]
    new_quote = json.loads(new_lines[n])["locators"][0]["quote"]
    assert "hut" in new_quote and "\n" not in new_quote
    where = occurrences(corpus_text, new_quote)
    assert len(where) == 1 and where[0] <= found[choice] < where[0] + len(new_quote)
    line_no = corpus_text.count("\n", 0, found[choice]) + 1
    col = found[choice] - corpus_text.rfind("\n", 0, found[choice])
    assert action.title == f"Lengthen to the occurrence at {line_no}:{col}"
    change_doc(client, uri, 2, new_text)
    pub = await published(client, uri, lambda p: p.version == 2)
    assert "quote-ambiguous" not in codes(pub.diagnostics)
    assert not [d for d in pub.diagnostics if d.severity == types.DiagnosticSeverity.Error]


async def corpus_text_fixes(client: LanguageClient, q: Path, text: str):
    """Open ``text`` as the questions file; its quote-not-found and the "Use the corpus text" actions."""
    uri = open_doc(client, q, text)
    pub = await published(client, uri, lambda p: any(d.code == "quote-not-found" for d in p.diagnostics))
    nf = next(d for d in pub.diagnostics if d.code == "quote-not-found")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), nf.range, types.CodeActionContext([nf]))
    )
    return uri, nf, [a for a in actions if a.title.startswith("Use the corpus text")]


async def test_typography_hint_and_its_fix(client: LanguageClient, golden_dir: Path):
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8")
    lines = text.split("\n")
    n = next(
        i
        for i in record_lines(text)
        if any(c in json.loads(lines[i])["locators"][0]["quote"] for c in "’—–“”")
    )
    quote = json.loads(lines[n])["locators"][0]["quote"]
    plain = quote.translate(str.maketrans({"’": "'", "—": "-", "–": "-", "“": '"', "”": '"'}))
    lines[n] = set_quote(lines[n], plain)
    text = "\n".join(lines)
    uri, nf, fixes = await corpus_text_fixes(client, q, text)
    assert "different quotes or dashes" in nf.message
    fix = fixes[0]
    new_text = apply_edits(text, fix.edit.changes[uri])
    assert json.loads(new_text.split("\n")[n])["locators"][0]["quote"] == quote
    change_doc(client, uri, 2, new_text)
    pub = await published(client, uri, lambda p: p.version == 2)
    assert "quote-not-found" not in codes(pub.diagnostics)


@pytest.mark.parametrize("record_id", ["ex001", "ex037"])  # ex037 quotes text after an emoji
async def test_definition_opens_the_resolved_span(client: LanguageClient, golden_dir: Path, record_id: str):
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8")
    uri = open_doc(client, q, text)
    await published(client, uri)
    n = next(i for i in record_lines(text) if json.loads(text.split("\n")[i])["id"] == record_id)
    line = text.split("\n")[n]
    chapter = json.loads(line)["locators"][0]["doc"]
    start, _ = quote_columns(line)
    result = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri), types.Position(n, utf16(line[: start + 2])))
    )
    (loc,) = result
    artifact = [
        json.loads(x) for x in (golden_dir / "golden-set.v1.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    span = next(r for r in artifact if r["query_id"] == json.loads(line)["id"])["answer_spans"][0]
    corpus_text = (golden_dir / "corpus" / chapter).read_text(encoding="utf-8")

    def pos(offset: int) -> types.Position:
        line_start = corpus_text.rfind("\n", 0, offset) + 1
        return types.Position(corpus_text.count("\n", 0, offset), utf16(corpus_text[line_start:offset]))

    assert loc.uri == uri_of(golden_dir / "corpus" / chapter)
    assert (loc.range.start, loc.range.end) == (pos(span["char_start"]), pos(span["char_end"]))


async def test_corpus_edit_breaks_a_quote_immediately(client: LanguageClient, golden_dir: Path):
    uri, _text, n, line = await opened_chapter_record(client, golden_dir)
    quote = json.loads(line)["locators"][0]["quote"]
    chapter = golden_dir / "corpus" / CHAPTER
    corpus_uri = open_doc(client, chapter)
    broken = chapter.read_text(encoding="utf-8").replace(quote, quote.upper() + " (edited)")
    change_doc(client, corpus_uri, 2, broken)
    pub = await published(client, uri, lambda p: any(d.code == "quote-not-found" for d in p.diagnostics))
    nf = next(d for d in pub.diagnostics if d.code == "quote-not-found")
    assert nf.range.start.line == n
    # Closing the chapter unsaved reverts to the text on disk: the quote resolves again.
    count = len(client.published)
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(corpus_uri)))
    await published(client, uri, lambda p: "quote-not-found" not in codes(p.diagnostics), since=count)


async def test_corpus_change_on_disk_is_picked_up(client: LanguageClient, golden_dir: Path):
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8")
    uri = open_doc(client, q, text)
    await published(client, uri)
    (watch,) = [r for r in client.registrations if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    assert "**/*.md" in [w["globPattern"] for w in watch.register_options["watchers"]]
    n = first_record_in(text, CHAPTER)
    quote = json.loads(text.split("\n")[n])["locators"][0]["quote"]
    chapter = golden_dir / "corpus" / CHAPTER
    chapter.write_text(chapter.read_text(encoding="utf-8").replace(quote, "(removed)"), encoding="utf-8")
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(uri_of(chapter), types.FileChangeType.Changed)])
    )
    pub = await published(client, uri, lambda p: any(d.code == "quote-not-found" for d in p.diagnostics))
    assert {d.range.start.line for d in pub.diagnostics if d.code == "quote-not-found"} == {n}


async def test_stale_version_never_overwrites_a_newer_one(client: LanguageClient, ambiguous_set):
    q, broken, n = ambiguous_set
    good = q.read_text(encoding="utf-8")
    uri = open_doc(client, q, good)
    await published(client, uri, lambda p: p.version == 1)
    for version in range(2, 12):  # a burst of edits, alternating broken and good text
        change_doc(client, uri, version, broken if version % 2 == 0 else good)
    last = await published(client, uri, lambda p: p.version == 11)
    assert not [d for d in last.diagnostics if d.severity == types.DiagnosticSeverity.Error]
    versions = [p.version for p in client.published if p.uri == uri]
    assert versions == sorted(versions)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            types.TextDocumentIdentifier(uri), types.Position(n, quote_columns(good.split("\n")[n])[0] + 1)
        )
    )
    assert "not resolved" not in hover.contents.value


async def test_document_symbols_list_every_record(client: LanguageClient, golden_dir: Path):
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8")
    uri = open_doc(client, q, text)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
    )
    lines = text.split("\n")
    expected = [f"{json.loads(lines[i])['id']} — {json.loads(lines[i])['query']}" for i in record_lines(text)]
    assert [s.name for s in symbols] == expected
    assert [s.range.start.line for s in symbols] == record_lines(text)


async def test_stale_artifact_hint_and_build_command(client: LanguageClient, golden_dir: Path):
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8")
    lines = text.split("\n")
    n = record_lines(text)[0]
    obj = json.loads(lines[n])
    obj["expected_answer"] += " (revised)"
    lines[n] = json.dumps(obj, ensure_ascii=False)
    text = "\n".join(lines)
    q.write_text(text, encoding="utf-8")  # saved: the build reads the file, as CI does
    uri = open_doc(client, q, text)
    pub = await published(client, uri, lambda p: any(d.code == "stale-artifact" for d in p.diagnostics))
    stale = next(d for d in pub.diagnostics if d.code == "stale-artifact")
    assert stale.severity == types.DiagnosticSeverity.Hint and stale.range.start.line == n
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri), stale.range, types.CodeActionContext([stale])
        )
    )
    (build,) = [c for c in map(action_command, actions) if c and c["command"] == "golden-lsp.build"]
    assert build["arguments"] == [uri]
    count = len(client.published)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(build["command"], build["arguments"])
    )
    assert result["ok"] is True
    await published(
        client, uri, lambda p: not any(str(d.code).startswith("stale-") for d in p.diagnostics), since=count
    )
    assert "(revised)" in (golden_dir / "golden-set.v1.jsonl").read_text(encoding="utf-8")
    assert client.statuses and client.statuses[-1]["errors"] == 0


async def test_server_survives_bad_requests(client: LanguageClient, golden_dir: Path):
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8") + '{"id": broken\n[1, 2]\n{"id": "x", "locators": "no"}\n'
    uri = open_doc(client, q, text)
    pub = await published(client, uri, lambda p: p.diagnostics)
    assert {"invalid-json", "not-an-object", "wrong-type", "missing-field"} <= set(codes(pub.diagnostics))
    ident = types.TextDocumentIdentifier(uri)
    for pos in (
        types.Position(10_000, 0),
        types.Position(0, 10_000),
        types.Position(len(text.split("\n")) - 2, 3),
    ):
        await client.text_document_hover_async(types.HoverParams(ident, pos))
        await client.text_document_definition_async(types.DefinitionParams(ident, pos))
        await client.text_document_code_action_async(
            types.CodeActionParams(ident, types.Range(pos, pos), types.CodeActionContext([]))
        )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=3, uri="file:///not/open.jsonl"),
            [types.TextDocumentContentChangeWholeDocument("x")],
        )
    )
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(ident))
    assert len(symbols) == len(record_lines(q.read_text(encoding="utf-8"))) + 1


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
async def test_positions_through_emoji_and_escapes(encoding: str, golden_dir: Path):
    """Ranges in the negotiated encoding, and incremental edits expressed in it."""
    lsp_client = SERVER.client_factory()
    await lsp_client.start_io(*SERVER.server_command)
    try:
        result = await lsp_client.initialize_session(init_params(golden_dir, [encoding]))
        assert result.capabilities.position_encoding == encoding
        q = golden_dir / "questions.jsonl"
        text = q.read_text(encoding="utf-8")
        n = first_record_in(text, "03-life-in-the-hut.md")
        lines = text.split("\n")
        obj = json.loads(lines[n])
        obj["query"] = '🏔️ a "quoted" 🍞 query?'
        lines[n] = json.dumps(obj, ensure_ascii=False).replace('"doc"', '"doc"', 1)
        # an escaped é and a quote after the emoji: the range must count them as the client does
        lines[n] = lines[n].replace(
            json.dumps(obj["locators"][0]["quote"], ensure_ascii=False), '"nowhere \\u00e9 \\"x\\" 🍞"', 1
        )
        text = "\n".join(lines)
        uri = open_doc(lsp_client, q, text)
        pub = await published(lsp_client, uri, lambda p: p.diagnostics)
        nf = next(d for d in pub.diagnostics if d.code == "quote-not-found")
        line = lines[n]
        start = line.index('"nowhere')
        end = start + len('"nowhere \\u00e9 \\"x\\" 🍞"')
        assert (nf.range.start.line, nf.range.start.character, nf.range.end.character) == (
            n,
            units(line[:start], encoding),
            units(line[:end], encoding),
        )
        # An incremental edit in the client's units: delete the token "nowhere " after the emoji.
        cut = types.Range(
            types.Position(n, units(line[: start + 1], encoding)),
            types.Position(n, units(line[: start + 9], encoding)),
        )
        lsp_client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=2, uri=uri),
                [types.TextDocumentContentChangePartial(cut, "")],
            )
        )
        pub = await published(lsp_client, uri, lambda p: p.version == 2)
        nf = next(d for d in pub.diagnostics if d.code == "quote-not-found")
        assert (nf.range.start.character, nf.range.end.character) == (
            units(line[:start], encoding),
            units(line[:end], encoding) - units("nowhere ", encoding),
        )
        symbols = await lsp_client.text_document_document_symbol_async(
            types.DocumentSymbolParams(types.TextDocumentIdentifier(uri))
        )
        assert any(s.name.startswith(obj["id"] + " — 🏔️") for s in symbols)
        await lsp_client.shutdown_session()
    finally:
        await lsp_client.stop()


async def test_corpus_positions_map_back_through_bom_crlf_and_nfd(client: LanguageClient, golden_dir: Path):
    """Canonical offsets (BOM stripped, CRLF → LF, NFC) come back as positions in the editor's buffer."""
    raw = "\ufeff# Caf\u0065\u0301 notes\r\n\r\nThe cre\u0300me br\u00fbl\u00e9e 🍮 is torched just before serving it.\r\n"
    (golden_dir / "corpus" / "05-dessert.md").write_bytes(raw.encode("utf-8"))
    q = golden_dir / "questions.jsonl"
    record = {
        "id": "d1",
        "query": "When is the crème brûlée torched?",
        "expected_answer": "Just before it is served.",
        "locators": [{"doc": "05-dessert.md", "quote": "torched just before serving", "exact": True}],
    }
    text = q.read_text(encoding="utf-8") + json.dumps(record, ensure_ascii=False) + "\n"
    uri = open_doc(client, q, text)
    await published(client, uri)
    n = len(text.split("\n")) - 2
    line = text.split("\n")[n]
    start, _ = quote_columns(line)
    (loc,) = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri), types.Position(n, utf16(line[: start + 2])))
    )
    raw_line = raw.split("\r\n")[2]
    col = raw_line.index("torched")
    assert loc.range.start == types.Position(2, utf16(raw_line[:col]))
    assert loc.range.end == types.Position(2, utf16(raw_line[: col + len("torched just before serving")]))
    # the heading line: a BOM and an NFD "é" before the quote shift raw columns
    record = {
        "id": "d2",
        "query": "What are these notes about?",
        "expected_answer": "Notes on the café's desserts.",
        "locators": [{"doc": "05-dessert.md", "quote": "notes", "exact": True}],
    }
    text += json.dumps(record, ensure_ascii=False) + "\n"
    change_doc(client, uri, 2, text)
    await published(client, uri, lambda p: p.version == 2)
    line = text.split("\n")[n + 1]
    start, _ = quote_columns(line)
    (loc,) = await client.text_document_definition_async(
        types.DefinitionParams(
            types.TextDocumentIdentifier(uri), types.Position(n + 1, utf16(line[: start + 2]))
        )
    )
    head = raw.split("\r\n")[0].lstrip("\ufeff")  # editors keep the BOM out of the buffer
    assert loc.range.start == types.Position(0, utf16(head[: head.index("notes")]))


async def test_two_golden_sets_in_one_workspace_each_see_their_own_corpus(
    client: LanguageClient, golden_dir: Path
):
    uris = {}
    for name, sentence in (
        ("alpha", "The alpha corpus says the kettle is always on."),
        ("beta", "The beta corpus says the kettle is never on."),
    ):
        root = golden_dir / "sets" / name
        (root / "docs").mkdir(parents=True)
        (root / "docs" / "notes.md").write_text(f"# Notes\n\n{sentence}\n", encoding="utf-8")
        (root / "golden-lsp.toml").write_text('corpus = "docs"\n', encoding="utf-8")
        record = {
            "id": f"{name}-1",
            "query": "Is the kettle on?",
            "expected_answer": "It depends on the corpus.",
            "locators": [{"doc": "notes.md", "quote": "kettle is always on"}],
        }
        q = root / "team.questions.jsonl"
        q.write_text(json.dumps(record) + "\n", encoding="utf-8")
        uris[name] = open_doc(client, q)
    alpha = await published(client, uris["alpha"])
    beta = await published(client, uris["beta"])
    assert "quote-not-found" not in codes(alpha.diagnostics)
    assert "quote-not-found" in codes(beta.diagnostics)


async def test_lone_carriage_return_keeps_ranges_and_edits_on_the_right_line(
    client: LanguageClient, ambiguous_set
):
    """A lone CR ends a line for the core as for the client (SPEC §3)."""
    q, text, n = ambiguous_set
    lines = text.split("\n")
    text = "\n".join(lines[: n - 1]) + "\n" + lines[n - 1] + "\r" + "\n".join(lines[n:])
    uri = open_doc(client, q, text)
    pub = await published(client, uri, lambda p: any(d.code == "quote-ambiguous" for d in p.diagnostics))
    assert "invalid-json" not in codes(pub.diagnostics)
    amb = next(d for d in pub.diagnostics if d.code == "quote-ambiguous")
    start = lines[n].index('"quote": "hut"') + len('"quote": ')
    end = start + len('"hut"')
    assert (amb.range.start.line, amb.range.start.character, amb.range.end.character) == (
        n,
        utf16(lines[n][:start]),
        utf16(lines[n][:end]),
    )
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), amb.range, types.CodeActionContext([amb]))
    )
    edits = next(a for a in actions if a.title.startswith("Lengthen")).edit.changes[uri]
    new_text = apply_edits(text, edits)
    old_lines, new_lines = re.split(r"\r\n|\r|\n", text), re.split(r"\r\n|\r|\n", new_text)
    assert [i for i, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b] == [n]
    assert json.loads(new_lines[n])["locators"][0]["quote"] != "hut"
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(n, amb.range.start.character + 1))
    )
    assert "quote-ambiguous" in hover.contents.value


async def test_crlf_end_of_line_findings_end_at_the_visible_end_of_their_line(
    client: LanguageClient, ambiguous_set
):
    """In a CRLF file no range ends between \\r and \\n, and invalid-json never runs into the next line."""
    q, text, n = ambiguous_set
    truncated = '{"id": "cut", "query": "cut short",'
    lines = text.rstrip("\n").split("\n")
    lines.insert(n, truncated)
    pubs = {}
    for name, end in (("lf", "\n"), ("crlf", "\r\n")):
        since = len(client.published)
        uri = open_doc(client, q, end.join(lines) + end, version=len(pubs) + 1)
        pubs[name] = await published(
            client,
            uri,
            lambda p: "invalid-json" in codes(p.diagnostics) and "quote-ambiguous" in codes(p.diagnostics),
            since=since,
        )
        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri)))
    assert [(d.code, d.range) for d in pubs["crlf"].diagnostics] == [
        (d.code, d.range) for d in pubs["lf"].diagnostics
    ]
    bad = next(d for d in pubs["crlf"].diagnostics if d.code == "invalid-json")
    assert (bad.range.start.line, bad.range.end.line) == (n, n)
    assert bad.range.start.character == bad.range.end.character == utf16(truncated)
    for d in pubs["crlf"].diagnostics:
        if d.range.start.line == d.range.end.line and d.range.start.line < len(lines):
            assert d.range.end.character <= utf16(lines[d.range.start.line]), d


async def test_non_utf8_corpus_change_is_a_corpus_error_as_in_the_cli(
    client: LanguageClient, golden_dir: Path
):
    q = golden_dir / "questions.jsonl"
    uri = open_doc(client, q)
    await published(client, uri)
    chapter = golden_dir / "corpus" / CHAPTER
    chapter.write_bytes(chapter.read_bytes() + b"\nbroken \xff byte\n")
    count = len(client.published)
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(uri_of(chapter), types.FileChangeType.Changed)])
    )
    # the corpus error sits in the chapter it is about; no label breaks on it
    await published(client, uri_of(chapter), lambda p: "corpus-error" in codes(p.diagnostics), since=count)
    assert "unknown-doc" not in codes([p for p in client.published if p.uri == uri][-1].diagnostics)
    cli = subprocess.run(
        [sys.executable, "-m", "golden_lsp", "check", "--format", "json", str(q)],
        capture_output=True,
        text=True,
        cwd=golden_dir,
    )
    assert sorted(f["code"] for f in json.loads(cli.stdout)) == sorted(
        d.code
        for p in latest_publications(client).values()
        for d in p.diagnostics
        if not str(d.code).startswith("stale-")
    )


async def test_editor_settings_alone_configure_a_set(golden_dir: Path):
    """No golden-lsp.toml: the corpus comes from initializationOptions, the file is the set's."""
    (golden_dir / "golden-lsp.toml").unlink()
    lsp_client = SERVER.client_factory()
    await lsp_client.start_io(*SERVER.server_command)
    try:
        params = init_params(golden_dir)
        params.initialization_options = {"overrides": {"corpus": str(golden_dir / "corpus")}}
        await lsp_client.initialize_session(params)
        q = golden_dir / "questions.jsonl"
        text = q.read_text(encoding="utf-8")
        uri = open_doc(lsp_client, q, text)
        pub = await published(lsp_client, uri)
        assert not [d for d in pub.diagnostics if d.severity == types.DiagnosticSeverity.Error]
        change_doc(lsp_client, uri, 2, text.replace('"ex001"', '"ex001-renamed"', 1))
        result = await lsp_client.workspace_execute_command_async(
            types.ExecuteCommandParams("golden-lsp.build", [uri])
        )
        assert result["ok"] is True and "save to include your unsaved edits" in result["message"]
        assert '"ex001"' in (golden_dir / "golden-set.v1.jsonl").read_text(encoding="utf-8")
        await lsp_client.shutdown_session()
    finally:
        await lsp_client.stop()


async def test_a_file_without_a_corpus_gets_one_config_error_and_quiet_requests(
    client: LanguageClient, golden_dir: Path
):
    lonely = golden_dir.parent / "elsewhere" / "questions.jsonl"
    lonely.parent.mkdir()
    lonely.write_text(
        '{"id": "a", "query": "q?", "expected_answer": "an answer long enough", '
        '"locators": [{"doc": "x.md", "quote": "anything"}]}\n',
        encoding="utf-8",
    )
    uri = open_doc(client, lonely)
    pub = await published(client, uri)
    assert codes(pub.diagnostics) == ["config-error"] and "corpus" in pub.diagnostics[0].message
    for _ in range(200):  # told as a notification, sent right after the diagnostics
        if any("golden-lsp" in m.message for m in client.messages):
            break
        await asyncio.sleep(0.02)
    assert [m.message for m in client.messages if "corpus" in m.message]
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(0, 60))
    )
    assert hover is None
    assert not [m for m in client.log_messages if m.type == types.MessageType.Error]


async def test_a_fifo_artifact_is_a_config_error_and_the_server_stays_responsive(client, golden_dir):
    """Reading the FIFO would block the staleness check and make the server deaf: the pytest-lsp
    wait below is the failure detector, not a timed assertion."""
    artifact = golden_dir / "golden-set.v1.jsonl"
    committed = artifact.read_bytes()
    artifact.unlink()
    os.mkfifo(artifact)
    questions = golden_dir / "questions.jsonl"
    uri = open_doc(client, questions)
    pub = await published(client, uri, lambda p: p.diagnostics)
    (d,) = [d for d in pub.diagnostics if d.code == "config-error"]
    assert "golden-set.v1.jsonl is a FIFO, not a regular file" in d.message
    artifact.unlink()
    artifact.write_bytes(committed)
    change_doc(client, uri, 2, questions.read_text(encoding="utf-8"))
    pub = await published(client, uri, lambda p: p.version == 2)
    assert "config-error" not in codes(pub.diagnostics)


async def test_line_break_fix_never_writes_a_quote_spanning_lines(client: LanguageClient, golden_dir: Path):
    """A near miss across a line break: the author is offered, on each line, the picker's quote
    holding that line's part (longest part first), never the corpus text with its line break,
    which would raise quote-multiline."""
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8")
    lines = text.split("\n")
    n = next(
        i for i in record_lines(text) if json.loads(lines[i])["locators"][0]["doc"] == "03-life-in-the-hut.md"
    )
    lines[n] = set_quote(lines[n], "on the rack, soles down. - Poles and ice axes")
    text = "\n".join(lines)
    uri, nf, fixes = await corpus_text_fixes(client, q, text)
    assert "across a line break" in nf.message
    quotes = [
        json.loads(apply_edits(text, a.edit.changes[uri]).split("\n")[n])["locators"][0]["quote"]
        for a in fixes
    ]
    assert quotes == ["on the rack, soles down", "Poles and ice axes stay there too"]
    assert [a.is_preferred for a in fixes] == [True, False]
    assert fixes[0].title == "Use the corpus text on one line at 13:70: 'on the rack, soles down'"
    for version, fix in enumerate(fixes, start=2):
        change_doc(client, uri, version, apply_edits(text, fix.edit.changes[uri]))
        pub = await published(client, uri, lambda p, v=version: p.version == v)
        assert not {"quote-not-found", "quote-multiline"} & {
            d.code for d in pub.diagnostics if d.range.start.line == n
        }
