"""Several annotators end to end, as subprocesses: ``assign`` hands out records with a stratified
shared overlap (sizes by construction), two annotators label, ``agree`` measures them, ``adjudicate``
writes the disagreements, a merge refuses while one is undecided, and once resolved the merged set
builds — each adjudicated record marked so, with the annotators' original labels kept."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from golden_lsp.practice.adjudication import take

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def read(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.startswith("{")]


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.mark.parametrize(("names", "per_annotator"), [("alice,bob", [15, 15]), ("a,b,c", [14, 13, 13])])
def test_assign_draws_a_stratified_overlap_and_deals_out_the_rest(tmp_path, cli, names, per_annotator):
    records = [
        {
            "id": f"r{i:02d}",
            "query": f"question {i}",
            "expected_answer": "",
            "locators": [],
            "meta": {"stratum": s},
        }
        for i, s in enumerate(["A"] * 10 + ["B"] * 6 + ["C"] * 4)
    ]
    batch = write(tmp_path / "batch.jsonl", records)
    args = [
        "assign",
        batch,
        "--annotators",
        names,
        "--overlap",
        "0.5",
        "--seed",
        "3",
        "--out-dir",
        tmp_path / "out",
    ]
    proc = cli([*args, "--format", "json"])
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    overlap = set(got["overlap"])
    by_stratum = Counter(r["meta"]["stratum"] for r in records if r["id"] in overlap)
    assert by_stratum == {"A": 5, "B": 3, "C": 2}
    assert got["strata"] == [
        {"stratum": "A", "n_records": 10, "n_overlap": 5},
        {"stratum": "B", "n_records": 6, "n_overlap": 3},
        {"stratum": "C", "n_records": 4, "n_overlap": 2},
    ]
    files = {name: read(tmp_path / "out" / f"{name}.questions.jsonl") for name in names.split(",")}
    assert sorted(len(f) for f in files.values()) == sorted(per_annotator)
    seen = Counter(r["id"] for f in files.values() for r in f)
    assert {rid for rid, n in seen.items() if n == len(files)} == overlap
    assert all(n == 1 for rid, n in seen.items() if rid not in overlap) and len(seen) == 20
    for name, recs in files.items():
        assert all(
            r["annotator"] == name and r["meta"].get("overlap", False) == (r["id"] in overlap) for r in recs
        )
    again = cli(args)  # never over an annotator's file
    assert again.returncode == 2 and "never replaced" in again.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The example corpus and config, with no questions file yet: the merge makes it."""
    root = tmp_path / "set"
    shutil.copytree(EXAMPLES / "corpus", root / "corpus")
    shutil.copy(EXAMPLES / "golden-lsp.toml", root / "golden-lsp.toml")
    return root


