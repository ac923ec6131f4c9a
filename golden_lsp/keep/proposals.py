"""The judge's proposals file: one JSON line per judged candidate passage, never a label.

``golden-lsp judge`` writes what an LLM judge said about each (record, passage) pair here, beside
the questions file (``[judge] proposals`` moves it), and nothing else: the questions file changes
only when a person accepts a proposal — one at a time in the editor, or in bulk with
``golden-lsp accept``, both reading this module. A proposal names its passage by canonical
offsets and carries the digest of the query and passage text it was judged on, so a proposal
whose record was reworded, or whose passage was edited since, is recognised as stale and never
offered. What a model wrote (the reason, an error, the model's name) is bounded when read
(``untrusted.bound``), a hand-edited file's too. ``check`` never reads this file.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.corpus.index import Corpus
from ..core.goldenset.config import ConfigError
from ..core.io.files import display, read_regular, write_atomically
from ..core.text.canon import NotUtf8Error, decode_strict
from .untrusted import bound

CONFIDENCES = ("high", "medium", "low")
#: the confidences at which a judge's "relevant" is kept (good practice: drop the low ones)
KEPT = ("high", "medium")


def input_digest(query: str, passage: str) -> str:
    """What a judgment was made on: the query and the passage's canonical text."""
    return "sha256:" + hashlib.sha256(f"{query}\0{passage}".encode()).hexdigest()


@dataclass(frozen=True)
class Proposal:
    """One judged candidate of one record (``relevant`` is None when the judgment failed)."""

    id: str
    doc: str
    char_start: int
    char_end: int
    chunk_ids: tuple[str, ...]
    rank: int
    relevant: bool | None
    confidence: str | None
    reason: str | None
    provider: str
    model: str
    prompt: str
    prompt_digest: str
    input_sha256: str
    primary: bool = False
    #: every candidate of the record was judged not relevant: the judge proposes it unanswerable
    unanswerable: bool = False
    error: str | None = None

    def kept(self, levels: tuple[str, ...] = KEPT) -> bool:
        """Judged relevant at one of ``levels`` of confidence."""
        return self.relevant is True and self.confidence in levels

    def fresh(self, query: str | None, corpus: Corpus) -> bool:
        """Whether the record's query and the passage's text are still what the judge read."""
        doc = corpus.docs.get(self.doc)
        if doc is None or query is None or not 0 <= self.char_start < self.char_end <= doc.chars:
            return False
        return input_digest(query, doc.text[self.char_start : self.char_end]) == self.input_sha256

    def line(self) -> str:
        out: dict[str, Any] = {
            "id": self.id,
            "doc": self.doc,
            "char_start": self.char_start,
            "char_end": self.char_end,
            "chunk_ids": list(self.chunk_ids),
            "rank": self.rank,
            "relevant": self.relevant,
            "confidence": self.confidence,
            "reason": self.reason,
        }
        if self.primary:
            out["primary"] = True
        if self.unanswerable:
            out["unanswerable"] = True
        out.update(
            provider=self.provider,
            model=self.model,
            prompt=self.prompt,
            prompt_digest=self.prompt_digest,
            input_sha256=self.input_sha256,
        )
        if self.error is not None:
            out["error"] = self.error
        return json.dumps(out, ensure_ascii=False)


_STRINGS = ("id", "doc", "provider", "model", "prompt", "prompt_digest", "input_sha256")


def _parse(obj: Any) -> Proposal:
    """A proposal from one decoded line; ValueError naming what is wrong."""
    if not isinstance(obj, dict):
        raise ValueError("each line is a JSON object")
    for key in _STRINGS:
        if not isinstance(obj.get(key), str):
            raise ValueError(f"{key!r} must be a string")
    for key in ("char_start", "char_end", "rank"):
        if isinstance(obj.get(key), bool) or not isinstance(obj.get(key), int):
            raise ValueError(f"{key!r} must be an integer")
    ids = obj.get("chunk_ids")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise ValueError("'chunk_ids' must be a list of strings")
    relevant, confidence, reason = obj.get("relevant"), obj.get("confidence"), obj.get("reason")
    if relevant is not None and not isinstance(relevant, bool):
        raise ValueError("'relevant' must be true, false or null")
    if confidence is not None and confidence not in CONFIDENCES:
        raise ValueError(f"'confidence' must be one of {', '.join(CONFIDENCES)} or null")
    if reason is not None and not isinstance(reason, str):
        raise ValueError("'reason' must be a string or null")
    error = obj.get("error")
    if error is not None and not isinstance(error, str):
        raise ValueError("'error' must be a string")
    return Proposal(
        obj["id"],
        obj["doc"],
        obj["char_start"],
        obj["char_end"],
        tuple(ids),
        obj["rank"],
        relevant,
        confidence,
        None if reason is None else bound(reason),
        provider=obj["provider"],
        model=bound(obj["model"]),
        prompt=obj["prompt"],
        prompt_digest=obj["prompt_digest"],
        input_sha256=obj["input_sha256"],
        primary=obj.get("primary") is True,
        unanswerable=obj.get("unanswerable") is True,
        error=None if error is None else bound(error),
    )


def read_proposals(path: Path) -> list[Proposal]:
    """Every proposal of the file, in order (none when it does not exist); a ConfigError naming
    the line for anything else than proposals."""
    try:
        text = decode_strict(read_regular(path))
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise ConfigError(f"cannot read proposals {display(path)}: {exc.strerror}") from None
    except NotUtf8Error as exc:
        raise ConfigError(f"proposals {display(path)} is {exc}") from None
    out = []
    for no, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            out.append(_parse(json.loads(line)))
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            raise ConfigError(f"{display(path)}:{no}: not a proposal: {exc}") from None
    return out


def write_proposals(path: Path, proposals: list[Proposal]) -> None:
    try:
        write_atomically({path: "".join(p.line() + "\n" for p in proposals)})
    except OSError as exc:
        raise ConfigError(f"cannot write {display(path)}: {exc.strerror or exc}") from None


def by_record(proposals: list[Proposal]) -> dict[str, list[Proposal]]:
    out: dict[str, list[Proposal]] = {}
    for p in proposals:
        out.setdefault(p.id, []).append(p)
    return out


def proposed_unanswerable(proposals: list[Proposal]) -> bool:
    """The judge proposed the record unanswerable (every candidate judged, none relevant)."""
    return bool(proposals) and all(p.unanswerable for p in proposals)
