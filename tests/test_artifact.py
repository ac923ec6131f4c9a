"""Derivation (SPEC §6): artifact and manifest from a build, determinism, all-or-nothing writes,
provenance and the staleness check."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from core_support import SAMPLE_DOCS, SAMPLE_LINES, loc, make_project, qline, write_questions

from golden_lsp.core.goldenset.artifact import artifact_line, artifact_text, corpus_commit
from golden_lsp.core.goldenset.config import ConfigError, load_config
from golden_lsp.core.goldenset.project import GoldenSet
from golden_lsp.core.io.files import write_atomically
from golden_lsp.core.text.canon import canonicalize
from golden_lsp.core.text.chunker import chunk_document


@pytest.fixture(autouse=True)
def no_outer_git(tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    monkeypatch.delenv("GIT_DIR", raising=False)


def golden(root: Path) -> GoldenSet:
    return GoldenSet(load_config(root / "golden-lsp.toml"))


def test_build_writes_a_fresh_artifact_and_manifest(project):
    gs = golden(project)
    analysis, written = gs.build()
    assert written
    artifact = (project / "golden-set.v1.jsonl").read_bytes()
    manifest_bytes = (project / "golden-set.v1.manifest.json").read_bytes()
    # the artifact equals a fresh in-memory build, UTF-8, no BOM, LF only
    assert artifact.decode("utf-8") == artifact_text(golden(project).analyze())
    assert not artifact.startswith(b"\xef\xbb\xbf") and b"\r" not in artifact
    m = json.loads(manifest_bytes)
    assert (
        manifest_bytes.decode("utf-8") == json.dumps(m, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    )
    # the manifest, recomputed here from the spec
    docs = {name: canonicalize(text) for name, text in sorted(SAMPLE_DOCS.items())}
    digest = hashlib.sha256()
    for name, text in docs.items():
        digest.update(name.encode() + b"\0" + hashlib.sha256(text.encode()).hexdigest().encode() + b"\0")
    assert m == {
        "n_records": 7,
        "n_chunks": sum(len(chunk_document(n, t)) for n, t in docs.items()),
        "n_docs": 2,
        "corpus_chars": sum(len(t) for t in docs.values()),
        "corpus_digest": digest.hexdigest(),
        "corpus_commit": "unknown",
        "chunker_version": "md-struct-v1",
        "canonical_version": "canon-v1",
        "max_chars": 1800,
        "build_hit_rule": "any_overlap",
        "docs": {
            n: {"sha256": hashlib.sha256(t.encode()).hexdigest(), "chars": len(t)} for n, t in docs.items()
        },
    }
    assert m == gs.fresh_manifest(analysis)


def test_the_artifact_is_one_serialised_line_per_record(project):
    analysis = golden(project).analyze()
    records = [r for r in analysis.records if r.record is not None]
    assert artifact_text(analysis) == "".join(artifact_line(r.record, r.result.resolved) for r in records)


def test_build_is_deterministic(project):
    golden(project).build()
    first = [(project / n).read_bytes() for n in ("golden-set.v1.jsonl", "golden-set.v1.manifest.json")]
    (project / "golden-set.v1.jsonl").unlink()
    (project / "golden-set.v1.manifest.json").unlink()
    golden(project).build()
    second = [(project / n).read_bytes() for n in ("golden-set.v1.jsonl", "golden-set.v1.manifest.json")]
    assert first == second


def test_a_build_with_any_error_writes_nothing(tmp_path):
    root = make_project(tmp_path / "p")
    # first no files at all
    lines = SAMPLE_LINES + [qline("q9", [loc("faq.md", "words that are not there")])]
    write_questions(root / "questions.jsonl", lines)
    analysis, written = golden(root).build()
    assert not written and analysis.has_errors
    assert sorted(p.name for p in root.iterdir()) == ["corpus", "golden-lsp.toml", "questions.jsonl"]
    # then pre-existing files stay byte for byte
    (root / "golden-set.v1.jsonl").write_bytes(b"old artifact\r\n")
    (root / "golden-set.v1.manifest.json").write_bytes(b"{}")
    _, written = golden(root).build()
    assert not written
    assert (root / "golden-set.v1.jsonl").read_bytes() == b"old artifact\r\n"
    assert (root / "golden-set.v1.manifest.json").read_bytes() == b"{}"
    assert sorted(p.name for p in root.iterdir()) == [
        "corpus",
        "golden-lsp.toml",
        "golden-set.v1.jsonl",
        "golden-set.v1.manifest.json",
        "questions.jsonl",
    ]


def test_write_atomically_leaves_old_files_when_one_write_fails(tmp_path):
    old = tmp_path / "a.jsonl"
    old.write_text("old", encoding="utf-8")
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a folder", encoding="utf-8")
    with pytest.raises(OSError):
        write_atomically({old: "new", blocker / "m.json": "{}"})
    assert old.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "blocker"]


def test_a_write_failing_after_the_first_temporary_leaves_no_temporary(tmp_path):
    """Else the next check would take a lone manifest temporary for a build killed after its
    first rename, and finish it over the old artifact's manifest."""
    a, m = tmp_path / "a.jsonl", tmp_path / "m.json"
    a.write_text("old a", encoding="utf-8")
    m.write_text("old m", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        write_atomically({a: "new a", m: "\ud800 cannot be UTF-8"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "m.json"]
    assert a.read_text(encoding="utf-8") == "old a" and m.read_text(encoding="utf-8") == "old m"


def test_write_atomically_renames_nothing_when_a_target_is_a_folder(tmp_path):
    old = tmp_path / "a.jsonl"
    old.write_text("old", encoding="utf-8")
    (tmp_path / "m.json").mkdir()
    with pytest.raises(OSError, match="it is a folder, not a regular file"):
        write_atomically({old: "new", tmp_path / "m.json": "{}"})
    assert old.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl", "m.json"]


def test_write_atomically_writes_exact_text(tmp_path):
    a, b = tmp_path / "x" / "a.txt", tmp_path / "b.txt"
    write_atomically({a: "line\r\nnext\n", b: "é\n"})
    assert a.read_bytes() == b"line\r\nnext\n" and b.read_bytes() == "é\n".encode()


# --- corpus_commit --------------------------------------------------------------------------

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git not installed")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "init.defaultBranch=main",
            "-c",
            "commit.gpgsign=false",
            *args,
        ],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def test_corpus_commit_outside_a_repository(tmp_path):
    assert corpus_commit(tmp_path) == "unknown"


@needs_git
def test_corpus_commit_in_a_repository_without_commits(tmp_path):
    git(tmp_path, "init", "-q")
    assert corpus_commit(tmp_path) == "unknown"


@needs_git
def test_corpus_commit_is_head(tmp_path):
    root = make_project(tmp_path / "p")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "corpus")
    head = git(root, "rev-parse", "HEAD")
    assert corpus_commit(root / "corpus") == head
    golden(root).build()
    m = json.loads((root / "golden-set.v1.manifest.json").read_text(encoding="utf-8"))
    assert m["corpus_commit"] == head
    # provenance only: the check ignores it
    assert [d.code for d in golden(root).check().diagnostics] == ["too-few-records"]


