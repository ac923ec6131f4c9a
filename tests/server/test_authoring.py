"""Authoring from both sides, over real JSON-RPC on the example corpus: inlay hints, the corpus
side (code lenses, hover, references), anchor here, completion, candidate passages, the renumbering
guard, workspace symbols and pull diagnostics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import change_doc, open_doc, published, uri_of
from lsprotocol import types
from pytest_lsp import LanguageClient
from test_server import CHAPTER, apply_edits, quote_columns, record_lines, set_quote, utf16

from golden_lsp.core.labels.questions import LOCATOR_FIELDS, SPLITS
from golden_lsp.core.labels.resolve import occurrences


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")


def records(path: Path) -> dict[str, tuple[int, dict]]:
    lines = lines_of(path)
    return {json.loads(lines[i])["id"]: (i, json.loads(lines[i])) for i in record_lines("\n".join(lines))}


def whole(text: str) -> types.Range:
    return types.Range(types.Position(0, 0), types.Position(len(text.split("\n")), 0))


def last_id(golden_dir: Path) -> tuple[str, str]:
    """The example set's last id and the next free one (the set grows; tests never hard-code it)."""
    n = max(int(rec["id"][2:]) for _, rec in records(golden_dir / "questions.jsonl").values())
    return f"ex{n:03d}", f"ex{n + 1:03d}"


def pos_of(text: str, needle: str, delta: int = 0) -> types.Position:
    """The UTF-16 position of ``needle`` (+ delta characters) in ``text``."""
    at = text.index(needle) + delta
    line = text.count("\n", 0, at)
    start = text.rfind("\n", 0, at) + 1
    return types.Position(line, utf16(text[start:at]))


def contains(r: types.Range, p: types.Position) -> bool:
    return (r.start.line, r.start.character) <= (p.line, p.character) <= (r.end.line, r.end.character)


async def definition_of_quote(client: LanguageClient, uri: str, line_text: str, line: int, index: int = 0):
    s, _e = quote_columns(line_text, index)
    locs = await client.text_document_definition_async(
        types.DefinitionParams(
            types.TextDocumentIdentifier(uri), types.Position(line, utf16(line_text[: s + 2]))
        )
    )
    assert locs and len(locs) == 1, locs
    return locs[0]


# --- inlay hints ------------------------------------------------------------------------------


async def test_inlay_hints_after_each_quote_range_filtered_and_switchable(
    client: LanguageClient, golden_dir: Path
):
    q = golden_dir / "questions.jsonl"
    lines = lines_of(q)
    recs = records(q)
    amb_line, _ = recs["ex001"]
    missing_line, _ = recs["ex002"]
    lines[amb_line] = set_quote(lines[amb_line], "hut")
    lines[missing_line] = set_quote(lines[missing_line], "no such words anywhere")
    text = "\n".join(lines)
    uri = open_doc(client, q, text)
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(types.TextDocumentIdentifier(uri), whole(text))
    )
    n_locators = sum(len(json.loads(lines[i])["locators"]) for i in record_lines(text))
    assert len(hints) == n_locators
    by_line = {h.position.line: h for h in hints}
    # the hint sits right after the quote's closing quote mark
    for i in (amb_line, missing_line, recs["ex003"][0]):
        assert by_line[i].position.character == utf16(lines[i][: quote_columns(lines[i])[1]])
    chapter = (golden_dir / "corpus" / CHAPTER).read_text(encoding="utf-8")
    assert by_line[amb_line].label == f"✗ {len(occurrences(chapter, 'hut', 21))}×"
    assert by_line[missing_line].label == "✗ not found"
    line3, rec3 = recs["ex003"]
    loc = await definition_of_quote(client, uri, lines[line3], line3)
    label = by_line[line3].label
    assert label.startswith(f"→ line {loc.range.start.line + 1} · ")
    assert label.endswith((" chunk", " chunks"))
    assert by_line[line3].tooltip.startswith(f"{rec3['locators'][0]['doc']}:{loc.range.start.line + 1} · ")
    # a multi-hop line: its hints together fit VS Code's 43 characters per line (else it drops the
    # later ones), each starting with where its quote lands
    multi = [i for i in record_lines(text) if len(json.loads(lines[i])["locators"]) > 2]
    assert multi
    for i in multi:
        on_line = sorted((h for h in hints if h.position.line == i), key=lambda h: h.position.character)
        assert len(on_line) == len(json.loads(lines[i])["locators"]) > 2
        assert sum(len(h.label) for h in on_line) <= 43, [h.label for h in on_line]
        assert all(h.label.startswith(("→ line ", "✗ ")) for h in on_line), [h.label for h in on_line]
    # only hints inside the range asked for
    one = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            types.TextDocumentIdentifier(uri),
            types.Range(types.Position(line3, 0), types.Position(line3, 10)),
        )
    )
    assert not one
    one = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            types.TextDocumentIdentifier(uri),
            types.Range(types.Position(line3, 0), types.Position(line3 + 1, 0)),
        )
    )
    assert [h.position.line for h in one] == [line3]
    # the setting turns them off (and asks the client to refresh)
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams({"goldenLsp": {"inlayHints": False}})
    )
    off = await client.text_document_inlay_hint_async(
        types.InlayHintParams(types.TextDocumentIdentifier(uri), whole(text))
    )
    assert not off
    assert types.WORKSPACE_INLAY_HINT_REFRESH in client.refreshes


