"""The corpus texts read back from disk, held while recently needed: one bounded set, by characters.

A lean corpus (a check, the language server) lets go of each document's text once its facts are
known, and reads it back when something asks for it again: a hover, a code action, a completion,
a keystroke's new quote. Such a text is likely to be asked for again soon (the next keystroke on
the same record), but holding every text ever read back would, over a day in the editor, bring
the whole corpus back into memory. So every text read back goes into this one set, which holds
the most recently used ones up to ``HELD_CHARS`` characters and releases the least recently used
beyond (``CorpusDoc.release``: read back again when next asked for). The newest one always stays,
however large. An editor buffer's text is never here: it cannot be read back, so it is never let go.
"""

from __future__ import annotations

from collections import OrderedDict

from ..corpus.hooks import Releasable

#: the characters of read-back texts held at most (beyond the newest one): the documents a person
#: works on, a small part of a large corpus, and room for a 10 MB one beside them (at 8 million,
#: the keystrokes into a set quoting a 10 MB and a 2 MB document read one of them back each
#: time in turn: p95 57 ms at 50 MB, 46 ms at 32 million)
HELD_CHARS = 32_000_000


class HeldTexts:
    """Documents holding a read-back text, least recently used first, within ``budget`` characters."""

    def __init__(self, budget: int = HELD_CHARS) -> None:
        self.budget = budget
        self.chars = 0
        self._held: OrderedDict[int, Releasable] = OrderedDict()

    def __len__(self) -> int:
        return len(self._held)

    def hold(self, doc: Releasable) -> None:
        """``doc`` holds its text now (read back, or read afresh from disk): it is the most recent;
        the least recent ones beyond the budget are released."""
        key = id(doc)
        if key in self._held:
            self._held.move_to_end(key)
            return
        self._held[key] = doc
        self.chars += doc.chars
        while self.chars > self.budget and len(self._held) > 1:
            _, old = self._held.popitem(last=False)
            self.chars -= old.chars
            old.release()  # which calls ``discard``: already gone

    def touch(self, doc: Releasable) -> None:
        """``doc``'s text was used: it is the most recent."""
        key = id(doc)
        if key in self._held:
            self._held.move_to_end(key)

    def discard(self, doc: Releasable) -> None:
        """``doc`` let go of its text (or is no more of any corpus)."""
        if self._held.pop(id(doc), None) is not None:
            self.chars -= doc.chars

    def clear(self) -> None:
        """Release every held text (a test that starts from nothing)."""
        while self._held:
            self._held.popitem(last=False)[1].release()
        self.chars = 0


#: the one set of read-back texts of this process
HELD = HeldTexts()
