"""The judge's proposals in the editor, over real JSON-RPC on the example set judged with the
``command`` provider: the inlay hint on a record with proposals, one "Accept" action per relevant
proposal (a unique quote inside the passage, the ``judged_by`` note, hop multi with the second),
"Mark unanswerable" where the judge proposed it, and the hints refreshed when the file changes."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from conftest import change_doc, open_doc, published, uri_of
from judge_support import proposals, verdict, write_judge
from lsprotocol import types
from pytest_lsp import LanguageClient
from test_server import apply_edits, utf16

from golden_lsp.core.labels.resolve import occurrences

CHAPTER = "01-planning-a-hut-tour.md"
VERDICTS = {
    "ex001": {
        "You walk from one staffed mountain hut": verdict(True, "high", "It defines a hut tour."),
        "Every hut publishes a short list": verdict(True, "medium", "It lists what to bring."),
    }
}


def judged_set(golden_dir: Path, tmp_path: Path) -> tuple[str, list[str], dict[str, int]]:
    """ex001 and ex005 unlabelled on disk, then judged (top 10): the text, its lines, record lines."""
    q = golden_dir / "questions.jsonl"
    rows = q.read_text(encoding="utf-8").split("\n")
    at = {json.loads(r)["id"]: i for i, r in enumerate(rows) if r.startswith("{")}
    for rid in ("ex001", "ex005"):
        rows[at[rid]] = json.dumps({**json.loads(rows[at[rid]]), "locators": []}, ensure_ascii=False)
    q.write_text("\n".join(rows), encoding="utf-8")
    command, _ = write_judge(tmp_path / "judge", VERDICTS)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "golden_lsp",
            "judge",
            str(golden_dir),
            "--command",
            command,
            "--records",
            "ex001,ex005",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return "\n".join(rows), rows, at


def findings_on(pub, line: int) -> list[types.Diagnostic]:
    """Errors and warnings on a line (the stale-artifact hint sits on the first record's line)."""
    bad = (types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning)
    return [d for d in pub.diagnostics if d.range.start.line == line and d.severity in bad]


def line_range(line: int, text: str) -> types.Range:
    return types.Range(types.Position(line, 0), types.Position(line, utf16(text)))


async def actions_on(client: LanguageClient, uri: str, line: int, row: str) -> list[types.CodeAction]:
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            types.TextDocumentIdentifier(uri), line_range(line, row), types.CodeActionContext([])
        )
    )
    return [a for a in found or [] if isinstance(a, types.CodeAction)]


