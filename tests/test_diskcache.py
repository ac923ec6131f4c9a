"""The warm cache (what each file is, chunks and quote facts on disk, by content) and ``--jobs``:
the same output with or without either, and a damaged cache entry is never trusted."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import grimp
import pytest
from core_support import SAMPLE_DOCS, SAMPLE_LINES, cli_env, loc, make_project, qline, run_cli

from golden_lsp.core.engine import cacherows, diskcache, docindex, quoteindex
from golden_lsp.core.engine import packs as packstore
from golden_lsp.core.goldenset.artifact import artifact_text
from golden_lsp.core.goldenset.config import load_config
from golden_lsp.core.goldenset.project import GoldenSet
from golden_lsp.core.labels.facts import quote_facts
from golden_lsp.core.text.chunker import chunk_document

#: enough quotes into one document that a cold start batches them (and so caches them)
LINES = SAMPLE_LINES + [
    qline(f"x{i}", [loc("guide.md", q)])
    for i, q in enumerate(
        [
            "Retrieval quality",
            "chunk boundaries",
            "indexing time",
            "second sentence",
            "keeps the block",
            "max_chars",
            "any_overlap",
            "quotes must be unique",
            "nested lists",
            "closes the list",
        ]
    )
]


def packs(root: Path) -> list[Path]:
    return sorted(root.rglob("*.pack")) if root.is_dir() else []


def entries(root: Path) -> list[bytes]:
    """The keys of every entry in the cache's packs."""
    return sorted(k for pack in packs(root) for k in packstore.parse_pack(pack.read_bytes()))


def write_pack(path: Path, found: dict[bytes, tuple[bytes, bytes]]) -> None:
    path.write_bytes(b"".join(b"%s %s %d\n%s\n" % (k, d, len(b), b) for k, (d, b) in found.items()))


def cache_root() -> Path:
    return Path(os.environ["GOLDEN_LSP_CACHE_DIR"])


def check_json(cli, project: Path, *flags: str) -> tuple[int, list]:
    proc = cli(["check", "--format", "json", *flags], cwd=project)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize("lean", [False, True], ids=["server", "command-line"])
def test_a_warm_run_reads_chunks_and_facts_from_the_cache(tmp_path, monkeypatch, lean):
    root = make_project(
        tmp_path / "p",
        lines=LINES
        + [qline("amb", [loc("guide.md", "the")]), qline("typo", [loc("guide.md", "Retrieval  quality")])],
    )
    cold = GoldenSet(load_config(root / "golden-lsp.toml"), lean)
    first = cold.check()
    # chunks of both documents and facts of both (and, for a lean set, what each file is, by
    # content and by stat)
    assert len(entries(cache_root())) == (7 if lean else 4)
    assert {"quote-ambiguous", "quote-not-found"} <= {d.code for d in first.diagnostics}
    # a fresh process would chunk, search and hint nothing: prove it by making all impossible;
    # a command-line check would not even decode a document
    monkeypatch.setattr(
        "golden_lsp.core.corpus.document.chunk_document", lambda *a: pytest.fail("chunked again")
    )
    monkeypatch.setattr(quoteindex, "find_all", lambda *a: pytest.fail("searched again"))
    monkeypatch.setattr(
        "golden_lsp.core.engine.docindex.not_found_hint", lambda *a: pytest.fail("hinted again")
    )
    monkeypatch.setattr(
        "golden_lsp.core.engine.docindex.not_found_hints", lambda *a: pytest.fail("hinted again")
    )
    monkeypatch.setattr(
        "golden_lsp.core.engine.docindex.occurrences", lambda *a: pytest.fail("searched again")
    )
    if lean:
        monkeypatch.setattr(
            "golden_lsp.core.corpus.document.decode_strict", lambda *a: pytest.fail("decoded again")
        )
    warm = GoldenSet(load_config(root / "golden-lsp.toml"), lean).check()
    assert [(d.code, d.range, d.message, d.related, d.data) for d in warm.diagnostics] == [
        (d.code, d.range, d.message, d.related, d.data) for d in first.diagnostics
    ]
    assert artifact_text(warm) == artifact_text(first)


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
    found = {path: packstore.parse_pack(path.read_bytes()) for path in packs(cache_root())}
    assert sum(map(len, found.values())) == 7
    if damage == "garbage":
        for path in found:
            path.write_bytes(b"\xff\x00 not a pack")
    elif damage == "truncated":
        for path in found:
            path.write_bytes(path.read_bytes()[:-20])
    elif damage == "payload":  # valid JSON, plausible numbers, not what was stored (the digest kept)
        for path, pack in found.items():
            for k, (digest, body) in pack.items():
                payload = json.loads(body)
                if "chunks" in payload:
                    for row in payload["chunks"]:
                        row[1] -= 1
                elif "sha256" in payload:
                    payload["chars"] += 1
                elif all(isinstance(row[0], int) for row in payload.values()):  # files by stat
                    for row in payload.values():
                        row[4] = "0" * 64
                else:
                    for row in payload.values():
                        row[0][:] = [s + 1 for s in row[0]]
                pack[k] = (digest, json.dumps(payload).encode())
            write_pack(path, pack)
    else:  # each key holds another entry's sound payload and digest
        keys = [(path, k) for path, pack in found.items() for k in pack]
        moved = {at: found[other[0]][other[1]] for at, other in zip(keys, keys[1:] + keys[:1])}
        for path, pack in found.items():
            write_pack(path, {k: moved[path, k] for k in pack})
    assert check_json(cli, root) == expected
    assert check_json(cli, root) == expected  # and the rewritten entries are sound again
    assert len(entries(cache_root())) == 7


