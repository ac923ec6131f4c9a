"""``golden-lsp export``: each format written by the CLI and read back by its consumer's own loader
(DeepEval's EvaluationDataset, ir_datasets' TREC and BEIR readers, ragas when installed, the csv
module for Chroma), compared with the built artifact. ranx, slow to import, is in test_export_ranx.py."""

from __future__ import annotations

import csv
import json
import os
import shutil
from pathlib import Path

import pytest
from core_support import run_cli
from interchange_support import (
    UNANSWERABLE_QUERY,
    artifact,
    example_set,
    expected_chunk_ids,
    expected_queries,
    expected_spans,
    n_unanswerable,
)

from golden_lsp.core.findings.diagnostics import plural
from golden_lsp.core.text.canon import canonicalize
from golden_lsp.core.text.chunker import chunk_id

EPOCH = "1767225600"  # 2026-01-01T00:00:00Z


@pytest.fixture(scope="module")
def golden(tmp_path_factory) -> Path:
    return example_set(tmp_path_factory.mktemp("export") / "set")


def export(golden: Path, fmt: str, out: Path | None, *extra: str, epoch: str | None = EPOCH):
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    if epoch is not None:
        env["SOURCE_DATE_EPOCH"] = epoch
    args = ["export", "--format", fmt, *(["--out", out] if out else []), *extra]
    return run_cli(args, golden, env)


def test_dataset_holds_every_record_with_chunk_ids_primary_and_created_at(golden, tmp_path):
    out = tmp_path / "dataset.json"
    proc = export(golden, "dataset", out)
    assert proc.returncode == 0, proc.stderr
    body = json.loads(out.read_text(encoding="utf-8"))
    assert body["created_at"] == "2026-01-01T00:00:00Z"
    assert body["n_queries"] == len(body["samples"]) == len(expected_queries(golden))
    samples = {s["id"]: s for s in body["samples"]}
    assert {i: s["query"] for i, s in samples.items()} == expected_queries(golden)
    assert {
        i: set(s["relevant_chunk_ids"]) for i, s in samples.items() if s["relevant_chunk_ids"]
    } == expected_chunk_ids(golden)
    assert samples["ex999"]["is_unanswerable"] is True and samples["ex999"]["relevant_chunk_ids"] == []
    assert samples["ex999"]["primary_chunk_id"] is None
    for rec in artifact(golden):
        sample = samples[rec["query_id"]]
        assert sample["query_type"] == rec["query_type"]
        if rec["answer_spans"]:
            # the first chunk of the primary span, else of the first span
            spans = rec["answer_spans"]
            primary = next((s for s in spans if s.get("primary")), spans[0])
            assert sample["primary_chunk_id"] in rec["answer_bearing_chunk_ids"]
            assert (sample["primary_chunk_id"] == sample["relevant_chunk_ids"][0]) == (primary is spans[0])


def test_exports_are_reproducible_under_source_date_epoch(golden, tmp_path):
    first, second = (export(golden, "dataset", None) for _ in range(2))
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout
    assert json.loads(export(golden, "dataset", None, epoch=None).stdout)["created_at"].startswith("20")


def test_ragas_jsonl_has_span_texts_and_chunk_ids(golden, tmp_path):
    out = tmp_path / "ragas.jsonl"
    proc = export(golden, "ragas", out)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    try:
        from ragas import EvaluationDataset
    except ImportError:  # too heavy for the test extra (README): the documented SingleTurnSample keys
        assert all(
            set(r) == {"user_input", "reference", "reference_contexts", "reference_context_ids"} for r in rows
        )
    else:
        rows = [s.model_dump() for s in EvaluationDataset.from_jsonl(str(out)).samples]
    by_query = {r["user_input"]: r for r in rows}
    ids = expected_chunk_ids(golden)
    queries = expected_queries(golden)
    assert set(by_query) == set(queries.values())
    spans = expected_spans(golden)
    for qid, query in queries.items():
        row = by_query[query]
        assert set(row["reference_context_ids"]) == ids.get(qid, set())
        texts = [_canonical(golden, doc)[s:e] for doc, s, e in spans[query]]
        assert sorted(row["reference_contexts"]) == sorted(texts)
    assert by_query[UNANSWERABLE_QUERY]["reference_contexts"] == []


def _canonical(golden: Path, doc: str) -> str:
    return canonicalize((golden / "corpus" / doc).read_text(encoding="utf-8"))


