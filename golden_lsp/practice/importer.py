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
import json
import re
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from ..core.canon import canonicalize, line_starts
from ..core.chunker import Chunk
from ..core.config import ConfigError
from ..core.corpus import Corpus, CorpusDoc
from ..core.diagnostics import Diagnostic, Range, Related
from ..core.hints import not_found_hint
from ..core.ids import FreeIds
from ..core.jsontext import dumps
from ..core.quotepick import unique_quote_at
from ..core.resolve import Span, occurrences, span_at
from ..core.rules import HINT_WHY, corpus_location, folded, short

#: occurrences of an ambiguous context listed in its finding
MAX_LISTED = 5
_DECODER = json.JSONDecoder()
#: JSON whitespace; and the blanks a JSONL line may have around its object
_SPACE = re.compile(r"[ \t\n\r]*")
_LEAD, _TRAIL = re.compile(r"[\s\ufeff]*"), re.compile(r"\s*")
#: a line of a CSV file, with its end (CRLF, CR or LF)
_CSV_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


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

    def objects(self, where: str | None = None) -> Iterator[tuple[dict, Range]]:
        """The objects of the JSON array under key ``where`` of the file's object; without
        ``where``, of the file's JSON array, or of its lines (JSONL) when it is not one.

        One at a time, each decoded in place (``raw_decode`` at its offset): no copy of the file,
        no tree of it, and no list of its samples is made, so a large file costs little more
        than its text and what is written from it.
        """
        pos = self._skip(_boms(self.text))
        if where is None and not self.text.startswith("[", pos):
            yield from self._lines()
            return
        end = yield from (self._member(pos, where) if where is not None else self._array(pos))
        if self._skip(end) != len(self.text):
            raise self.error(self._skip(end), "invalid JSON: extra data after the samples")

    def _skip(self, pos: int) -> int:
        """The first offset from ``pos`` that is not JSON whitespace."""
        return _SPACE.match(self.text, pos).end()  # type: ignore[union-attr]  # it matches ""

    def _value(self, pos: int, end: int | None = None) -> tuple[Any, int]:
        """The JSON value starting at ``pos`` (and ending by ``end``, a line's end, when given)
        and the offset after it, or a located error."""
        try:
            value, stop = _DECODER.raw_decode(self.text, pos)
            if end is None or stop <= end:
                return value, stop
        except (ValueError, RecursionError):
            if end is None:
                return self._decode_error(self.text, pos, 0)
        # it runs past its line: the line alone tells the error (only a failure copies a line)
        return self._decode_error(self.text[pos:end], 0, pos)

    def _decode_error(self, text: str, pos: int, offset: int) -> NoReturn:
        """Raise the located error of the JSON value at ``pos`` of ``text`` (``offset`` into the file)."""
        try:
            _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise self.error(offset + exc.pos, f"invalid JSON: {exc.msg}") from None
        except RecursionError:
            raise self.error(offset + pos, "invalid JSON: nested too deeply") from None
        except ValueError as exc:  # an integer of more than 4300 digits
            raise self.error(offset + pos, f"invalid JSON: {exc}") from None
        raise self.error(offset + pos, "invalid JSON: the sample does not end on its line")

    def _array(self, pos: int) -> Generator[tuple[dict, Range], None, int]:
        """The objects of the JSON array starting at ``pos``; returns the offset after it."""
        text = self.text
        if not text.startswith("[", pos):
            raise self.error(pos, "expected a JSON array of samples")
        pos = self._skip(pos + 1)
        if text.startswith("]", pos):
            return pos + 1
        while True:
            value, end = self._value(pos)
            yield self._object(value, pos), self.range(pos, end)
            pos = self._skip(end)
            if text.startswith("]", pos):
                return pos + 1
            if not text.startswith(",", pos):
                raise self.error(pos, "invalid JSON: expected ',' or ']' after a sample")
            pos = self._skip(pos + 1)

    def _member(self, pos: int, where: str) -> Generator[tuple[dict, Range], None, int]:
        """The objects of the array under key ``where`` of the JSON object starting at ``pos``;
        returns the offset after the object. The other members are decoded only to be stepped
        over; a second ``where`` is an error (which of the two would a reader take?)."""
        text, start = self.text, pos
        found = False
        if not text.startswith("{", pos):
            raise self.error(pos, f"expected an object with a {where!r} list")
        pos = self._skip(pos + 1)
        while not text.startswith("}", pos):
            key, pos = self._value(pos)
            pos = self._skip(pos)
            if not isinstance(key, str) or not text.startswith(":", pos):
                raise self.error(pos, "invalid JSON: expected a member name and ':'")
            if key == where and found:
                raise self.error(pos, f"the object holds {where!r} twice")
            pos = self._skip(pos + 1)
            if key == where:
                found = True
                pos = yield from self._array(pos)
            else:
                pos = self._value(pos)[1]
            pos = self._skip(pos)
            if text.startswith(",", pos):
                pos = self._skip(pos + 1)
            elif not text.startswith("}", pos):
                raise self.error(pos, "invalid JSON: expected ',' or '}' after a member")
        if not found:
            raise self.error(start, f"expected an object with a {where!r} list")
        return pos + 1

    def _lines(self) -> Iterator[tuple[dict, Range]]:
        """The objects of a JSONL file, one per non-blank line, each decoded in place."""
        text = self.text
        offset = 0
        while offset < len(text):
            end = text.find("\n", offset)
            end = len(text) if end == -1 else end
            start = _LEAD.match(text, offset, end).end()  # type: ignore[union-attr]
            if start < end:
                value, stop = self._value(start, end)
                if _TRAIL.match(text, stop, end).end() != end:  # type: ignore[union-attr]
                    raise self.error(stop, "invalid JSON: extra data after the sample on its line")
                yield self._object(value, start), self.range(start, stop)
            offset = end + 1

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


