"""Import a test set another tool generated, anchoring each of its contexts to an exact span.

ragas, DeepEval, a golden-dataset JSON or Chroma's question CSV give each question's answer as
free text ("reference contexts") or as chunk IDs. None of that is a label a build can check: a
context may be a paraphrase, may occur twice, may belong to a chunk that a re-chunking deleted.
This module finds each context in the canonical corpus text and, where it occurs exactly once,
writes the picker's quote inside it (``quotepick.unique_quote_at``: the quote policy) whose
expanded span covers it — several quotes when one block cannot cover the context. Everything
else is kept, never guessed: the context goes into an ``// unanchored:`` comment above its
record and becomes a finding (``import-not-found`` with the nearest near-exact passage when one
exists, ``import-ambiguous`` with every occurrence), so ``check`` then reports on the result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.check.rules import HINT_WHY, corpus_location, folded, short
from ..core.corpus.document import CorpusDoc
from ..core.corpus.index import Corpus
from ..core.findings.diagnostics import Diagnostic, Range, Related
from ..core.io.jsontext import dumps
from ..core.labels.hints import not_found_hint
from ..core.labels.ids import FreeIds
from ..core.labels.quotepick import unique_quote_at
from ..core.labels.resolve import Span, occurrences, span_at
from ..core.text.canon import canonicalize
from ..core.text.chunker import Chunk
from .foreign import READERS, Context, Source

#: occurrences of an ambiguous context listed in its finding
MAX_LISTED = 5


@dataclass
class Imported:
    #: the questions file's lines, each with its line end (written a line at a time: never joined)
    lines: list[str]
    diagnostics: list[Diagnostic]
    records: int
    anchored: int = 0
    ambiguous: int = 0
    not_found: int = 0
    #: when appending: (where in the imported file, the id of the record already asking it) of
    #: each sample left out because the questions file already asks its query
    skipped: list[tuple[Range, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Existing:
    """What an existing questions file already holds, when the import is appended to it."""

    #: every id taken: the file's and the committed artifact's
    ids: frozenset[str]
    #: each query of the file (case and whitespace folded: ``rules.folded``) → its record's id
    queries: dict[str, str]


# --- anchoring ----------------------------------------------------------------------------------


def _cover(
    doc: CorpusDoc, lo: int, hi: int, answer: str = ""
) -> tuple[list[tuple[int, int, Span]], int | None]:
    """Quotes inside [lo, hi), one per line at most, with the spans they expand to, that cover
    every line of it holding a letter or digit; and the start of the first such line left
    uncovered (no unique quote on it, and no other quote's span reaching it), else None.

    Each line not yet covered gets the picker's quote near its first word (sharing what it can
    with the sample's expected ``answer``): a quote in
    the first line of a paragraph or list item covers the whole block, so one locator suffices
    whenever one block holds the context, and a context over several blocks gets one per block.
    Lines of markup only (a table's rule, a code fence) carry no answer and need no quote.
    """
    text = doc.text
    quotes: list[tuple[int, int, Span]] = []
    lines: list[tuple[int, int]] = []
    pos = lo
    while pos < hi:
        end = text.find("\n", pos)
        end = hi if end == -1 or end > hi else end
        if any(c.isalnum() for c in text[pos:end]):
            lines.append((pos, end))
            if not any(span.start <= pos and end <= span.end for *_, span in quotes):
                q = unique_quote_at(text, pos, lo, hi, answer=answer)
                if q is not None:
                    quotes.append((*q, span_at(doc.doc_id, text, q[0], text[q[0] : q[1]], False)))
        pos = end + 1
    uncovered = next(
        (s for s, e in lines if not any(span.start <= s and e <= span.end for *_, span in quotes)), None
    )
    return quotes, uncovered


class _Anchorer:
    """Finds each context in the corpus and turns it into locators, or into a finding."""

    def __init__(self, corpus: Corpus, path: Path):
        self.corpus, self.path = corpus, path
        self.chunks: dict[str, tuple[CorpusDoc, Chunk]] = {
            c.chunk_id: (doc, c) for doc in corpus.docs.values() for c in doc.chunks
        }

    def anchor(self, ctx: Context, where: Range, label: str, answer: str = "") -> list[dict] | Diagnostic:
        """The context's locators (their quotes sharing what they can with the sample's expected
        ``answer``), or the finding saying why it has none."""
        if ctx.text is None:
            return self._anchor_chunk(ctx.chunk_id, where, label, answer)
        needle = canonicalize(ctx.text).strip()
        if not needle:
            return self._finding("import-not-found", f"{label} is empty", where)
        # only in the source's document when it names one of the corpus (no quote can tell two
        # occurrences in one document apart, so an offset the source gives cannot help)
        named = self.corpus.docs.get(ctx.doc) if ctx.doc else None
        found: list[tuple[CorpusDoc, int]] = []
        for d in [named] if named is not None else self.corpus.docs.values():
            found += [(d, s) for s in occurrences(d.text, needle, MAX_LISTED + 1 - len(found))]
            if len(found) > MAX_LISTED:
                break
        if len(found) > 1:
            related = [
                corpus_location(self.corpus, d.doc_id, s, s + len(needle), f"occurrence {i + 1}")
                for i, (d, s) in enumerate(found[:MAX_LISTED])
            ]
            places = ", ".join(f"{r.doc_id}:{r.range.line + 1}:{r.range.column + 1}" for r in related)
            total = f"more than {MAX_LISTED}" if len(found) > MAX_LISTED else str(len(found))
            return self._finding(
                "import-ambiguous",
                f"{label} occurs {total} times in the corpus ({places}): {short(needle)!r}",
                where,
                related,
            )
        if not found:
            return self._not_found(needle, where, label)
        doc, start = found[0]
        return self._locators(doc, start, start + len(needle), where, label, answer)

    def _anchor_chunk(self, chunk_id: str, where: Range, label: str, answer: str) -> list[dict] | Diagnostic:
        hit = self.chunks.get(chunk_id)
        if hit is None:
            return self._finding(
                "import-not-found",
                f"{label}: chunk {chunk_id} is not a chunk of the "
                "current corpus (re-chunked, or its text edited)",
                where,
            )
        doc, chunk = hit
        body = doc.text[chunk.start : chunk.end]
        lo = chunk.start + len(body) - len(body.lstrip())
        return self._locators(doc, lo, chunk.start + len(body.rstrip()), where, label, answer)

    def _locators(
        self, doc: CorpusDoc, lo: int, hi: int, where: Range, label: str, answer: str
    ) -> list[dict] | Diagnostic:
        quotes, uncovered = _cover(doc, lo, hi, answer)
        if uncovered is not None:
            line_end = doc.text.find("\n", uncovered)
            related = (
                corpus_location(self.corpus, doc.doc_id, lo, hi, "the passage"),
                corpus_location(
                    self.corpus, doc.doc_id, uncovered, line_end, "the line without a unique quote"
                ),
            )
            where_line = related[1].range.one_based()
            return self._finding(
                "import-ambiguous",
                f"{label} occurs once in {doc.doc_id}, but its line at "
                f"{where_line.line}:{where_line.column} holds no quote golden-lsp may write (its "
                "words occur elsewhere in the document, or make only a fragment): anchor it by hand",
                where,
                related,
            )
        text = doc.text
        span = quotes[0][2]
        if (
            len(quotes) == 1
            and (text[span.start : lo].strip() or text[hi : span.end].strip())
            and "\n" not in text[lo:hi]
        ):
            # a part of one block, on one line: the block would label more than the source did
            return [{"doc": doc.doc_id, "quote": text[lo:hi], "exact": True}]
        return [{"doc": doc.doc_id, "quote": text[s:e]} for s, e, _ in quotes]

    def _not_found(self, needle: str, where: Range, label: str) -> Diagnostic:
        for doc in self.corpus.docs.values():
            if len(needle) > 2 * len(doc.text):  # no near-exact match of it fits in the document
                continue
            hint = not_found_hint(doc.text, needle)
            if hint is not None and hint.kind != "closest":  # near-exact only: a paraphrase is not found
                loc = corpus_location(self.corpus, doc.doc_id, hint.start, hint.end, "the nearest passage")
                return self._finding(
                    "import-not-found",
                    f"{label} not found in the corpus; {HINT_WHY[hint.kind]} "
                    f"at {doc.doc_id}:{loc.range.line + 1}:{loc.range.column + 1}: "
                    f"{short(hint.corpus_text)!r}",
                    where,
                    (loc,),
                )
        return self._finding(
            "import-not-found",
            f"{label} not found in the corpus (a paraphrase, or text since edited?): {short(needle)!r}",
            where,
        )

    def _finding(
        self, code: str, message: str, where: Range, related: tuple[Related, ...] | list = ()
    ) -> Diagnostic:
        return Diagnostic(code, message, self.path, where, tuple(related))


# --- writing the questions file -----------------------------------------------------------------


def import_samples(
    corpus: Corpus, fmt: str, path: Path, text: str, existing: Existing | None = None
) -> Imported:
    """The questions file for the samples of ``text`` (a ``fmt`` file at ``path``), with findings;
    with ``existing``, the lines to append to that file: a sample whose query it already asks is
    left out (``Imported.skipped``), and every record gets an id it does not hold."""
    anchorer = _Anchorer(corpus, path)
    out = Imported([], [], 0)
    lines = out.lines
    used: set[str] = set(existing.ids) if existing else set()
    numbering: FreeIds | None = None  # the file's numbering, read once when first needed
    asked = dict(existing.queries) if existing else {}
    # a sample at a time: read, anchored and written before the next is decoded
    for n, sample in enumerate(READERS[fmt](Source(path, text)), 1):
        out.records = n
        if existing is not None and folded(sample.query) in asked:
            out.skipped.append((sample.range, asked[folded(sample.query)]))
            continue
        locators: list[dict] = []
        for i, ctx in enumerate(sample.contexts, 1):
            label = f"context {i} of sample {sample.id or n}"
            finding = anchorer.anchor(ctx, sample.range, label, sample.expected_answer)
            if not isinstance(finding, Diagnostic):
                out.anchored += 1
                locators += [loc for loc in finding if loc not in locators]
                continue
            out.diagnostics.append(finding)
            if finding.code == "import-ambiguous":
                out.ambiguous += 1
            else:
                out.not_found += 1
            # every value in a comment JSON-encoded: a comment stays one line, whatever it holds
            kept = dumps(ctx.text) if ctx.text is not None else f"chunk {dumps(ctx.chunk_id)}"
            lines.append(f"// unanchored: {kept}\n")
        if existing is None:
            record_id = sample.id or f"{path.stem}-{n:03d}"
            while record_id in used:
                record_id += "-again"
        else:  # the sample's own id when free, else the next in the file's numbering
            if sample.id and sample.id not in used:
                record_id = sample.id
            else:
                numbering = numbering or FreeIds(used)
                record_id = numbering.take()
            asked[folded(sample.query)] = record_id
        used.add(record_id)
        if numbering is not None:
            numbering.add(record_id)
        record: dict[str, Any] = {
            "id": record_id,
            "query": sample.query,
            "expected_answer": sample.expected_answer,
            "locators": locators,
            "hop": "multi" if len(locators) > 1 else "single",
        }
        if sample.query_type is not None:
            record["query_type"] = sample.query_type
        if sample.unanswerable:
            record["unanswerable"] = True
        lines.append(dumps(record) + "\n")
    header = (
        f"// imported by golden-lsp from {fmt} file {dumps(path.name)}: {out.anchored} contexts anchored, "
        f"{out.ambiguous} ambiguous, {out.not_found} not found\n"
    )
    lines.insert(0, header)
    return out
