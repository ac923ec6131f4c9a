"""Reading a golden set's inputs safely, and naming paths the way a person wants to see them.

Every input golden-lsp reads by path — the questions file, the committed artifact and manifest,
a config — may turn out to be a FIFO, a device or a folder; reading one of those blocks forever or
reads nonsense, and in the language server a block makes it deaf. So inputs are opened without
blocking and read only when they are regular files; anything else is a ``NotRegularFile`` error
naming the path. Paths in messages are shown relative to the working directory when under it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


class NotRegularFile(OSError):
    """The path names something other than a regular file."""


def display(path: Path | str) -> str:
    """A path as the user will want to click it: relative to the working directory if inside."""
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive, or no working directory
        return str(path)
    return str(path) if rel == ".." or rel.startswith(".." + os.sep) else rel


def kind(mode: int) -> str:
    """What a file of this st_mode is, for a message ("a FIFO", "a folder", …)."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def read_regular(path: Path) -> bytes:
    """The bytes of a regular file; ``NotRegularFile`` for anything else, without blocking on it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except IsADirectoryError:
        raise NotRegularFile(errno.EISDIR, "is a folder, not a file", str(path)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(errno.EINVAL, f"is {kind(st.st_mode)}, not a regular file", str(path))
        chunks = []
        while chunk := os.read(fd, max(st.st_size, 1 << 16)):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
