"""Practice fields on records (query_type, unanswerable, split, annotator, locator primary): their
parsing, their types, and how the artifact carries them."""

from __future__ import annotations

import json

import pytest

from core_support import GUIDE, FAQ, analyze_lines, codes, loc, qline
from golden_lsp.questions import parse_record

DOCS = {"guide.md": GUIDE, "faq.md": FAQ}


def with_fields(line: str, **fields) -> str:
    rec = json.loads(line)
    rec.update(fields)
    return json.dumps(rec, ensure_ascii=False)


# --- parsing ----------------------------------------------------------------------------------

def test_practice_fields_parse_onto_the_record_and_locator():
    line = with_fields(qline("q1", [loc("guide.md", "a"), {**loc("faq.md", "b"), "primary": True}], hop="multi"),
                       query_type="comparison", split="test", annotator="ana", unanswerable=False)
    rec, diags = parse_record(line)
    assert diags == [] and rec.valid
    assert (rec.query_type, rec.split, rec.annotator, rec.unanswerable) == ("comparison", "test", "ana", False)
    assert [loc.primary for loc in rec.locators] == [False, True]


def test_practice_fields_default_when_absent():
    rec, diags = parse_record(qline("q1", [loc("guide.md", "a")]))
    assert diags == []
    assert (rec.query_type, rec.split, rec.annotator, rec.unanswerable) == (None, None, None, False)
    assert rec.locators[0].primary is False


@pytest.mark.parametrize("name, value", [
    ("query_type", 3), ("query_type", ""), ("annotator", ["ana"]), ("unanswerable", "yes"),
    ("unanswerable", 1), ("split", "train"), ("split", None),
])
def test_mistyped_practice_fields_are_wrong_type_at_the_value(name, value):
    line = with_fields(qline("q1", [loc("guide.md", "a")]), **{name: value})
    rec, diags = parse_record(line)
    assert [d.code for d in diags] == ["wrong-type"] and not rec.valid
    literal = json.dumps(value)
    start = line.index(f'"{name}": ') + len(f'"{name}": ')
    assert line[start:start + len(literal)] == literal
    assert (diags[0].range.column, diags[0].range.end_column) == (start, start + len(literal))
    assert name in diags[0].message


def test_mistyped_primary_is_wrong_type_at_the_value():
    line = qline("q1", [{**loc("guide.md", "a"), "primary": "yes"}])
    rec, diags = parse_record(line)
    assert [d.code for d in diags] == ["wrong-type"] and not rec.valid
    assert line[diags[0].range.column:diags[0].range.end_column] == '"yes"'
    assert "'primary'" in diags[0].message


# --- the artifact -----------------------------------------------------------------------------

def artifact_records(tmp_path, lines):
    _, analysis = analyze_lines(tmp_path, DOCS, lines)
    text = analysis.artifact_text()
    assert text is not None, codes(analysis)
    return [json.loads(x) for x in text.splitlines()]


def test_the_artifact_carries_practice_keys_only_on_records_that_use_them(tmp_path):
    plain = qline("q1", [loc("guide.md", "depends on the chunk boundaries")])
    used = with_fields(qline("q2", [{**loc("faq.md", "offsets break whenever"), "primary": True}]),
                       query_type="factual", split="dev", annotator="ana")
    first, second = artifact_records(tmp_path, [plain, used])
    assert not {"query_type", "split", "annotator", "unanswerable"} & first.keys()
    assert "primary" not in first["answer_spans"][0]
    assert (second["query_type"], second["split"], second["annotator"]) == ("factual", "dev", "ana")
    assert "unanswerable" not in second
    assert second["answer_spans"][0]["primary"] is True


def test_an_unanswerable_record_without_locators_builds_with_no_chunk_ids(tmp_path):
    line = with_fields(qline("q1", [], query="Which hut serves sushi?"), unanswerable=True)
    (rec,) = artifact_records(tmp_path, [line])
    assert rec["unanswerable"] is True
    assert rec["answer_bearing_chunk_ids"] == [] and rec["answer_spans"] == []
