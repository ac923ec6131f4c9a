"""The corpus as it was: a folder, or the corpus folder at a git revision, read the way a build reads.

Re-anchoring labels needs the text each label spanned before the corpus changed, and that text is
usually in git (the manifest records the commit a build was made from, ``corpus_commit``). This
module reads it with ``git`` itself, as a subprocess — ``rev-parse`` to name the commit and the
corpus folder's place in the repository, ``ls-tree`` for its files, one ``cat-file --batch`` for
their contents — never through a Python git library. The files are written into a temporary
folder and read back by ``corpus.load_corpus``, so the old corpus has exactly the documents, doc
IDs and canonical texts a build of that revision would have had (same glob, same decoding).
Everything that can go wrong — no git, no repository, an unknown revision, a corpus folder the
revision does not hold — is a ``ConfigError`` naming it (the command line's exit 2).
"""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..core.corpus.document import CorpusConfigError
from ..core.corpus.index import load_corpus
from ..core.goldenset.config import ConfigError
from ..core.io.files import display

#: git's file modes of a regular blob (plain, executable); links and submodules are no documents
_REGULAR_MODES = ("100644", "100755")
#: the longest a git command may take (a cat-file of a large corpus included)
_GIT_TIMEOUT = 300


@dataclass(frozen=True)
class OldCorpus:
    """The canonical text of every document of the corpus as it was, by doc ID."""

    texts: dict[str, str]
    #: where it was read, for people: "commit 1a2b3c4" or the folder
    source: str
    #: the full commit it was read at (None: read from a folder)
    commit: str | None = None


def from_folder(folder: Path, glob: str, max_chars: int) -> OldCorpus:
    """The documents of ``folder`` matching ``glob``, read as a build reads a corpus."""
    try:
        corpus = load_corpus(folder, glob, max_chars)
    except CorpusConfigError as exc:
        raise ConfigError(f"--from-corpus: {exc}") from None
    return OldCorpus({d: doc.text for d, doc in corpus.docs.items()}, display(folder))


def _git(cwd: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["git", *args], cwd=cwd, input=stdin, capture_output=True, timeout=_GIT_TIMEOUT, check=False
        )
    except FileNotFoundError:
        raise ConfigError("--from needs git, and git is not installed (or not on PATH)") from None
    except (OSError, subprocess.SubprocessError) as exc:
        raise ConfigError(f"git {args[0]} failed in {display(cwd)}: {exc}") from None


def _said(proc: subprocess.CompletedProcess[bytes]) -> str:
    """git's own first line of complaint, for a message."""
    lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[0] if lines else f"exit status {proc.returncode}"


def repository_of(root: Path) -> tuple[Path, str] | None:
    """The top folder of the git work tree holding ``root`` and ``root``'s path inside it
    (``corpus/``, or "" at the top); None when ``root`` is in no git work tree."""
    top = _git(root, "rev-parse", "--show-toplevel", "--show-prefix")
    if top.returncode != 0:
        return None
    lines = top.stdout.decode("utf-8", "surrogateescape").split("\n")
    return Path(lines[0]), lines[1] if len(lines) > 1 else ""


def resolve_revision(top: Path, rev: str) -> str:
    """The full commit ``rev`` names in the repository at ``top``; a ConfigError naming it when
    it names none."""
    if not rev or rev.startswith("-"):
        raise ConfigError(f"--from {rev!r}: not a revision")
    proc = _git(top, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    if proc.returncode != 0:
        raise ConfigError(
            f"--from {rev!r}: unknown revision in the git repository {top} (a shallow clone "
            "may lack it: fetch the history, e.g. actions/checkout with fetch-depth: 0)"
        )
    return proc.stdout.decode("ascii").strip()


def at_revision(root: Path, rev: str, glob: str, max_chars: int) -> OldCorpus:
    """The corpus folder ``root`` as it was at git revision ``rev`` of the repository holding it."""
    found = repository_of(root)
    if found is None:
        raise ConfigError(f"--from {rev!r}: the corpus folder {display(root)} is not in a git repository")
    top, prefix = found
    commit = resolve_revision(top, rev)
    listing = _git(top, "ls-tree", "-r", "-z", "--full-tree", commit, "--", prefix or ".")
    if listing.returncode != 0:
        raise ConfigError(f"--from {rev!r}: git ls-tree failed: {_said(listing)}")
    blobs: list[tuple[str, str]] = []  # (object, path under the corpus folder)
    for entry in listing.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, name = entry.partition(b"\t")
        mode, kind, obj = meta.decode("ascii").split(" ")
        path = name.decode("utf-8", "surrogateescape")
        if kind == "blob" and mode in _REGULAR_MODES and path.startswith(prefix):
            blobs.append((obj, path[len(prefix) :]))
    where = prefix.rstrip("/") or "the repository's top folder"
    if not blobs:
        raise ConfigError(f"--from {rev!r}: commit {commit[:12]} holds no file in {where}")
    with tempfile.TemporaryDirectory(prefix="golden-lsp-old-corpus-") as tmp:
        _materialise(top, blobs, Path(tmp))
        try:
            corpus = load_corpus(Path(tmp), glob, max_chars)
        except CorpusConfigError:
            raise ConfigError(
                f"--from {rev!r}: no document of {where} at commit {commit[:12]} matches {glob!r}"
            ) from None
        texts = {d: doc.text for d, doc in corpus.docs.items()}
    return OldCorpus(texts, f"commit {commit[:12]}", commit)


def _materialise(top: Path, blobs: list[tuple[str, str]], into: Path) -> None:
    """Write each blob's content under ``into`` at its path, read in one ``git cat-file --batch``."""
    proc = _git(top, "cat-file", "--batch", stdin="".join(f"{obj}\n" for obj, _ in blobs).encode("ascii"))
    if proc.returncode != 0:
        raise ConfigError(f"git cat-file failed in {display(top)}: {_said(proc)}")
    out, pos = proc.stdout, 0
    for _, rel in blobs:
        header_end = out.index(b"\n", pos)
        size = int(out[pos:header_end].split(b" ")[2])
        content = out[header_end + 1 : header_end + 1 + size]
        pos = header_end + 1 + size + 1  # the content, then a newline
        parts = PurePosixPath(rel).parts
        if not parts or ".." in parts or PurePosixPath(rel).is_absolute():
            continue  # git never records such a path; nothing is written outside the folder
        target = into.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
