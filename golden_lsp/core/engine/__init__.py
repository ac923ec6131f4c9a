"""How the core is made fast — and nothing of what a golden set means.

The warm cache on disk (``packs``, ``diskcache``, the shapes it stores, ``cacherows``), the texts
held after a lean corpus let go of them (``held``), the memos kept from a text (``textcache``),
the garbage collector paused on cold paths (``gcpause``), a document read without decoding it
(``lean``), many quotes found in one pass (``quoteindex``), the cold-start map over documents in
worker processes (``docindex``) and the incremental analysis that recomputes only what an edit
changed (``analysis``). The semantics (``text``, ``corpus``, ``labels``, ``check``) never import
this package: they declare what they would gain (``corpus/hooks.py``, ``text/memo.py``) and the
engine fills those in when it is imported — here — so every front end and every worker runs
warm, and a cold run (``wiring.cold``) is the reference the cached runs are tested against.
"""

from .wiring import install

install()
