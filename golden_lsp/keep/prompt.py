"""The judge's prompt: the annotation guidelines as a system prompt, versioned and digested.

A judgment is only as good as the question it answered, so the prompt is part of every
judgment's identity: its digest is recorded on every proposal, keys the cache (another prompt is
never served a judgment made under this one) and lets an audit say which prompt it measured. The
default is the set's annotation guidelines (``core.labels.guidelines``, the one text people
labelling by hand read too) and asks for one JSON object. ``--prompt FILE`` (or ``[judge] prompt``)
replaces the system prompt; the user message is always the query and the passage as tagged blocks
(``untrusted.block``) that no text inside them can close, and the system prompt says they are data.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ..core.goldenset.config import ConfigError
from ..core.io.files import display, read_regular
from ..core.labels.guidelines import RULES
from ..core.text.canon import NotUtf8Error, decode_strict
from .untrusted import NOTE, block

#: the default prompt's version: a change of its text is a new version (and a new digest)
VERSION = "golden-lsp-judge-v2"

SYSTEM = f"""\
You label passages for a retrieval golden set. Each request gives a query and one passage from \
the corpus, each in its own tagged block: <query>…</query>, then <passage>…</passage>. \
{NOTE}

The annotation guidelines:

{RULES}
Confidence: "high" when the passage plainly answers the query or plainly does not; "medium" when \
it helps but leaves part of the answer out, or you hesitate; "low" when you are guessing.

Answer with one JSON object and nothing else:
{{"relevant": true or false, "confidence": "high" or "medium" or "low", "reason": "one sentence", \
"primary": true or false}}
"""


def user_message(query: str, passage: str) -> str:
    """The request: the query's block, then the passage's (``untrusted.block``)."""
    return f"{block('query', query)}\n\n{block('passage', passage)}"


@dataclass(frozen=True)
class Prompt:
    #: the default's version, or the prompt file as given
    name: str
    system: str

    @property
    def digest(self) -> str:
        """The system prompt and the user message's form, digested."""
        form = user_message("{query}", "{passage}")
        return "sha256:" + hashlib.sha256(f"{self.system}\0{form}".encode()).hexdigest()


DEFAULT = Prompt(VERSION, SYSTEM)


def load_prompt(path: Path | None) -> Prompt:
    """The default prompt, or a system prompt read from ``path`` (UTF-8, not empty)."""
    return DEFAULT if path is None else Prompt(display(path), read_system(path))


def read_system(path: Path) -> str:
    """A system prompt's text from ``path``: a regular file, UTF-8, not empty (else a ConfigError)."""
    try:
        text = decode_strict(read_regular(path))
    except OSError as exc:
        raise ConfigError(f"cannot read prompt {display(path)}: {exc.strerror}") from None
    except NotUtf8Error as exc:
        raise ConfigError(f"prompt {display(path)} is {exc}") from None
    if not text.strip():
        raise ConfigError(f"prompt {display(path)} is empty")
    return text