# --- staleness ------------------------------------------------------------------------------


def stale(root: Path):
    return [d for d in golden(root).check().diagnostics if d.code.startswith("stale-")]


def test_check_after_build_is_clean(project):
    golden(project).build()
    assert stale(project) == []


def test_tampered_record_is_located_at_its_id(project):
    golden(project).build()
    path = project / "golden-set.v1.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[3] = lines[3].replace('"hop": "single"', '"hop": "multi"')
    path.write_text("".join(lines), encoding="utf-8")
    (d,) = stale(project)
    assert d.code == "stale-artifact" and d.severity.value == "error"
    q4 = next(i for i, line in enumerate(SAMPLE_LINES) if '"q4"' in line)
    assert d.range.line == q4
    assert SAMPLE_LINES[q4][d.range.column : d.range.end_column] == '"q4"'
    assert "1 record differs" in d.message and "golden-lsp build" in d.message


def test_reordered_or_missing_artifact_lines_are_stale(project):
    golden(project).build()
    path = project / "golden-set.v1.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(reversed(lines)), encoding="utf-8")
    (d,) = stale(project)
    assert d.code == "stale-artifact" and "reordered" in d.message
    path.write_bytes("".join(lines).replace("\n", "\r\n").encode("utf-8"))  # CRLF differs too
    assert [d.code for d in stale(project)] == ["stale-artifact"]
    path.unlink()
    assert stale(project) == []  # not configured and absent: not kept
    (project / "golden-lsp.toml").write_text(
        'corpus = "corpus"\nartifact = "golden-set.v1.jsonl"\n', encoding="utf-8"
    )
    (d,) = stale(project)
    assert d.code == "stale-artifact" and "missing" in d.message


