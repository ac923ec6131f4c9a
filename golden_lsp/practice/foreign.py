"""The test sets other tools generate, read as samples, each value located in its file.

ragas and DeepEval datasets (JSON or JSONL), a golden-dataset JSON and Chroma's question CSV each
name a question, its expected answer and its reference contexts (as text, or as chunk IDs) in
fields of their own. Reading one is a stream — a sample at a time, never the whole file decoded —
and every mistake in it is a ``ConfigError`` at its line and column, so a person can open the
file there. What a sample's contexts become in the corpus is ``importer.py``'s business.
"""

from __future__ import annotations

import bisect
import csv
import json
import re
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from ..core.findings.diagnostics import Range
from ..core.goldenset.config import ConfigError
from ..core.text.canon import line_starts

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


class Source:
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


def read_ragas(src: Source) -> Iterator[Sample]:
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


def read_deepeval(src: Source) -> Iterator[Sample]:
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


def read_dataset(src: Source) -> Iterator[Sample]:
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


def read_chroma(src: Source) -> Iterator[Sample]:
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


def _chroma_rows(src: Source, reader: csv.DictReader) -> Iterator[Sample]:
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


READERS: dict[str, Callable[[Source], Iterator[Sample]]] = {
    "ragas": read_ragas,
    "deepeval": read_deepeval,
    "dataset": read_dataset,
    "chroma": read_chroma,
}
