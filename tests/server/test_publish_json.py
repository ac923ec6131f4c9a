"""Diagnostics are sent from cached JSON text (pushed: ``Converted.publish_params`` through
``StrictProtocol.notify_encoded``; pulled: ``convert.full_report`` as an ``Encoded`` result), not
serialised by pygls: that text must be exactly what pygls would have sent for the same LSP objects, for every encoding, after edits and a corpus edit
(which re-converts the findings pointing into the edited document, even those the engine kept
because the document's canonical text did not change)."""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path

import pytest
from conftest import EXAMPLES
from lsprotocol import types
from pygls.uris import from_fs_path

from golden_lsp.core.goldenset.config import config_for
from golden_lsp.core.goldenset.project import GoldenSet
from golden_lsp.server.app import server
from golden_lsp.server.convert import Converted, full_report, to_lsp
from golden_lsp.server.positions import Buffer
from golden_lsp.server.view import View


def pygls_json(value) -> dict:
    """What pygls sends for an LSP value."""
    return json.loads(json.dumps(server.protocol._converter.unstructure(value)))


@pytest.mark.parametrize(
    "encoding",
    [types.PositionEncodingKind.Utf16, types.PositionEncodingKind.Utf8, types.PositionEncodingKind.Utf32],
)
def test_cached_json_is_what_pygls_would_send(tmp_path: Path, encoding: str):
    root = tmp_path / "golden"
    shutil.copytree(EXAMPLES, root)
    nfc = "# Caf\u00e9\n\nThe caf\u00e9 is the hut's own, and the caf\u00e9 is open to the valley.\n"
    (root / "corpus" / "05-cafe.md").write_text(nfc, encoding="utf-8")
    q = root / "questions.jsonl"
    lines = q.read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("{"))
    record = json.loads(lines[at])
    # findings with related locations in the corpus (an ambiguous quote, on a non-ASCII line)
    # and in this file (a duplicate id and query)
    ambiguous = {
        **record,
        "id": "é-🏔",
        "query": "Où ? 🏔",
        "locators": [{"doc": "05-cafe.md", "quote": "the"}],
    }
    lines[at:at] = [json.dumps(ambiguous, ensure_ascii=False), lines[at]]
    golden = GoldenSet(config_for(q))
    converted = Converted(server.protocol.encode)
    buf = Buffer("\n".join(lines), 1, encoding)
    uri = from_fs_path(str(q))

    def check() -> dict:
        view = View(uri, q, buf, golden, golden.check(buf.lines, q))
        sent = json.loads(converted.publish_params(view))
        # against a conversion from scratch: what is kept must be what would be made now
        now = [to_lsp(view, d) for d in view.analysis.diagnostics]
        assert sent == pygls_json(types.PublishDiagnosticsParams(uri, now, version=buf.version))
        pulled = json.loads(full_report("7:1", converted.encoded(view)))
        assert pulled == pygls_json(types.RelatedFullDocumentDiagnosticReport(now, result_id="7:1"))
        return sent

    first = check()
    assert any(d.get("relatedInformation") for d in first["diagnostics"])
    end = types.Position(len(buf.lines) - 1, 0)
    buf.apply(types.TextDocumentContentChangePartial(types.Range(end, end), "// é 🏔\n"))  # the rest is kept
    buf.version = 2
    check()
    buf.apply(
        types.TextDocumentContentChangePartial(
            types.Range(types.Position(0, 0), types.Position(0, 0)), "// é\n"
        )
    )
    buf.version = 3
    check()
    # the same canonical text written decomposed: no line is analysed again, yet every column of
    # the ambiguous quote's occurrences moves in the raw file the editor shows
    doc = golden.corpus.docs["05-cafe.md"]
    golden.set_corpus(golden.corpus.with_document(doc.path, unicodedata.normalize("NFD", nfc)))
    buf.version = 4
    assert check() != first
