"""The one owner of every memo golden-lsp keeps in memory from a document's text.

A few answers are worth keeping per text because editors ask for them again and again; the
semantics declare them (``text/memo.py``: a document's longest line and its index of cased words
for not-found hints, a quote's lengthening for the code action). Such a memo must never keep a text
alive after the corpus let go of it (a released or an edited document), and a test or the language
server must be able to start from nothing. So every memo is made here (``remember``: the latest
texts, least recently used first out) and registered: ``forget_text`` drops what any of them
computed from one text, ``reset`` empties them all. No module keeps a memo of its own beside these.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

from ..text.memo import PerText

T = TypeVar("T")


class Memo(Generic[T]):
    """A memo of ``fn(text, *args)`` for the latest ``texts`` documents (least recently used go
    first), every entry of one text dropped by ``forget``."""

    def __init__(self, fn: Callable[..., T], texts: int):
        self.fn, self.texts = fn, texts
        self.values: dict[str, dict[tuple, T]] = {}
        #: answers given from the memo since the last ``reset``
        self.hits = 0

    def __call__(self, text: str, *args: Any) -> T:
        found, value = self.peek(text, args)
        if not found:
            value = self.fn(text, *args)
            self.put(text, args, value)
        return value  # type: ignore[return-value]  # (an answer may be None)

    def peek(self, text: str, args: tuple) -> tuple[bool, T | None]:
        """(True, the answer) when remembered (now the most recent), else (False, None)."""
        memo = self.values.get(text)
        if memo is None or args not in memo:
            return False, None
        self.values[text] = self.values.pop(text)
        self.hits += 1
        return True, memo[args]

    def put(self, text: str, args: tuple, value: T) -> None:
        """Remember ``value`` as the answer for ``text`` and ``args`` (made a step at a time)."""
        memo = self.values.pop(text, None)
        if memo is None:
            memo = {}
            while len(self.values) >= self.texts:
                del self.values[next(iter(self.values))]
        self.values[text] = memo
        memo[args] = value

    def forget(self, text: str) -> None:
        self.values.pop(text, None)

    def clear(self) -> None:
        self.values.clear()
        self.hits = 0


#: each declaration's memo (one for good: installing again finds it)
_memos: dict[PerText[Any], Memo[Any]] = {}


def remember(declared: PerText[T]) -> Memo[T]:
    """The memo of a declared function (``memo.install`` asks for it)."""
    memo = _memos.get(declared)
    if memo is None:
        memo = _memos[declared] = Memo(declared.fn, declared.texts)
    return memo


def memo_of(declared: PerText[T]) -> Memo[T]:
    """What is remembered of ``declared`` (the tests look inside)."""
    return remember(declared)


def forget_text(text: str) -> None:
    """Drop whatever any memo computed from ``text`` (``CorpusDoc.release``, an edit)."""
    for memo in _memos.values():
        memo.forget(text)


def reset() -> None:
    """Empty every memo (a test that must start from nothing; a server that lets all go)."""
    for memo in _memos.values():
        memo.clear()