def test_manifest_staleness_ignores_corpus_commit_only(project):
    golden(project).build()
    path = project / "golden-set.v1.manifest.json"
    m = json.loads(path.read_text(encoding="utf-8"))
    m["corpus_commit"] = "0123456789abcdef"
    path.write_text(json.dumps(m), encoding="utf-8")
    assert stale(project) == []
    m["max_chars"] = 999
    path.write_text(json.dumps(m), encoding="utf-8")
    (d,) = stale(project)
    assert d.code == "stale-manifest" and "max_chars" in d.message
    path.write_text("not json", encoding="utf-8")
    (d,) = stale(project)
    assert d.code == "stale-manifest"


def test_corpus_edit_after_build_makes_both_stale(project):
    golden(project).build()
    faq = project / "corpus" / "faq.md"
    faq.write_text(
        faq.read_text(encoding="utf-8").replace("reviews each change", "reviews every change"),
        encoding="utf-8",
    )
    found = stale(project)
    assert sorted(d.code for d in found) == ["stale-artifact", "stale-manifest"]
    art = next(d for d in found if d.code == "stale-artifact")
    # the FAQ is one chunk, so every record quoting it changed; q4 comes first in the file
    q4 = next(i for i, line in enumerate(SAMPLE_LINES) if '"q4"' in line)
    assert art.range.line == q4
    man = next(d for d in found if d.code == "stale-manifest")
    assert "corpus_digest" in man.message and "docs" in man.message


def test_no_staleness_reported_when_the_set_has_errors(project):
    golden(project).build()
    (project / "golden-set.v1.jsonl").write_text("garbage\n", encoding="utf-8")
    write_questions(project / "questions.jsonl", SAMPLE_LINES + [qline("q9", [loc("nope.md", "x")])])
    codes = [d.code for d in golden(project).check().diagnostics]
    assert "unknown-doc" in codes and not any(c.startswith("stale-") for c in codes)


def test_check_writes_nothing(project):
    before = sorted(os.listdir(project))
    golden(project).check()
    assert sorted(os.listdir(project)) == before


def test_committed_files_are_read_again_only_when_they_change(project, monkeypatch):
    import golden_lsp.core.goldenset.artifact as artifact_module

    golden(project).build()
    reads = []
    real_read = artifact_module._read
    monkeypatch.setattr(artifact_module, "_read", lambda path: reads.append(path.name) or real_read(path))
    gs = golden(project)
    for _ in range(3):
        assert [d.code for d in gs.check().diagnostics] == ["too-few-records"]
    assert sorted(reads) == ["golden-set.v1.jsonl", "golden-set.v1.manifest.json"]
    path = project / "golden-set.v1.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:-1]), encoding="utf-8")  # another size: read again
    for _ in range(2):
        assert [d.code for d in gs.check().diagnostics if d.code.startswith("stale-")] == ["stale-artifact"]
    # a record now differs from the artifact: its passage is compared with the build's, read once
    assert sorted(reads) == [
        "golden-set.v1.jsonl",
        "golden-set.v1.jsonl",
        "golden-set.v1.manifest.json",
        "golden-set.v1.passages.json",
    ]


