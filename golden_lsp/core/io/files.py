"""Reading a golden set's inputs safely, writing its outputs atomically, and naming paths the way
a person wants to see them.

Every input golden-lsp reads by path — the questions file, the committed artifact and manifest,
a config — may turn out to be a FIFO, a device or a folder; reading one of those blocks forever or
reads nonsense, and in the language server a block makes it deaf. So inputs are opened without
blocking and read only when they are regular files; anything else is a ``NotRegularFile`` error
naming the path. Every output (a build's artifact and manifest, an export, a sample, an import,
an evaluation, a report) is written all or nothing: each file to a recognisable temporary
(``.NAME.golden-lsp-tmp-PID``, created anew and never through a link), all fsynced before any is
renamed; the next command writing the same files finishes (or removes) what a killed one left
(``finish_interrupted``, which ``write_outputs`` runs first). A file golden-lsp read and now
replaces (the questions file: ``accept``, ``migrate --write``, an ``--append``) is passed to
``write_outputs`` as ``read`` with its text then (``unchanged``): a read-only file is refused,
as an editor would, and the file is read again right before the replace and left alone when it
changed since it was read (a save made meanwhile is kept). Writers of one set's files (two
``build``s) take the ``locked`` folder first, one at a time, so the artifact and manifest are
always one build's pair. A file written where other users
could plant a link (the editor's report, in the temp folder) goes into a ``private_folder``.
Paths in messages are shown relative to the working directory when under it.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; writers of one set are not serialised there
    fcntl = None  # type: ignore[assignment]

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


#: the infix naming a build's temporaries: ``.<name>.golden-lsp-tmp-<pid>`` beside each output
TEMP_INFIX = ".golden-lsp-tmp-"


#: characters written per call: a large text is encoded a slice at a time, never copied whole
_WRITE_SLICE = 1 << 20


def temporary(path: Path, pid: int) -> Path:
    return path.with_name(f".{path.name}{TEMP_INFIX}{pid}")


def _create_new(path: Path) -> int:
    """A new file at ``path`` for writing, never opened through a link planted there: a leftover
    of the same name (a dead process's temporary, or a link) is removed first, then the file is
    created exclusively."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        return os.open(path, flags, 0o644)
    except FileExistsError:
        os.unlink(path)  # removes a link itself, never what it points at
        return os.open(path, flags, 0o644)


def write_atomically(files: Mapping[Path, str | Sequence[str]]) -> None:
    """Write every file (a text, or the pieces of one) or none, in order: all temporaries
    written and fsynced, then renamed.

    The first rename is the commit point: a build killed before it leaves every temporary and no
    new file; killed after it, the remaining temporaries are complete and only need their rename.
    ``finish_interrupted`` tells the two apart by that alone, so the files need no digest.
    """
    for path in files:
        _refuse_target(path)
    temps: list[tuple[Path, Path]] = []
    try:
        for path, text in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = temporary(path, os.getpid())
            temps.append((tmp, path))
            fd = _create_new(tmp)
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
                for piece in [text] if isinstance(text, str) else text:
                    for start in range(0, len(piece), _WRITE_SLICE):
                        f.write(piece[start : start + _WRITE_SLICE])
                f.flush()
                os.fsync(f.fileno())
            try:  # the derived files keep the mode they were given (a link's target's is not theirs)
                old = os.stat(path, follow_symlinks=False)
            except FileNotFoundError:
                pass
            else:
                if stat.S_ISREG(old.st_mode):
                    os.chmod(tmp, old.st_mode & 0o777)
        for tmp, path in temps:
            os.replace(tmp, path)
        for folder in {path.parent for path in files}:
            _fsync_folder(folder)
    finally:
        if temps and temps[0][0].exists():  # failed before the commit point: undo every temporary
            for tmp, _ in temps:
                tmp.unlink(missing_ok=True)


def write_outputs(
    files: Mapping[Path, str | Sequence[str]], what: str, read: Mapping[Path, str] | None = None
) -> list[str]:
    """``write_atomically(files)`` after finishing or removing what a killed earlier ``what``
    (``export``, ``import``, …) left of the same files; returns what was done about those, for
    the caller to tell. Those in ``read`` (path → its text as read) are re-checked first
    (``unchanged``)."""
    done = finish_interrupted(list(files), what)
    for path, before in (read or {}).items():
        unchanged(path, before, what)
    write_atomically(files)
    return done


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the exclusive lock of ``path``'s folder (an advisory ``flock`` on the folder itself,
    or on its nearest existing folder while it is missing; waited for while another process
    holds it) for the ``with`` block: writers of the files of one folder run one at a time, and
    no lock file is left behind."""
    if fcntl is None:
        yield
        return
    folder = next((p for p in path.parents if p.is_dir()), Path("."))  # missing yet: its nearest
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))  # folder that exists
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


class ChangedOnDisk(OSError):
    """The file changed on disk since golden-lsp read it: replacing it would lose that change."""


def unchanged(path: Path, before: str, what: str) -> None:
    """Nothing when ``path`` may be replaced: ``PermissionError`` when it is read-only (refused,
    as an editor would); ``ChangedOnDisk`` when its content is no longer ``before`` (its whole
    text as read, ``""`` for a file that did not exist; compared by SHA-256)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and stat.S_ISREG(mode) and not mode & 0o222:
        raise PermissionError(
            errno.EACCES, "is read-only: make it writable to let golden-lsp change it", str(path)
        )
    try:
        now = hashlib.sha256(read_regular(path)).digest()
    except FileNotFoundError:
        now = None
    if now != (hashlib.sha256(before.encode("utf-8")).digest() if before or mode is not None else None):
        raise ChangedOnDisk(
            errno.ESTALE, f"changed while golden-lsp was running {what}: nothing written", str(path)
        )


