"""Export a resolved golden set in the formats evaluation tools read.

A golden set is consumed by tools that each want their own file: ragas and DeepEval want the
answer contexts as text, ranx and trec_eval want qrels, BEIR loaders a corpus/queries/qrels
folder, Chroma's chunking evaluation character ranges in the corpus. Every one of them is written
here from the same resolved model (``Analysis.records``: each record's resolved spans and their
answer-bearing chunks), never by re-reading the artifact, so the formats cannot drift apart or
from what ``check`` reports. Where a format cannot hold an unanswerable record (qrels name a
relevant document or nothing), the record is left out and counted, so the caller can say so.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ..core.check.model import Analysis
from ..core.corpus.index import Corpus
from ..core.findings.diagnostics import plural
from ..core.goldenset.config import ConfigError
from ..core.goldenset.project import GoldenSet
from ..core.io.jsontext import dumps
from ..core.labels.questions import QuestionRecord
from ..core.labels.resolve import Span
from ..core.text.canon import CANONICAL_VERSION, changes
from ..core.text.chunker import CHUNKER_VERSION
from ..evaluate.chunkings import qrels_text

FORMAT_VERSION = "golden-set.v1"


@dataclass(frozen=True)
class Sample:
    """One record as every export format sees it: its text fields and its resolved labels."""

    record: QuestionRecord
    #: the record's id (a record without one has errors, and is not exported)
    id: str
    #: each locator's span, in locator order
    spans: tuple[Span, ...]
    #: the answer-bearing chunk IDs, in locator order, each once
    chunk_ids: tuple[str, ...]
    #: the first bearing chunk of the primary locator, else of the first one; None when unanswerable
    primary_chunk_id: str | None
    #: each span's canonical text, in locator order
    contexts: tuple[str, ...]

    @property
    def unanswerable(self) -> bool:
        return self.record.unanswerable


def samples(analysis: Analysis, corpus: Corpus, split: str | None = None) -> list[Sample]:
    """The records of an analysis without errors, in file order (only ``split``'s when given)."""
    out = []
    for rec in analysis.records:
        record = rec.record
        if record is None or not record.valid or record.id is None:
            continue
        if split is not None and record.split != split:
            continue
        resolved = tuple(r for r in rec.result.resolved if r.span is not None)
        spans = tuple(r.span for r in rec.result.resolved if r.span is not None)
        chunk_ids = tuple(dict.fromkeys(c.chunk_id for r in resolved for c in r.chunks))
        primary = next((r for r in resolved if r.locator.primary), resolved[0] if resolved else None)
        contexts = tuple(corpus.docs[s.doc_id].text[s.start : s.end] for s in spans)
        out.append(
            Sample(
                record,
                record.id,
                spans,
                chunk_ids,
                primary.chunks[0].chunk_id if primary and primary.chunks else None,
                contexts,
            )
        )
    return out


def created_at() -> str:
    """Now in UTC (ISO 8601), or the time ``SOURCE_DATE_EPOCH`` names, so exports are reproducible."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is None:
        when = datetime.now(timezone.utc)
    else:
        try:
            when = datetime.fromtimestamp(int(epoch), timezone.utc)
        except (ValueError, OverflowError, OSError):
            raise ConfigError(f"SOURCE_DATE_EPOCH must be a number of seconds, not {epoch!r}") from None
    return when.replace(microsecond=0).isoformat().replace("+00:00", "Z")


@dataclass
class Export:
    """What one format writes: file name (relative to ``--out``; "" for a single file) → text."""

    files: dict[str, str]
    n_queries: int
    #: unanswerable records the format cannot hold, left out
    left_out: int = 0
    #: anything else the user should know about how the format holds the set
    notes: list[str] = field(default_factory=list)
    #: what may make a consumer misread the export (a document whose file is not canonical)
    warnings: list[str] = field(default_factory=list)


def _jsonl(rows) -> str:
    return "".join(dumps(row) + "\n" for row in rows)


def _spans(sample: Sample) -> list[dict]:
    return [{"doc_id": span.doc_id, "char_start": span.start, "char_end": span.end} for span in sample.spans]


def export_dataset(golden: GoldenSet, items: list[Sample]) -> Export:
    body = {
        "version": FORMAT_VERSION,
        "created_at": created_at(),
        "n_queries": len(items),
        "chunker_version": CHUNKER_VERSION,
        "canonical_version": CANONICAL_VERSION,
        "corpus_digest": golden.corpus.digest(),
        "build_hit_rule": str(golden.hit_rule),
        "samples": [
            {
                "id": s.id,
                "query": s.record.query,
                "relevant_chunk_ids": list(s.chunk_ids),
                "primary_chunk_id": s.primary_chunk_id,
                "expected_answer": s.record.expected_answer,
                "query_type": s.record.query_type,
                "is_unanswerable": s.unanswerable,
            }
            for s in items
        ],
    }
    return Export({"": dumps(body, indent=2) + "\n"}, len(items))


def export_ragas(golden: GoldenSet, items: list[Sample]) -> Export:
    rows = [
        {
            "user_input": s.record.query,
            "reference": s.record.expected_answer,
            "reference_contexts": list(s.contexts),
            "reference_context_ids": list(s.chunk_ids),
        }
        for s in items
    ]
    return Export({"": _jsonl(rows)}, len(items))


def export_deepeval(golden: GoldenSet, items: list[Sample]) -> Export:
    rows = [
        {
            "input": s.record.query,
            "expected_output": s.record.expected_answer,
            "context": list(s.contexts),
            "additional_metadata": {
                "id": s.id,
                "query_type": s.record.query_type,
                "is_unanswerable": s.unanswerable,
                "split": s.record.split,
                "hop": s.record.hop,
                "tags": s.record.tags,
                "chunk_ids": list(s.chunk_ids),
                "primary_chunk_id": s.primary_chunk_id,
                "spans": _spans(s),
            },
        }
        for s in items
    ]
    return Export({"": dumps(rows, indent=2) + "\n"}, len(items))


def _answerable(items: list[Sample]) -> tuple[list[Sample], int]:
    kept = [s for s in items if s.chunk_ids]
    return kept, len(items) - len(kept)


def _trec_ids(items: list[Sample]) -> list[Sample]:
    """The samples, when every ID fits a whitespace-separated qrels line."""
    for s in items:
        if any(c.isspace() for c in s.id):
            raise ConfigError(f"query id {s.id!r} holds whitespace: qrels lines cannot carry it")
    return items


def export_qrels(golden: GoldenSet, items: list[Sample]) -> Export:
    kept, left_out = _answerable(items)
    return Export(
        {"": qrels_text([(s.id, frozenset(s.chunk_ids)) for s in _trec_ids(kept)])}, len(kept), left_out
    )


def export_ranx(golden: GoldenSet, items: list[Sample]) -> Export:
    kept, left_out = _answerable(items)
    body = {s.id: dict.fromkeys(s.chunk_ids, 1) for s in kept}
    return Export({"": dumps(body, indent=2) + "\n"}, len(kept), left_out)


def export_beir(golden: GoldenSet, items: list[Sample], split: str | None = None) -> Export:
    kept, left_out = _answerable(items)
    corpus_rows = [
        {"_id": c.chunk_id, "title": c.heading_path, "text": doc.text[c.start : c.end].strip()}
        for doc in golden.corpus.docs.values()
        for c in doc.chunks
    ]
    qrels = "query-id\tcorpus-id\tscore\n" + "".join(
        f"{s.id}\t{cid}\t1\n" for s in _trec_ids(kept) for cid in s.chunk_ids
    )
    return Export(
        {
            "corpus.jsonl": _jsonl(corpus_rows),
            "queries.jsonl": _jsonl({"_id": s.id, "text": s.record.query} for s in kept),
            f"qrels/{split or 'test'}.tsv": qrels,
        },
        len(kept),
        left_out,
    )


def _csv_row(fields: list[str]) -> str:
    """One CSV row ended by LF, every field holding a line break quoted, CR included (``csv``
    quotes only the characters of its line terminator: with LF alone, a raw CR in a query would
    end the row for every reader)."""
    row = io.StringIO()
    csv.writer(row, lineterminator="\r\n").writerow(fields)  # quotes fields with CR or LF
    return row.getvalue()[:-2] + "\n"


def export_chroma(golden: GoldenSet, items: list[Sample]) -> Export:
    kept, left_out = _answerable(items)
    rows = [_csv_row(["question", "references", "corpus_id"])]
    split_rows = 0
    for s in kept:
        by_doc: dict[str, list[dict]] = {}
        for span, text in zip(s.spans, s.contexts):
            by_doc.setdefault(span.doc_id, []).append(
                {"content": text, "start_index": span.start, "end_index": span.end}
            )
        split_rows += len(by_doc) > 1
        rows += [_csv_row([s.record.query or "", dumps(refs), doc_id]) for doc_id, refs in by_doc.items()]
    notes = (
        [f"{plural(split_rows, 'record')} with spans in several documents: one row per document"]
        if split_rows
        else []
    )
    return Export({"": "".join(rows)}, len(kept), left_out, notes)


FORMATS: dict[str, Callable[..., Export]] = {
    "dataset": export_dataset,
    "ragas": export_ragas,
    "deepeval": export_deepeval,
    "qrels": export_qrels,
    "ranx": export_ranx,
    "beir": export_beir,
    "chroma": export_chroma,
}
#: formats that write a folder rather than one file
FOLDER_FORMATS = frozenset({"beir"})


#: formats that carry canonical offsets or texts of the documents (the others carry chunk IDs)
CANONICAL_FORMATS = frozenset({"ragas", "deepeval", "beir", "chroma"})


def export(golden: GoldenSet, analysis: Analysis, fmt: str, split: str | None = None) -> Export:
    """The files of ``fmt`` for an analysis without errors."""
    if analysis.has_errors:
        raise ValueError("a set with errors is not exported")
    items = samples(analysis, golden.corpus, split)
    result = export_beir(golden, items, split) if fmt == "beir" else FORMATS[fmt](golden, items)
    if fmt in CANONICAL_FORMATS:
        docs = golden.corpus.docs if fmt == "beir" else {s.doc_id for i in items for s in i.spans}
        result.warnings += raw_not_canonical(golden.corpus, sorted(docs))
    return result


def raw_not_canonical(corpus: Corpus, doc_ids: list[str]) -> list[str]:
    """A warning when an exported document's file is not its canonical text (a BOM, CRLF, NFD):
    every offset and text exported is canonical, so a consumer reading the raw file is off."""
    differ = [(d, changes(corpus.docs[d].raw)) for d in doc_ids]
    differ = [(d, why) for d, why in differ if why]
    if not differ:
        return []
    listed = "; ".join(f"{d}: {', '.join(why)}" for d, why in differ[:5]) + ("; …" if len(differ) > 5 else "")
    one = len(differ) == 1
    bom = any("a BOM" in why for _, why in differ)
    return [
        f"{plural(len(differ), 'exported document')} {'is' if one else 'are'} not stored as "
        f"{'its' if one else 'their'} canonical text ({listed}): the offsets and texts exported are "
        "canonical (canon-v1: no BOM, LF line ends, NFC), so a consumer must canonicalise the "
        f"file{'' if one else 's'} before using them"
        + (" (read with encoding='utf-8', a BOM shifts every offset by one)" if bom else "")
    ]
