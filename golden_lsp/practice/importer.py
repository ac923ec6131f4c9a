"""Import a test set another tool generated, anchoring each of its contexts to an exact span.

ragas, DeepEval, a golden-dataset JSON or Chroma's question CSV give each question's answer as
free text ("reference contexts") or as chunk IDs. None of that is a label a build can check: a
context may be a paraphrase, may occur twice, may belong to a chunk that a re-chunking deleted.
This module finds each context in the canonical corpus text and, where it occurs exactly once,
writes the shortest unique whole-word quote inside it (``quotepick.unique_quote_at``) whose
expanded span covers it — several quotes when one block cannot cover the context. Everything
else is kept, never guessed: the context goes into an ``// unanchored:`` comment above its
record and becomes a finding (``import-not-found`` with the nearest near-exact passage when one
exists, ``import-ambiguous`` with every occurrence), so ``check`` then reports on the result.
"""

from __future__ import annotations

import bisect
import csv
import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.canon import canonicalize, line_starts
from ..core.chunker import Chunk
from ..core.config import ConfigError
from ..core.corpus import Corpus, CorpusDoc
from ..core.diagnostics import Diagnostic, Range, Related
from ..core.hints import not_found_hint
from ..core.ids import next_free_id
from ..core.questions import parse_json_line
from ..core.quotepick import unique_quote_at
from ..core.resolve import Span, occurrences, span_at
from ..core.rules import HINT_WHY, corpus_location, folded, short

#: occurrences of an ambiguous context listed in its finding
MAX_LISTED = 5


@dataclass
class Context:
    """One reference context of a sample: text, or a chunk ID; ``doc`` when the source names it."""

    text: str | None = None
    #: the chunk ID of a context without text
    chunk_id: str = ""
    doc: str | None = None


@dataclass
class Sample:
    """A foreign sample, with where it sits in its file (0-based line and column range)."""

    range: Range
    query: str
    expected_answer: str
    contexts: list[Context]
    id: str | None = None
    query_type: str | None = None
    unanswerable: bool = False


@dataclass
class Imported:
    text: str
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


# --- reading the foreign formats ----------------------------------------------------------------


class _Source:
    """A foreign file's text, with located errors for what it cannot hold."""

    def __init__(self, path: Path, text: str):
        self.path, self.text = path, text
        self._starts = line_starts(text)

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._starts, offset) - 1
        return line, offset - self._starts[line]

    def range(self, start: int, end: int) -> Range:
        return Range(*self.position(start), *self.position(end))

    def error(self, offset: int, message: str) -> ConfigError:
        line, col = self.position(offset)
        return ConfigError(f"{self.path}:{line + 1}:{col + 1}: {message}")

    def objects(self, where: str | None = None) -> list[tuple[dict, Range]]:
        """The objects of the JSON array under key ``where`` of the file's object; without
        ``where``, of the file's JSON array, or of its lines (JSONL) when it is not one."""
        body = self.text.lstrip("\ufeff")
        lead = len(self.text) - len(body)
        if where is None and not body.lstrip().startswith("["):
            return self._lines()
        try:
            node = parse_json_line(body)
        except (ValueError, RecursionError) as exc:
            raise self.error(
                lead + getattr(exc, "pos", 0), f"invalid JSON: {getattr(exc, 'msg', exc)}"
            ) from None
        if where is not None:
            if not isinstance(node.value, dict) or where not in node.members:
                raise self.error(lead + node.start, f"expected an object with a {where!r} list")
            node = node.members[where][1]
        if not isinstance(node.value, list):
            raise self.error(lead + node.start, "expected a JSON array of samples")
        return [
            (self._object(item.value, lead + item.start), self.range(lead + item.start, lead + item.end))
            for item in node.items
        ]

    def _lines(self) -> list[tuple[dict, Range]]:
        out = []
        offset = 0
        for line in self.text.split("\n"):
            body = line.lstrip().lstrip("\ufeff")
            start = offset + len(line) - len(body)
            if body.strip():
                try:
                    value = json.loads(body)
                except ValueError as exc:
                    raise self.error(
                        start + getattr(exc, "pos", 0), f"invalid JSON: {getattr(exc, 'msg', exc)}"
                    ) from None
                out.append((self._object(value, start), self.range(start, offset + len(line.rstrip()))))
            offset += len(line) + 1
        return out

    def _object(self, value: Any, offset: int) -> dict:
        if not isinstance(value, dict):
            raise self.error(offset, f"each sample must be a JSON object, not {type(value).__name__}")
        return value

    def field(self, obj: dict, rng: Range, name: str, kind: type, required: bool = False) -> Any:
        """``obj[name]`` checked to be a ``kind`` (a list: of strings); None when absent or null."""
        value = obj.get(name)
        where = f"{self.path}:{rng.line + 1}:{rng.column + 1}"
        if value is None:
            if required:
                raise ConfigError(f"{where}: the sample has no {name!r}")
            return None
        if not isinstance(value, kind) or (
            isinstance(value, list) and not all(isinstance(v, str) for v in value)
        ):
            raise ConfigError(
                f"{where}: {name!r} must be {'a list of strings' if kind is list else 'a ' + kind.__name__}"
            )
        return value

    def ids(self, obj: dict, rng: Range, name: str) -> list[str]:
        """A list of chunk IDs (strings or numbers, as ragas allows)."""
        value = obj.get(name) or []
        if not isinstance(value, list) or not all(isinstance(v, (str, int)) for v in value):
            raise ConfigError(f"{self.path}:{rng.line + 1}:{rng.column + 1}: {name!r} must be a list of IDs")
        return [str(v) for v in value]


