"""Over real JSON-RPC: the annotation guidelines on hover over ``primary``, ``unanswerable`` and an
empty ``locators``, and the meaning findings published like every other finding."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import open_doc, published
from lsprotocol import types
from pytest_lsp import LanguageClient

from golden_lsp.core.labels.guidelines import PAGE as GUIDELINES

PRIMARY = {
    "id": "ex901",
    "query": "How fast does the rule of thumb assume you climb?",
    "expected_answer": "About 500 m of ascent per hour.",
    "locators": [
        {"doc": "01-planning-a-hut-tour.md", "quote": "Ascent, at about 400 m per hour.", "primary": True}
    ],
}


async def test_guidelines_on_hover_and_answer_unsupported_published(client: LanguageClient, golden_dir: Path):
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8") + json.dumps(PRIMARY, ensure_ascii=False) + "\n"
    uri = open_doc(client, q, text)
    diagnostics = (await published(client, uri)).diagnostics
    lines = text.split("\n")
    n = len(lines) - 2
    found = [d for d in diagnostics if d.code == "answer-unsupported"]
    assert [d.range.start.line for d in found] == [n] and "'500'" in found[0].message

    async def hover(line: int, needle: str) -> str | None:
        col = lines[line].index(needle) + 2
        h = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(line, col))
        )
        return None if h is None else h.contents.value

    unanswerable = next(i for i, line in enumerate(lines) if '"unanswerable": true' in line)
    assert await hover(unanswerable, '"unanswerable": true') == GUIDELINES
    assert await hover(unanswerable, '"locators": []') == GUIDELINES  # an empty locators
    assert await hover(n, '"primary"') == GUIDELINES
    assert await hover(n, '"locators"') != GUIDELINES  # locators that are not empty: no guidelines
    assert await hover(n, '"query"') is None
