"""BM25 ranking of corpus passages for a query: one index, shared by every feature that searches.

Two features rank the corpus for a question: the editor's "Find candidate passages" (blocks of a
record's query, a search aid for the author) and ``golden-lsp retrieve`` (chunks, a baseline
retriever to evaluate). Both use this one wrapper over ``bm25s`` — a maintained, vectorised BM25
(numpy only, sub-second index of a 50 MB corpus) — so the two never rank differently. ``bm25s``
is the optional ``search`` extra: it is imported only when an index is built, and its absence is
a clear ``SearchUnavailable`` naming the extra to install.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Lucene's BM25 variant and defaults (bm25s' default), recorded so a ranking can be reproduced
METHOD, K1, B = "lucene", 1.5, 0.75


class SearchUnavailable(RuntimeError):
    """bm25s is not installed."""


class Bm25:
    """A BM25 index over ``texts``; ``search`` returns (index into texts, score), best first."""

    def __init__(self, texts: Sequence[str]):
        try:
            import bm25s
        except ImportError:  # pragma: no cover - the test extra installs it
            raise SearchUnavailable("BM25 needs the search extra: pip install 'golden-lsp[search]'") from None
        import numpy

        self._bm25s, self._np = bm25s, numpy
        self.n = len(texts)
        self._empty = not any(t.strip() for t in texts)
        self._index = bm25s.BM25(method=METHOD, k1=K1, b=B)
        if self.n and not self._empty:
            self._index.index(
                bm25s.tokenize(list(texts), stopwords="en", show_progress=False), show_progress=False
            )

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        """The top ``k`` texts for ``query`` with a positive score; ties keep the texts' order."""
        return self.search_many([query], k)[0]

    def search_many(self, queries: Sequence[str], k: int) -> list[list[tuple[int, float]]]:
        k = min(k, self.n)
        if k <= 0 or self._empty:
            return [[] for _ in queries]
        tokens = self._bm25s.tokenize(list(queries), stopwords="en", show_progress=False, return_ids=False)
        out: list[list[tuple[int, float]]] = []
        for words in tokens:
            scores = self._index.get_scores(words) if words else None
            if scores is None:
                out.append([])
                continue
            # a stable sort on -score keeps equal scores in corpus order, so rankings are reproducible
            order = self._np.argsort(-scores, kind="stable")[:k]
            out.append([(int(i), float(scores[i])) for i in order if scores[i] > 0])
        return out