# --- the corpus side --------------------------------------------------------------------------


def labelled_in(q: Path, doc: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for rid, (_, r) in records(q).items():
        for loc in r["locators"]:
            if loc["doc"] == doc:
                out.setdefault(rid, []).append(loc["quote"])
    return out


async def test_code_lens_above_each_labelled_block_opens_the_record(client: LanguageClient, golden_dir: Path):
    q = golden_dir / "questions.jsonl"
    path = golden_dir / "corpus" / CHAPTER
    raw = path.read_text(encoding="utf-8")
    uri = open_doc(client, path)  # the questions file is not open: read from disk
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(uri))
    )
    assert lenses
    raw_lines = raw.split("\n")
    named = {}
    for lens in lenses:
        assert lens.command.title.startswith("labelled by ")
        for rid in lens.command.title[len("labelled by ") :].split(", "):
            named[rid] = lens.range.start.line
    expected = labelled_in(q, CHAPTER)
    assert set(named) == set(expected)
    lens_lines = {lens.range.start.line: lens.command.title for lens in lenses}
    for rid, quotes in expected.items():
        for quote in quotes:
            quote_line = raw[: raw.index(quote)].count("\n")
            # a lens naming the record on the first line of the block holding the quote
            lens_line = max(i for i, title in lens_lines.items() if i <= quote_line and rid in title)
            assert all(raw_lines[i].strip() for i in range(lens_line, quote_line + 1))
    # clicking it opens the record in the questions file
    lens = next(x for x in lenses if "ex001" in x.command.title.split("by ")[1].split(", "))
    await client.workspace_execute_command_async(
        types.ExecuteCommandParams(lens.command.command, lens.command.arguments)
    )
    shown = client.shown[-1]
    line, _ = records(q)["ex001"]
    assert shown.uri == uri_of(q) and shown.selection.start.line == line
    text = lines_of(q)[line]
    assert shown.selection.start.character == utf16(text[: quote_columns(text)[0]])
    # a malformed argument opens nothing and the server carries on
    for junk in (["junk"], [{"uri": 3}], []):
        assert not await client.workspace_execute_command_async(
            types.ExecuteCommandParams(lens.command.command, junk)
        )
    assert await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri)))


async def test_code_lenses_are_refreshed_only_when_labels_change(client: LanguageClient, golden_dir: Path):
    q = golden_dir / "questions.jsonl"
    open_doc(client, golden_dir / "corpus" / CHAPTER)
    text = q.read_text(encoding="utf-8") + "// a note\n"
    uri = open_doc(client, q, text)

    async def lens_refreshes() -> int:
        # a request answered after the last publish: any refresh sent with it has arrived
        await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(0, 0))
        )
        return client.refreshes.count(types.WORKSPACE_CODE_LENS_REFRESH)

    async def lens_refreshes_after(version: int, new_text: str) -> int:
        before = await lens_refreshes()
        change_doc(client, uri, version, new_text)
        await published(client, uri, lambda p: p.version == version)
        return await lens_refreshes() - before

    await published(client, uri, lambda p: p.version == 1)

    assert await lens_refreshes_after(2, text.replace("// a note", "// a longer note")) == 0
    line, rec = records(q)["ex001"]
    lines = text.split("\n")
    lines[line] = json.dumps({**rec, "id": "ex001-renamed"})  # a record with spans changed
    assert await lens_refreshes_after(3, "\n".join(lines)) == 1