def test_facts_of_a_shape_golden_lsp_never_writes_are_dropped(tmp_path):
    text = "alpha beta alpha\n\ngamma delta\n"
    sound = {
        "alpha": quote_facts(text, lambda o: (0, o), "alpha", 21),
        "gamma": quote_facts(text, lambda o: (0, o), "gamma", 21),
        "Gamma": quote_facts(text, lambda o: (0, o), "Gamma", 21),
    }
    assert sound["Gamma"].hint is not None and sound["gamma"].block is not None
    diskcache.store_facts("0" * 64, "canonical", 21, sound)
    assert diskcache.load_facts("0" * 64, "canonical", 21) == sound
    bad = {
        "unsorted": [[11, 0], None, 0, 0, None, [], [[0, 0, 0], [5, 0, 5], [11, 0, 11], [16, 0, 16]]],
        "positions missing": [[0, 11], None, 0, 0, None, [], []],
        "unknown hint": [[], None, 0, 0, [0, 5, "vibes", "alpha", [], 100.0], [], [[0, 0, 0], [5, 0, 5]]],
        "a block for two": [[0, 11], [0, 17, "paragraph"], 5, 17, None, [], []],
        "negative": [[-1], [0, 17, "paragraph"], 5, 17, None, [], []],
        "short row": [[0]],
    }
    rows = {q: cacherows.fact_row(f) for q, f in sound.items()}
    packstore.write(diskcache._key("facts", "1" * 64, limit=21, raw="canonical"), {**rows, **bad})
    assert diskcache.load_facts("1" * 64, "canonical", 21) == sound


def test_jobs_give_identical_check_and_build_output(tmp_path, cli):
    docs = {
        f"d{i}.md": f"# Doc {i}\n\n"
        + "".join(f"Paragraph {j} of doc {i} says fact {i * 100 + j}.\n\n" for j in range(40))
        for i in range(5)
    }
    lines = [
        qline(f"q{i}{j}", [loc(f"d{i}.md", f"says fact {i * 100 + j}.")]) for i in range(5) for j in range(12)
    ]
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
        built[jobs] = (
            (root / "golden-set.v1.jsonl").read_bytes(),
            (root / "golden-set.v1.manifest.json").read_bytes(),
        )
    assert built["1"] == built["3"]
    assert cli(["check", "--jobs", "0"], cwd=root).returncode == 2


def test_jobs_build_the_reference_bytes(conformance, tmp_path, cli):
    proc = cli(
        [
            "check",
            "--no-cache",
            "--jobs",
            "2",
            "--corpus",
            conformance / "corpus",
            "--questions",
            conformance / "questions.jsonl",
            "--artifact",
            conformance / "golden-set.v1.jsonl",
            "--manifest",
            conformance / "golden-set.v1.manifest.json",
        ],
        cwd=tmp_path,
    )
    assert "stale-artifact" not in proc.stdout, proc.stdout


def test_jobs_auto_is_one_process_for_a_small_corpus_and_one_per_core_for_a_large_one(tmp_path, cli):
    from golden_lsp.core.engine.docindex import MAX_AUTO_JOBS, auto_jobs

    assert auto_jobs(1_000_000) == 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert auto_jobs(10**9) == max(1, min(cores, MAX_AUTO_JOBS))
    root = make_project(tmp_path / "p", lines=LINES)
    assert check_json(cli, root, "--jobs", "auto") == check_json(cli, root, "--jobs", "1")
    # with workers, what the warm cache holds whole is read without them, the rest by them
    shutil.rmtree(cache_root())
    cold = check_json(cli, root, "--jobs", "3")
    (root / "corpus" / "faq.md").write_text(
        (root / "corpus" / "faq.md").read_text(encoding="utf-8") + "\nMore.\n", encoding="utf-8"
    )
    half = check_json(cli, root, "--jobs", "3")  # guide.md from the cache, faq.md by a worker
    assert half == check_json(cli, root, "--jobs", "1", "--no-cache") and cold[1] != []
    proc = cli(["check", "--jobs", "many"], cwd=root)
    assert proc.returncode == 2 and "must be a number or 'auto'" in proc.stderr


