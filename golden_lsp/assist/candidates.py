"""Candidate passages for a written query: the corpus's blocks ranked by BM25, each with a quote.

A search aid, not a labeller: the author has a question and must find where the corpus answers
it. The blocks are the units a quote expands to (table rows, list items, paragraphs — SPEC §4),
ranked for the query with ``search.Bm25``; each offered block comes with a unique quote at its
start (``anchor.quote_at``), so choosing one writes a label that resolves to exactly that block.
Whether the block answers the question is still the author's call after reading it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..core.corpus.index import Corpus
from ..core.corpus.search import Bm25, Tokens
from ..core.labels.resolve import enclosing_block
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


def blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) of every block of ``text`` a quote can expand to, headings left out."""
    out, seen, pos = [], set(), 0
    while pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end == -1 else end
        line = text[pos:end]
        if line.strip() and not line.lstrip().startswith("#"):
            lo, hi, _ = enclosing_block(text, pos, pos + 1)
            if (lo, hi) not in seen:
                seen.add((lo, hi))
                out.append((lo, hi))
        pos = end + 1
    return out


class CandidateIndex:
    """One BM25 index over a corpus's blocks, made again only when the corpus object changes.

    It is made lazily, when first asked to rank (``steps``: a document per step), reading one
    document's text at a time, without holding it (``CorpusDoc.passing_text``): what it keeps of each block is where it is and its
    token ids (``search.Tokens``), not its text; the quote offered with a block is read from its
    document when the block is ranked."""

    def __init__(self) -> None:
        self._built: tuple[Corpus, list[tuple[str, int, int]], Bm25] | None = None
        #: the corpus being indexed, its blocks so far, their tokens, and the documents left
        self._making: tuple[Corpus, list[tuple[str, int, int]], Tokens, list[str]] | None = None

    def steps(self, corpus: Corpus) -> Iterator[None]:
        """Make the index of ``corpus`` one document per step (nothing when it is made already;
        an index of another corpus under way is dropped). Several may step one index: whichever
        reads its last document makes it, and the others stop."""
        if self._built is not None and self._built[0] is corpus:
            return
        if self._making is None or self._making[0] is not corpus:
            self._making = corpus, [], Tokens(), list(reversed(corpus.docs))
        while True:
            making = self._making
            if making is None or making[0] is not corpus:  # made (or dropped) meanwhile
                return
            _, found, tokens, left = making
            if not left:
                break
            doc_id = left.pop()
            text = corpus.docs[doc_id].passing_text()
            spans = blocks(text)
            tokens.add([text[lo:hi] for lo, hi in spans])
            found.extend((doc_id, lo, hi) for lo, hi in spans)
            yield
        self._built, self._making = (corpus, found, Bm25(tokens=tokens)), None

    def _index(self, corpus: Corpus) -> tuple[list[tuple[str, int, int]], Bm25]:
        for _ in self.steps(corpus):
            pass
        assert self._built is not None
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
