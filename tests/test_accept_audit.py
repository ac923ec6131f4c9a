"""``golden-lsp accept`` and ``golden-lsp judge --audit`` as subprocesses: proposals accepted in
bulk into the questions file (only the records' lines, quotes unique and inside the passage, the
judge's hand marked, hop multi with a second span, stale proposals refused), and the judge's
kappa against the human labels checked against a hand-computed case, shown by the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from core_support import loc, make_project, qline
from judge_support import proposals, verdict, write_judge
from test_judge import DOCS, LINES, TEA

from golden_lsp.core.corpus.index import load_corpus
from golden_lsp.core.labels.resolve import occurrences

VERDICTS = {
    "t1": {
        "Green tea": verdict(True, "high", "It gives the time for green tea."),
        "Black tea": verdict(True, "high", "It gives the time for black tea too."),
    },
    "t2": {"sourdough starter": verdict(True, "medium", "It says the starter is fed daily.")},
}


def records(path: Path) -> dict[str, dict]:
    return {
        (r := json.loads(x))["id"]: r
        for x in path.read_text(encoding="utf-8").splitlines()
        if x.startswith("{")
    }


@pytest.fixture
def judged(cli, tmp_path: Path) -> tuple[Path, str]:
    """The tea set, t2 with an annotator of its own, judged with the command provider (top 3)."""
    lines = list(LINES)
    lines[1] = json.dumps({**json.loads(lines[1]), "annotator": "mara"})
    root = make_project(tmp_path / "tea", DOCS, lines)
    command, _ = write_judge(tmp_path / "judge", VERDICTS)
    proc = cli(["judge", root, "--command", command, "--k", "3"])
    assert proc.returncode == 0, proc.stderr
    return root, command


def test_accept_confidence_high_labels_marks_and_changes_only_those_lines(cli, judged):
    root, command = judged
    q = root / "questions.jsonl"
    before = q.read_text(encoding="utf-8").split("\n")
    (root / "before.jsonl").write_text("\n".join(before), encoding="utf-8")
    proc = cli(["accept", root, "--confidence", "high", "--format", "json"])
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    after = q.read_text(encoding="utf-8").split("\n")
    changed = [i for i, (a, b) in enumerate(zip(before, after)) if a != b]
    assert len(before) == len(after) and changed == [0, 2]  # t1 labelled, t3 marked unanswerable
    t1, t3 = records(q)["t1"], records(q)["t3"]
    assert t1["hop"] == "multi" and len(t1["locators"]) == 2 and t1["annotator"] == f"judge:{command}"
    lines = {(p["id"], p["char_start"]): p for p in proposals(root / "proposals.jsonl")}
    for added, locator in zip(result["records"][0]["added"], t1["locators"]):
        assert locator == {"doc": "tea.md", "quote": added["quote"]}
        (at,) = occurrences(TEA, added["quote"])  # unique in its document
        assert added["char_start"] <= at < at + len(added["quote"]) <= added["char_end"]  # inside the passage
        assert lines[("t1", added["char_start"])]["relevant"] is True
    assert t3["unanswerable"] is True and t3["locators"] == [] and t3["annotator"] == f"judge:{command}"
    assert "judge medium" not in proc.stdout and result["accepted"] == 2 and result["unanswerable"] == 1
    check = cli(["check", root, "--format", "json"])
    findings = [f for f in json.loads(check.stdout) if f["line"] in (1, 3)]
    assert not [f for f in findings if f["severity"] == "error"], findings
    # stats and agree tell the judge's labels from a person's
    stats = json.loads(cli(["stats", root, "--format", "json"]).stdout)
    assert stats["n_judge_labelled"] == 2 and stats["n_judge_proposed"] == 2
    assert stats["annotators"] == {f"judge:{command}": 2, "mara": 1}
    agree = cli(["agree", root / "before.jsonl", q, "--format", "json"])
    assert json.loads(agree.stdout)["judge_proposed"] == {"a": [], "b": ["t1", "t3"]}
    assert "machine labels: 0 records of A and 2 of B" in cli(["agree", root / "before.jsonl", q]).stdout
    again = cli(["accept", root, "--confidence", "high", "--format", "json"])
    assert json.loads(again.stdout)["accepted"] == 0 and q.read_text(encoding="utf-8").split("\n") == after
    assert {s["why"] for r in json.loads(again.stdout)["records"] for s in r["skipped"]} == {
        "the passage is labelled already"
    }


def test_accept_ids_keeps_the_records_own_annotator_and_notes_the_judge(cli, judged):
    root, command = judged
    proc = cli(["accept", root, "--ids", "t2"])
    assert proc.returncode == 0, proc.stderr
    t2 = records(root / "questions.jsonl")["t2"]
    assert t2["annotator"] == "mara" and t2["judged_by"] == f"judge:{command}"
    assert "hop" not in t2 and len(t2["locators"]) == 1
    assert "accepted 1 proposal into 1 record" in proc.stderr
    assert (
        "t2 (line 2): + bread.md" in proc.stdout
        and "judge medium: It says the starter is fed daily." in proc.stdout
    )


def test_accept_dry_run_writes_nothing_and_a_reworded_query_makes_its_proposals_stale(cli, judged):
    root, _ = judged
    q = root / "questions.jsonl"
    before = q.read_bytes()
    dry = cli(["accept", root, "--confidence", "medium", "--dry-run"])
    assert dry.returncode == 0 and q.read_bytes() == before
    assert "would accept 3 proposals into 3 records" in dry.stderr
    rows = q.read_text(encoding="utf-8").split("\n")
    rows[1] = json.dumps({**json.loads(rows[1]), "query": "When is a sourdough starter fed?"})
    q.write_text("\n".join(rows), encoding="utf-8")
    proc = cli(["accept", root, "--ids", "t2", "--format", "json"])
    (rec,) = json.loads(proc.stdout)["records"]
    assert rec["added"] == [] and {s["why"] for s in rec["skipped"]} == {
        "stale: the query or the passage changed since it was judged"
    }
    assert "locators" in records(q)["t2"] and records(q)["t2"]["locators"] == []


def test_accept_keeps_crlf_line_ends_and_the_bom(cli, judged):
    root, _ = judged
    q = root / "questions.jsonl"
    text = "\ufeff" + q.read_text(encoding="utf-8").replace("\n", "\r\n")
    q.write_bytes(text.encode("utf-8"))
    assert cli(["accept", root, "--ids", "t1"]).returncode == 0
    after = q.read_bytes().decode("utf-8")
    assert after.startswith('\ufeff{"id": "t1"') and after.count("\r\n") == text.count("\r\n")
    assert after.split("\r\n")[1:] == text.split("\r\n")[1:]


@pytest.mark.parametrize(
    "args, message",
    [
        (["--ids", "t9"], "--ids: no proposals for t9"),
        ([], "one of the arguments --ids --confidence is required"),
        (["--confidence", "low"], "invalid choice: 'low'"),
    ],
)
def test_accept_usage_problems_exit_2(cli, judged, args, message):
    root, _ = judged
    proc = cli(["accept", root, *args])
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr


def test_accept_without_proposals_says_to_judge_first(cli, project):
    proc = cli(["accept", project, "--confidence", "high"])
    assert proc.returncode == 2 and "run golden-lsp judge first" in proc.stderr


# --- the audit ---------------------------------------------------------------------------------


def paragraph(i: int) -> str:
    return f"Paragraph {i} tells of hut topic number {i} and of nothing else."


AUDIT_DOC = "# Topics\n\n" + "\n\n".join(paragraph(i) for i in range(1, 7)) + "\n"


def test_audit_kappa_precision_recall_and_disagreements_against_a_hand_computed_case(cli, tmp_path):
    """Two human-labelled records (r1 on P1 and P2, r2 on P4), four candidates each from a run:

    ====  ======================  =====  =================
    item  judge said              human  judge (high/med)
    ====  ======================  =====  =================
    r1P1  relevant, high          yes    yes
    r1P2  relevant, low           yes    no
    r1P3  relevant, medium        no     yes
    r1P4  not relevant, high      no     no
    r2P4  relevant, high          yes    yes
    r2P5  not relevant, high      no     no
    r2P6  not relevant, high      no     no
    r2P1  not relevant, high      no     no
    ====  ======================  =====  =================

    both 2, human only 1, judge only 1, neither 4 (N = 8): observed agreement 6/8, chance
    (3/8)² + (5/8)² = 34/64, kappa (48/64 − 34/64) / (30/64) = 7/15; precision 2/3, recall 2/3.
    r3 was labelled by a judge: never in the audit."""
    lines = [
        qline(
            "r1",
            [loc("d.md", "Paragraph 1 tells"), loc("d.md", "Paragraph 2 tells")],
            query="Q one?",
            hop="multi",
        ),
        qline("r2", [loc("d.md", "Paragraph 4 tells")], query="Q two?"),
        json.dumps(
            {
                **json.loads(qline("r3", [loc("d.md", "Paragraph 5 tells")], query="Q three?")),
                "annotator": "judge:x",
            }
        ),
    ]
    root = make_project(tmp_path / "audit", {"d.md": AUDIT_DOC}, lines, 'corpus = "corpus"\nmax_chars = 80\n')
    chunks = {
        int(AUDIT_DOC[c.start : c.end].split()[1]): c.chunk_id
        for c in load_corpus(root / "corpus", "*.md", 80).docs["d.md"].chunks
        if AUDIT_DOC[c.start : c.end].startswith("Paragraph")
    }
    run = tmp_path / "run.jsonl"
    run.write_text(
        "".join(
            json.dumps({"query_id": q, "chunk_ids": [chunks[i] for i in order]}) + "\n"
            for q, order in (("r1", [1, 2, 3, 4]), ("r2", [4, 5, 6, 1]), ("r3", [5]))
        ),
        encoding="utf-8",
    )
    command, _ = write_judge(
        tmp_path / "judge",
        {
            "r1": {
                "Paragraph 1 ": verdict(True, "high", "It answers."),
                "Paragraph 2 ": verdict(True, "low", "Perhaps."),
                "Paragraph 3 ": verdict(True, "medium", "It seems to answer."),
            },
            "r2": {"Paragraph 4 ": verdict(True, "high", "It answers.")},
        },
    )
    proc = cli(["judge", root, "--audit", "--run", run, "--command", command, "--format", "json"])
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["kappa"] == pytest.approx(7 / 15, abs=1e-12) and result["band"] == "poor"
    assert (result["n_records"], result["n_items"]) == (2, 8)
    assert result["precision"] == pytest.approx(2 / 3) and result["recall"] == pytest.approx(2 / 3)
    assert (result["human_relevant"], result["judge_relevant"], result["disagreements"]) == (3, 3, 2)
    assert result["by_confidence"] == {
        "high": {"relevant": {"n": 2, "human_relevant": 2}, "not_relevant": {"n": 4, "human_relevant": 0}},
        "medium": {"relevant": {"n": 1, "human_relevant": 0}, "not_relevant": {"n": 0, "human_relevant": 0}},
        "low": {"relevant": {"n": 1, "human_relevant": 1}, "not_relevant": {"n": 0, "human_relevant": 0}},
    }
    text = {
        int(AUDIT_DOC[i["char_start"] : i["char_end"]].split()[1]) for i in result["items"] if i["id"] == "r1"
    }
    assert text == {1, 2, 3, 4}
    wrong = {
        (i["id"], AUDIT_DOC[i["char_start"] : i["char_end"]].split()[1], i["human"], i["judge"])
        for i in result["items"]
        if i["human"] != i["judge"]
    }
    assert wrong == {("r1", "2", True, False), ("r1", "3", False, True)}
    # written beside the proposals, the same figures; no proposals written by an audit
    assert json.loads((root / "audit.json").read_text(encoding="utf-8")) == result
    assert not (root / "proposals.jsonl").exists()
    out = cli(["judge", root, "--audit", "--run", run, "--command", command]).stdout
    assert "Cohen's kappa 0.467 (poor" in out and "over N = 8 (record, candidate) items: 2 records" in out
    assert "precision 0.667 (N = 3 judge-relevant), recall 0.667 (N = 3 human-relevant)" in out
    assert "disagreements: 2 of 8 items:" in out
    page = tmp_path / "report.html"
    report = cli(["report", root, "--out", page])
    assert report.returncode == 0, report.stderr
    html = page.read_text(encoding="utf-8")
    assert "LLM judge audit" in html and "0.467" in html and "Disagreements (2 of 8 items)" in html
