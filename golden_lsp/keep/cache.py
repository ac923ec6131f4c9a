"""The judge's cache: every judgment made, kept in the user cache dir, so no pair is paid twice.

An LLM call costs money and time, and a golden set is judged again and again (another record,
a re-run after ``--max-calls``, an audit of the same candidates). A judgment is kept under the
digest of everything it depends on — provider, model, prompt digest, query and passage text —
so a re-run makes no call for a pair already judged, and another model or prompt is never served
from here. The folder is ``golden-lsp/judge`` beside the warm cache (``diskcache.cache_dir``, so
``$GOLDEN_LSP_CACHE_DIR`` moves both); an entry holds its own key, and one that is corrupt or
foreign is ignored (judged again). Writing is best-effort and atomic: a read-only cache only
costs the calls. Failed calls are not kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ..core.diskcache import cache_dir


def key(provider: str, model: str, prompt_digest: str, query: str, passage: str) -> str:
    parts = json.dumps([provider, model, prompt_digest, query, passage], ensure_ascii=False)
    return hashlib.sha256(parts.encode("utf-8")).hexdigest()


class JudgmentCache:
    def __init__(self, folder: Path | None = None):
        self.folder = folder or cache_dir("judge")

    def _path(self, k: str) -> Path:
        return self.folder / k[:2] / f"{k}.json"

    def get(self, k: str) -> dict[str, Any] | None:
        """The judgment stored under ``k``, or None (absent, unreadable, corrupt or foreign)."""
        try:
            entry = json.loads(self._path(k).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if (
            not isinstance(entry, dict)
            or entry.get("key") != k
            or not isinstance(entry.get("judgment"), dict)
        ):
            return None
        return entry["judgment"]

    def put(self, k: str, judgment: dict[str, Any]) -> None:
        folder = self._path(k).parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"key": k, "judgment": judgment}, f, ensure_ascii=False)
            os.replace(tmp, self._path(k))
        except OSError:
            pass  # best-effort: a read-only cache costs the next run its calls, nothing else