def test_deepeval_goldens_load_with_deepevals_own_loader(golden, tmp_path, monkeypatch):
    out = tmp_path / "goldens.json"
    proc = export(golden, "deepeval", out)
    assert proc.returncode == 0, proc.stderr
    monkeypatch.setenv("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
    monkeypatch.chdir(tmp_path)  # DeepEval may leave a .deepeval folder in the working directory
    from deepeval.dataset import EvaluationDataset

    dataset = EvaluationDataset()
    dataset.add_goldens_from_json_file(str(out))
    goldens = {g.additional_metadata["id"]: g for g in dataset.goldens}
    assert {i: g.input for i, g in goldens.items()} == expected_queries(golden)
    assert {
        i: set(g.additional_metadata["chunk_ids"])
        for i, g in goldens.items()
        if g.additional_metadata["chunk_ids"]
    } == expected_chunk_ids(golden)
    spans = expected_spans(golden)
    for g in goldens.values():
        assert sorted(g.context or []) == sorted(_canonical(golden, d)[s:e] for d, s, e in spans[g.input])
        assert g.expected_output
    assert not goldens["ex999"].context and goldens["ex999"].additional_metadata["is_unanswerable"] is True


def _ir_datasets(monkeypatch, tmp_path):
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "ir_datasets"))
    import ir_datasets.util

    return ir_datasets.util.LocalDownload


def test_qrels_read_by_ir_datasets_trec_reader_unanswerable_counted(golden, tmp_path, monkeypatch):
    out = tmp_path / "qrels.txt"
    proc = export(golden, "qrels", out)
    assert proc.returncode == 0, proc.stderr
    assert f"{plural(n_unanswerable(golden), 'unanswerable record')} left out" in proc.stderr
    local = _ir_datasets(monkeypatch, tmp_path)
    from ir_datasets.formats import TrecQrels

    got: dict[str, set[str]] = {}
    for q in TrecQrels(local(out), {1: "answer-bearing"}).qrels_iter():
        assert q.relevance == 1
        got.setdefault(q.query_id, set()).add(q.doc_id)
    assert got == expected_chunk_ids(golden)


def test_beir_folder_read_by_ir_datasets_beir_readers(golden, tmp_path, monkeypatch):
    out = tmp_path / "beir"
    proc = export(golden, "beir", out)
    assert proc.returncode == 0, proc.stderr
    local = _ir_datasets(monkeypatch, tmp_path)
    from ir_datasets.datasets.beir import BeirDocs, BeirQrels, BeirQueries, BeirTitleDoc
    from ir_datasets.formats import GenericQuery

    docs = list(BeirDocs("golden", local(out / "corpus.jsonl"), BeirTitleDoc).docs_iter())
    manifest = json.loads((golden / "golden-set.v1.manifest.json").read_text(encoding="utf-8"))
    assert len(docs) == manifest["n_chunks"]
    for doc in docs:  # title and text are exactly what the chunk ID hashes
        assert chunk_id(doc.title.split(" > ")[0], f"{doc.title}\n\n{doc.text}") == doc.doc_id
    queries = {
        q.query_id: q.text
        for q in BeirQueries("golden", local(out / "queries.jsonl"), GenericQuery).queries_iter()
    }
    answerable = expected_chunk_ids(golden)  # a BEIR query without qrels is dropped by every BEIR loader
    assert queries == {i: q for i, q in expected_queries(golden).items() if i in answerable}
    got: dict[str, set[str]] = {}
    for q in BeirQrels(local(out / "qrels" / "test.tsv"), {}).qrels_iter():
        got.setdefault(q.query_id, set()).add(q.doc_id)
    assert got == expected_chunk_ids(golden)
    assert got.keys() <= queries.keys() and set().union(*got.values()) <= {d.doc_id for d in docs}


