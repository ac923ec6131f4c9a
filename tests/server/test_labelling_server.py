"""Labelling in the editor, over real JSON-RPC: ``query-pii`` published at the identifier with its
redact quick fix (its edit touches only the query's string, and the finding goes), and in an
adjudication file the actions that take one annotator's labels (the record's line replaced,
nothing else; the labels then resolve)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import change_doc, open_doc, published
from lsprotocol import types
from pytest_lsp import LanguageClient
from test_server import apply_edits


async def _actions(client: LanguageClient, uri: str, line: int, diags=()) -> list[types.CodeAction]:
    """The actions asked for where the editor asks: at the finding, else at the line's start."""
    rng = diags[0].range if diags else types.Range(types.Position(line, 0), types.Position(line, 0))
    return await client.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), rng, types.CodeActionContext(list(diags)))
    )


async def test_pii_published_at_the_identifier_and_redacted_by_its_quick_fix(
    client: LanguageClient, golden_dir: Path
):
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8")
    lines = text.split("\n")
    n = next(i for i, x in enumerate(lines) if x.startswith('{"id": "ex002"'))
    rec = json.loads(lines[n])
    rec["query"] = "Caf\u00e9 \U0001f600 I am jane.doe@example.org — " + rec["query"]
    lines[n] = json.dumps(rec, ensure_ascii=False)
    text = "\n".join(lines)
    uri = open_doc(client, q, text)
    pub = await published(client, uri, lambda p: any(d.code == "query-pii" for d in p.diagnostics))
    pii = next(d for d in pub.diagnostics if d.code == "query-pii")
    start = lines[n].index("jane.doe")
    # UTF-16: the emoji before it counts two units
    assert (pii.range.start.line, pii.range.start.character) == (n, start + 1)
    assert pii.range.end.character - pii.range.start.character == len("jane.doe@example.org")
    actions = [a for a in await _actions(client, uri, n, [pii]) if a.title.startswith("Redact the query")]
    assert len(actions) == 1 and "<EMAIL>" in actions[0].title
    new_text = apply_edits(text, actions[0].edit.changes[uri])
    new_lines = new_text.split("\n")
    assert [i for i, (a, b) in enumerate(zip(lines, new_lines)) if a != b] == [n]
    fixed = json.loads(new_lines[n])
    assert fixed["query"] == rec["query"].replace("jane.doe@example.org", "<EMAIL>")
    assert {k: v for k, v in fixed.items() if k != "query"} == {k: v for k, v in rec.items() if k != "query"}
    change_doc(client, uri, 2, new_text)
    pub = await published(client, uri, lambda p: p.version == 2)
    assert "query-pii" not in {d.code for d in pub.diagnostics}


async def test_take_an_annotators_labels_in_an_adjudication_file(client: LanguageClient, golden_dir: Path):
    records = [
        json.loads(x)
        for x in (golden_dir / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        if x.startswith("{")
    ]
    first, other = records[0], records[5]
    labels = {
        "alice": {"locators": first["locators"], "hop": "single"},
        "bob": {"locators": [], "unanswerable": True},
    }
    open_record = {
        **{k: v for k, v in first.items() if k not in ("locators", "hop")},
        "locators": [],
        "meta": {"adjudication": {"annotators": ["alice", "bob"], "labels": labels}},
    }
    path = golden_dir / "adjudication.questions.jsonl"
    text = (
        "// to adjudicate\n" + json.dumps(open_record, ensure_ascii=False) + "\n" + json.dumps(other) + "\n"
    )
    path.write_text(text, encoding="utf-8")
    uri = open_doc(client, path, text)
    pub = await published(client, uri, lambda p: any(d.code == "no-locators" for d in p.diagnostics))
    missing = next(d for d in pub.diagnostics if d.code == "no-locators")
    found = [a for a in await _actions(client, uri, 1, [missing]) if a.title.startswith("Take ")]
    actions = {a.title.split("'s labels: ")[0].removeprefix("Take "): a for a in found}
    assert set(actions) == {"alice", "bob"}
    assert actions["alice"].title.startswith(
        f"Take alice's labels: {first['locators'][0]['quote'][:20]!r}"[:-1]
    )
    assert actions["bob"].title == "Take bob's labels: unanswerable"
    assert not [a for a in await _actions(client, uri, 2) if a.title.startswith("Take ")]
    for want, action in actions.items():
        edits = action.edit.changes[uri]
        assert len(edits) == 1 and edits[0].range.start.line == edits[0].range.end.line == 1
        new_lines = apply_edits(text, edits).split("\n")
        assert new_lines[0] == "// to adjudicate" and new_lines[2] == text.split("\n")[2]
        taken = json.loads(new_lines[1])
        assert taken["locators"] == labels[want]["locators"] and taken.get("unanswerable", False) == (
            want == "bob"
        )
        assert taken["meta"] == open_record["meta"] and taken["query"] == first["query"]
    change_doc(
        client,
        uri,
        2,
        apply_edits(text, actions["alice"].edit.changes[uri]),
    )
    pub = await published(client, uri, lambda p: p.version == 2)
    assert not [
        d for d in pub.diagnostics if d.range.start.line == 1 and d.code in ("no-locators", "quote-not-found")
    ]
