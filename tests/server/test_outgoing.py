"""The server's outgoing queue over a real pipe whose reader stops reading: past its limit a
document's newer diagnostics replace the queued ones, answers are never dropped, and the read
loop's wait ends once the reader has caught up."""

from __future__ import annotations

import asyncio
import os
import threading

from golden_lsp.server.outgoing import QueuedWriter

DIAGNOSTICS = "textDocument/publishDiagnostics"


def frame(name: str, size: int) -> bytes:
    return (name.encode() + b" " * size)[:size] + b"\n"


def read_all(fd: int, into: list[bytes]) -> None:
    while chunk := os.read(fd, 1 << 16):
        into.append(chunk)


def test_superseded_diagnostics_are_dropped_and_answers_kept():
    r, w = os.pipe()
    out = os.fdopen(w, "wb", buffering=0)
    writer = QueuedWriter(out, limit=4096)
    writer.write(frame("blocker", 1 << 20))  # fills the pipe: the writing thread blocks on it
    for version in range(1, 6):  # five publications for a.jsonl, three for b.jsonl
        writer.write(frame(f"diag a v{version}", 1000), (DIAGNOSTICS, "file:///a.jsonl"))
        if version <= 3:
            writer.write(frame(f"diag b v{version}", 1000), (DIAGNOSTICS, "file:///b.jsonl"))
        writer.write(frame(f"answer {version}", 1000))
    assert writer.full and writer.dropped > 0

    async def wait_for_room() -> None:
        waiting = asyncio.ensure_future(writer.drained())
        await asyncio.sleep(0)
        assert not waiting.done()  # nothing is read: the read loop would wait here
        got: list[bytes] = []
        reader = threading.Thread(target=read_all, args=(r, got), daemon=True)
        reader.start()  # the client reads again
        await asyncio.wait_for(waiting, 60)
        writer.close()
        out.close()
        reader.join(60)
        kept = [line.strip().decode() for line in b"".join(got).split(b"\n") if line.strip()]
        assert kept[0] == "blocker"
        assert [k for k in kept if k.startswith("answer")] == [f"answer {v}" for v in range(1, 6)]
        assert [k for k in kept if k.startswith("diag a")][-1] == "diag a v5"
        assert [k for k in kept if k.startswith("diag b")][-1] == "diag b v3"
        assert len([k for k in kept if k.startswith("diag")]) == 8 - writer.dropped

    asyncio.run(wait_for_room())
    os.close(r)


def test_below_the_limit_nothing_is_dropped():
    r, w = os.pipe()
    out = os.fdopen(w, "wb", buffering=0)
    writer = QueuedWriter(out, limit=1 << 20)
    got: list[bytes] = []
    reader = threading.Thread(target=read_all, args=(r, got), daemon=True)
    reader.start()
    for version in range(1, 21):
        writer.write(frame(f"diag a v{version}", 100), (DIAGNOSTICS, "file:///a.jsonl"))
    writer.close()
    out.close()
    reader.join(60)
    assert writer.dropped == 0
    assert b"".join(got).count(b"diag a v") == 20
    os.close(r)