def test_the_key_covers_the_code_that_computes_the_facts_and_the_chunks(tmp_path):
    graph = grimp.build_graph("golden_lsp", cache_dir=None)
    computing = {"golden_lsp.core.labels.facts", "golden_lsp.core.text.chunker", "golden_lsp.core.text.canon"}
    used = computing.union(*(graph.find_upstream_modules(m) for m in computing))
    prefix = "golden_lsp.core."
    assert {m[len(prefix) :].replace(".", "/") for m in used if m.startswith(prefix)} <= set(
        packstore.CODE_MODULES
    )
    # each is a file the digest reads: none is silently left out
    assert all((packstore.CORE / f"{name}.py").is_file() for name in packstore.CODE_MODULES)
    # a changed hint rule is a new key
    for name in packstore.CODE_MODULES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(packstore.CORE / f"{name}.py", tmp_path / f"{name}.py")
    before = packstore.code_digest(tmp_path)
    assert before == packstore.code_digest()
    with (tmp_path / "labels" / "hints.py").open("a") as f:
        f.write("\nMIN_SIMILARITY = 80\n")
    assert packstore.code_digest(tmp_path) != before


def test_a_read_only_cache_is_used_as_is_and_never_written(tmp_path, cli, monkeypatch):
    root = make_project(tmp_path / "p", lines=LINES)
    expected = check_json(cli, root)
    before = {p: p.read_bytes() for p in packs(cache_root())}
    assert before
    monkeypatch.setenv("GOLDEN_LSP_CACHE_READONLY", "1")
    env = {**cli_env(tmp_path), "GOLDEN_LSP_CACHE_READONLY": "1"}

    def read_only_check(*flags: str) -> list:
        proc = run_cli(["check", "--format", "json", *flags], root, env)
        assert proc.returncode in (0, 1) and proc.stderr == "", proc.stderr  # no error, no warning
        return json.loads(proc.stdout)

    with monkeypatch.context() as m:  # used: nothing unchanged is chunked or decoded again
        m.setattr("golden_lsp.core.corpus.document.chunk_document", lambda *a: pytest.fail("chunked again"))
        m.setattr("golden_lsp.core.corpus.document.decode_strict", lambda *a: pytest.fail("decoded again"))
        warm = GoldenSet(load_config(root / "golden-lsp.toml"), lean=True).check()
    assert [d.message for d in warm.diagnostics] == [f["message"] for f in expected[1]]
    faq = root / "corpus" / "faq.md"
    faq.write_text(faq.read_text(encoding="utf-8") + "\nA new paragraph.\n", encoding="utf-8")
    assert read_only_check() == read_only_check("--no-cache")  # a changed file: computed
    assert {p: p.read_bytes() for p in packs(cache_root())} == before  # and nothing written
    for path in before:
        path.write_bytes(b"\xff garbage")
    assert read_only_check() == read_only_check("--no-cache")  # a corrupt one: ignored, no error
    folders = {folder for p in before for folder in (p.parent, p.parent.parent)}  # its generation
    assert sorted(cache_root().rglob("*")) == sorted({*before, *folders})
    assert all(p.read_bytes() == b"\xff garbage" for p in before)