def _text_contexts(texts: list[str] | None, ids: list[str] | None) -> list[Context]:
    """Text contexts when there are any, else the chunk IDs (a chunk-ID-only sample)."""
    if texts:
        return [Context(text=t) for t in texts]
    return [Context(chunk_id=c) for c in ids or ()]


def read_ragas(src: _Source) -> list[Sample]:
    out = []
    for obj, rng in src.objects():
        texts = src.field(obj, rng, "reference_contexts", list)
        ids = src.ids(obj, rng, "reference_context_ids")
        out.append(
            Sample(
                rng,
                src.field(obj, rng, "user_input", str, True),
                src.field(obj, rng, "reference", str) or "",
                _text_contexts(texts, ids),
                unanswerable=texts == [] and not ids,
            )
        )
    return out


def read_deepeval(src: _Source) -> list[Sample]:
    out = []
    for obj, rng in src.objects():
        meta = src.field(obj, rng, "additional_metadata", dict) or {}
        texts = src.field(obj, rng, "context", list)
        ids = src.ids(meta, rng, "chunk_ids")
        out.append(
            Sample(
                rng,
                src.field(obj, rng, "input", str, True),
                src.field(obj, rng, "expected_output", str) or "",
                _text_contexts(texts, ids),
                src.field(meta, rng, "id", str),
                src.field(meta, rng, "query_type", str),
                meta.get("is_unanswerable") is True or (texts == [] and not ids),
            )
        )
    return out


def read_dataset(src: _Source) -> list[Sample]:
    out = []
    for obj, rng in src.objects("samples"):
        sample_id = obj.get("id")
        out.append(
            Sample(
                rng,
                src.field(obj, rng, "query", str, True),
                src.field(obj, rng, "expected_answer", str) or "",
                [Context(chunk_id=c) for c in src.ids(obj, rng, "relevant_chunk_ids")],
                str(sample_id) if isinstance(sample_id, (str, int)) else None,
                src.field(obj, rng, "query_type", str),
                obj.get("is_unanswerable") is True,
            )
        )
    return out