async def test_hover_and_references_on_a_block_labelled_twice(client: LanguageClient, golden_dir: Path):
    q = golden_dir / "questions.jsonl"
    path = golden_dir / "corpus" / CHAPTER
    raw = path.read_text(encoding="utf-8")
    line1, rec1 = records(q)["ex001"]
    quote1 = rec1["locators"][0]["quote"]
    # a second record quoting other words of the same block
    block_start = raw.rfind("\n\n", 0, raw.index(quote1)) + 2
    block_end = raw.index("\n\n", raw.index(quote1))
    other = next(w for w in raw[block_start:block_end].split(". ") if quote1 not in w)[:40].strip()
    assert len(occurrences(raw, other)) == 1
    twin = {
        "id": "ex900",
        "query": "Twice?",
        "expected_answer": "The same passage labelled again, on purpose.",
        "locators": [{"doc": CHAPTER, "quote": other}],
        "hop": "single",
    }
    text = q.read_text(encoding="utf-8").rstrip("\n") + "\n" + json.dumps(twin) + "\n"
    q.write_text(text, encoding="utf-8")
    uri = open_doc(client, path)
    at = pos_of(raw, quote1, 3)
    hov = await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), at))
    assert "labelled by 2 records" in hov.contents.value
    assert (
        "ex001" in hov.contents.value
        and rec1["query"] in hov.contents.value
        and "ex900" in hov.contents.value
    )
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri),
            position=at,
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    twin_line = text.split("\n").index(json.dumps(twin))
    assert sorted(r.range.start.line for r in refs) == sorted([line1, twin_line])
    assert all(r.uri == uri_of(q) for r in refs)
    # and from the quote in the questions file
    quri = open_doc(client, q, text)
    lines = text.split("\n")
    s, _ = quote_columns(lines[line1])
    qrefs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(quri),
            position=types.Position(line1, utf16(lines[line1][: s + 1])),
            context=types.ReferenceContext(include_declaration=False),
        )
    )
    assert [r.range.start.line for r in qrefs] == [twin_line]
    # an unlabelled place has no hover
    heading = pos_of(raw, "# ", 2)
    assert (
        await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), heading))
        is None
    )


# --- anchor here ------------------------------------------------------------------------------


async def code_actions(client: LanguageClient, uri: str, rng: types.Range) -> list[types.CodeAction]:
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri), rng, types.CodeActionContext(diagnostics=[])
        )
    )


@pytest.mark.parametrize("selection", [True, False])
async def test_new_question_anchored_here_resolves_to_the_selection(
    client: LanguageClient, golden_dir: Path, selection: bool
):
    q = golden_dir / "questions.jsonl"
    # the committed artifact holds the last id: after deleting it from the questions file it is not free
    last, free = last_id(golden_dir)
    lines = [line for line in lines_of(q) if f'"id": "{last}"' not in line]
    q.write_text("\n".join(lines), encoding="utf-8")
    path = golden_dir / "corpus" / CHAPTER
    raw = path.read_text(encoding="utf-8")
    start = pos_of(raw, "plan with times too", 5)
    end = pos_of(raw, "plan with times too", 19) if selection else start
    uri = open_doc(client, path)
    actions = await code_actions(client, uri, types.Range(start, end))
    new = next(a for a in actions if a.title == "New golden question anchored here")
    [edit] = new.edit.changes[uri_of(q)]
    saved = q.read_text(encoding="utf-8")
    # appended as the last line, before the file's final line break
    assert saved.endswith("}\n") and edit.range.start == edit.range.end == pos_of(saved + "$", "\n$")
    text = apply_edits(saved, [edit])
    added = text.rstrip("\n").split("\n")[-1]
    assert text == saved + added + "\n"
    record = json.loads(added)
    assert record["id"] == free and record["query"] == "" and record["expected_answer"] == ""
    assert record["hop"] == "single" and record["locators"][0]["doc"] == CHAPTER
    quote = record["locators"][0]["quote"]
    assert "\n" not in quote and len(occurrences(raw, quote)) == 1
    if selection:
        assert (
            quote in "plan with times too"[5:19]
            or "plan with times too"[5:19] in quote
            or raw.index(quote) >= raw.index("plan with times too") + 5
        )
    quri = open_doc(client, q, text)
    n = len(text.rstrip("\n").split("\n")) - 1
    loc = await definition_of_quote(client, quri, added, n)
    assert loc.uri == uri and contains(loc.range, start)
    pub = await published(client, quri)
    assert not [d for d in pub.diagnostics if d.range.start.line == n and str(d.code).startswith("quote-")]


