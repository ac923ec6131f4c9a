"""Conformance with the reference builder on the ai-rag-lab fixture (SPEC §8).

The fixture is third-party text read from ../shared beside the repository; these tests skip
when it is absent and never copy its text into the repository.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter

import pytest
from core_support import run_cli

from golden_lsp.core.goldenset.artifact import artifact_text, manifest_text
from golden_lsp.core.goldenset.config import Config
from golden_lsp.core.goldenset.project import GoldenSet


@pytest.fixture(scope="module")
def lab(conformance):
    gs = GoldenSet(
        Config(
            corpus=conformance / "corpus",
            questions=conformance / "questions.jsonl",
            max_chars=1800,
            hit_rule="any_overlap",
            glob="*.md",
        )
    )
    return gs, gs.analyze()


def test_artifact_is_byte_identical(conformance, lab):
    _, analysis = lab
    assert not analysis.has_errors
    expected = (conformance / "golden-set.v1.jsonl").read_bytes()
    assert artifact_text(analysis).encode("utf-8") == expected


def test_build_writes_the_reference_files(conformance, tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    gs = GoldenSet(
        Config(
            corpus=conformance / "corpus",
            questions=conformance / "questions.jsonl",
            artifact=tmp_path / "a.jsonl",
            manifest=tmp_path / "m.json",
        )
    )
    _, written = gs.build()
    assert written
    assert (tmp_path / "a.jsonl").read_bytes() == (conformance / "golden-set.v1.jsonl").read_bytes()
    built = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    reference = json.loads((conformance / "golden-set.v1.manifest.json").read_text(encoding="utf-8"))
    built.pop("corpus_commit")
    reference.pop("corpus_commit")
    assert built == reference


def test_manifest_text_equal_except_commit(conformance, lab):
    gs, analysis = lab
    reference_text = (conformance / "golden-set.v1.manifest.json").read_text(encoding="utf-8")
    commit = json.loads(reference_text)["corpus_commit"]
    assert manifest_text(gs.fresh_manifest(analysis, commit)) == reference_text


def test_spec_figures(lab):
    gs, analysis = lab
    corpus = gs.corpus
    assert len(corpus.docs) == 4
    assert corpus.chars == 302_826
    assert corpus.n_chunks == 265
    records = [r for r in analysis.records if r.record is not None]
    assert len(records) == 60
    assert Counter(r.record.hop for r in records) == {"single": 55, "multi": 5}
    resolved = [x for r in records for x in r.result.resolved]
    spans = [x.span for x in resolved]
    assert len(spans) == 65 and all(s is not None for s in spans)
    assert round(sum(s.end - s.start for s in spans) / len(spans), 1) == 507.6
    by_doc = Counter(s.doc_id for s in spans)
    assert by_doc == {
        "00-mental-models.md": 26,
        "02-chunking-and-document-processing.md": 20,
        "01-embeddings-and-representation.md": 13,
        "README.md": 6,
    }
    by_chunks = Counter(len({c.chunk_id for x in r.result.resolved for c in x.chunks}) for r in records)
    assert by_chunks == {1: 54, 2: 5, 3: 1}
    assert all(x.coverage == 1.0 for x in resolved)
    # the same figures from the artifact itself
    rows = [json.loads(line) for line in artifact_text(analysis).splitlines()]
    assert Counter(len(r["answer_bearing_chunk_ids"]) for r in rows) == {1: 54, 2: 5, 3: 1}
    assert {c for r in rows for c in r["span_union_coverage"]} == {1.0}


def test_fixture_has_no_errors(lab):
    _, analysis = lab
    assert [d for d in analysis.diagnostics if d.severity.value == "error"] == []


def test_cli_check_against_the_reference_files_exits_0(conformance, tmp_path):
    proc = run_cli(
        [
            "--check",
            "--corpus",
            conformance / "corpus",
            "--questions",
            conformance / "questions.jsonl",
            "--artifact",
            conformance / "golden-set.v1.jsonl",
            "--manifest",
            conformance / "golden-set.v1.manifest.json",
            "--max-chars",
            "1800",
            "--hit-rule",
            "any_overlap",
        ],
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "stale-" not in proc.stdout and "error[" not in proc.stdout
    assert "60 records, 0 errors" in proc.stderr


def _first_line_with_non_ascii_before_its_quote(lines: list[str]) -> tuple[int, str, str]:
    for no, line in enumerate(lines):
        if not line.strip() or line.strip().startswith("//"):
            continue
        quote = json.loads(line)["locators"][0]["quote"]
        literal = json.dumps(quote, ensure_ascii=False)
        needle = '"quote": ' + literal
        if line.count(needle) == 1 and not line[: line.index(needle)].isascii():
            return no, line, literal
    pytest.fail("no record line with a non-ASCII character before its quote")


def test_cli_check_points_at_a_changed_quote(conformance, tmp_path):
    lines = (conformance / "questions.jsonl").read_text(encoding="utf-8").split("\n")
    no, line, literal = _first_line_with_non_ascii_before_its_quote(lines)
    changed = literal[:1] + "XQZJ " + literal[1:]
    lines[no] = line.replace('"quote": ' + literal, '"quote": ' + changed)
    (tmp_path / "questions.jsonl").write_text("\n".join(lines), encoding="utf-8")

    proc = run_cli(["--check", "questions.jsonl", "--corpus", conformance / "corpus"], cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # 1-based code points: the column of the quote string's opening quotation mark
    column = lines[no].index('"quote": ' + changed) + len('"quote": ') + 1
    byte_column = len(lines[no][: column - 1].encode("utf-8")) + 1
    assert byte_column != column  # the test means something: code points, not bytes
    expected = f"questions.jsonl:{no + 1}:{column}: error[quote-not-found] "
    errors = [out for out in proc.stdout.splitlines() if "error[" in out]
    assert len(errors) == 1 and errors[0].startswith(expected), proc.stdout

    # the JSON format gives the full range of that string
    proc = run_cli(
        ["check", "questions.jsonl", "--corpus", conformance / "corpus", "--format", "json"], cwd=tmp_path
    )
    (item,) = [d for d in json.loads(proc.stdout) if d["severity"] == "error"]
    assert (item["line"], item["column"], item["end_line"], item["end_column"]) == (
        no + 1,
        column,
        no + 1,
        column + len(changed),
    )


def test_copy_of_the_fixture_builds_and_checks_clean(conformance, tmp_path):
    shutil.copytree(conformance / "corpus", tmp_path / "corpus")
    shutil.copy(conformance / "questions.jsonl", tmp_path / "questions.jsonl")
    (tmp_path / "golden-lsp.toml").write_text('corpus = "corpus"\n', encoding="utf-8")
    proc = run_cli(["build"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "golden-set.v1.jsonl").read_bytes() == (
        conformance / "golden-set.v1.jsonl"
    ).read_bytes()
    assert (
        json.loads((tmp_path / "golden-set.v1.manifest.json").read_text(encoding="utf-8"))["corpus_commit"]
        == "unknown"
    )
    proc = run_cli(["check"], cwd=tmp_path)
    assert proc.returncode == 0 and "stale-" not in proc.stdout
