"""Record metadata (``tenant``, ``source``, ``request_id``, ``notes``, ``sampled_at``, ``meta``): never
an unknown field, a located error when mistyped, carried into the artifact only on the records that
use it, and kept by every export that can hold it (read back by the consumer's loader where the test
extra has it)."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest
from core_support import run_cli
from interchange_support import artifact, example_set

from golden_lsp.core.labels.questions import parse_record
from golden_lsp.core.labels.recordmeta import flat_metadata, is_iso_date

META = {
    "tenant": "acme",
    "source": "prod-logs",
    "request_id": "req-7f3a",
    "notes": "asked twice in March\nby the same user",
    "sampled_at": "2026-03-01T14:05:00Z",
    "meta": {"region": "eu", "priority": 2, "vip": True, "labels": ["a", "b"]},
}


def _record(**fields) -> str:
    rec = {
        "id": "q1",
        "query": "What is it?",
        "expected_answer": "It is a thing of some length.",
        "locators": [{"doc": "d.md", "quote": "x"}],
        **fields,
    }
    return json.dumps(rec, ensure_ascii=False)


def test_every_metadata_field_is_known_and_typed():
    rec, diags = parse_record(_record(**META))
    assert diags == [] and rec.valid
    assert flat_metadata(rec.value) == {
        "tenant": "acme",
        "source": "prod-logs",
        "request_id": "req-7f3a",
        "notes": "asked twice in March\nby the same user",
        "sampled_at": "2026-03-01T14:05:00Z",
        "meta.region": "eu",
        "meta.priority": 2,
        "meta.vip": True,
    }  # the list in meta is kept in the record, but no slice can be made of it


@pytest.mark.parametrize(
    "fields, value_text",
    [
        ({"tenant": 3}, "3"),
        ({"source": None}, "null"),
        ({"request_id": ["r"]}, '["r"]'),
        ({"notes": {"a": 1}}, '{"a": 1}'),
        ({"sampled_at": "yesterday"}, '"yesterday"'),
        ({"sampled_at": "2026-02-30"}, '"2026-02-30"'),
        ({"sampled_at": "2026-03-01T25:00"}, '"2026-03-01T25:00"'),
        ({"sampled_at": 20260301}, "20260301"),
        ({"meta": ["region", "eu"]}, '["region", "eu"]'),
        ({"meta": "eu"}, '"eu"'),
    ],
)
def test_a_mistyped_metadata_field_is_an_error_at_its_value(fields, value_text):
    line = _record(**fields)
    rec, diags = parse_record(line)
    assert [d.code for d in diags] == ["wrong-type"]
    assert line[diags[0].range.column : diags[0].range.end_column] == value_text
    assert not rec.valid


@pytest.mark.parametrize(
    "text, ok",
    [
        ("2026-03-01", True),
        ("2026-03-01T14:05", True),
        ("2026-03-01 14:05:09", True),
        ("2026-03-01T14:05:09.123456+02:00", True),
        ("2026-03-01T14:05:09,5Z", True),
        ("2024-02-29", True),
        ("2026-3-1", False),
        ("2026-03-01T", False),
        ("2026-03-01T14:05:09+24:00", False),
        ("2023-02-29", False),
        ("01/03/2026", False),
    ],
)
def test_sampled_at_is_iso_8601(text, ok):
    assert is_iso_date(text) is ok


@pytest.fixture(scope="module")
def golden(tmp_path_factory) -> Path:
    root = example_set(tmp_path_factory.mktemp("meta") / "set")
    path = root / "questions.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("{"))
    lines[first] = json.dumps({**json.loads(lines[first]), **META}, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = run_cli(["build"], root)
    assert proc.returncode == 0, proc.stderr
    return root


def _first_id(root: Path) -> str:
    return artifact(root)[0]["query_id"]


def test_the_artifact_carries_metadata_only_on_the_records_that_use_it(golden):
    rows = artifact(golden)
    assert {k: rows[0][k] for k in META} == META
    assert all(not set(META) & set(r) for r in rows[1:])
    check = run_cli(["check"], golden)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "unknown-field" not in check.stdout


def _export(golden: Path, fmt: str, out: Path):
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1767225600"}
    proc = run_cli(["export", "--format", fmt, "--out", out], golden, env)
    assert proc.returncode == 0, proc.stderr


def test_dataset_ragas_and_beir_queries_keep_the_metadata(golden, tmp_path):
    first = _first_id(golden)
    _export(golden, "dataset", tmp_path / "d.json")
    samples = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))["samples"]
    assert {k: samples[0][k] for k in META} == META and not set(META) & set(samples[1])
    _export(golden, "ragas", tmp_path / "r.jsonl")
    rows = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rows[0]["metadata"] == META and "metadata" not in rows[1]
    _export(golden, "beir", tmp_path / "beir")
    queries = [
        json.loads(x) for x in (tmp_path / "beir/queries.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    by_id = {q["_id"]: q for q in queries}
    assert by_id[first]["metadata"] == META
    assert sum("metadata" in q for q in queries) == 1


def test_deepeval_additional_metadata_keeps_it(golden, tmp_path, monkeypatch):
    _export(golden, "deepeval", tmp_path / "g.json")
    monkeypatch.setenv("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
    monkeypatch.chdir(tmp_path)
    from deepeval.dataset import EvaluationDataset

    dataset = EvaluationDataset()
    dataset.add_goldens_from_json_file(str(tmp_path / "g.json"))
    by_id = {g.additional_metadata["id"]: g.additional_metadata for g in dataset.goldens}
    first = _first_id(golden)
    assert {k: by_id[first][k] for k in META} == META
    assert all(not set(META) & set(m) for i, m in by_id.items() if i != first)


def test_chroma_csv_has_a_metadata_column_when_a_record_has_metadata(golden, tmp_path):
    _export(golden, "chroma", tmp_path / "c.csv")
    with (tmp_path / "c.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    query = artifact(golden)[0]["query"]
    assert all(json.loads(r["metadata"]) == META for r in rows if r["question"] == query)
    assert all(json.loads(r["metadata"]) == {} for r in rows if r["question"] != query)
