"""One document as the features see it: buffer, golden set(s), analysis, and positions.

Hover, definition, code actions and diagnostics all need the same three things — what is under
the cursor, where a corpus offset is in the client's units, and the URI of a corpus file — so they
get them from one ``View`` instead of each re-deriving positions. A questions file that is not
open gets a ``View`` of its saved text. A corpus file gets a ``CorpusView``: its buffer and, for
each golden set containing it, that document and the views of the set's questions files, so the
corpus side reads the same analyses the questions side shows.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from ..assist.cursor import CursorContext, context_at
from ..core.check.model import Analysis, RecordLine, ResolvedLocator
from ..core.corpus.document import CorpusDoc
from ..core.findings.diagnostics import Range, Related
from ..core.goldenset.project import GoldenSet
from ..core.labels.jsonline import JsonNode
from .positions import Buffer, column_from_units, to_client_range


@dataclass
class Target:
    """What the cursor is on: a record's ``id``, a locator's ``doc`` or ``quote``; on a line that
    does not parse yet, "partial" with what the tolerant scanner found."""

    kind: str  # "id" | "doc" | "quote" | "guidelines" | "record" | "partial"
    record: RecordLine
    locator: ResolvedLocator | None = None
    #: [start, end) columns of the JSON value under the cursor
    columns: tuple[int, int] = (0, 0)
    context: CursorContext | None = None


@dataclass
class View:
    uri: str
    path: Path
    buffer: Buffer
    golden: GoldenSet
    analysis: Analysis

    def range(self, r: Range) -> types.Range:
        """A range in this questions file (core lines and code points) in client units."""
        return types.Range(
            self.buffer.core_position(r.line, r.column), self.buffer.core_position(r.end_line, r.end_column)
        )

    def corpus_range(self, doc: CorpusDoc, start: int, end: int) -> types.Range:
        if start == end == 0:  # a whole document's place (doc-unlabelled): its text is not read back
            return types.Range(types.Position(0, 0), types.Position(0, 0))
        (l0, c0), (l1, c1) = doc.positions.raw_position(start), doc.positions.raw_position(end)
        return to_client_range(doc.positions.raw_line, Range(l0, c0, l1, c1), self.buffer.encoding)

    def related_location(self, rel: Related) -> types.Location:
        doc = self.golden.corpus.docs.get(rel.doc_id) if rel.doc_id else None
        if doc is not None and rel.offsets is not None:
            return types.Location(from_fs_path(str(doc.path)), self.corpus_range(doc, *rel.offsets))
        if rel.path == self.path:
            return types.Location(self.uri, self.range(rel.range))
        r = rel.range  # a file we hold no text of: columns are passed through
        return types.Location(
            from_fs_path(str(rel.path)),
            types.Range(types.Position(r.line, r.column), types.Position(r.end_line, r.end_column)),
        )

    def records_in(self, request: types.Range) -> Iterator[RecordLine]:
        """The records on the lines a client range touches (each line looked up, never the file)."""
        first = self.buffer.core_location(request.start)[0]
        last = self.buffer.core_location(request.end)[0]
        for line in range(first, last + 1):
            rec = self.analysis.record_at(line)
            if rec is not None:
                yield rec

    def location(self, line: int, start: int, end: int) -> types.Location:
        return types.Location(self.uri, self.range(Range.on_line(line, start, end)))

    def line_text(self, line: int) -> str:
        """The core's ``line`` of this file (split on ``\\n`` only)."""
        starts = self.buffer.core_starts
        if not 0 <= line < len(starts):
            return ""
        end = starts[line + 1] - 1 if line + 1 < len(starts) else len(self.buffer.text)
        return self.buffer.text[starts[line] : end]

    def target_at(self, pos: types.Position) -> Target | None:
        """What the cursor is on, with the tolerant scanner's context (``Target.context``) on every
        line: a half-typed line that does not parse yet is a "partial" target."""
        line, col = self.buffer.core_location(pos)
        record_line = self.analysis.record_at(line)
        if record_line is None:
            return None
        context = context_at(self.line_text(line), col)
        if record_line.record is None:
            return Target("partial", record_line, None, (context.start, context.end), context)
        record = record_line.record
        if "id" in record.node.members:
            s, e = record.field_range("id")
            if s <= col <= e:
                return Target("id", record_line, None, (s, e), context)
        for resolved in record_line.result.resolved:
            loc = resolved.locator
            for kind, node in (("quote", loc.quote_node), ("doc", loc.doc_node)):
                if node is not None and node.start <= col <= node.end:
                    return Target(kind, record_line, resolved, (node.start, node.end), context)
        where = _guidelines_at(record.node, col)
        if where is not None:
            return Target("guidelines", record_line, None, where, context)
        return Target("record", record_line, context=context)


def _guidelines_at(node: JsonNode, col: int) -> tuple[int, int] | None:
    """The columns of what the annotation guidelines explain, when the cursor is on it: the
    ``unanswerable`` member, an empty ``locators`` member, or a locator's ``primary`` member."""
    places = []
    if "unanswerable" in node.members:
        key, value = node.members["unanswerable"]
        places.append((key.start, value.end))
    if "locators" in node.members:
        key, locators = node.members["locators"]
        if isinstance(locators.value, list):
            if not locators.items:
                places.append((key.start, locators.end))
            for item in locators.items:
                if "primary" in item.members:
                    key, value = item.members["primary"]
                    places.append((key.start, value.end))
    return next(((s, e) for s, e in places if s <= col <= e), None)


@dataclass
class Source:
    """One golden set's view of a corpus file: the document and the set's analysed questions files."""

    doc: CorpusDoc
    views: list[View]


@dataclass
class CorpusView:
    uri: str
    path: Path
    buffer: Buffer
    sources: list[Source]

    def offset(self, doc: CorpusDoc, pos: types.Position) -> int:
        """The canonical offset in ``doc`` of a client position in this buffer."""
        col = column_from_units(self.buffer.line_text(pos.line), pos.character, self.buffer.encoding)
        return doc.positions.canonical_offset(pos.line, col)

    def range(self, doc: CorpusDoc, start: int, end: int) -> types.Range:
        (l0, c0), (l1, c1) = doc.positions.raw_position(start), doc.positions.raw_position(end)
        return to_client_range(doc.positions.raw_line, Range(l0, c0, l1, c1), self.buffer.encoding)