async def test_proposals_hint_accept_actions_and_mark_unanswerable(
    client: LanguageClient, golden_dir: Path, tmp_path: Path
):
    text, rows, at = judged_set(golden_dir, tmp_path)
    q = golden_dir / "questions.jsonl"
    uri = open_doc(client, q, text)
    await published(client, uri)
    corpus = (golden_dir / "corpus" / CHAPTER).read_text(encoding="utf-8")
    passages = {p["reason"]: p for p in proposals(golden_dir / "proposals.jsonl") if p["relevant"]}

    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(types.TextDocumentIdentifier(uri), line_range(at["ex001"], rows[at["ex001"]]))
    )
    (hint,) = [h for h in hints if str(h.label).startswith("judge:")]
    assert hint.label == "judge: 2 of 10 relevant (1 high, 1 medium)"
    assert hint.position == types.Position(at["ex001"], utf16(rows[at["ex001"]]))
    assert "· high — It defines a hut tour." in str(hint.tooltip) and "It lists what to bring." in str(
        hint.tooltip
    )

    line = at["ex001"]
    accept = [a for a in await actions_on(client, uri, line, rows[line]) if a.title.startswith("Accept ")]
    high = passages["It defines a hut tour."]
    doc_line = corpus[: high["char_start"]].count("\n") + 1
    assert accept[0].title == f"Accept {CHAPTER}:{doc_line} — It defines a hut tour."
    assert len(accept) == 2
    text = apply_edits(text, accept[0].edit.changes[uri])
    record = json.loads(text.split("\n")[line])
    (locator,) = record["locators"]
    (start,) = occurrences(corpus, locator["quote"])  # unique, and inside the passage
    assert locator["doc"] == CHAPTER and high["char_start"] <= start < high["char_end"]
    assert record["judged_by"] == f"judge:{high['model']}" and record["hop"] == "single"
    change_doc(client, uri, 2, text)
    await published(client, uri, lambda p: p.version == 2 and not findings_on(p, line))

    # the accepted passage is offered no more; the other one makes the record multi-hop
    row = text.split("\n")[line]
    (second,) = [a for a in await actions_on(client, uri, line, row) if a.title.startswith("Accept ")]
    assert second.title.endswith("— It lists what to bring.")
    text = apply_edits(text, second.edit.changes[uri])
    record = json.loads(text.split("\n")[line])
    assert len(record["locators"]) == 2 and record["hop"] == "multi"
    assert record["judged_by"] == f"judge:{high['model']}" and text.split("\n")[line].count("judged_by") == 1

    # every candidate of ex005 judged not relevant: "Mark unanswerable"
    five = at["ex005"]
    (mark,) = [
        a for a in await actions_on(client, uri, five, rows[five]) if a.title.startswith("Mark unanswerable")
    ]
    text = apply_edits(text, mark.edit.changes[uri])
    record = json.loads(text.split("\n")[five])
    assert record["unanswerable"] is True and record["locators"] == [] and "judged_by" in record
    change_doc(client, uri, 3, text)
    await published(client, uri, lambda p: p.version == 3 and not findings_on(p, five))
    assert not [
        a for a in await actions_on(client, uri, five, text.split("\n")[five]) if "unanswerable" in a.title
    ]


async def test_a_changed_proposals_file_refreshes_the_hints(
    client: LanguageClient, golden_dir: Path, tmp_path: Path
):
    text, rows, at = judged_set(golden_dir, tmp_path)
    uri = open_doc(client, golden_dir / "questions.jsonl", text)
    await published(client, uri)
    before = len(client.refreshes)
    path = golden_dir / "proposals.jsonl"
    path.write_text("", encoding="utf-8")  # the proposals withdrawn
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(uri_of(path), types.FileChangeType.Changed)])
    )
    for _ in range(500):
        if types.WORKSPACE_INLAY_HINT_REFRESH in client.refreshes[before:]:
            break
        await asyncio.sleep(0.02)
    assert types.WORKSPACE_INLAY_HINT_REFRESH in client.refreshes[before:]
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(types.TextDocumentIdentifier(uri), line_range(at["ex001"], rows[at["ex001"]]))
    )
    assert not [h for h in hints or [] if str(h.label).startswith("judge:")]


async def test_a_million_character_reason_is_cut_in_the_inlay_hint_and_the_action_titles(
    client: LanguageClient, golden_dir: Path, tmp_path: Path
):
    from golden_lsp.keep.untrusted import MAX_MODEL_CHARS

    text, rows, at = judged_set(golden_dir, tmp_path)
    path = golden_dir / "proposals.jsonl"
    edited = [{**p, "reason": "r" * 1_000_000} if p["relevant"] else p for p in proposals(path)]
    path.write_text("".join(json.dumps(p) + "\n" for p in edited), encoding="utf-8")
    q = golden_dir / "questions.jsonl"
    uri = open_doc(client, q, text)
    await published(client, uri)
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(types.TextDocumentIdentifier(uri), line_range(at["ex001"], rows[at["ex001"]]))
    )
    (hint,) = [h for h in hints if str(h.label).startswith("judge:")]
    tooltip = str(hint.tooltip)
    assert tooltip.count(f"… [cut: {1_000_000 - MAX_MODEL_CHARS} chars]") == 2  # both relevant ones
    assert len(tooltip) < 5 * MAX_MODEL_CHARS  # two reasons and the model, each bounded
    line = at["ex001"]
    titles = [a.title for a in await actions_on(client, uri, line, rows[line])]
    assert titles and all(len(t) < 200 for t in titles)
