"""``golden-lsp import``: foreign test sets anchored to quotes, and audited where they cannot be.

Round trips start from this project's own exports of the example set; the audit starts from a
hand-made ragas file whose contexts are paraphrased, duplicated, vanished or nearly exact."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from core_support import run_cli
from interchange_support import UNANSWERABLE_QUERY, example_set, expected_chunk_ids, expected_spans

from golden_lsp.core.text.canon import canonicalize


@pytest.fixture(scope="module")
def golden(tmp_path_factory) -> Path:
    return example_set(tmp_path_factory.mktemp("import") / "set")


def cli(golden: Path, *args) -> subprocess.CompletedProcess:
    return run_cli(list(args), golden, dict(os.environ))


def built_from(golden: Path, questions: Path, tmp_path: Path) -> list[dict]:
    """Build ``questions`` against the set's corpus into tmp_path, check it has no error; its
    artifact records."""
    art, man = tmp_path / "imported.v1.jsonl", tmp_path / "imported.manifest.json"
    options = (
        "--config",
        golden / "golden-lsp.toml",
        "--questions",
        questions,
        "--artifact",
        art,
        "--manifest",
        man,
    )
    proc = cli(golden, "build", *options)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    check = cli(golden, "check", *options)
    assert check.returncode == 0 and " 0 errors" in check.stderr, check.stdout
    return [json.loads(line) for line in art.read_text(encoding="utf-8").splitlines()]


def test_an_exported_ragas_file_imports_to_records_resolving_to_the_same_spans(golden, tmp_path):
    ragas, out = tmp_path / "ragas.jsonl", tmp_path / "questions.jsonl"
    assert cli(golden, "export", "--format", "ragas", "--out", ragas).returncode == 0
    proc = cli(golden, "import", "--from", "ragas", ragas, "--out", out)
    assert proc.returncode == 0, proc.stderr
    n_spans = sum(len(s) for s in expected_spans(golden).values())
    assert f"{n_spans} contexts anchored, 0 ambiguous, 0 not found" in proc.stderr
    rebuilt = built_from(golden, out, tmp_path)
    assert {
        r["query"]: sorted((s["doc_id"], s["char_start"], s["char_end"]) for s in r["answer_spans"])
        for r in rebuilt
    } == expected_spans(golden)
    unanswerable = next(r for r in rebuilt if r["query"] == UNANSWERABLE_QUERY)
    assert unanswerable["unanswerable"] is True
    # every quote is a whole-word piece of its context on one line, shorter than it
    for line in out.read_text(encoding="utf-8").splitlines()[1:]:
        for loc in json.loads(line)["locators"]:
            assert "\n" not in loc["quote"]


def test_deepeval_goldens_import_with_their_ids_and_practice_fields(golden, tmp_path):
    goldens, out = tmp_path / "goldens.json", tmp_path / "questions.jsonl"
    assert cli(golden, "export", "--format", "deepeval", "--out", goldens).returncode == 0
    proc = cli(golden, "import", "--from", "deepeval", goldens, "--out", out)
    assert proc.returncode == 0, proc.stderr
    rebuilt = {r["query_id"]: r for r in built_from(golden, out, tmp_path)}
    assert {
        i: set(r["answer_bearing_chunk_ids"]) for i, r in rebuilt.items() if r["answer_bearing_chunk_ids"]
    } == expected_chunk_ids(golden)
    assert rebuilt["ex999"]["unanswerable"] is True and rebuilt["ex001"]["query_type"] == "factual"


def test_chunk_id_only_samples_resolve_through_the_current_chunks(golden, tmp_path):
    dataset, out = tmp_path / "dataset.json", tmp_path / "questions.jsonl"
    assert cli(golden, "export", "--format", "dataset", "--out", dataset).returncode == 0
    body = json.loads(dataset.read_text(encoding="utf-8"))
    body["samples"][0]["relevant_chunk_ids"].append("0" * 64)  # a chunk a re-chunking deleted
    dataset.write_text(json.dumps(body), encoding="utf-8")
    proc = cli(golden, "import", "--from", "dataset", dataset, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "warning[import-not-found] context 2 of sample ex001: chunk 0000" in proc.stderr
    assert "1 not found" in proc.stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[1] == f'// unanchored: chunk "{"0" * 64}"' and json.loads(lines[2])["id"] == "ex001"
    rebuilt = {r["query_id"]: set(r["answer_bearing_chunk_ids"]) for r in built_from(golden, out, tmp_path)}
    assert {i: c for i, c in rebuilt.items() if c} == expected_chunk_ids(golden)


def test_chroma_rows_import_to_the_same_spans(golden, tmp_path):
    csv_path, out = tmp_path / "questions.csv", tmp_path / "questions.jsonl"
    assert cli(golden, "export", "--format", "chroma", "--out", csv_path).returncode == 0
    proc = cli(golden, "import", "--from", "chroma", csv_path, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "0 ambiguous, 0 not found" in proc.stderr
    rebuilt = built_from(golden, out, tmp_path)
    got: dict[str, list] = {}
    for r in rebuilt:  # a record over several documents came back as one row per document
        got.setdefault(r["query"], []).extend(
            (s["doc_id"], s["char_start"], s["char_end"]) for s in r["answer_spans"]
        )
    assert {q: sorted(s) for q, s in got.items()} == {q: s for q, s in expected_spans(golden).items() if s}


# --- the audit of a hand-made file ---------------------------------------------------------------

FORECAST = "Check the forecast the evening before each stage, and again at breakfast."
VANISHED = "Look at three things in particular:"


@pytest.fixture
def edited(golden, tmp_path) -> Path:
    """The example set with one sentence copied into a second chapter and one line deleted."""
    root = tmp_path / "edited"
    shutil.copytree(golden, root)
    (root / "golden-set.v1.jsonl").unlink()
    (root / "golden-set.v1.manifest.json").unlink()
    safety = root / "corpus" / "04-weather-and-safety.md"
    text = safety.read_text(encoding="utf-8")
    assert text.count(VANISHED + "\n") == 1
    safety.write_text(text.replace(VANISHED + "\n\n", ""), encoding="utf-8")
    life = root / "corpus" / "03-life-in-the-hut.md"
    life.write_text(life.read_text(encoding="utf-8") + f"\nA warden's advice: {FORECAST}\n", encoding="utf-8")
    return root


def ragas_line(query: str, *contexts: str) -> str:
    return json.dumps(
        {"user_input": query, "reference": f"The answer to {query}", "reference_contexts": list(contexts)},
        ensure_ascii=False,
    )


def test_a_hand_made_file_is_anchored_where_it_can_be_and_audited_where_not(edited, tmp_path):
    corpus = {p.name: canonicalize(p.read_text(encoding="utf-8")) for p in (edited / "corpus").glob("*.md")}
    good = next(line for line in corpus["02-packing-for-the-huts.md"].splitlines() if len(line) > 120)
    source = tmp_path / "generated.jsonl"
    source.write_text(
        "\n".join(
            [
                ragas_line("What should I pack?", good),
                ragas_line(
                    "When do huts open?",
                    "Huts in the Alps generally open in the middle of June and close in late September.",
                ),  # a paraphrase
                ragas_line("When is the forecast checked?", FORECAST),  # now in two chapters
                ragas_line("What to look at?", VANISHED),  # deleted from the corpus since
                ragas_line("Which huts open?", "most staffed huts in the alps open from mid-june"),  # case
                ragas_line("Which page?", "Always check the hut's own page"),  # a straight apostrophe
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "questions.jsonl"
    proc = cli(edited, "import", "--from", "ragas", source, "--out", out)
    assert proc.returncode == 0, proc.stderr
    findings = [line for line in proc.stderr.splitlines() if "[import-" in line]
    assert len(findings) == 5, proc.stderr
    paraphrase, duplicate, vanished, case, typography = findings
    assert paraphrase.startswith(f"{source}:2:1: warning[import-not-found] context 1 of sample 2 not found")
    assert "the same words" not in paraphrase
    assert duplicate.startswith(
        f"{source}:3:1: warning[import-ambiguous] context 1 of sample 3 occurs 2 times"
    )
    assert "03-life-in-the-hut.md:" in duplicate and "04-weather-and-safety.md:7:1" in duplicate
    assert (
        vanished.startswith(f"{source}:4:1: warning[import-not-found]") and "the same words" not in vanished
    )
    assert "occur with different capitalisation at 01-planning-a-hut-tour.md:" in case
    assert "Most staffed huts in the Alps open from mid-June" in case
    assert "occur with different quotes or dashes at 01-planning-a-hut-tour.md:" in typography
    assert "golden-lsp: imported 6 samples to" in proc.stderr
    assert "1 context anchored, 1 ambiguous, 4 not found" in proc.stderr
    lines = out.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.startswith("{")]
    assert len(records) == 6 and [len(r["locators"]) for r in records] == [1, 0, 0, 0, 0, 0]
    for context, query in ((FORECAST, "When is the forecast checked?"), (VANISHED, "What to look at?")):
        at = lines.index(f"// unanchored: {json.dumps(context)}")  # kept above its record, never lost
        assert json.loads(lines[at + 1])["query"] == query
    check = cli(edited, "check", "--config", edited / "golden-lsp.toml", out)
    assert "6 records" in check.stderr
    assert check.stdout.count("warning[no-locators]") == 5  # check points at each unanchored record


def test_import_never_overwrites_its_input_or_the_sets(golden, tmp_path):
    ragas = tmp_path / "ragas.jsonl"
    assert cli(golden, "export", "--format", "ragas", "--out", ragas).returncode == 0
    before = ragas.read_bytes()
    proc = cli(golden, "import", "--from", "ragas", ragas, "--out", ragas)
    assert proc.returncode == 2 and "file to import" in proc.stderr and ragas.read_bytes() == before
    questions = golden / "questions.jsonl"
    before = questions.read_bytes()
    proc = cli(golden, "import", "--from", "ragas", ragas, "--out", questions)
    assert (
        proc.returncode == 2
        and "questions file, an input" in proc.stderr
        and questions.read_bytes() == before
    )


def test_import_findings_follow_the_sets_severities(golden, tmp_path):
    source = tmp_path / "ragas.jsonl"
    lines = [
        ragas_line("Do I need a tent?", "You never carry a tent on a hut tour."),
        ragas_line("Where?", "the hut"),
    ]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    summary = "2 samples to standard output: 0 contexts anchored, 1 ambiguous, 1 not found"
    both = cli(golden, "import", "--from", "ragas", source)
    assert "warning[import-not-found]" in both.stderr and "warning[import-ambiguous]" in both.stderr
    quiet = cli(golden, "import", "--from", "ragas", source, "--ignore", "import-not-found")
    assert quiet.returncode == 0 and summary in quiet.stderr and quiet.stdout == both.stdout
    assert "import-not-found]" not in quiet.stderr and "warning[import-ambiguous]" in quiet.stderr
    picked = cli(golden, "import", "--from", "ragas", source, "--select", "import-not-found")
    assert "warning[import-not-found]" in picked.stderr and "import-ambiguous]" not in picked.stderr


def test_bad_input_is_a_located_error_and_writes_nothing(golden, tmp_path):
    source, out = tmp_path / "bad.jsonl", tmp_path / "out.jsonl"
    source.write_text(ragas_line("fine?", "x") + "\n" + '{"user_input": "broken",\n', encoding="utf-8")
    proc = cli(golden, "import", "--from", "ragas", source, "--out", out)
    assert proc.returncode == 2 and f"{source}:2:" in proc.stderr and "invalid JSON" in proc.stderr
    assert not out.exists()
    source.write_text(json.dumps({"reference": "no question"}) + "\n", encoding="utf-8")
    proc = cli(golden, "import", "--from", "ragas", source, "--out", out)
    assert proc.returncode == 2 and f"{source}:1:1: the sample has no 'user_input'" in proc.stderr


def test_chroma_names_the_document_a_context_is_looked_for_in(edited, tmp_path):
    life = edited / "corpus" / "03-life-in-the-hut.md"
    twice = "Repeat this line on purpose."
    life.write_text(life.read_text(encoding="utf-8") + f"\n{twice}\n\n{twice}\n", encoding="utf-8")
    source, out = tmp_path / "q.csv", tmp_path / "questions.jsonl"
    with source.open("w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["question", "references", "corpus_id"])
        # FORECAST is in 03 and 04 since the edit: the row names 04
        w.writerow(
            ["When is the forecast checked?", json.dumps([{"content": FORECAST}]), "04-weather-and-safety.md"]
        )
        w.writerow(
            [
                "Which repeat?",
                json.dumps([{"content": twice, "start_index": 0, "end_index": 5}]),
                "03-life-in-the-hut.md",
            ]
        )  # twice in one document: no quote can pick one
    proc = cli(edited, "import", "--from", "chroma", source, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "1 context anchored, 1 ambiguous, 0 not found" in proc.stderr
    assert f"{source}:3:1: warning[import-ambiguous] context 1 of sample 2 occurs 2 times" in proc.stderr
    first = json.loads(out.read_text(encoding="utf-8").splitlines()[1])
    # a sentence of a paragraph: quoted whole, exact, so the span is the sentence and not the paragraph
    assert first["locators"] == [{"doc": "04-weather-and-safety.md", "quote": FORECAST, "exact": True}]


def test_a_context_over_two_blocks_gets_a_quote_in_each_and_their_spans_cover_it(golden, tmp_path):
    text = canonicalize((golden / "corpus" / "01-planning-a-hut-tour.md").read_text(encoding="utf-8"))
    paragraphs = [p for p in text.split("\n\n") if p and not p.startswith(("#", "|", "-"))]
    context = f"{paragraphs[0]}\n\n{paragraphs[1]}"
    assert text.count(context) == 1
    source, out = tmp_path / "two.jsonl", tmp_path / "questions.jsonl"
    source.write_text(ragas_line("Two paragraphs?", context) + "\n", encoding="utf-8")
    proc = cli(golden, "import", "--from", "ragas", source, "--out", out)
    assert proc.returncode == 0 and "1 context anchored" in proc.stderr, proc.stderr
    record = json.loads(out.read_text(encoding="utf-8").splitlines()[1])
    assert record["hop"] == "multi" and len(record["locators"]) == 2
    (rec,) = built_from(golden, out, tmp_path)
    lo = text.index(context)
    spans = sorted((s["char_start"], s["char_end"]) for s in rec["answer_spans"])
    assert (
        spans[0][0] <= lo
        and spans[-1][1] >= lo + len(context)
        and spans[0][1] >= text.index(paragraphs[1]) - 2
    )
    for loc in record["locators"]:
        assert loc["quote"] in context and text.count(loc["quote"]) == 1 and "\n" not in loc["quote"]


def _new_set(tmp_path: Path, config: str | None) -> Path:
    """The example corpus in a folder of its own, with ``config`` (None: no config at all) and no
    questions file yet."""
    root = tmp_path / "new"
    shutil.copytree(EXAMPLE_CORPUS, root / "corpus")
    if config is not None:
        (root / "golden-lsp.toml").write_text(config, encoding="utf-8")
    return root


EXAMPLE_CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"


@pytest.mark.parametrize("config", ['corpus = "corpus"\nquestions = "questions.jsonl"\n', None])
def test_import_creates_the_sets_questions_file_then_appends_to_it(tmp_path, config):
    root = _new_set(tmp_path, config)
    corpus = () if config else ("--corpus", "corpus")
    first = tmp_path / "first.jsonl"
    first.write_text(ragas_line("When is the forecast checked?", FORECAST) + "\n", encoding="utf-8")
    made = run_cli(["import", "--from", "ragas", first, "--out", "questions.jsonl", *corpus], root)
    assert made.returncode == 0, made.stderr  # the set's questions file, which does not exist yet
    questions = root / "questions.jsonl"
    before = questions.read_bytes()
    assert "imported 1 sample to questions.jsonl: 1 context anchored" in made.stderr
    # now it exists: an input, never overwritten; --append adds to it
    again = run_cli(["import", "--from", "ragas", first, "--out", "questions.jsonl", *corpus], root)
    assert again.returncode == 2 and "--append adds to it" in again.stderr
    assert questions.read_bytes() == before
    second = tmp_path / "second.jsonl"
    second.write_text(
        ragas_line("  when is the FORECAST checked? ", FORECAST)  # the same query, case and spaces aside
        + "\n"
        + json.dumps(
            {
                "user_input": "Why pack light?",
                "reference": "You carry it up every pass.",
                "reference_contexts": [FORECAST],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    added = run_cli(
        ["import", "--from", "ragas", second, "--out", "questions.jsonl", "--append", *corpus], root
    )
    assert added.returncode == 0, added.stderr
    assert (
        f"{second}:1:1: note: sample skipped: questions.jsonl already asks its query (record first-001)"
        in added.stderr
    )
    assert "imported 1 sample to questions.jsonl (appended)" in added.stderr and "1 skipped" in added.stderr
    after = questions.read_bytes()
    assert after.startswith(before)  # appended: what was there is kept byte for byte
    records = [json.loads(line) for line in after.decode("utf-8").splitlines() if line.startswith("{")]
    assert [(r["id"], r["query"]) for r in records] == [
        ("first-001", "When is the forecast checked?"),
        ("first-002", "Why pack light?"),  # a fresh id in the file's numbering
    ]
    check = run_cli(["check", "questions.jsonl", "--format", "json", *corpus], root)
    assert not {f["code"] for f in json.loads(check.stdout)} & {"duplicate-id", "duplicate-query"}
    # all of it asked already: the file is left as it was
    same = run_cli(
        ["import", "--from", "ragas", second, "--out", "questions.jsonl", "--append", *corpus], root
    )
    assert same.returncode == 0 and "nothing to append" in same.stderr and questions.read_bytes() == after


def test_append_takes_no_id_the_committed_artifact_holds(golden, tmp_path):
    root = tmp_path / "set"
    shutil.copytree(golden, root)
    questions = root / "questions.jsonl"
    text = questions.read_text(encoding="utf-8")
    last = [json.loads(line) for line in text.splitlines() if line.startswith("{")][-1]
    # the last record deleted: its id is still in the committed artifact, so it is not free
    questions.write_text(text[: text.rindex('{"id"')], encoding="utf-8")
    source = tmp_path / "new.jsonl"
    source.write_text(ragas_line("Is there a question nobody asked?", FORECAST) + "\n", encoding="utf-8")
    proc = run_cli(["import", "--from", "ragas", source, "--out", questions, "--append"], root)
    assert proc.returncode == 0, proc.stderr
    new = [
        json.loads(line)
        for line in questions.read_text(encoding="utf-8").splitlines()
        if line.startswith("{")
    ][-1]
    assert new["query"] == "Is there a question nobody asked?" and new["id"] != last["id"]
    assert new["id"].startswith("ex")


def test_append_needs_out(golden, tmp_path):
    source = tmp_path / "new.jsonl"
    source.write_text(ragas_line("A question?", FORECAST) + "\n", encoding="utf-8")
    proc = cli(golden, "import", "--from", "ragas", source, "--append")
    assert proc.returncode == 2 and "--append needs --out" in proc.stderr