def test_fresh_manifest_is_made_once_per_corpus_and_record_count(project, monkeypatch):
    import golden_lsp.core.goldenset.project as project_module

    made = []
    real_manifest = project_module.manifest
    monkeypatch.setattr(project_module, "manifest", lambda *args: made.append(args) or real_manifest(*args))
    gs = golden(project)
    analysis = gs.analyze()
    first = gs.fresh_manifest(analysis)
    first["n_records"] = -1  # a caller's copy: the cached manifest is unaffected
    assert gs.fresh_manifest(analysis)["n_records"] == 7 and len(made) == 1
    assert gs.fresh_manifest(analysis, "abc")["corpus_commit"] == "abc" and len(made) == 2
    faq = gs.corpus.docs["faq.md"]
    gs.set_corpus(gs.corpus.with_document(faq.path, faq.raw + "\nMore.\n"))
    assert gs.fresh_manifest(analysis)["docs"]["faq.md"]["chars"] == faq.chars + len("\nMore.\n")
    assert len(made) == 3


def test_a_manifest_json_cannot_decode_is_stale_not_a_crash(project):
    golden(project).build()
    (project / "golden-set.v1.manifest.json").write_text(
        '{"n_records": ' + "7" * 5000 + "}", encoding="utf-8"
    )
    (d,) = stale(project)
    assert d.code == "stale-manifest" and "not JSON" in d.message


@pytest.mark.parametrize(
    "overrides, reason",
    [
        ({"artifact": "questions.jsonl"}, "the artifact questions.jsonl would overwrite the questions file"),
        ({"manifest": "questions.jsonl"}, "the manifest questions.jsonl would overwrite the questions file"),
        ({"artifact": "x.json", "manifest": "x.json"}, "the manifest x.json would overwrite the artifact"),
        (
            {"manifest": "corpus/faq.md"},
            "the manifest corpus/faq.md would overwrite the corpus document faq.md",
        ),
        (
            {"questions": "corpus/./guide.md"},
            "the questions file and the corpus document guide.md are the same file",
        ),
        (
            {"manifest": "golden-lsp.toml"},
            "the manifest golden-lsp.toml would overwrite the config file golden-lsp.toml",
        ),
        ({"artifact": "pyproject.toml"}, "would overwrite the config file pyproject.toml"),
        ({"artifact": "other.questions.jsonl"}, "would overwrite the questions file other.questions.jsonl"),
        ({"artifact": "corpus/new.md"}, "would overwrite the corpus (it matches '*.md'"),
        (
            {"glob": "**/*.md", "manifest": "corpus/sub/m.md"},
            "would overwrite the corpus (it matches '**/*.md'",
        ),
    ],
)
def test_a_build_never_writes_over_its_inputs_or_both_files_to_one(project, overrides, reason, monkeypatch):
    monkeypatch.chdir(project)
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    gs = GoldenSet(load_config(project / "golden-lsp.toml").with_overrides(overrides, project))
    with pytest.raises(ConfigError) as exc:
        gs.build()
    assert reason in str(exc.value)
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("overrides", [{"artifact": "corpus/golden.jsonl"}, {"manifest": "corpus/sub/m.md"}])
def test_a_build_may_write_into_the_corpus_folder_what_the_glob_does_not_read(project, overrides):
    gs = GoldenSet(load_config(project / "golden-lsp.toml").with_overrides(overrides, project))
    assert gs.build()[1]
