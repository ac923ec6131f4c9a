"""One questions document as the features see it: buffer, golden set, analysis, and positions.

Hover, definition, code actions and diagnostics all need the same three things — what is under
the cursor, where a corpus offset is in the client's units, and the URI of a corpus file — so they
get them from one ``View`` instead of each re-deriving positions.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from ..model import Analysis, RecordLine, ResolvedLocator
from ..corpus import CorpusDoc
from ..diagnostics import Range, Related
from ..project import GoldenSet
from .positions import Buffer, to_client_range


@dataclass
class Target:
    """What the cursor is on: a record's ``id``, a locator's ``doc`` or ``quote``."""

    kind: str  # "id" | "doc" | "quote" | "record"
    record: RecordLine
    locator: ResolvedLocator | None = None
    #: [start, end) columns of the JSON value under the cursor
    columns: tuple[int, int] = (0, 0)


@dataclass
class View:
    uri: str
    path: Path
    buffer: Buffer
    golden: GoldenSet
    analysis: Analysis

    def range(self, r: Range) -> types.Range:
        """A range in this questions file (core lines and code points) in client units."""
        return types.Range(self.buffer.core_position(r.line, r.column),
                           self.buffer.core_position(r.end_line, r.end_column))

    def corpus_range(self, doc: CorpusDoc, start: int, end: int) -> types.Range:
        (l0, c0), (l1, c1) = doc.positions.raw_position(start), doc.positions.raw_position(end)
        return to_client_range(doc.positions.raw_line, Range(l0, c0, l1, c1), self.buffer.encoding)

    def related_location(self, rel: Related) -> types.Location:
        doc = self.golden.corpus.docs.get(rel.doc_id) if rel.doc_id else None
        if doc is not None and rel.offsets is not None:
            return types.Location(from_fs_path(str(doc.path)), self.corpus_range(doc, *rel.offsets))
        if rel.path == self.path:
            return types.Location(self.uri, self.range(rel.range))
        r = rel.range  # a file we hold no text of: columns are passed through
        return types.Location(from_fs_path(str(rel.path)), types.Range(
            types.Position(r.line, r.column), types.Position(r.end_line, r.end_column)))

    def target_at(self, pos: types.Position) -> Target | None:
        line, col = self.buffer.core_location(pos)
        record_line = self.analysis.record_at(line)
        if record_line is None or record_line.record is None:
            return None
        record = record_line.record
        if "id" in record.node.members:
            s, e = record.field_range("id")
            if s <= col <= e:
                return Target("id", record_line, None, (s, e))
        for resolved in record_line.result.resolved:
            loc = resolved.locator
            for kind, node in (("quote", loc.quote_node), ("doc", loc.doc_node)):
                if node is not None and node.start <= col <= node.end:
                    return Target(kind, record_line, resolved, (node.start, node.end))
        return Target("record", record_line)
