"""Idle work never holds up a keystroke (issues 22 and 34): after a set's first analysis the server
prepares the large documents a keystroke can break a quote in (``facts.prepare``: their case and
word indexes), the largest first, a step of a few ms per turn of its event loop; reading a let-go
text back — one piece of work — waits until the author stops typing; and a keystroke that comes
while a document is being prepared gets the diagnostics a cold check gives. Counted on the
server's own event loop and scheduler, never timed; over real JSON-RPC in ``test_lean_server``."""

from __future__ import annotations

import asyncio
import json

from core_support import analyze_lines, loc, make_project, qline
from lsprotocol import types
from pygls.uris import from_fs_path

from golden_lsp.core.engine import textcache
from golden_lsp.core.engine.held import HELD
from golden_lsp.core.labels import anycase, facts, quotepolicy
from golden_lsp.server import scheduler as scheduler_module
from golden_lsp.server.app import server
from golden_lsp.server.scheduler import Scheduler
from golden_lsp.server.session import Session


def opened(tmp_path, docs: dict[str, str], lines: list[str]):
    make_project(tmp_path, docs, lines)
    session = Session()
    scheduler = Scheduler(server, session)
    uri = from_fs_path(str(tmp_path / "questions.jsonl"))
    session.open(uri, (tmp_path / "questions.jsonl").read_text(encoding="utf-8"), 1)
    return session, scheduler, uri, session.view(uri).golden


async def until(done, turns: int = 400) -> None:
    for _ in range(turns):
        if done():
            return
        await asyncio.sleep(0.01)


async def test_large_documents_are_prepared_in_steps_and_read_back_only_while_the_author_pauses(
    tmp_path, monkeypatch
):
    docs = {f"d{i}.md": f"# D{i}\n\nSome Text of document {i}.\n" * (i + 1) for i in range(6)}
    lines = [qline(f"q{i}", [loc(f"d{i}.md", f"Text of document {i}")]) for i in range(6)]  # each quoted
    _session, scheduler, uri, golden = opened(tmp_path, docs, lines)
    by_size = sorted(golden.corpus.docs.values(), key=lambda d: -d.chars)
    large = by_size[:3]
    steps: list[tuple[str, int]] = []

    def prepare(text: str):
        for k in range(3):
            steps.append((text, k))
            yield

    monkeypatch.setattr(scheduler_module, "prepare_document_hints", prepare)
    monkeypatch.setattr(facts, "PREPARE_FROM", large[-1].chars)  # the 3 largest only
    monkeypatch.setattr(scheduler_module, "IDLE_AFTER_EDIT", 2.0)  # far above any stall here
    for doc in golden.corpus.docs.values():
        doc.release()
    held = large[1].text  # read back (a keystroke needed it): held, so prepared at once
    scheduler.edited()
    scheduler._prepare_hints(golden, uri)
    for _ in range(10):  # typing: an edit every 20 ms, each step 5 ms after the last
        await asyncio.sleep(0.02)
        scheduler.edited()
    assert steps == [(held, k) for k in range(3)]  # no text read back while the author types
    assert not HELD.holds(large[0]) and not HELD.holds(large[2])
    monkeypatch.setattr(scheduler_module, "IDLE_AFTER_EDIT", 0.0)  # the author stopped
    await until(lambda: len(steps) == 9)
    # the largest first, each in its steps, one document after the other, each once
    assert steps == [(held, k) for k in range(3)] + [
        (d.text, k) for d in (large[0], large[2]) for k in range(3)
    ]


async def test_a_keystroke_while_a_document_is_prepared_gets_the_diagnostics_of_a_cold_check(
    tmp_path, monkeypatch
):
    words = ["Alpine", "huts", "open", "late", "in", "the", "season", "when", "snow", "Melts", "früh"]
    paragraphs = [
        " ".join(words[(i + k) % len(words)] for k in range(9 + i % 7)) + f" mark{i}." for i in range(900)
    ]
    docs = {
        "large.md": "# Large\n\n" + "\n\n".join(paragraphs) + "\n",
        "small.md": "# Small\n\nA small text.\n",
    }
    quotes = [f"{paragraphs[i].split()[-3]} {paragraphs[i].split()[-2]} mark{i}." for i in range(0, 900, 90)]
    lines = [qline(f"q{i}", [loc("large.md", q)]) for i, q in enumerate(quotes)]
    session, scheduler, uri, golden = opened(tmp_path, docs, lines)
    monkeypatch.setattr(facts, "PREPARE_FROM", 1000)
    monkeypatch.setattr(anycase, "STEP_CHARS", 500)  # ~150 steps for each index
    monkeypatch.setattr(quotepolicy, "STEP_CHARS", 500)
    monkeypatch.setattr(quotepolicy, "LARGE", 1000)  # the word index is what counts words here
    monkeypatch.setattr(scheduler_module, "IDLE_AFTER_EDIT", 0.0)
    text = golden.corpus.docs["large.md"].text
    cases, counts = textcache.memo_of(anycase.case_index), textcache.memo_of(quotepolicy._word_index)

    def seen(d):
        """What the author sees of a finding (the cold check's corpus sits in another folder)."""
        return d.code, d.message, d.range, [(r.range, r.message, r.doc_id) for r in d.related], d.data

    def keystroke(version: int, broken: dict[int, str]):
        """Break the quotes of the records ``broken`` names; the diagnostics the server shows,
        and those of a cold analysis of the same text."""
        edited = [
            json.dumps({**json.loads(line), "locators": [loc("large.md", broken[i])]})
            if i in broken
            else line
            for i, line in enumerate(lines)
        ]
        session.edit(uri, version, [types.TextDocumentContentChangeWholeDocument("\n".join(edited) + "\n")])
        shown = session.view(uri).analysis.diagnostics
        cold = analyze_lines(tmp_path / f"cold{version}", docs, edited)[1].diagnostics
        assert sum(d.code == "quote-not-found" for d in cold) == len(broken)
        return [seen(d) for d in shown if d.code.startswith("quote-")], [
            seen(d) for d in cold if d.code.startswith("quote-")
        ]

    scheduler._prepare_hints(golden, uri)
    await until(lambda: text in cases.values, 100)  # the case index is made, the word index not yet
    assert text in cases.values and text not in counts.values
    shown, cold = keystroke(2, {1: quotes[1].upper(), 2: quotes[2].replace(" ", "  ", 1), 3: quotes[3] + "~"})
    assert shown == cold
    await until(lambda: text in counts.values)
    assert text in counts.values
    shown, cold = keystroke(3, {4: quotes[4].lower() + "~", 5: quotes[5].upper()})
    assert shown == cold