def test_an_unchanged_file_is_not_read_and_a_changed_one_always_is(tmp_path, monkeypatch):
    root = make_project(tmp_path / "p", lines=LINES)
    config = load_config(root / "golden-lsp.toml")
    monkeypatch.setattr(diskcache, "RACY_NS", 0)  # the test's files were written just now
    first = GoldenSet(config, lean=True).check()
    GoldenSet(config, lean=True).check()  # the stats noted after the first run's hashing
    with monkeypatch.context() as m:
        m.setattr("golden_lsp.core.engine.lean.read_regular", lambda *a: pytest.fail("read again"))
        m.setattr("golden_lsp.core.corpus.document.read_regular", lambda *a: pytest.fail("read again"))
        again = GoldenSet(config, lean=True).check()
    assert [d.message for d in again.diagnostics] == [d.message for d in first.diagnostics]
    # the same size, its mtime put back: the ctime still tells, and the file is read and hashed
    guide = root / "corpus" / "guide.md"
    st = guide.stat()
    text = guide.read_text(encoding="utf-8")
    guide.write_text(text.replace("Retrieval quality", "Retrieval QUALITY"), encoding="utf-8")
    os.utime(guide, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert guide.stat().st_size == st.st_size
    changed = GoldenSet(config, lean=True).check()
    assert "quote-not-found" in {d.code for d in changed.diagnostics}
    # a stat noted within RACY_NS of the file's change is not trusted
    monkeypatch.setattr(diskcache, "RACY_NS", 10**18)
    with monkeypatch.context() as m:
        reads = []
        real = __import__("golden_lsp.core.engine.lean", fromlist=["read_regular"]).read_regular
        m.setattr("golden_lsp.core.engine.lean.read_regular", lambda p: reads.append(p) or real(p))
        GoldenSet(config, lean=True).check()
    assert len(reads) >= 2


def test_a_warm_check_reads_the_stats_and_the_facts_only(tmp_path, monkeypatch):
    """Each kind has packs of its own and the stats know each file's number of chunks, so a warm
    check of an unchanged corpus opens no chunks pack and no pack of what files are, and
    still reports the same findings and the same manifest."""
    docs = {"guide.md": SAMPLE_DOCS["guide.md"], "unquoted.md": "# Alone\n\nNobody quotes this.\n"}
    root = make_project(tmp_path / "p", docs=docs, lines=[qline("a", [loc("guide.md", "Retrieval quality")])])
    config = load_config(root / "golden-lsp.toml")
    monkeypatch.setattr(diskcache, "RACY_NS", 0)  # the test's files were written just now
    first = GoldenSet(config, lean=True)
    cold = first.check()
    GoldenSet(config, lean=True).check()  # the stats noted after the first run's hashing
    kinds = {p.name[0] for p in packs(cache_root())}
    assert {"c", "f", "k", "s"} <= kinds
    opened: list[str] = []
    real = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda p: opened.append(p.name) or real(p))
    warm = GoldenSet(config, lean=True)
    again = warm.check()
    assert [d.message for d in again.diagnostics] == [d.message for d in cold.diagnostics]
    assert warm.fresh_manifest(again) == first.fresh_manifest(cold)
    read = {name[0] for name in opened if name.endswith(".pack")}
    assert read == {"s", "f"} or read == {"s", "f", "c"}  # chunks only for the quoted document
    assert (
        warm.corpus.docs["unquoted.md"].n_chunks == 1
        and "chunks" not in warm.corpus.docs["unquoted.md"].__dict__
    )


def test_only_the_generations_written_last_are_kept(tmp_path, monkeypatch):
    """A new version of the code keys every entry anew in a folder of its own; the folders of
    the versions before the last ``KEEP_GENERATIONS`` are removed when a pack is written."""
    packs_dir = cache_root() / f"pack-v{packstore.FORMAT}"
    for age, name in enumerate(["old3", "old2", "old1", "old0"]):
        (packs_dir / name).mkdir(parents=True)
        (packs_dir / name / "c00.pack").write_bytes(b"")
        os.utime(packs_dir / name, ns=(0, 10**18 - age * 10**12))
    root = make_project(tmp_path / "p", lines=LINES)
    GoldenSet(load_config(root / "golden-lsp.toml"), lean=True).check()
    left = sorted(p.name for p in packs_dir.iterdir())
    assert left == sorted([packstore.GENERATION, "old3", "old2"])
    assert packs(packs_dir / packstore.GENERATION)


@pytest.mark.parametrize("jobs", [1, 2], ids=["one process", "workers"])
@pytest.mark.parametrize("cache", [False, True], ids=["no cache", "warm cache"])
def test_a_document_nobody_quotes_keeps_its_chunks_as_the_cache_stores_them(
    tmp_path, monkeypatch, jobs, cache
):
    """After a cold load, a document nobody quotes holds its chunks as the JSON bytes the warm
    cache stores them as — the very bytes of its entry when the cache is on, not a copy — not as
    Python lists (four times the memory): counted and made into the same chunks as chunking it."""
    monkeypatch.setattr(packstore, "enabled", cache)  # max_chars 100: faq.md in several chunks
    root = make_project(tmp_path / "p")
    corpus, found = docindex.load_indexed(
        root / "corpus", "*.md", 100, {"guide.md": {"Retrieval quality"}}, 20, jobs
    )
    assert found  # guide.md is quoted; faq.md is not
    doc = corpus.docs["faq.md"]
    stored = doc.__dict__["_handed"].payload
    assert isinstance(stored, bytes) and "chunks" not in doc.__dict__
    if cache:
        assert stored is diskcache.chunk_rows("faq.md", doc.sha256, 100)
    expected = chunk_document("faq.md", SAMPLE_DOCS["faq.md"], 100)
    assert doc.n_chunks == len(expected) > 1
    assert doc.chunks == expected
