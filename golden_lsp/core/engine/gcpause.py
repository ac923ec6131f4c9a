"""The garbage collector paused while a cold path makes objects that all live on.

Loading 45,000 documents or analysing 10,000 lines makes millions of objects that stay: every
collection during it traverses them again and finds nothing to free (a quarter of a warm check's
time was spent so), and after it a full collection in the server would stall a keystroke. So
those paths run with the collector paused (``paused``), and what a large one made is frozen out
of later full collections (``freeze``) before the collector runs again: else the first
allocation after the pause traverses all of it at once (0.4 s of a warm check, twice).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: a block that made this many long-lived things (documents loaded, lines analysed) freezes them
FREEZE_AFTER = 1000


class Pause:
    """What a paused block tells of itself: ``made``, how many long-lived things it made."""

    made = 0


@contextmanager
def paused() -> Iterator[Pause]:
    """No collection inside the block; after it, what it made frozen when it made
    ``FREEZE_AFTER`` things or more (a small one leaves its objects to the collector), and the
    collector as it was."""
    collecting = gc.isenabled()
    gc.disable()
    pause = Pause()
    try:
        yield pause
        if pause.made >= FREEZE_AFTER:
            gc.freeze()
    finally:
        if collecting:
            gc.enable()
