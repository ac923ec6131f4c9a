"""Hostile text in the corpus and the questions file (an OSC title sequence, an ANSI clear-screen,
a bidi override, C1 controls, a line break in a query) never reaches the editor as a control
character, over real JSON-RPC: the hover, the inlay hints (labels and tooltips) and the
code-action titles show it escaped (``core/io/shown.py``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import open_doc, published
from lsprotocol import types
from pytest_lsp import LanguageClient

ON_A_LINE = "\x1b]0;pwned\x07\x1b[2J\u202eevil\x9b31m"
#: control characters but the line feed (hover and tooltips are several lines of Markdown)
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
DOC = "01-planning-a-hut-tour.md"


def strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


async def test_hover_inlay_hints_and_code_action_titles_escape_control_characters(
    client: LanguageClient, golden_dir: Path
):
    doc = golden_dir / "corpus" / DOC
    doc.write_text(
        doc.read_text(encoding="utf-8")
        + f"\n## Bells {ON_A_LINE}\n\nThe warden {ON_A_LINE} rings the bell at six sharp.\n",
        encoding="utf-8",
    )
    q = golden_dir / "questions.jsonl"
    records = [
        {
            "id": "evil1",
            "query": f"Why {ON_A_LINE}\r\nforged?",
            "hop": "single",
            "locators": [{"doc": DOC, "quote": f"warden {ON_A_LINE} rings the bell"}],
        },
        {
            "id": "evil2",
            "query": "When?",
            "hop": "single",
            "locators": [{"doc": DOC, "quote": f"warden {ON_A_LINE} ringz the bell at six"}],
        },
    ]
    text = q.read_text(encoding="utf-8") + "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    lines = text.split("\n")
    n = len(lines) - 3  # the two new records' lines: n, n + 1
    uri = open_doc(client, q, text)
    await published(client, uri, lambda p: any(d.range.start.line == n + 1 for d in p.diagnostics))
    seen: list[str] = []
    line = lines[n]
    for column in (line.index('"evil1"') + 2, line.index("warden") + 2):
        hov = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(n, column))
        )
        assert hov is not None
        seen += strings(client.protocol._converter.unstructure(hov.contents))
    assert any("\\x1b]0;pwned\\x07" in s for s in seen), seen  # shown, escaped
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            types.TextDocumentIdentifier(uri), types.Range(types.Position(n, 0), types.Position(n + 2, 0))
        )
    )
    assert hints
    seen += strings(client.protocol._converter.unstructure(hints))
    pub = await published(client, uri, lambda p: any(d.range.start.line == n + 1 for d in p.diagnostics))
    wrong = [d for d in pub.diagnostics if d.range.start.line == n + 1]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri), wrong[0].range, types.CodeActionContext(wrong)
        )
    )
    assert actions
    titles = [a.title for a in actions]
    assert not [t for t in titles if CONTROL.search(t) or "\n" in t], titles
    bad = [s for s in seen if CONTROL.search(s)]
    assert not bad, bad
