"""BM25 ranking of corpus passages for a query: one index, shared by every feature that searches.

Two features rank the corpus for a question: the editor's "Find candidate passages" (blocks of a
record's query, a search aid for the author) and ``golden-lsp retrieve`` (chunks, a baseline
retriever to evaluate). Both use this one wrapper over ``bm25s`` — a maintained, vectorised BM25
(numpy only, sub-second index of a 50 MB corpus) — so the two never rank differently. ``bm25s``
is the optional ``search`` extra: it is imported only when an index is built, and its absence is
a clear ``SearchUnavailable`` naming the extra to install. An index over a large corpus need not
hold its texts: ``Tokens`` takes them a batch at a time (one document's passages) and keeps only
their token ids, with the very ids and vocabulary one ``bm25s.tokenize`` of all of them gives,
so the ranking is the same.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

#: Lucene's BM25 variant and defaults (bm25s' default), recorded so a ranking can be reproduced
METHOD, K1, B = "lucene", 1.5, 0.75


class SearchUnavailable(RuntimeError):
    """bm25s is not installed."""


def _bm25s():
    try:
        import bm25s
    except ImportError:  # pragma: no cover - the test extra installs it
        raise SearchUnavailable("BM25 needs the search extra: pip install 'golden-lsp[search]'") from None
    return bm25s


class Tokens:
    """Texts to index, tokenised a batch at a time and kept as token ids (4 bytes a token), not as
    texts: the ids and vocabulary are those one ``bm25s.tokenize`` of all the texts would give
    (each token numbered where it first occurs)."""

    def __init__(self) -> None:
        self._bm25s = _bm25s()
        self.ids: list[array] = []
        self.vocab: dict[str, int] = {}
        #: no text holds anything but white space (an index of nothing)
        self.blank = True

    def add(self, texts: Sequence[str]) -> None:
        """Tokenise ``texts`` (the next ones, in order)."""
        tokenized = self._bm25s.tokenize(list(texts), stopwords="en", show_progress=False)
        vocab = self.vocab
        # the batch's ids number its tokens in the order they first occur: so do the vocabulary's
        ids = [vocab.setdefault(token, len(vocab)) for token in tokenized.vocab]
        self.ids.extend(array("I", [ids[i] for i in doc]) for doc in tokenized.ids)
        self.blank = self.blank and not any(t.strip() for t in texts)


class Bm25:
    """A BM25 index over ``texts`` (or texts tokenised beforehand: ``tokens``, which it uses up);
    ``search`` returns (index into the texts, score), best first."""

    def __init__(self, texts: Sequence[str] = (), tokens: Tokens | None = None):
        if tokens is None:
            tokens = Tokens()
            tokens.add(texts)
        import numpy

        self._bm25s, self._np = tokens._bm25s, numpy
        self.n = len(tokens.ids)
        self._empty = tokens.blank
        self._index = self._bm25s.BM25(method=METHOD, k1=K1, b=B)
        if self.n and not self._empty:
            self._index.index((tokens.ids, tokens.vocab), show_progress=False)
        tokens.ids = []  # the index holds what it needs of them

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
