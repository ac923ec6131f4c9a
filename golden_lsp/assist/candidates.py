"""Candidate passages for a written query: the corpus's blocks ranked by BM25, each with a quote.

A search aid, not a labeller: the author has a question and must find where the corpus answers
it. The blocks are the units a quote expands to (table rows, list items, paragraphs — SPEC §4),
ranked for the query with ``search.Bm25``; each offered block comes with a unique quote at its
start (``anchor.quote_at``), so choosing one writes a label that resolves to exactly that block.
Whether the block answers the question is still the author's call after reading it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.corpus import Corpus
from ..core.resolve import enclosing_block
from ..core.search import Bm25
from .anchor import quote_at

#: blocks ranked before the first ``k`` with a usable quote are kept, looking this deep at least
#: (and twice ``k`` deep for a larger ``k``, as the LLM judge asks)
SEARCH_DEPTH = 20


@dataclass(frozen=True)
class Candidate:
    doc_id: str
    start: int
    end: int
    score: float
    quote: str


def blocks(corpus: Corpus) -> list[tuple[str, int, int]]:
    """(doc_id, start, end) of every block a quote can expand to, headings left out."""
    out = []
    for doc_id, doc in corpus.docs.items():
        text, seen, pos = doc.text, set(), 0
        while pos < len(text):
            end = text.find("\n", pos)
            end = len(text) if end == -1 else end
            line = text[pos:end]
            if line.strip() and not line.lstrip().startswith("#"):
                lo, hi, _ = enclosing_block(text, pos, pos + 1)
                if (lo, hi) not in seen:
                    seen.add((lo, hi))
                    out.append((doc_id, lo, hi))
            pos = end + 1
    return out


class CandidateIndex:
    """One BM25 index over a corpus's blocks, rebuilt only when the corpus object changes."""

    def __init__(self) -> None:
        self._built: tuple[Corpus, list[tuple[str, int, int]], Bm25] | None = None

    def _index(self, corpus: Corpus) -> tuple[list[tuple[str, int, int]], Bm25]:
        if self._built is None or self._built[0] is not corpus:
            found = blocks(corpus)
            self._built = corpus, found, Bm25([corpus.docs[d].text[s:e] for d, s, e in found])
        return self._built[1], self._built[2]

    def rank(self, corpus: Corpus, query: str, k: int = 5) -> list[Candidate]:
        found, index = self._index(corpus)
        out = []
        for i, score in index.search(query, max(SEARCH_DEPTH, 2 * k)):
            doc_id, start, end = found[i]
            quote = quote_at(corpus.docs[doc_id].text, start, end)
            if quote is not None:
                out.append(Candidate(doc_id, start, end, score, quote))
            if len(out) == k:
                break
        return out
