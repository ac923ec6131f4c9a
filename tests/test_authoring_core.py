"""Core parts of authoring: the next free id, the renumbering guard in the CLI, raw→canonical."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from golden_lsp.canon import PositionMap, canonicalize
from golden_lsp.ids import next_free_id

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_next_free_id_continues_the_numbering_past_committed_ids():
    assert next_free_id(["ex001", "ex002", "ex010"]) == "ex011"
    assert next_free_id(["ex001"], ["ex001", "ex002"]) == "ex003"  # the committed artifact counts
    assert next_free_id(["a7", "ex001", "ex002"]) == "ex003"  # the most common pattern wins
    assert next_free_id([]) == "q001"
    assert next_free_id(["ex009", "ex010"]) == "ex011"


def test_canonical_offset_inverts_raw_position_through_bom_crlf_and_nfd():
    raw = "\ufeffCafe\u0301 one\r\nsecond line\r\n"
    m = PositionMap(raw, canonicalize(raw))
    text = canonicalize(raw)
    for offset in (0, 3, 5, 8, text.index("second"), text.index("line")):
        assert m.canonical_offset(*m.raw_position(offset)) == offset


def test_id_reused_is_a_warning_in_the_cli(tmp_path: Path, cli):
    golden = tmp_path / "golden"
    shutil.copytree(EXAMPLES, golden)
    q = golden / "questions.jsonl"
    lines = q.read_text(encoding="utf-8").split("\n")
    n = next(i for i, line in enumerate(lines) if line.startswith("{"))
    record = json.loads(lines[n])
    record["query"] = "A different question under an old id?"
    lines[n] = json.dumps(record, ensure_ascii=False)
    q.write_text("\n".join(lines), encoding="utf-8")
    out = cli(["check", "--format", "json", str(golden)])
    found = [d for d in json.loads(out.stdout) if d["code"] == "id-reused"]
    assert len(found) == 1
    assert found[0]["severity"] == "warning" and found[0]["line"] == n + 1
    assert record["id"] in found[0]["message"]
    col = lines[n].index(json.dumps(record["id"])) + 1
    assert found[0]["column"] == col
