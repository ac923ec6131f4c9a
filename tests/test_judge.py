"""``golden-lsp judge`` end to end with the ``command`` provider and a deterministic judge program
written in the test: the dry run against the calls made, the cache (and what never comes from
it), the budget, an answer that is not JSON, a judge program that dies, proposals faithful to what
the judge said, ``--run``, and the questions file untouched."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from core_support import loc, make_project, qline
from judge_support import logged, proposals, verdict, write_judge

from golden_lsp.keep.prompt import DEFAULT, SYSTEM, VERSION, user_message

TEA = """\
# Tea

Green tea is steeped at eighty degrees for two minutes.

Black tea is steeped with boiling water for four minutes.

A kettle of hard water leaves scale; descale the kettle every month.

## Storage

Keep tea leaves in a dark tin away from spices.
"""

BREAD = """\
# Bread

A sourdough starter is fed flour and water every day.

Bread dough rises in a warm kitchen for three hours.

Bake the loaf at two hundred and thirty degrees with steam.
"""

DOCS = {"tea.md": TEA, "bread.md": BREAD}

LINES = [
    qline("t1", [], query="How long is green tea steeped?"),
    qline("t2", [], query="How often is a sourdough starter fed?"),
    qline("t3", [], query="Which spices are best in chai tea?"),
    qline("t4", [loc("bread.md", "Bread dough rises")], query="How long does bread dough rise?"),
]

VERDICTS = {
    "t1": {"Green tea": verdict(True, "high", "It gives the time for green tea.")},
    "t2": {"sourdough starter": verdict(True, "medium", "It says the starter is fed daily.")},
}


@pytest.fixture
def tea(tmp_path: Path) -> Path:
    return make_project(tmp_path / "tea", DOCS, LINES)


def judge(cli, root: Path, command: str, *extra) -> tuple:
    proc = cli(["judge", root, "--command", command, "--k", "3", "--format", "json", *extra])
    return proc, (json.loads(proc.stdout) if proc.stdout.strip() else None)


def test_dry_run_counts_the_calls_a_run_then_makes_and_calls_nothing(cli, tea, tmp_path):
    command, log = write_judge(tmp_path / "judge", VERDICTS)
    dry, plan = judge(cli, tea, command, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert logged(log) == [] and not (tea / "proposals.jsonl").exists()
    assert plan["records"] == 3 and plan["cached"] == 0 and plan["calls"] == plan["candidates"] > 3
    texts = {"tea.md": TEA, "bread.md": BREAD}
    queries = {json.loads(x)["id"]: json.loads(x)["query"] for x in LINES}
    chars = sum(
        len(SYSTEM) + len(user_message(queries[c["id"]], texts[c["doc"]][c["char_start"] : c["char_end"]]))
        for c in plan["planned"]
    )
    assert plan["input_tokens_estimate"] == math.ceil(chars / 4)
    ran, summary = judge(cli, tea, command)
    assert ran.returncode == 0, ran.stderr
    asked = logged(log)
    assert summary["calls"] == len(asked) == plan["calls"] and summary["cached"] == 0
    assert [(a["record"], a["doc"], a["char_start"], a["char_end"]) for a in asked] == [
        (c["id"], c["doc"], c["char_start"], c["char_end"]) for c in plan["planned"]
    ]
    text = cli(["judge", tea, "--command", command, "--k", "3", "--dry-run"]).stdout
    assert text.startswith("dry run: 0 calls to command") and "nothing was called" in text


def test_proposals_say_what_the_judge_said_and_the_questions_file_is_untouched(cli, tea, tmp_path):
    command, log = write_judge(tmp_path / "judge", VERDICTS)
    before = (tea / "questions.jsonl").read_bytes()
    proc, summary = judge(cli, tea, command)
    assert proc.returncode == 0, proc.stderr
    assert (tea / "questions.jsonl").read_bytes() == before
    lines = proposals(tea / "proposals.jsonl")
    asked = logged(log)
    assert len(lines) == len(asked) == summary["proposals"]
    texts = {"tea.md": TEA, "bread.md": BREAD}
    for p, a in zip(lines, asked):
        passage = texts[p["doc"]][p["char_start"] : p["char_end"]]
        assert (p["id"], passage) == (a["record"], a["passage"])
        assert a["user"] == user_message(a["query"], passage) and a["system"] == SYSTEM
        said = next(
            (v for needle, v in VERDICTS.get(p["id"], {}).items() if needle in passage),
            {"relevant": False, "confidence": "high", "reason": "It is about something else."},
        )
        assert {k: p[k] for k in ("relevant", "confidence", "reason")} == said
        assert p["provider"] == "command" and p["model"] == command and p["prompt"] == VERSION
        assert p["prompt_digest"] == DEFAULT.digest and "error" not in p
        assert p["chunk_ids"] and p["rank"] >= 1
    green = next(p for p in lines if p["id"] == "t1" and p["relevant"])
    assert (
        TEA[green["char_start"] : green["char_end"]].startswith("Green tea is steeped") and green["rank"] == 1
    )
    # every candidate of t3 judged not relevant: proposed unanswerable, on each of its lines
    assert summary["unanswerable"] == ["t3"]
    assert all(p.get("unanswerable") is True for p in lines if p["id"] == "t3")
    assert not any(p.get("unanswerable") for p in lines if p["id"] != "t3")
    assert summary["relevant"] == {"high": 1, "medium": 1, "low": 0} and summary["errors"] == 0
    assert cli(["check", tea]).returncode == 0  # check ignores the proposals


def test_a_re_run_is_served_from_the_cache_but_never_for_another_model_or_prompt(cli, tea, tmp_path):
    command, log = write_judge(tmp_path / "judge", VERDICTS)
    _, first = judge(cli, tea, command)
    n = first["calls"]
    again, second = judge(cli, tea, command)
    assert again.returncode == 0 and (second["calls"], second["cached"]) == (0, n)
    assert len(logged(log)) == n
    _, other_model = judge(cli, tea, command, "--model", "another-judge")
    assert (other_model["calls"], other_model["cached"]) == (n, 0) and len(logged(log)) == 2 * n
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Say whether the passage answers the query, as JSON.\n", encoding="utf-8")
    _, other_prompt = judge(cli, tea, command, "--prompt", prompt)
    assert (other_prompt["calls"], other_prompt["cached"]) == (n, 0)
    assert logged(log)[-1]["system"] == prompt.read_text(encoding="utf-8")
    assert {p["prompt"] for p in proposals(tea / "proposals.jsonl")} == {"prompt.txt"}


def test_the_cache_lives_beside_the_warm_cache_and_a_corrupt_entry_is_judged_again(cli, tea, tmp_path):
    command, log = write_judge(tmp_path / "judge", VERDICTS)
    _, first = judge(cli, tea, command)
    entries = sorted(
        (tmp_path / "golden-lsp-cache" / "judge").glob("*/*.json")
    )  # $GOLDEN_LSP_CACHE_DIR/judge
    assert len(entries) == first["calls"]
    entries[0].write_text('{"key": "not this one", "judgment": {}}', encoding="utf-8")
    entries[1].write_bytes(b"\xff not json")
    _, again = judge(cli, tea, command)
    assert (again["calls"], again["cached"]) == (2, first["calls"] - 2)
    assert len(logged(log)) == first["calls"] + 2


def test_max_calls_stops_keeps_what_is_judged_and_the_next_run_goes_on(cli, tea, tmp_path):
    command, log = write_judge(tmp_path / "judge", VERDICTS)
    proc, summary = judge(cli, tea, command, "--max-calls", "2")
    total = summary["candidates"]
    assert proc.returncode == 0, proc.stderr
    assert summary["calls"] == 2 and summary["remaining"] == total - 2 and len(logged(log)) == 2
    assert f"--max-calls 2: 2 calls made, {total - 2} remain" in proc.stderr
    assert len(proposals(tea / "proposals.jsonl")) == 2
    rest, summary = judge(cli, tea, command)
    assert rest.returncode == 0 and (summary["calls"], summary["cached"]) == (total - 2, 2)
    assert len(logged(log)) == total and len(proposals(tea / "proposals.jsonl")) == total


def test_an_answer_that_is_not_json_is_asked_again_once_then_recorded_as_an_error(cli, tea, tmp_path):
    verdicts = {**VERDICTS, "t2": {"sourdough starter": "I think it is relevant."}}
    command, log = write_judge(tmp_path / "judge", verdicts)
    proc, summary = judge(cli, tea, command)
    assert proc.returncode == 1
    assert "1 candidate could not be judged" in proc.stderr and proc.stderr.rstrip().endswith("1 record: t2")
    asked = [a for a in logged(log) if "sourdough starter" in a["passage"] and a["record"] == "t2"]
    assert len(asked) == 2  # asked again once
    bad = [p for p in proposals(tea / "proposals.jsonl") if p.get("error")]
    assert len(bad) == 1 and bad[0]["id"] == "t2" and bad[0]["relevant"] is None
    assert "not the expected JSON" in bad[0]["error"] and "I think it is relevant." in bad[0]["error"]
    assert summary["errors"] == 1 and summary["error_records"] == ["t2"]
    assert "t2" not in summary["unanswerable"]
    # the rest of the run went on; a failed call is not cached: the next run asks again
    assert (
        sum(1 for p in proposals(tea / "proposals.jsonl") if p["relevant"] is not None)
        == summary["proposals"] - 1
    )
    _, again = judge(cli, tea, command)
    assert again["calls"] == 1


def test_a_judge_program_that_dies_stops_the_run_with_exit_2_keeping_what_was_judged(cli, tea, tmp_path):
    command, log = write_judge(tmp_path / "judge", {**VERDICTS, "t2": {"sourdough starter": "EXIT"}})
    proc = cli(["judge", tea, "--command", command, "--k", "3"])
    assert proc.returncode == 2
    assert "the judge cannot be called" in proc.stderr and "exited with status 3" in proc.stderr
    kept = proposals(tea / "proposals.jsonl")
    assert kept and {p["id"] for p in kept} == {"t1"}
    assert len(logged(log)) == len(kept) + 1 and logged(log)[-1]["record"] == "t2"


def test_a_run_file_is_judged_chunk_by_chunk(cli, tmp_path):
    root = make_project(tmp_path / "tea", DOCS, LINES, config='corpus = "corpus"\nmax_chars = 80\n')
    from golden_lsp.core.corpus.index import load_corpus

    chunks = load_corpus(root / "corpus", "*.md", 80).docs["tea.md"].chunks
    green = next(c for c in chunks if TEA[c.start : c.end].startswith("Green tea"))
    black = next(c for c in chunks if TEA[c.start : c.end].startswith("Black tea"))
    run = tmp_path / "run.jsonl"
    run.write_text(
        json.dumps({"query_id": "t1", "chunk_ids": ["no-such-chunk", black.chunk_id, green.chunk_id]}) + "\n",
        encoding="utf-8",
    )
    command, log = write_judge(tmp_path / "judge", VERDICTS)
    proc, summary = judge(cli, root, command, "--run", run)
    assert proc.returncode == 0, proc.stderr
    assert "2 records not in the run: t2, t3" in proc.stderr and "1 chunk ID of the run" in proc.stderr
    lines = proposals(root / "proposals.jsonl")
    assert [(p["chunk_ids"], p["rank"], p["relevant"]) for p in lines] == [
        ([black.chunk_id], 1, False),
        ([green.chunk_id], 2, True),
    ]
    assert (lines[1]["char_start"], lines[1]["char_end"]) == (green.start, green.end)
    assert [a["passage"] for a in logged(log)] == [TEA[black.start : black.end], TEA[green.start : green.end]]
    assert summary["source"] == "top 3 of run run.jsonl"


def test_a_second_run_replaces_only_the_lines_of_the_records_it_judged(cli, tea, tmp_path):
    command, _ = write_judge(tmp_path / "judge", VERDICTS)
    judge(cli, tea, command)
    before = proposals(tea / "proposals.jsonl")
    other, _ = write_judge(tmp_path / "other", {"t1": {"Green tea": verdict(False, "low", "Unsure.")}})
    proc, _ = judge(cli, tea, other, "--records", "t1")
    assert proc.returncode == 0, proc.stderr
    after = proposals(tea / "proposals.jsonl")
    assert [p for p in after if p["id"] != "t1"] == [p for p in before if p["id"] != "t1"]
    assert {p["model"] for p in after if p["id"] == "t1"} == {other}
    assert [p["id"] for p in after] == sorted((p["id"] for p in after), key=["t1", "t2", "t3"].index)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--provider", "anthropic", "--model", "m"], "ANTHROPIC_API_KEY, which is missing or empty"),
        (["--provider", "openai", "--model", "m"], "OPENAI_API_KEY, which is missing or empty"),
        (["--provider", "anthropic"], "--provider anthropic needs --model"),
        ([], "choose a judge: --provider"),
        (["--provider", "command"], "--provider command needs --command"),
        (["--command", "x", "--records", "t9"], "no record with a query has id t9"),
        (["--command", "x", "--audit", "--records", "t1"], "these have none: t1"),
        (["--command", "x", "--k", "0"], "expected a positive integer"),
    ],
)
def test_usage_problems_exit_2_before_any_call(cli, tea, args, message, monkeypatch):
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.setenv(var, "  ")  # empty (blank) counts as missing
    proc = cli(["judge", tea, *args])
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert not (tea / "proposals.jsonl").exists()


def test_a_broken_proposals_file_stops_judge_before_any_call_and_check_ignores_it(cli, tea, tmp_path):
    command, log = write_judge(tmp_path / "judge", VERDICTS)
    (tea / "proposals.jsonl").write_text('{"id": "t1"}\n', encoding="utf-8")
    proc = cli(["judge", tea, "--command", command])
    assert proc.returncode == 2 and "proposals.jsonl:1: not a proposal" in proc.stderr
    assert logged(log) == []
    assert cli(["check", tea]).returncode == 0


def test_the_config_names_the_judge_and_moves_the_proposals(cli, tmp_path):
    command, log = write_judge(tmp_path / "judge", VERDICTS)
    config = f'corpus = "corpus"\n\n[judge]\nprovider = "command"\ncommand = {json.dumps(command)}\nproposals = "out/judged.jsonl"\n'
    root = make_project(tmp_path / "tea", DOCS, LINES, config=config)
    proc = cli(["judge", root, "--k", "2"])
    assert proc.returncode == 0, proc.stderr
    assert (root / "out" / "judged.jsonl").is_file() and not (root / "proposals.jsonl").exists()
    assert len(proposals(root / "out" / "judged.jsonl")) == len(logged(log))
    bad = make_project(tmp_path / "bad", DOCS, LINES, config='corpus = "corpus"\n[judge]\nmodle = "x"\n')
    proc = cli(["judge", bad])
    assert proc.returncode == 2 and "[judge] unknown key 'modle'" in proc.stderr
    over = make_project(
        tmp_path / "over", DOCS, LINES, config='corpus = "corpus"\n[judge]\nproposals = "corpus/tea.md"\n'
    )
    proc = cli(["judge", over, "--command", command])
    assert proc.returncode == 2 and "would overwrite the corpus document tea.md" in proc.stderr
    assert (over / "corpus" / "tea.md").read_text(encoding="utf-8") == TEA


def test_a_missing_sdk_is_exit_2_naming_the_extra(tea):
    code = (
        "import sys; sys.modules['anthropic'] = None; from golden_lsp.cli import main; "
        f"sys.exit(main(['judge', {str(tea)!r}, '--provider', 'anthropic', '--model', 'm']))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "ANTHROPIC_API_KEY": "sk-test"},
    )
    assert proc.returncode == 2 and "needs the judge extra: pip install 'golden-lsp[judge]'" in proc.stderr
