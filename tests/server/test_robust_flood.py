"""A client that stops reading while it keeps sending: the server pushes back instead of buffering.

Over a raw pipe: the client floods requests whose answers it does not read, then hundreds of
megabytes more. The server's outgoing queue stays bounded, it stops taking input (the client's
own writes wait), its memory stays flat, and once the client reads again every request is
answered and the server answers the next one.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest
from raw_lsp import RawServer
from test_robust_protocol import assert_still_answers, open_questions

REQUESTS = 1000  # answers of ~24 KB each: three times the server's outgoing limit
PADDING = 1024 * 1024
PADDINGS = 300  # 300 MB the server would otherwise hold


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_a_client_that_stops_reading_gets_backpressure_not_a_bloated_server(golden_dir: Path):
    raw = RawServer(golden_dir)
    try:
        raw.initialize(golden_dir)
        uri = open_questions(raw, golden_dir)
        raw.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics")
        assert_still_answers(raw, uri)
        before = rss_mb(raw.proc.pid)
        raw.pause()
        sent = {"bytes": 0, "done": False}
        ids = [raw.new_id() for _ in range(REQUESTS)]
        pad = json.dumps({"jsonrpc": "2.0", "method": "$/padding", "params": {"pad": "x" * PADDING}}).encode()
        framed_pad = b"Content-Length: %d\r\n\r\n%s" % (len(pad), pad)

        def flood() -> None:
            for msg_id in ids:
                raw.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}}, msg_id)
                sent["bytes"] += 100
            for _ in range(PADDINGS):
                raw.send_raw(framed_pad)
                sent["bytes"] += len(framed_pad)
            sent["done"] = True

        sender = threading.Thread(target=flood, daemon=True)
        sender.start()
        # wait until the sender is stuck in a write (or done): its count no longer moves
        last, still, deadline = -1, 0, time.monotonic() + 240
        while not sent["done"] and still < 12 and time.monotonic() < deadline:
            time.sleep(0.25)
            still = still + 1 if sent["bytes"] == last else 0
            last = sent["bytes"]
        grown = rss_mb(raw.proc.pid) - before
        assert not sent["done"], "the server read everything a client that does not read sent"
        assert sent["bytes"] < PADDINGS * PADDING // 10, sent
        assert grown < 80, f"the server grew by {grown:.0f} MB"

        raw.resume()  # the client reads again: everything is answered, nothing was lost
        sender.join(timeout=240)
        assert sent["done"]
        for msg_id in ids:
            reply = raw.response(msg_id, timeout=60)
            assert len(reply["result"]) > 10, reply
        assert_still_answers(raw, uri)
    finally:
        raw.proc.kill()
        raw.close()