def _boms(text: str) -> int:
    """How many byte-order marks ``text`` starts with."""
    return len(text) - len(text.lstrip("\ufeff"))


def _text_contexts(texts: list[str] | None, ids: list[str] | None) -> list[Context]:
    """Text contexts when there are any, else the chunk IDs (a chunk-ID-only sample)."""
    if texts:
        return [Context(text=t) for t in texts]
    return [Context(chunk_id=c) for c in ids or ()]


def read_ragas(src: _Source) -> Iterator[Sample]:
    for obj, rng in src.objects():
        texts = src.field(obj, rng, "reference_contexts", list)
        ids = src.ids(obj, rng, "reference_context_ids")
        yield Sample(
            rng,
            src.field(obj, rng, "user_input", str, True),
            src.field(obj, rng, "reference", str) or "",
            _text_contexts(texts, ids),
            unanswerable=texts == [] and not ids,
        )


def read_deepeval(src: _Source) -> Iterator[Sample]:
    for obj, rng in src.objects():
        meta = src.field(obj, rng, "additional_metadata", dict) or {}
        texts = src.field(obj, rng, "context", list)
        ids = src.ids(meta, rng, "chunk_ids")
        yield Sample(
            rng,
            src.field(obj, rng, "input", str, True),
            src.field(obj, rng, "expected_output", str) or "",
            _text_contexts(texts, ids),
            src.field(meta, rng, "id", str),
            src.field(meta, rng, "query_type", str),
            meta.get("is_unanswerable") is True or (texts == [] and not ids),
        )


def read_dataset(src: _Source) -> Iterator[Sample]:
    for obj, rng in src.objects("samples"):
        sample_id = obj.get("id")
        yield Sample(
            rng,
            src.field(obj, rng, "query", str, True),
            src.field(obj, rng, "expected_answer", str) or "",
            [Context(chunk_id=c) for c in src.ids(obj, rng, "relevant_chunk_ids")],
            str(sample_id) if isinstance(sample_id, (str, int)) else None,
            src.field(obj, rng, "query_type", str),
            obj.get("is_unanswerable") is True,
        )


def read_chroma(src: _Source) -> Iterator[Sample]:
    # a field may be as long as the file (a long span of our own export): above csv's default
    # limit of 131,072 characters, which it raises as an error
    csv.field_size_limit(max(csv.field_size_limit(), min(len(src.text) + 1, 2**31 - 1)))
    # the file's lines as the csv module reads a file opened with newline="" (CRLF, CR, LF),
    # without a copy of it (a StringIO holds four bytes a character)
    reader = csv.DictReader(m.group() for m in _CSV_LINE.finditer(src.text, _boms(src.text)))
    try:
        yield from _chroma_rows(src, reader)
    except csv.Error as exc:
        raise ConfigError(f"{src.path}:{max(reader.line_num, 1)}: invalid CSV: {exc}") from None


def _chroma_rows(src: _Source, reader: csv.DictReader) -> Iterator[Sample]:
    missing = {"question", "references"} - set(reader.fieldnames or ())
    if missing:
        raise src.error(
            0, f"the CSV has no column {', '.join(sorted(missing))} (question, references, corpus_id)"
        )
    first_line = 1  # the header is line 0
    for row in reader:
        rng = Range(first_line, 0, reader.line_num - 1, 0)
        where = f"{src.path}:{first_line + 1}"
        first_line = reader.line_num
        try:
            refs = json.loads(row["references"] or "[]")
        except RecursionError:
            raise ConfigError(f"{where}: references is not JSON: nested too deeply") from None
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
        yield Sample(rng, row["question"] or "", "", contexts, unanswerable=not refs)


READERS: dict[str, Callable[[_Source], Iterator[Sample]]] = {
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
    for n, sample in enumerate(READERS[fmt](_Source(path, text)), 1):
        out.records = n
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