def test_beir_split_names_the_qrels_file_and_keeps_that_split_only(golden, tmp_path):
    out = tmp_path / "beir-dev"
    proc = export(golden, "beir", out, "--split", "dev")
    assert proc.returncode == 0, proc.stderr
    assert not (out / "qrels" / "test.tsv").exists()
    lines = (out / "qrels" / "dev.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "query-id\tcorpus-id\tscore"
    got: dict[str, set[str]] = {}
    for line in lines[1:]:
        qid, cid, _score = line.split("\t")
        got.setdefault(qid, set()).add(cid)
    assert got == expected_chunk_ids(golden, "dev") and got


def test_chroma_csv_references_are_canonical_ranges_of_the_spans(golden, tmp_path):
    out = tmp_path / "questions.csv"
    proc = export(golden, "chroma", out)
    assert proc.returncode == 0, proc.stderr
    assert f"{plural(n_unanswerable(golden), 'unanswerable record')} left out" in proc.stderr
    with out.open(encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        assert reader.fieldnames == ["question", "references", "corpus_id"]
        rows = list(reader)
    got: dict[str, list[tuple]] = {}
    for row in rows:
        text = _canonical(golden, row["corpus_id"])
        for ref in json.loads(row["references"]):
            assert text[ref["start_index"] : ref["end_index"]] == ref["content"]
            got.setdefault(row["question"], []).append(
                (row["corpus_id"], ref["start_index"], ref["end_index"])
            )
    spans = {q: s for q, s in expected_spans(golden).items() if s}
    assert {q: sorted(s) for q, s in got.items()} == spans
    several = sum(len({d for d, _, _ in s}) > 1 for s in spans.values())
    assert len(rows) == len(spans) + sum(len({d for d, _, _ in s}) - 1 for s in spans.values())
    assert f"{several} records with spans in several documents: one row per document" in proc.stderr


def test_a_set_with_errors_is_not_exported(golden, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(golden, broken)
    q = broken / "questions.jsonl"
    q.write_text(
        q.read_text(encoding="utf-8").replace('"quote": "You walk from one', '"quote": "You wander from one'),
        encoding="utf-8",
    )
    out = tmp_path / "ragas.jsonl"
    proc = export(broken, "ragas", out)
    assert proc.returncode == 1
    assert "quote-not-found" in proc.stderr and "nothing exported: 1 error " in proc.stderr
    assert not out.exists() and proc.stdout == ""


@pytest.mark.parametrize("target", ["questions.jsonl", "corpus/01-planning-a-hut-tour.md", "golden-lsp.toml"])
def test_out_never_overwrites_an_input(golden, target):
    before = (golden / target).read_bytes()
    proc = export(golden, "ragas", golden / target)
    assert proc.returncode == 2 and "an input" in proc.stderr
    assert (golden / target).read_bytes() == before


def test_beir_needs_a_folder(golden):
    proc = export(golden, "beir", None)
    assert proc.returncode == 2 and "--out" in proc.stderr


def test_split_keeps_only_that_splits_records(golden):
    proc = export(golden, "dataset", None, "--split", "test")
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)
    expected = {r["query_id"] for r in artifact(golden) if r.get("split") == "test"}
    assert {s["id"] for s in body["samples"]} == expected and body["n_queries"] == len(expected)
    assert "ex999" in expected and "of split test" in proc.stderr


def test_a_document_that_is_not_canonical_is_warned_about(tmp_path):
    """A chapter with a BOM and CRLF line ends: the exported offsets are canonical (BOM removed),
    so a consumer reading the file with encoding="utf-8" is off by one, and stderr says so."""
    root = example_set(tmp_path / "set")
    chapter = root / "corpus" / "01-planning-a-hut-tour.md"
    text = chapter.read_text(encoding="utf-8")
    chapter.write_bytes(("\ufeff" + text.replace("\n", "\r\n")).encode("utf-8"))
    out = tmp_path / "chroma.csv"
    proc = export(root, "chroma", out)
    assert proc.returncode == 0, proc.stderr
    (warning,) = [line for line in proc.stderr.splitlines() if "warning:" in line]
    assert "1 exported document is not stored as its canonical text" in warning
    assert "(01-planning-a-hut-tour.md: a BOM, CRLF line ends)" in warning
    assert "a BOM shifts every offset by one" in warning
    # what it warns of: an offset into the file read with encoding="utf-8" is off by one
    row = next(r for r in csv.DictReader(out.open(encoding="utf-8")) if r["corpus_id"] == chapter.name)
    ref = json.loads(row["references"])[0]
    raw = chapter.read_text(encoding="utf-8")
    assert raw[ref["start_index"] : ref["end_index"]] != ref["content"]
    assert canonicalize(raw)[ref["start_index"] : ref["end_index"]] == ref["content"]
    # chunk IDs only: nothing to misread, nothing said; a canonical corpus: nothing said
    qrels = export(root, "qrels", tmp_path / "qrels.txt")
    assert qrels.returncode == 0 and "warning" not in qrels.stderr
    assert "warning" not in export(example_set(tmp_path / "clean"), "chroma", tmp_path / "c.csv").stderr