def finish_interrupted(paths: list[Path], what: str = "build") -> list[str]:
    """Finish or remove the temporaries a killed ``write_atomically(paths…)`` left, per process id.

    Temporaries of a process that is still running are left alone (a build in progress). Returns
    what was done, one line each (naming the interrupted ``what``), for the caller to tell.
    """
    pids: set[int] = set()
    for path in paths:
        prefix = f".{path.name}{TEMP_INFIX}"
        try:
            names = os.listdir(path.parent)
        except OSError:
            continue
        pids.update(
            int(n[len(prefix) :]) for n in names if n.startswith(prefix) and n[len(prefix) :].isdigit()
        )
    done = []
    for pid in sorted(pids):
        if pid != os.getpid() and _running(pid):
            continue
        temps = [(temporary(p, pid), p) for p in paths]
        committed = not temps[0][0].exists()
        for tmp, path in temps:
            if not tmp.exists():
                continue
            if committed:
                os.replace(tmp, path)
                done.append(f"finished an interrupted {what}: {display(path)}")
            else:
                tmp.unlink()
                done.append(f"removed the temporary of an interrupted {what}: {display(tmp)}")
    return done


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class NotPrivate(OSError):
    """A folder that other users could write into, or that is not the user's own folder."""


def private_folder(path: Path) -> Path:
    """``path`` as a folder only this user can enter, for files written where other users could
    plant a link (the temp folder): created with mode 0700 when missing; ``NotPrivate`` when it is
    a link, not a folder, another user's, or open to others (it is never written into then)."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    st = os.lstat(path)
    problem = None
    if stat.S_ISLNK(st.st_mode):
        problem = "is a symbolic link, not a folder"
    elif not stat.S_ISDIR(st.st_mode):
        problem = f"is {kind(st.st_mode)}, not a folder"
    elif hasattr(os, "getuid") and st.st_uid != os.getuid():
        problem = f"belongs to another user (uid {st.st_uid}, not {os.getuid()})"
    elif os.name == "posix" and st.st_mode & 0o077:
        problem = f"is open to other users (mode {stat.S_IMODE(st.st_mode):04o}, not 0700)"
    if problem is not None:
        raise NotPrivate(errno.EPERM, f"{problem}: remove it, golden-lsp then makes it private", str(path))
    return path


def _refuse_target(path: Path) -> None:
    """Fail before anything is written when an output cannot be a file: a folder or FIFO in its
    place, or a file where one of its folders should be."""
    if path.exists() and not path.is_file():
        raise OSError(errno.EEXIST, f"it is {kind(path.stat().st_mode)}, not a regular file", str(path))
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise OSError(errno.ENOTDIR, f"{display(parent)} is a file, not a folder", str(path))
            break


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some filesystems cannot sync a folder
        pass
    finally:
        os.close(fd)
