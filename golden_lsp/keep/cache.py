"""The judge's cache: every judgment made, kept in the user cache dir, so no pair is paid twice.

An LLM call costs money and time, and a golden set is judged again and again (another record,
a re-run after ``--max-calls``, an audit of the same candidates). A judgment is kept under the
digest of everything it depends on — provider, model, prompt digest, query and passage text —
so a re-run makes no call for a pair already judged, and another model or prompt is never served
from here. The folder is ``golden-lsp/judge`` beside the warm cache (``packs.cache_dir``, so
``$GOLDEN_LSP_CACHE_DIR`` moves both), its entries written and checked as the warm cache's
(``packs.read_entry``/``write_entry``: an entry holds its own key and its payload's digest,
and one that is corrupt or foreign is ignored, judged again). Writing is best-effort and atomic:
a read-only cache only costs the calls. Failed calls are not kept.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ..core.engine.packs import cache_dir, read_entry, write_entry


def key(provider: str, model: str, prompt_digest: str, query: str, passage: str) -> str:
    parts = json.dumps([provider, model, prompt_digest, query, passage], ensure_ascii=False)
    return hashlib.sha256(parts.encode("utf-8")).hexdigest()


class JudgmentCache:
    def __init__(self, folder: Path | None = None):
        self.folder = folder or cache_dir("judge")

    def get(self, k: str) -> dict[str, Any] | None:
        """The judgment stored under ``k``, or None (absent, unreadable, corrupt or foreign)."""
        found = read_entry(self.folder, k)
        return found if isinstance(found, dict) else None

    def put(self, k: str, judgment: dict[str, Any]) -> None:
        write_entry(self.folder, k, judgment)  # best-effort: a read-only cache costs the calls
