"""The one owner of every cache golden-lsp keeps in memory from a document's text.

A few answers are worth keeping per text because editors ask for them again and again: a
document's longest line and its index of cased words (for not-found hints, ``hints.py``), a
quote's occurrences and its lengthening (for the code action, ``quotepick.py``). Such a cache
must never keep a text alive after the corpus let go of it (a released or an edited document),
and a test or the language server must be able to start from nothing. So every such cache is made
here, by ``per_text`` (a memo of the latest texts) or ``once`` (a value made on first use), and
registered: ``forget_text`` drops what any of them computed from one text, ``reset`` empties them
all. No module keeps a cache of its own beside these.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class PerText(Generic[T]):
    """A memo of ``fn(text, *args)`` for the latest ``texts`` documents (least recently used go
    first), every entry of one text dropped by ``forget_text``."""

    def __init__(self, fn: Callable[..., T], texts: int):
        self.fn, self.texts = fn, texts
        self.values: dict[str, dict[tuple, T]] = {}
        #: answers given from the memo since the last ``reset``
        self.hits = 0
        self.__doc__, self.__name__ = fn.__doc__, fn.__name__
        _caches.append(self)

    def __call__(self, text: str, *args: Any) -> T:
        memo = self.values.pop(text, None)
        if memo is None:
            memo = {}
            while len(self.values) >= self.texts:
                del self.values[next(iter(self.values))]
        self.values[text] = memo  # now the most recent
        if args in memo:
            self.hits += 1
            return memo[args]
        value = memo[args] = self.fn(text, *args)
        return value

    def forget(self, text: str) -> None:
        self.values.pop(text, None)

    def clear(self) -> None:
        self.values.clear()
        self.hits = 0


class Once(Generic[T]):
    """``fn()``, made on the first call and kept until ``reset`` (a table built from no text)."""

    def __init__(self, fn: Callable[[], T]):
        self.fn = fn
        self.value: T | None = None
        self.__doc__, self.__name__ = fn.__doc__, fn.__name__
        _caches.append(self)

    def __call__(self) -> T:
        if self.value is None:
            self.value = self.fn()
        return self.value

    def forget(self, text: str) -> None:
        pass  # made from no text

    def clear(self) -> None:
        self.value = None


_caches: list[PerText[Any] | Once[Any]] = []


def per_text(texts: int) -> Callable[[Callable[..., T]], PerText[T]]:
    """Decorate ``fn(text, *args)``: its answers kept for the latest ``texts`` texts."""
    return lambda fn: PerText(fn, texts)


def once(fn: Callable[[], T]) -> Once[T]:
    """Decorate ``fn()``: its answer made when first asked for and kept."""
    return Once(fn)


def forget_text(text: str) -> None:
    """Drop whatever any cache computed from ``text`` (``CorpusDoc.release``, an edit)."""
    for cache in _caches:
        cache.forget(text)


def reset() -> None:
    """Empty every cache (a test that must start from nothing; a server that lets all go)."""
    for cache in _caches:
        cache.clear()
