"""The garbage collector paused while a cold path makes objects that all live on.

Loading 45,000 documents or analysing 10,000 lines makes millions of objects that stay: every
collection during it traverses them again and finds nothing to free (a quarter of a warm check's
time was spent so), and after it a full collection in the server would stall a keystroke. So
those paths run with the collector paused (``paused``), and what a large one made is frozen out
of later full collections (``gc.freeze``, by the caller that knows it is large).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """No collection inside the block; the collector as it was after it."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
