"""Idle work waits for the author (issue 22): the hints the server prepares after a set's first
analysis, a document per turn of the event loop, take no step while edits keep arriving — a step
on a large document held up every keystroke typed just after the open — and all of them once the
author stops. Counted on the server's own event loop and scheduler, never timed."""

from __future__ import annotations

import asyncio

from core_support import loc, make_project, qline
from pygls.uris import from_fs_path

from golden_lsp.server import scheduler as scheduler_module
from golden_lsp.server.app import server
from golden_lsp.server.scheduler import Scheduler
from golden_lsp.server.session import Session


async def test_hint_preparation_waits_while_the_author_types(tmp_path, monkeypatch):
    docs = {f"d{i}.md": f"# D{i}\n\nSome Text of document {i}.\n" * (i + 1) for i in range(6)}
    lines = [qline(f"q{i}", [loc(f"d{i}.md", f"Text of document {i}")]) for i in range(6)]  # each quoted
    make_project(tmp_path, docs, lines)
    session = Session()
    scheduler = Scheduler(server, session)
    uri = from_fs_path(str(tmp_path / "questions.jsonl"))
    session.open(uri, (tmp_path / "questions.jsonl").read_text(encoding="utf-8"), 1)
    golden = session.view(uri).golden  # what it quotes is what is prepared
    prepared: list[str] = []
    monkeypatch.setattr(scheduler_module, "prepare_document_hints", prepared.append)
    monkeypatch.setattr(scheduler_module, "IDLE_AFTER_EDIT", 2.0)  # far above any stall here
    scheduler.edited()
    scheduler._prepare_hints(golden, uri)
    for _ in range(10):  # typing: an edit every 20 ms, each step would take 5 ms
        await asyncio.sleep(0.02)
        scheduler.edited()
    assert prepared == []
    monkeypatch.setattr(scheduler_module, "IDLE_AFTER_EDIT", 0.0)  # the author stopped
    for _ in range(400):
        if len(prepared) == len(docs):
            break
        await asyncio.sleep(0.01)
    by_size = sorted(golden.corpus.docs.values(), key=lambda d: -d.chars)
    assert prepared == [d.text for d in by_size]  # the largest first, each once
