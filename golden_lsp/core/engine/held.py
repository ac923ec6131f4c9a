"""The corpus texts read back from disk, held while recently needed: one bounded set, by characters.

A lean corpus (a check, the language server) lets go of each document's text once its facts are
known, and reads it back when something asks for it again: a hover, a code action, a completion,
a keystroke's new quote. Such a text is likely to be asked for again soon (the next keystroke on
the same record), but holding every text ever read back would, over a day in the editor, bring
the whole corpus back into memory. So every text read back goes into this one set, which holds
the most recently used ones up to ``HELD_BYTES`` bytes of memory and releases the least recently
used beyond (``CorpusDoc.release``: read back again when next asked for). The newest one always stays,
however large. An editor buffer's text is never here: it cannot be read back, so it is never let go.
"""

from __future__ import annotations

import sys
from collections import OrderedDict

from ..corpus.hooks import Releasable

#: the memory of read-back texts held at most (beyond the newest one), in bytes: the documents a
#: person works on, a small part of a large corpus, and room for a 10 MB one beside them. Counted
#: in memory, not characters: Python stores a text with one emoji at 4 bytes a character (at 32
#: million characters, the generated 50 MB set's keystrokes held 128 MB of texts)
HELD_BYTES = 64_000_000


class HeldTexts:
    """Documents holding a read-back text, least recently used first, within ``budget`` bytes."""

    def __init__(self, budget: int = HELD_BYTES) -> None:
        self.budget = budget
        #: the bytes the held texts take
        self.used = 0
        self._held: OrderedDict[int, tuple[Releasable, int]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._held)

    def hold(self, doc: Releasable) -> None:
        """``doc`` holds its text now (read back, or read afresh from disk): it is the most recent;
        the least recent ones beyond the budget are released."""
        key = id(doc)
        if key in self._held:
            self._held.move_to_end(key)
            return
        raw, text = doc.raw, doc.text  # (held now: not read back)
        size = sys.getsizeof(text) + (sys.getsizeof(raw) if raw is not text else 0)
        self._held[key] = doc, size
        self.used += size
        while self.used > self.budget and len(self._held) > 1:
            _, (old, old_size) = self._held.popitem(last=False)
            self.used -= old_size
            old.release()  # which calls ``discard``: already gone

    def holds(self, doc: Releasable) -> bool:
        """Whether ``doc`` holds a text read back (asking for it reads nothing)."""
        return id(doc) in self._held

    def touch(self, doc: Releasable) -> None:
        """``doc``'s text was used: it is the most recent."""
        key = id(doc)
        if key in self._held:
            self._held.move_to_end(key)

    def discard(self, doc: Releasable) -> None:
        """``doc`` let go of its text (or is no more of any corpus)."""
        held = self._held.pop(id(doc), None)
        if held is not None:
            self.used -= held[1]

    def clear(self) -> None:
        """Release every held text (a test that starts from nothing)."""
        while self._held:
            self._held.popitem(last=False)[1][0].release()
        self.used = 0


#: the one set of read-back texts of this process
HELD = HeldTexts()
