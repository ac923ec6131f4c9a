"""Pull diagnostics send only what changed, over real JSON-RPC: a pull after an edit that changes
none of a questions file's findings is answered ``unchanged`` with the result id the client
holds; one after an edit that changes them gets the full report under a new id."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import analysed, change_doc, open_doc
from lsprotocol import types
from pytest_lsp import LanguageClient
from test_server import set_quote


def reworded(text: str) -> str:
    """``text`` with the first record's line written compact (the same record): no finding
    changes."""
    rows = text.split("\n")
    at = next(i for i, line in enumerate(rows) if line.startswith("{"))
    compact = json.dumps(json.loads(rows[at]), ensure_ascii=False, separators=(",", ":"))
    assert compact != rows[at]
    rows[at] = compact
    return "\n".join(rows)


def ambiguous(text: str) -> str:
    rows = text.split("\n")
    at = next(i for i, line in enumerate(rows) if line.startswith("{"))
    rows[at] = set_quote(rows[at], "hut")
    return "\n".join(rows)


async def test_a_pull_after_an_edit_that_changes_no_finding_is_unchanged(
    pull_client: LanguageClient, golden_dir: Path
):
    client = pull_client
    q = golden_dir / "questions.jsonl"
    text = q.read_text(encoding="utf-8")
    uri = open_doc(client, q, text)

    def pull(previous: str | None = None):
        return client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(types.TextDocumentIdentifier(uri), previous_result_id=previous)
        )

    report = await pull()
    assert report.kind == "full"
    statuses = len(client.statuses)
    text = reworded(text)
    change_doc(client, uri, 2, text)
    await analysed(client, uri, since=statuses, version=2)
    again = await pull(report.result_id)
    assert again.kind == "unchanged" and again.result_id == report.result_id
    change_doc(client, uri, 3, ambiguous(text))
    changed = await pull(report.result_id)
    assert changed.kind == "full" and changed.result_id != report.result_id
    assert "quote-ambiguous" in [d.code for d in changed.items]
