"""The qrels and ranx exports read back by ranx itself (``Qrels.from_file``, ``Qrels.from_dict``).

The only test module that imports ranx: its numba JIT costs seconds at first import."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from core_support import run_cli
from interchange_support import example_set, expected_chunk_ids, n_unanswerable

from golden_lsp.core.findings.diagnostics import plural

ranx = pytest.importorskip("ranx")


@pytest.fixture(scope="module")
def golden(tmp_path_factory) -> Path:
    return example_set(tmp_path_factory.mktemp("ranx") / "set")


def export(golden: Path, fmt: str, out: Path):
    proc = run_cli(["export", "--format", fmt, "--out", out], golden, dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    return proc


def as_sets(qrels) -> dict[str, set[str]]:
    return {q: {d for d, rel in docs.items() if rel == 1} for q, docs in qrels.to_dict().items()}


def test_ranx_json_loads_with_from_file_and_from_dict(golden, tmp_path):
    out = tmp_path / "qrels.json"
    proc = export(golden, "ranx", out)
    assert f"{plural(n_unanswerable(golden), 'unanswerable record')} left out" in proc.stderr
    expected = expected_chunk_ids(golden)
    assert as_sets(ranx.Qrels.from_file(str(out))) == expected
    assert as_sets(ranx.Qrels.from_dict(json.loads(out.read_text(encoding="utf-8")))) == expected


def test_trec_qrels_load_with_ranx(golden, tmp_path):
    out = tmp_path / "qrels.txt"
    export(golden, "qrels", out)
    assert as_sets(ranx.Qrels.from_file(str(out), kind="trec")) == expected_chunk_ids(golden)
