"""The server holds a corpus document's text only while something needs it: a request on a document
nobody asked for yet reads its text back and answers from it, and a file that changed on disk
behind the server's back (no watcher event) is read again as a changed file — the request, or the
keystroke's analysis, is answered from the new text, never a crash, never a deaf server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import analysed, change_doc, open_doc, published
from lsprotocol import types
from pytest_lsp import LanguageClient
from test_server import opened_chapter_record, quote_columns, utf16

INSERTED = "A paragraph written behind the server's back, before all the others.\n\n"


#: a chapter nobody quotes when the set is opened: its text is let go after the open, and no
#: idle work reads it back
UNQUOTED = "05-unquoted.md"
FIRST = "Huts in the far valleys open late in the season, when the snow has gone from the passes.\n"


async def hover_quote(client: LanguageClient, uri: str, n: int, line: str) -> str:
    start, _ = quote_columns(line)
    hover = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(n, utf16(line[: start + 3])))
    )
    return hover.contents.value


@pytest.mark.parametrize("changed", [False, True], ids=["as read", "changed behind the server's back"])
async def test_a_released_document_quoted_by_a_keystroke_is_read_back_or_read_again(
    client: LanguageClient, golden_dir: Path, changed: bool
):
    chapter = golden_dir / "corpus" / UNQUOTED
    chapter.write_text(f"# Far valleys\n\n{FIRST}", encoding="utf-8")
    uri, text, n, line = await opened_chapter_record(client, golden_dir)
    if changed:  # no didChangeWatchedFiles follows
        chapter.write_text(f"# Far valleys\n\n{INSERTED}{FIRST}", encoding="utf-8")
    quote = "written behind the server's back" if changed else "open late in the season"
    lines = text.split("\n")
    record = json.loads(line)
    record["locators"] = [{"doc": UNQUOTED, "quote": quote}]
    lines[n] = json.dumps(record, ensure_ascii=False)
    since = len(client.statuses)
    change_doc(client, uri, 2, "\n".join(lines))
    await analysed(client, uri, since, version=2)
    pub = await published(client, uri, lambda p: p.version == 2)
    assert [
        d.code for d in pub.diagnostics if d.range.start.line <= n and d.code.startswith(("quote", "config"))
    ] == []
    new = chapter.read_text(encoding="utf-8")
    value = await hover_quote(client, uri, n, lines[n])
    assert f"chars {new.index(quote)}–{new.index(quote) + len(quote)}" in value
    assert (INSERTED if changed else FIRST).strip() in value  # the span's text, read back


async def test_candidate_passages_read_a_file_changed_behind_the_servers_back_again(
    client: LanguageClient, golden_dir: Path
):
    chapter = golden_dir / "corpus" / UNQUOTED
    chapter.write_text(f"# Far valleys\n\n{FIRST}", encoding="utf-8")
    q = golden_dir / "questions.jsonl"
    lines = q.read_text(encoding="utf-8").split("\n")
    n = next(i for i, row in enumerate(lines) if row.startswith("{"))
    record = {**json.loads(lines[n]), "query": "Which paragraph was written behind the server's back?"}
    lines[n] = json.dumps({**record, "locators": []}, ensure_ascii=False)
    uri = open_doc(client, q, "\n".join(lines))
    await published(client, uri)
    # the index over the corpus reads every text back, this one changed since the set was read
    chapter.write_text(f"# Far valleys\n\n{INSERTED}{FIRST}", encoding="utf-8")
    at = types.Position(n, 2)
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri), types.Range(at, at), types.CodeActionContext([])
        )
    )
    titles = [a.title for a in actions or [] if a.title.startswith("Anchor at ")]
    assert titles and titles[0].startswith(f"Anchor at {UNQUOTED}:3 — A paragraph written behind")
    assert not [m for m in client.log_messages if "failed" in m.message]
