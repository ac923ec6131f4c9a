"""The warm cache (chunks and quote occurrences on disk, by content) and ``--jobs``: the same
output with or without either, and a damaged cache entry is never trusted."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from core_support import SAMPLE_LINES, loc, make_project, qline
from golden_lsp import diskcache, quoteindex
from golden_lsp.config import load_config
from golden_lsp.project import GoldenSet

#: enough quotes into one document that a cold start batches them (and so caches them)
LINES = SAMPLE_LINES + [qline(f"x{i}", [loc("guide.md", q)]) for i, q in enumerate(
    ["Retrieval quality", "chunk boundaries", "indexing time", "second sentence", "keeps the block",
     "max_chars", "any_overlap", "quotes must be unique", "nested lists", "closes the list"])]


def entries(root: Path) -> list[Path]:
    return sorted(root.rglob("*.json")) if root.is_dir() else []


def cache_root() -> Path:
    return Path(os.environ["GOLDEN_LSP_CACHE_DIR"])


def check_json(cli, project: Path, *flags: str) -> tuple[int, list]:
    proc = cli(["check", "--format", "json", *flags], cwd=project)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_a_warm_run_reads_chunks_and_occurrences_from_the_cache(tmp_path, monkeypatch):
    root = make_project(tmp_path / "p", lines=LINES)
    cold = GoldenSet(load_config(root / "golden-lsp.toml"))
    first = cold.check()
    assert len(entries(cache_root())) == 4  # chunks of both documents, occurrences of both
    # a fresh process would chunk and search nothing: prove it by making both impossible
    monkeypatch.setattr("golden_lsp.corpus.chunk_document", lambda *a: pytest.fail("chunked again"))
    monkeypatch.setattr(quoteindex, "find_all", lambda *a: pytest.fail("searched again"))
    warm = GoldenSet(load_config(root / "golden-lsp.toml")).check()
    assert [(d.code, d.range, d.message) for d in warm.diagnostics] == \
        [(d.code, d.range, d.message) for d in first.diagnostics]
    assert warm.artifact_text() == first.artifact_text()


def test_cli_output_is_the_same_cold_warm_and_without_the_cache(tmp_path, cli):
    root = make_project(tmp_path / "p", lines=LINES)
    cold = check_json(cli, root)
    assert entries(cache_root())
    assert check_json(cli, root) == cold
    shutil.rmtree(cache_root())
    assert check_json(cli, root, "--no-cache") == cold
    assert not cache_root().exists()  # --no-cache neither reads nor writes


@pytest.mark.parametrize("damage", ["garbage", "truncated", "payload", "foreign"])
def test_a_corrupt_or_foreign_entry_is_ignored(tmp_path, cli, damage):
    root = make_project(tmp_path / "p", lines=LINES)
    assert cli(["build"], cwd=root).returncode == 0  # a check now also compares chunk IDs and spans
    expected = check_json(cli, root)
    files = entries(cache_root())
    for path in files if damage != "foreign" else ():
        text = path.read_text(encoding="utf-8")
        if damage == "garbage":
            path.write_bytes(b"\xff\x00 not json")
        elif damage == "truncated":
            path.write_text(text[: len(text) // 2], encoding="utf-8")
        elif damage == "payload":  # valid JSON, plausible numbers, not what was stored
            entry = json.loads(text)
            payload = entry["payload"]
            if "chunks" in payload:
                for row in payload["chunks"]:
                    row[1] -= 1
            else:
                for starts in payload.values():
                    starts[:] = [s + 1 for s in starts]
            path.write_text(json.dumps(entry), encoding="utf-8")
    if damage == "foreign":  # each key holds another document's (or kind's) sound entry
        for a, b in zip(files, files[1:] + files[:1]):
            shutil.copyfile(b, a.with_suffix(".tmp"))
        for a in files:
            a.with_suffix(".tmp").replace(a)
    assert check_json(cli, root) == expected
    assert check_json(cli, root) == expected  # and the rewritten entries are sound again


def test_a_loaded_entry_is_checked_against_the_text(tmp_path):
    # occurrences that do not occur where stored are dropped, whatever the file says
    text = "alpha beta alpha\n"
    diskcache.store_occurrences("0" * 64, 21, {"alpha": [0, 11], "beta": [3]})
    assert diskcache.load_occurrences("0" * 64, text, 21) == {"alpha": [0, 11]}


def test_jobs_give_identical_check_and_build_output(tmp_path, cli):
    docs = {f"d{i}.md": f"# Doc {i}\n\n" + "".join(f"Paragraph {j} of doc {i} says fact {i * 100 + j}.\n\n"
                                                  for j in range(40)) for i in range(5)}
    lines = [qline(f"q{i}{j}", [loc(f"d{i}.md", f"says fact {i * 100 + j}.")]) for i in range(5) for j in range(12)]
    lines += [qline("amb", [loc("d1.md", "of doc 1 says")]), qline("gone", [loc("d2.md", "no such fact")])]
    root = make_project(tmp_path / "p", docs, lines)
    one = check_json(cli, root, "--no-cache")
    assert check_json(cli, root, "--no-cache", "--jobs", "3") == one
    assert {f["code"] for f in one[1]} >= {"quote-ambiguous", "quote-not-found"}
    lines = lines[:-2]
    (root / "questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    built = {}
    for jobs in ("1", "3"):
        proc = cli(["build", "--no-cache", "--jobs", jobs], cwd=root)
        assert proc.returncode == 0, proc.stderr
        built[jobs] = (root / "golden-set.v1.jsonl").read_bytes(), (root / "golden-set.v1.manifest.json").read_bytes()
    assert built["1"] == built["3"]
    assert cli(["check", "--jobs", "0"], cwd=root).returncode == 2


def test_jobs_build_the_reference_bytes(conformance, tmp_path, cli):
    proc = cli(["check", "--no-cache", "--jobs", "2", "--corpus", conformance / "corpus",
                "--questions", conformance / "questions.jsonl", "--artifact", conformance / "golden-set.v1.jsonl",
                "--manifest", conformance / "golden-set.v1.manifest.json"], cwd=tmp_path)
    assert "stale-artifact" not in proc.stdout, proc.stdout
