"""The outgoing side of the wire: a bounded queue in front of a thread that writes stdout.

pygls writes each message to stdout from the event loop and flushes it there. A client that stops
reading fills the pipe, the write blocks, and the loop with it — while the thread reading stdin
goes on taking everything the client sends and handing it to the blocked loop, so the server's
memory grows with every byte sent (474 MB after 400 MB, measured). Here the loop only queues a
message (``write``), and a thread of its own writes the queue to stdout, a batch at a time. The
queue is bounded: past ``limit`` bytes, a message that supersedes one still queued (the
diagnostics or the status of a document: the client wants only the last) replaces it, and the read
loop stops taking input (``drained``) until the client has read the queue down to half the limit,
so the client's own writes block instead of the server's memory growing. Nothing that answers a
request is ever dropped.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import Callable
from typing import BinaryIO

#: bytes queued for the client past which superseded messages are dropped and input waits
QUEUE_LIMIT = 8 * 1024 * 1024
#: bytes written to stdout in one call at most (messages are joined up to it)
BATCH = 1024 * 1024

#: what a queued message is known by when a later one replaces it: (method, document URI)
Key = tuple[str, str]


class QueuedWriter:
    """pygls' writer (``write``, ``close``) over a bounded queue and a writing thread."""

    def __init__(self, stdout: BinaryIO, limit: int = QUEUE_LIMIT) -> None:
        self._stdout = stdout
        self.limit = limit
        self._lock = threading.Condition()
        self._queue: deque[tuple[Key | None, bytes]] = deque()
        self.queued_bytes = 0
        #: superseded messages dropped so far
        self.dropped = 0
        self._closed = False
        self._broken = False
        self._writing = False
        self._waiter: tuple[asyncio.AbstractEventLoop, asyncio.Future] | None = None
        #: called (from the writing thread) once stdout cannot be written any more
        self.on_broken: Callable[[], None] | None = None
        threading.Thread(target=self._run, name="golden-lsp-stdout", daemon=True).start()

    def write(self, data: bytes, key: Key | None = None) -> None:
        """Queue one framed message; ``key`` names what it supersedes (dropped when over the limit)."""
        with self._lock:
            if self._broken or self._closed:
                return
            if key is not None and self.queued_bytes + len(data) > self.limit:
                self._drop(key)
            self._queue.append((key, data))
            self.queued_bytes += len(data)
            self._lock.notify_all()

    def _drop(self, key: Key) -> None:
        kept: deque[tuple[Key | None, bytes]] = deque()
        for item in self._queue:
            if item[0] == key:
                self.queued_bytes -= len(item[1])
                self.dropped += 1
            else:
                kept.append(item)
        self._queue = kept

    @property
    def full(self) -> bool:
        return self.queued_bytes > self.limit

    async def drained(self) -> None:
        """Return once the queue is at most half the limit (at once when it is), or stdout broke."""
        loop = asyncio.get_running_loop()
        while True:
            with self._lock:
                if self.queued_bytes <= self.limit // 2 or self._broken:
                    return
                future = loop.create_future()
                self._waiter = (loop, future)
            await future

    def _wake(self) -> None:
        """Resolve the read loop's wait, when there is one and it can go on (lock held)."""
        if self._waiter is not None and (self.queued_bytes <= self.limit // 2 or self._broken):
            loop, future = self._waiter
            self._waiter = None
            loop.call_soon_threadsafe(_resolve, future)

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._queue and not self._closed:
                    self._lock.wait()
                if not self._queue:
                    return
                batch: list[bytes] = []
                size = 0
                while self._queue and (not batch or size + len(self._queue[0][1]) <= BATCH):
                    data = self._queue.popleft()[1]
                    batch.append(data)
                    size += len(data)
                self.queued_bytes -= size
                self._writing = True
                self._wake()
            try:
                self._stdout.write(b"".join(batch))
                self._stdout.flush()
            except (OSError, ValueError):  # the client is gone (EPIPE), or stdout was closed
                self._break()
                return
            finally:
                with self._lock:
                    self._writing = False
                    self._lock.notify_all()

    def _break(self) -> None:
        with self._lock:
            self._broken = True
            self._queue.clear()
            self.queued_bytes = 0
            self._wake()
        if self.on_broken is not None:
            self.on_broken()

    def close(self, timeout: float = 5.0) -> None:
        """Write out what is queued (waiting at most ``timeout`` seconds for a client that does
        not read), then stop the thread."""
        with self._lock:
            self._lock.wait_for(lambda: self._broken or not (self._queue or self._writing), timeout)
            self._closed = True
            self._lock.notify_all()


def _resolve(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)
