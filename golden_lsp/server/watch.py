"""The server's own watch over its corpus roots, for clients that cannot watch files for it.

An editor that offers dynamic ``workspace/didChangeWatchedFiles`` registration (VS Code) reports
changes on disk itself. Neovim on Linux offers none, so a chapter changed by ``git checkout`` or
another program would never reach the server. Then the server watches each loaded set's corpus
folder with ``watchfiles`` (the Rust ``notify`` crate: inotify on Linux, FSEvents, ReadDirectoryChanges)
in a daemon thread, and hands each batch of changed paths to the event loop with
``call_soon_threadsafe`` — the only way the thread touches the server. An mtime check before each
analysis was the alternative: it costs a glob and a stat per file on every keystroke (0.5 ms for
10 files, 64 ms for 2,000 here) and still sees nothing until the author types; the watcher costs
nothing per keystroke, starts in ~0.1 s and reports a change in ~0.1 s.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path

#: ms the watcher waits for more changes before reporting a batch (a checkout touches many files)
STEP_MS = 50


class CorpusWatcher:
    """Watches a set of folders. On ``loop``: ``on_change(paths)`` for each batch of changes,
    ``on_status(message, ok)`` once the folders are watched (ok) or when watching fails."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        on_change: Callable[[list[str]], None],
        on_status: Callable[[str, bool], None],
    ):
        self._loop = loop
        self._on_change = on_change
        self._on_status = on_status
        self.roots: frozenset[Path] = frozenset()
        self._stop: threading.Event | None = None

    def watch(self, roots: set[Path]) -> None:
        """Watch exactly ``roots`` (folders that exist); restarts the thread only when they change."""
        folders = frozenset(r for r in roots if r.is_dir())
        if folders == self.roots:
            return
        self.stop()
        self.roots = folders
        if not folders:
            return
        self._stop = threading.Event()
        threading.Thread(
            target=self._run, args=(sorted(folders), self._stop), name="golden-lsp-watch", daemon=True
        ).start()

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()
            self._stop = None
        self.roots = frozenset()

    def _run(self, roots: list[Path], stop: threading.Event) -> None:
        from watchfiles import watch  # imported only by a server that watches for itself

        started = False
        try:
            # with yield_on_timeout the first (empty) batch comes once the OS watch is in place
            for changes in watch(
                *roots,
                stop_event=stop,
                step=STEP_MS,
                yield_on_timeout=True,
                rust_timeout=200,
                raise_interrupt=False,
            ):
                if stop.is_set():
                    return
                if not started:
                    started = True
                    folders = ", ".join(str(r) for r in roots)
                    self._loop.call_soon_threadsafe(self._on_status, f"watching {folders} for changes", True)
                if changes:
                    self._loop.call_soon_threadsafe(self._on_change, sorted({p for _, p in changes}))
        except Exception as exc:  # a root removed under the watcher, inotify limits: say so, stop
            if not stop.is_set():
                self._loop.call_soon_threadsafe(self._on_status, f"cannot watch the corpus: {exc}", False)