async def test_add_as_locator_to_the_record_last_edited(client: LanguageClient, golden_dir: Path):
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8")
    line, rec = records(q)["ex010"]
    quri = open_doc(client, q, text)
    row = text.split("\n")[line]
    at = row.index(rec["query"]) + 1
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(version=2, uri=quri),
            [
                types.TextDocumentContentChangePartial(
                    types.Range(types.Position(line, at), types.Position(line, at)), ""
                )
            ],
        )
    )
    path = golden_dir / "corpus" / "04-weather-and-safety.md"
    raw = path.read_text(encoding="utf-8")
    body = next(i for i, s in enumerate(raw.split("\n")) if len(s) > 80 and not s.startswith(("#", "|", "-")))
    start = types.Position(body, 10)
    uri = open_doc(client, path)
    actions = await code_actions(client, uri, types.Range(start, start))
    add = next(a for a in actions if a.title == "Add as locator to ex010")
    new_text = apply_edits(text, add.edit.changes[quri])
    new_row = new_text.split("\n")[line]
    obj = json.loads(new_row)
    assert obj["hop"] == "multi" and len(obj["locators"]) == 2
    assert {k: v for k, v in obj.items() if k not in ("hop", "locators")} == {
        k: v for k, v in rec.items() if k not in ("hop", "locators")
    }
    change_doc(client, quri, 3, new_text)
    loc = await definition_of_quote(client, quri, new_row, line, index=1)
    assert loc.uri == uri and contains(loc.range, start)


# --- completion -------------------------------------------------------------------------------


async def complete(client: LanguageClient, golden_dir: Path, half: str, drop: str | None = None):
    """Completion with ``half`` typed as the questions file's last line, the cursor at its ``|``
    (else at its end); lines holding ``drop`` left out."""
    q = golden_dir / "questions.jsonl"
    lines = [s for s in lines_of(q) if drop is None or drop not in s]
    at = half.index("|") if "|" in half else len(half)
    half = half.replace("|", "", 1) if "|" in half else half
    text = "\n".join(lines).rstrip("\n") + "\n" + half
    client.doc_version = getattr(client, "doc_version", 0) + 1
    uri = uri_of(q)
    if client.doc_version == 1:
        open_doc(client, q, text)
    else:
        change_doc(client, uri, client.doc_version, text)
    n = len(text.split("\n")) - 1
    got = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(n, utf16(half[:at])))
    )
    return got.items if got else []


async def test_completion_continues_a_half_typed_quote_unique_first(client: LanguageClient, golden_dir: Path):
    raw = (golden_dir / "corpus" / CHAPTER).read_text(encoding="utf-8")
    typed = "the hut"
    half = '{"id": "ex900", "query": "q", "locators": [{"doc": "' + CHAPTER + '", "quote": "' + typed
    items = await complete(client, golden_dir, half)
    assert items
    first = items[0]
    assert first.label.startswith(typed) and len(occurrences(raw, first.label)) == 1
    assert "1 match" in first.detail
    # the edit replaces exactly what is typed inside the string, and closes it (nothing follows)
    assert first.text_edit.new_text == json.dumps(first.label, ensure_ascii=False)[1:]
    assert first.text_edit.range.start.character == utf16(half) - len(typed)
    assert first.text_edit.range.end.character == utf16(half)
    assert first.filter_text == json.dumps(first.label, ensure_ascii=False)[1:-1]
    for item in items:
        n = len(occurrences(raw, item.label, 11))
        assert item.label.startswith(typed)
        assert (str(n) in item.detail) or (n == 1 and "1 match" in item.detail) or n > 9
    uniques = [len(occurrences(raw, i.label)) == 1 for i in items]
    assert uniques == sorted(uniques, reverse=True)  # every unique one before the others
    # hover and definition on the half-typed line answer nothing, and the server carries on
    q = golden_dir / "questions.jsonl"
    n = len(q.read_text(encoding="utf-8").rstrip("\n").split("\n"))
    at = types.Position(n, utf16(half) - 2)
    assert (
        await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri_of(q)), at))
        is None
    )
    assert not await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(uri_of(q)), at)
    )
    assert await complete(client, golden_dir, half)


async def test_completion_of_doc_hop_id_and_keys(client: LanguageClient, golden_dir: Path):
    docs = sorted(p.name for p in (golden_dir / "corpus").glob("*.md"))
    last, free = last_id(golden_dir)
    items = await complete(client, golden_dir, '{"id": "ex999", "locators": [{"doc": "0')
    assert sorted(i.label for i in items) == docs
    items = await complete(client, golden_dir, '{"id": "ex999", "locators": [], "hop": "')
    assert [i.label for i in items] == ["single", "multi"]
    # the committed artifact holds the last id: deleting its record does not free the id
    items = await complete(client, golden_dir, '{"id": "', drop=f'"id": "{last}"')
    assert [i.label for i in items] == [free]
    items = await complete(client, golden_dir, '{"id": "ex999", "')
    labels = [i.label for i in items]
    assert "query" in labels and "locators" in labels and "id" not in labels
    assert items[labels.index("query")].text_edit.new_text == 'query": '
    items = await complete(client, golden_dir, '{"id": "ex900", "locators": [{"doc": "a.md", "')
    assert [i.label for i in items] == [k for k in LOCATOR_FIELDS if k != "doc"]
    items = await complete(client, golden_dir, '{"id": "ex900", "split": "')
    assert [i.label for i in items] == list(SPLITS)


