"""A questions file opened with no config: the advice an editor user can follow, and its quick fix.

The command line's advice for a set without a corpus — "pass --corpus DIR" — is no use in an
editor. When no ``golden-lsp.toml`` (nor ``[tool.golden-lsp]``) is found from a questions file's
folder up, its config-error says to create one beside it and names the folder of Markdown files
it would point at, and the quick fix "Create golden-lsp.toml here" writes it (``golden-lsp init``'s
config text): as a workspace edit creating the file, for a client that creates files through
edits, else as the server's command, which never writes over an existing file.
"""

from __future__ import annotations

import os
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from ..core.goldenset.config import CONFIG_NAME, ConfigError, NoCorpus
from ..practice.skeleton import config_text, corpus_glob, write_new
from .workspace import GoldenSets

CREATE_CONFIG_COMMAND = "golden-lsp.createConfig"
#: folder names taken for the corpus first, when they hold Markdown files
CORPUS_NAMES = ("corpus", "docs", "doc", "documentation")


def unconfigured(exc: ConfigError, path: Path | None, sets: GoldenSets) -> bool:
    """Whether ``exc``, the config error of the questions file ``path``, says that no config was
    found for it at all."""
    if path is None or not isinstance(exc, NoCorpus):
        return False
    try:
        return sets.config_for(path).source is None
    except ConfigError:
        return False


def editor_message(exc: ConfigError, path: Path | None, sets: GoldenSets) -> str:
    """What the editor says of a questions file's config error."""
    return advice(path) if path is not None and unconfigured(exc, path, sets) else str(exc)


def guess_corpus(folder: Path) -> Path | None:
    """The folder of Markdown files a config beside ``folder``'s questions file would point at: a
    subfolder named like a corpus, else the subfolder with the most Markdown files, else the folder
    itself when it holds some; None when there is none."""
    counts: dict[Path, int] = {}
    try:
        subfolders = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    except OSError:
        return None
    for sub in subfolders:
        n = sum(1 for p in sub.rglob("*.md") if p.is_file())
        if n:
            counts[sub] = n
    for name in CORPUS_NAMES:
        if folder / name in counts:
            return folder / name
    if counts:
        return max(counts, key=lambda p: (counts[p], -len(p.name)))
    return folder if any(p.is_file() for p in folder.glob("*.md")) else None


def advice(path: Path) -> str:
    """The config-error of a questions file with no config, saying how to make one."""
    corpus = guess_corpus(path.parent)
    where = (
        f'corpus = "{Path(os.path.relpath(corpus, path.parent)).as_posix()}" (its Markdown files)'
        if corpus is not None
        else 'corpus = "<the folder of its Markdown files>"'
    )
    return (
        f"no {CONFIG_NAME} in this folder or above: create {CONFIG_NAME} beside this file with "
        f'{where} — the quick fix "Create {CONFIG_NAME} here" writes it'
    )


def code_actions(uri: str, path: Path, create_files: bool) -> list[types.CodeAction]:
    """The quick fix of that config-error: a workspace edit creating the file for a client that
    creates files through edits (``create_files``), else the server's command writing it."""
    corpus = guess_corpus(path.parent)
    named = f" (corpus {Path(os.path.relpath(corpus, path.parent)).as_posix()})" if corpus else ""
    title = f"Create {CONFIG_NAME} here{named}"
    if not create_files:
        command = types.Command(title, CREATE_CONFIG_COMMAND, arguments=[uri])
        return [
            types.CodeAction(title, kind=types.CodeActionKind.QuickFix, command=command, is_preferred=True)
        ]
    target = from_fs_path(str(path.parent / CONFIG_NAME))
    edit = types.WorkspaceEdit(
        document_changes=[
            types.CreateFile(target, options=types.CreateFileOptions(ignore_if_exists=True)),
            types.TextDocumentEdit(
                types.OptionalVersionedTextDocumentIdentifier(target, None),
                [types.TextEdit(types.Range(types.Position(0, 0), types.Position(0, 0)), _text(path))],
            ),
        ]
    )
    return [types.CodeAction(title, kind=types.CodeActionKind.QuickFix, edit=edit, is_preferred=True)]


def _text(path: Path) -> str:
    """The config written beside the questions file ``path``."""
    corpus = guess_corpus(path.parent) or path.parent / "corpus"
    rel = Path(os.path.relpath(corpus, path.parent)).as_posix()
    glob = corpus_glob(corpus) if corpus.is_dir() else "*.md"
    return config_text(rel, glob, questions=path.name, small=False)


def create(path: Path) -> tuple[bool, str]:
    """Write the config beside the questions file ``path`` (never over a file); (written, message)."""
    target = path.parent / CONFIG_NAME
    if not write_new(target, _text(path)).written:
        return False, f"{target} exists: it was left as it is"
    return True, f"wrote {target}"
