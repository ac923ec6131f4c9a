"""A raw stdio connection to ``python -m golden_lsp``: writes any bytes, reads framed replies.

pytest-lsp only sends well-formed frames; the robustness tests need to send broken ones.
Every wait has a timeout, so a deaf server fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

from pygls.uris import from_fs_path


class RawServer:
    def __init__(self, cwd: Path, env: dict[str, str] | None = None):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "golden_lsp", "--stdio"],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
        )
        #: cleared while the client stops reading the server's output (``pause``)
        self.reading = threading.Event()
        self.reading.set()
        self.messages: queue.Queue[dict] = queue.Queue()
        self.received: list[dict] = []
        self._next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        self._stderr: list[bytes] = []
        threading.Thread(target=lambda: self._stderr.extend(self.proc.stderr), daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            self.reading.wait()
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line == b"\r\n":
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.messages.put(json.loads(out.read(length)))

    def pause(self) -> None:
        """Stop reading the server's output (after the message being read), as a stuck client does."""
        self.reading.clear()

    def resume(self) -> None:
        self.reading.set()

    @property
    def stderr(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")

    def send_raw(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict) -> None:
        body = json.dumps(message).encode("utf-8")
        self.send_raw(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def request(self, method: str, params=None, msg_id: int | None = None) -> int:
        msg_id = self.new_id() if msg_id is None else msg_id
        message = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return msg_id

    def notify(self, method: str, params=None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})})

    def wait_for(self, predicate, timeout: float = 15.0) -> dict:
        """The first message received (earlier ones included) that satisfies ``predicate``."""
        for message in self.received:
            if predicate(message):
                return message
        while True:
            try:
                message = self.messages.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(
                    f"no matching message within {timeout}s; got {self.received[-5:]}\n"
                    f"stderr: {self.stderr[-2000:]}"
                ) from None
            self.received.append(message)
            if predicate(message):
                return message

    def response(self, msg_id, timeout: float = 15.0) -> dict:
        return self.wait_for(lambda m: m.get("id") == msg_id and "method" not in m, timeout)

    def call(self, method: str, params=None) -> dict:
        return self.response(self.request(method, params))

    def initialize(self, root: Path) -> dict:
        result = self.call(
            "initialize", {"processId": None, "rootUri": from_fs_path(str(root)), "capabilities": {}}
        )
        self.notify("initialized", {})
        return result

    def close(self) -> int:
        """Wait for the process to end (killing it after a timeout); its exit status."""
        try:
            return self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError("the server did not exit") from None
        finally:
            for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                try:
                    stream.close()
                except OSError:
                    pass