def test_disagree_resolve_merge_build_with_provenance(project, cli):
    originals = read(EXAMPLES / "questions.jsonl")[:6]
    skeletons = [
        {**{k: v for k, v in r.items() if k not in ("locators", "hop")}, "locators": []} for r in originals
    ]
    batch = write(project / "batch.jsonl", skeletons)
    proc = cli(
        [
            "assign",
            batch,
            "--annotators",
            "alice,bob",
            "--overlap",
            "0.5",
            "--seed",
            "1",
            "--out-dir",
            project,
        ]
    )
    assert proc.returncode == 0, proc.stderr
    labels = {r["id"]: r for r in originals}
    alice, bob = read(project / "alice.questions.jsonl"), read(project / "bob.questions.jsonl")
    overlap = [r["id"] for r in alice if r.get("meta", {}).get("overlap")]
    assert len(overlap) == 3
    for recs in (alice, bob):
        for r in recs:
            r["locators"], r["hop"] = labels[r["id"]]["locators"], labels[r["id"]].get("hop", "single")
    other, gone = overlap[0], overlap[1]  # bob labels another passage, and calls one unanswerable
    b = {r["id"]: r for r in bob}
    b[other]["locators"] = (
        originals[-1]["locators"] if other != originals[-1]["id"] else originals[0]["locators"]
    )
    b[gone]["locators"], b[gone]["unanswerable"] = [], True
    write(project / "alice.questions.jsonl", alice)
    write(project / "bob.questions.jsonl", bob)
    files = [project / "alice.questions.jsonl", project / "bob.questions.jsonl"]

    agreed = cli(["agree", "--format", "json", *files], cwd=project)
    assert agreed.returncode == 0, agreed.stderr
    figures = json.loads(agreed.stdout)
    assert figures["annotators"] == ["alice", "bob"] and figures["n_records"] == 3 and figures["alpha"] < 1
    assert json.loads((project / "agreement.json").read_text(encoding="utf-8"))["alpha"] == figures["alpha"]

    adjudication = project / "adjudication.questions.jsonl"
    proc = cli(["adjudicate", *files, "--out", adjudication, "--format", "json"], cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert sorted(json.loads(proc.stdout)["disagreements"]) == sorted([other, gone])
    open_ = {r["id"]: r for r in read(adjudication)}
    assert all(r["locators"] == [] for r in open_.values())
    assert open_[gone]["meta"]["adjudication"]["labels"]["bob"] == {
        "locators": [],
        "unanswerable": True,
        "hop": "single",
        "expected_answer": labels[gone]["expected_answer"],
    }

    out = project / "questions.jsonl"
    merge = ["adjudicate", *files, "--merge", adjudication, "--out", out]
    refused = cli([*merge, "--format", "json"], cwd=project)
    assert refused.returncode == 1 and not out.exists()
    assert sorted(json.loads(refused.stdout)["unresolved"]) == sorted([other, gone])

    # a person resolves: bob's labels for one (the editor's action), new locators for the other
    open_[other] = take(open_[other], open_[other]["meta"]["adjudication"]["labels"]["bob"])
    open_[gone]["locators"] = labels[gone]["locators"]
    write(adjudication, list(open_.values()))
    proc = cli([*merge, "--format", "json"], cwd=project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(proc.stdout) | {"out": None} == {
        "out": None,
        "n_records": 6,
        "single": 3,
        "agreed": 1,
        "adjudicated": 2,
        "unresolved": [],
        "missing": [],
        "written": True,
    }
    merged = {r["id"]: r for r in read(out)}
    assert list(merged) == [r["id"] for r in alice] + [
        r["id"] for r in bob if r["id"] not in {x["id"] for x in alice}
    ]
    for rid in (other, gone):
        assert merged[rid]["annotator"] == "adjudicated"
        kept = merged[rid]["meta"]["adjudication"]
        assert kept["annotators"] == ["alice", "bob"]
        assert kept["labels"]["alice"]["locators"] == labels[rid]["locators"]
        assert kept["labels"]["bob"]["locators"] == b[rid]["locators"]
    assert merged[other]["locators"] == b[other]["locators"]
    agreed_id = next(rid for rid in overlap if rid not in (other, gone))
    assert merged[agreed_id]["meta"]["annotators"] == ["alice", "bob"]
    assert {merged[r["id"]]["annotator"] for r in alice if r["id"] not in overlap} == {"alice"}

    build = cli(["build"], cwd=project)
    assert build.returncode == 0, build.stdout + build.stderr
    artifact = read(project / "golden-set.v1.jsonl")
    assert len(artifact) == 6
    check = json.loads(cli(["check", "--format", "json"], cwd=project).stdout)
    assert not [f for f in check if f["severity"] == "error" or f["code"] in ("unknown-field", "wrong-type")]


def test_merge_appends_to_the_sets_questions_file_and_refuses_an_id_it_holds(project, cli):
    originals = read(EXAMPLES / "questions.jsonl")
    write(project / "questions.jsonl", originals[:3])
    a = write(project / "a.jsonl", originals[3:5])
    b = write(project / "b.jsonl", originals[4:6])
    adjudication = project / "adj.questions.jsonl"
    assert cli(["adjudicate", a, b, "--out", adjudication], cwd=project).returncode == 0
    assert read(adjudication) == []
    merge = ["adjudicate", a, b, "--merge", adjudication, "--out", project / "questions.jsonl"]
    refused = cli(merge, cwd=project)
    assert refused.returncode == 2 and "--append" in refused.stderr
    assert cli([*merge, "--append"], cwd=project).returncode == 0
    assert [r["id"] for r in read(project / "questions.jsonl")] == [r["id"] for r in originals[:6]]
    again = cli([*merge, "--append"], cwd=project)
    assert again.returncode == 2 and "already holds the ids" in again.stderr