# --- candidate passages -----------------------------------------------------------------------


async def test_find_candidate_passages_anchors_a_unique_quote_in_the_block(
    client: LanguageClient, golden_dir: Path
):
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8")
    line, rec = records(q)["ex001"]
    rows = text.split("\n")
    rows[line] = json.dumps({**rec, "locators": []}, ensure_ascii=False)
    text = "\n".join(rows)
    uri = open_doc(client, q, text)
    at = types.Position(line, 2)
    actions = [
        a for a in await code_actions(client, uri, types.Range(at, at)) if a.title.startswith("Anchor at ")
    ]
    assert len(actions) == 5
    wanted = rec["locators"][0]["quote"]
    found_original = False
    for version, action in enumerate(actions, start=2):
        where = action.title[len("Anchor at ") :].split(" — ")[0]
        doc, doc_line = where.rsplit(":", 1)
        new = apply_edits(text, action.edit.changes[uri])
        row = new.split("\n")[line]
        loc = json.loads(row)["locators"]
        assert len(loc) == 1 and loc[0]["doc"] == doc
        corpus = (golden_dir / "corpus" / doc).read_text(encoding="utf-8")
        assert len(occurrences(corpus, loc[0]["quote"])) == 1
        change_doc(client, uri, version, new)
        target = await definition_of_quote(client, uri, row, line)
        assert (
            target.uri == uri_of(golden_dir / "corpus" / doc) and target.range.start.line == int(doc_line) - 1
        )
        found_original |= (
            doc == rec["locators"][0]["doc"] and wanted.split()[0] in corpus.split("\n")[int(doc_line) - 1]
        )
    assert found_original  # the passage the example labels is among the five


# --- renumbering guard, workspace symbols -----------------------------------------------------


async def test_id_reused_in_the_editor_and_workspace_symbols(client: LanguageClient, golden_dir: Path):
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8")
    line, rec = records(q)["ex005"]
    rows = text.split("\n")
    rows[line] = json.dumps({**rec, "query": "Something else entirely?"}, ensure_ascii=False)
    uri = open_doc(client, q, "\n".join(rows))
    pub = await published(client, uri)
    reused = [d for d in pub.diagnostics if d.code == "id-reused"]
    assert len(reused) == 1 and reused[0].range.start.line == line
    assert reused[0].severity == types.DiagnosticSeverity.Warning
    symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="ex00"))
    assert sorted(s.name.split(" — ")[0] for s in symbols) == [f"ex00{i}" for i in range(1, 10)]
    words = records(q)["ex001"][1]["query"].split()[:3]
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=" ".join(words).lower()))
    assert any(s.name.startswith("ex001 — ") and s.location.uri == uri for s in found)


# --- pull diagnostics -------------------------------------------------------------------------


async def test_pull_diagnostics_and_refresh_after_a_corpus_change(
    pull_client: LanguageClient, golden_dir: Path
):
    client = pull_client
    caps = client.init_result.capabilities.diagnostic_provider
    assert caps is not None and caps.inter_file_dependencies
    q = golden_dir / "questions.jsonl"
    line, rec = records(q)["ex001"]
    rows = lines_of(q)
    rows[line] = set_quote(rows[line], "hut")
    uri = open_doc(client, q, "\n".join(rows))
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri))
    )
    assert [d.range.start.line for d in report.items if d.code == "quote-ambiguous"] == [line]
    again = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri), previous_result_id=report.result_id)
    )
    assert again.kind == "unchanged"
    chapter = golden_dir / "corpus" / CHAPTER
    before = len(client.refreshes)
    open_doc(
        client, chapter, chapter.read_text(encoding="utf-8").replace(rec["locators"][0]["quote"], "gone")
    )
    for _ in range(200):
        if types.WORKSPACE_DIAGNOSTIC_REFRESH in client.refreshes[before:]:
            break
        await __import__("asyncio").sleep(0.02)
    assert types.WORKSPACE_DIAGNOSTIC_REFRESH in client.refreshes[before:]
    fresh = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri), previous_result_id=report.result_id)
    )
    assert fresh.kind == "full"
    assert not [p for p in client.published if p.uri == uri]  # pulled, never pushed
