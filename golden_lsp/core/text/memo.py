"""The answers of a text worth remembering, declared as such by the semantics that compute them.

Editors ask some questions of a document again and again: its longest line and its index of cased
words (for not-found hints), a quote's lengthening (for a code action). Each is a pure function of
the text, so remembering it changes nothing but the time — and how long to remember, and when to
forget (a text let go, an edit), is the engine's business (``engine/textcache.py``), which the
semantics never import. So a semantic module only declares such a function (``per_text``); the
engine, once imported, has every declaration remember (``install``). Until then, each call
computes its answer: the cold reference.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, Generic, Protocol, TypeVar

T = TypeVar("T")


class Remembered(Protocol):
    """What the engine's memo of a declaration offers beside calling it."""

    def __call__(self, text: str, *args: Any) -> Any: ...

    def peek(self, text: str, args: tuple) -> tuple[bool, Any]:
        """(True, the answer) when remembered, else (False, None); computes nothing."""

    def put(self, text: str, args: tuple, value: Any) -> None:
        """Remember ``value`` as the answer for ``text`` and ``args`` (computed elsewhere)."""


class PerText(Generic[T]):
    """``fn(text, *args)``, which may be remembered for the latest ``texts`` texts."""

    def __init__(self, fn: Callable[..., T], texts: int):
        self.fn, self.texts = fn, texts
        #: what a call does: ``fn`` itself, or the engine's memo of it
        self.call: Callable[..., T] = fn
        #: the engine's memo, or None: nothing is remembered (the cold reference)
        self.memo: Remembered | None = None
        self.__doc__, self.__name__ = fn.__doc__, fn.__name__

    def __call__(self, text: str, *args: Any) -> T:
        return self.call(text, *args)

    def known(self, text: str, *args: Any) -> tuple[bool, T | None]:
        """(True, the answer) when it is remembered, else (False, None): nothing is computed —
        the caller takes another way to the same answer when computing this one would cost more."""
        return (False, None) if self.memo is None else self.memo.peek(text, args)

    def store(self, text: str, value: T, *args: Any) -> None:
        """Remember ``value``, computed elsewhere (a step at a time), as ``fn(text, *args)``."""
        if self.memo is not None:
            self.memo.put(text, args, value)


#: every declaration made so far, in order
DECLARED: list[PerText[Any]] = []
#: what makes a declaration remember (the engine's), or None: nothing remembered
_remember: Callable[[PerText[Any]], Remembered] | None = None


def per_text(texts: int) -> Callable[[Callable[..., T]], PerText[T]]:
    """Declare ``fn(text, *args)`` worth remembering for the latest ``texts`` texts."""

    def declare(fn: Callable[..., T]) -> PerText[T]:
        declared = PerText(fn, texts)
        DECLARED.append(declared)
        if _remember is not None:
            declared.call = declared.memo = _remember(declared)
        return declared

    return declare


def install(remember: Callable[[PerText[Any]], Remembered] | None) -> None:
    """Have every declaration, made or to come, remembered by ``remember(declaration)`` (None:
    each call computes its answer again)."""
    global _remember
    _remember = remember
    for declared in DECLARED:
        declared.memo = None if remember is None else remember(declared)
        declared.call = declared.fn if declared.memo is None else declared.memo


def finish(steps: Generator[None, None, T]) -> T:
    """Run to its end a generator that makes an answer a step at a time (yielding between steps:
    what the language server prepares in idle time), and return the answer: the answer of one call."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value
