"""The tokens an answer relies on: what must still be in a label's passage for the answer to hold.

A label proves where an answer is, not that the passage still says it. What can be checked
without a model is the answer's *distinctive tokens* — numbers and versions, code spans,
identifiers, quoted strings — since those are what a changed fact changes ("3.6+" → "3.8+",
`None` → `Response`, `proxies` → `proxy`). ``answer-unsupported`` (the rules) asks whether they
occur in the record's spans; ``migrate`` asks which of them a passage lost when it changed. Both
decide here, so one token means the same thing to both. Matching ignores case, thousands
separators and whether a small number is spelled out; a token the query itself holds is never
required of the passage (the answer may restate the question's figure).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: code in backticks (one or more, not across lines)
_CODE = re.compile(r"(`+)([^`\n]+?)\1")
#: a quoted string: straight or curly double quotes, a few words at most
_QUOTED = re.compile(r"[\"“]([^\"”\n]{2,60})[\"”]")
#: a number or version: 3, 3.6, 3.6+, 1,000, 95%, v2.1.0 (a leading v is dropped)
_NUMBER = re.compile(r"(?<![\w.,:])v?(\d+(?:[.,:]\d+)*)(\+|%|x\b|×)?(?![\w]|[.,:]\d)")
#: an identifier: snake_case, camelCase/PascalCase with an inner capital, dotted names, calls,
#: --options and paths (what a person would put in backticks, written without them)
_IDENT = re.compile(
    r"(?<![\w-])(?:--?[A-Za-z][\w-]*"
    r"|[A-Za-z_][\w]+(?:\.[A-Za-z_][\w]+)+(?:\(\))?"
    r"|[A-Za-z]*_[\w]*"
    r"|[a-z]+[A-Z][\w]*|[A-Z][a-z0-9]+[A-Z][\w]*"
    r"|[A-Za-z_]\w*\(\)"
    r"|[\w.-]*/[\w./-]*\.[A-Za-z]\w*|\.{0,2}/[\w.-]+(?:/[\w.-]+)*)"
)
_SMALL = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
]
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Token:
    """One distinctive token: its text as written and what kind it is (number, code, quoted,
    identifier), for messages."""

    text: str
    kind: str


def tokens(text: str) -> list[Token]:
    """The distinctive tokens of ``text``, in order, each once (by its matching form)."""
    out: dict[str, Token] = {}

    def add(raw: str, kind: str) -> None:
        raw = raw.strip().strip(".,;:")
        key = _key(raw.rstrip("+%x×") if kind == "number" else raw)
        if raw and key not in out and (kind != "code" or any(c.isalnum() for c in raw)):
            out[key] = Token(raw, kind)

    rest = text
    for m in _CODE.finditer(text):
        add(m.group(2), "code")
    rest = _CODE.sub(" ", rest)
    for m in _QUOTED.finditer(rest):
        add(m.group(1), "quoted")
    rest = _QUOTED.sub(" ", rest)
    for m in _IDENT.finditer(rest):
        add(m.group(0), "identifier")
    rest = _IDENT.sub(" ", rest)
    for m in _NUMBER.finditer(rest):
        add(m.group(1) + (m.group(2) or ""), "number")
    return list(out.values())


def _key(raw: str) -> str:
    return _SPACES.sub(" ", raw.casefold())


def _normal(text: str) -> str:
    """``text`` as tokens are looked for in it: case folded, spaces single, thousands
    separators dropped, backticks gone."""
    text = _SPACES.sub(" ", text.casefold().replace("`", " "))
    return re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)


class Haystack:
    """A text tokens are looked for in (normalised once)."""

    def __init__(self, *texts: str) -> None:
        self.text = _normal("\n".join(texts))

    def has(self, token: Token) -> bool:
        key = _normal(token.text)
        if token.kind == "number":
            digits = key.rstrip("+%x×")
            if re.search(rf"(?<![\w.])v?{re.escape(digits)}(?:[+%×]|x\b)?(?![\w]|[.,:]\d)", self.text):
                return True
            n = int(digits) if digits.isdigit() else -1
            return 0 <= n < len(_SMALL) and re.search(rf"\b{_SMALL[n]}\b", self.text) is not None
        if key[:1].isalnum() and key[-1:].isalnum():
            return re.search(rf"(?<![\w]){re.escape(key)}(?![\w])", self.text) is not None
        return key in self.text


def unsupported(answer: str, query: str, passages: list[str]) -> list[Token]:
    """The distinctive tokens of ``answer`` that occur in none of ``passages`` (and are not the
    query's own)."""
    wanted = tokens(answer)
    if not wanted:
        return []
    asked, passage = Haystack(query), Haystack(*passages)
    return [t for t in wanted if not asked.has(t) and not passage.has(t)]


@dataclass(frozen=True)
class FactChange:
    """What a changed passage lost of what its answer relied on: the tokens gone, and the
    tokens the new passage has in their place (its tokens of those kinds the old one lacked)."""

    lost: tuple[str, ...]
    added: tuple[str, ...]

    def __str__(self) -> str:
        old = ", ".join(self.lost)
        return f"{old} → {', '.join(self.added)}" if self.added else f"{old} → (gone)"


def fact_change(answer: str, old: str, new: str) -> FactChange | None:
    """The answer's facts that ``old`` held and ``new`` no longer does: a token (of the answer or
    of the old passage) that the answer and the old passage share and the new passage lacks.
    None when nothing the answer relies on changed."""
    said, before, after = Haystack(answer), Haystack(old), Haystack(new)
    relied = [t for t in _merged(tokens(answer), tokens(old)) if said.has(t) and before.has(t)]
    lost = [t.text for t in relied if not after.has(t)]
    if not lost:
        return None
    kinds = {t.kind for t in relied if t.text in lost}
    had = {_key(t.text) for t in tokens(old)}
    added = [t.text for t in tokens(new) if t.kind in kinds and _key(t.text) not in had]
    return FactChange(tuple(lost), tuple(added[: max(3, len(lost))]))


def _merged(a: list[Token], b: list[Token]) -> list[Token]:
    seen = {_key(t.text) for t in a}
    return a + [t for t in b if _key(t.text) not in seen]