def read_chroma(src: _Source) -> list[Sample]:
    reader = csv.DictReader(io.StringIO(src.text.lstrip("\ufeff"), newline=""))
    missing = {"question", "references"} - set(reader.fieldnames or ())
    if missing:
        raise src.error(
            0, f"the CSV has no column {', '.join(sorted(missing))} (question, references, corpus_id)"
        )
    out = []
    first_line = 1  # the header is line 0
    for row in reader:
        rng = Range(first_line, 0, reader.line_num - 1, 0)
        where = f"{src.path}:{first_line + 1}"
        first_line = reader.line_num
        try:
            refs = json.loads(row["references"] or "[]")
        except ValueError as exc:
            raise ConfigError(f"{where}: references is not JSON: {exc}") from None
        if not isinstance(refs, list) or not all(
            isinstance(r, dict) and isinstance(r.get("content"), str) for r in refs
        ):
            raise ConfigError(
                f"{where}: references must be a JSON list of {{content, start_index, end_index}}"
            )
        doc = row.get("corpus_id") or None
        contexts = [Context(text=r["content"], doc=doc) for r in refs]
        out.append(Sample(rng, row["question"] or "", "", contexts, unanswerable=not refs))
    return out


READERS: dict[str, Callable[[_Source], list[Sample]]] = {
    "ragas": read_ragas,
    "deepeval": read_deepeval,
    "dataset": read_dataset,
    "chroma": read_chroma,
}


# --- anchoring ----------------------------------------------------------------------------------


def _cover(doc: CorpusDoc, lo: int, hi: int) -> tuple[list[tuple[int, int, Span]], int | None]:
    """Quotes inside [lo, hi), one per line at most, with the spans they expand to, that cover
    every line of it holding a letter or digit; and the start of the first such line left
    uncovered (no unique quote on it, and no other quote's span reaching it), else None.

    Each line not yet covered gets the shortest unique quote around its first word: a quote in
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
                q = unique_quote_at(text, pos, lo, hi)
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

    def anchor(self, ctx: Context, where: Range, label: str) -> list[dict] | Diagnostic:
        """The context's locators, or the finding saying why it has none."""
        if ctx.text is None:
            return self._anchor_chunk(ctx.chunk_id, where, label)
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
        return self._locators(doc, start, start + len(needle), where, label)

    def _anchor_chunk(self, chunk_id: str, where: Range, label: str) -> list[dict] | Diagnostic:
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
        return self._locators(doc, lo, chunk.start + len(body.rstrip()), where, label)

    def _locators(
        self, doc: CorpusDoc, lo: int, hi: int, where: Range, label: str
    ) -> list[dict] | Diagnostic:
        quotes, uncovered = _cover(doc, lo, hi)
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
                f"{where_line.line}:{where_line.column} holds no unique quote (the same "
                "words occur elsewhere in the document): anchor it by hand",
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
    samples = READERS[fmt](_Source(path, text))
    anchorer = _Anchorer(corpus, path)
    out = Imported("", [], len(samples))
    lines: list[str] = []
    used: set[str] = set(existing.ids) if existing else set()
    asked = dict(existing.queries) if existing else {}
    for n, sample in enumerate(samples, 1):
        if existing is not None and folded(sample.query) in asked:
            out.skipped.append((sample.range, asked[folded(sample.query)]))
            continue
        locators: list[dict] = []
        for i, ctx in enumerate(sample.contexts, 1):
            label = f"context {i} of sample {sample.id or n}"
            finding = anchorer.anchor(ctx, sample.range, label)
            if not isinstance(finding, Diagnostic):
                out.anchored += 1
                locators += [loc for loc in finding if loc not in locators]
                continue
            out.diagnostics.append(finding)
            if finding.code == "import-ambiguous":
                out.ambiguous += 1
            else:
                out.not_found += 1
            kept = (
                json.dumps(ctx.text, ensure_ascii=False) if ctx.text is not None else f"chunk {ctx.chunk_id}"
            )
            lines.append(f"// unanchored: {kept}")
        if existing is None:
            record_id = sample.id or f"{path.stem}-{n:03d}"
            while record_id in used:
                record_id += "-again"
        else:  # the sample's own id when free, else the next in the file's numbering
            record_id = sample.id if sample.id and sample.id not in used else next_free_id(used)
            asked[folded(sample.query)] = record_id
        used.add(record_id)
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
        lines.append(json.dumps(record, ensure_ascii=False))
    header = (
        f"// imported by golden-lsp from {fmt} file {path.name}: {out.anchored} contexts anchored, "
        f"{out.ambiguous} ambiguous, {out.not_found} not found"
    )
    out.text = "\n".join([header, *lines]) + "\n"
    return out
