"""``golden-lsp migrate`` as a subprocess, on a v1 and a v2 corpus made here with every kind of
change (``migrate_support``): each status, ``--from REV`` in a real git repository, ``--write``
byte for byte, the usage errors, and ``check --format github|sarif`` naming the re-anchoring."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest
from core_support import cli_env, loc, make_project, qline, run_cli, write_docs
from migrate_support import CASES, CONFIG, V1, V2, built_repository, case_lines, git

from golden_lsp.core.labels.quotepolicy import problems

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
BROKEN = ("quote-not-found", "quote-ambiguous", "unknown-doc")


def set_with_old_folder(tmp_path: Path, lines: list[str] | None = None) -> tuple[Path, Path]:
    """The set over v2, and v1 in a folder beside it."""
    root = make_project(tmp_path / "set", V2, case_lines() if lines is None else lines, CONFIG)
    old = write_docs(tmp_path / "old", V1)
    return root, old


def repository(tmp_path: Path, lines: list[str] | None = None, sub: str = "") -> tuple[Path, str]:
    """A git repository holding the set (in its folder ``sub``): v1 committed, then the corpus
    changed to v2 and committed. Returns the set's folder and v1's commit."""
    top = tmp_path / "repo"
    root = make_project(top / sub, V1, case_lines() if lines is None else lines, CONFIG)
    git(top, "init", "-q", "-b", "main")
    git(top, "config", "user.name", "Test Author")
    git(top, "config", "user.email", "author@example.com")
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "v1")
    v1 = git(top, "rev-parse", "HEAD")
    shutil.rmtree(root / "corpus")
    write_docs(root / "corpus", V2)
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "v2: the docs migration")
    return root, v1


def statuses(report: dict) -> dict[tuple[str, int], str]:
    return {(x["id"], x["locator"]): x["status"] for x in report["locators"]}


def expected_statuses() -> dict[tuple[str, int], str]:
    return {(rid, i): status for rid, (_, want) in CASES.items() for i, status in enumerate(want)}


# --- every status ------------------------------------------------------------------------------


def test_every_status_from_an_old_corpus_folder(cli, tmp_path):
    root, old = set_with_old_folder(tmp_path)
    proc = cli(["migrate", root, "--from-corpus", old, "--format", "json"])
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert statuses(report) == expected_statuses()
    assert report["counts"] == {
        "kept": 2,
        "kept-changed": 1,
        "moved": 6,
        "requoted": 1,
        "edited": 1,
        "fact-changed": 0,
        "ambiguous": 1,
        "lost": 1,
    }
    by = {(x["id"], x["locator"]): x for x in report["locators"]}
    assert list(by[("kept", 0)]) == [
        "id",
        "line",
        "locator",
        "status",
        "old_doc",
        "doc",
        "old_quote",
        "quote",
        "similarity",
        "note",
    ]
    kept = by[("kept", 0)]
    assert (kept["doc"], kept["quote"], kept["similarity"]) == ("brakes.md", kept["old_quote"], 1.0)
    assert by[("folder", 0)]["doc"] == "wheels/tyres.md"
    assert by[("folder", 0)]["quote"] == by[("folder", 0)]["old_quote"]  # the quote still points there
    assert by[("renamed", 0)]["doc"] == "drivetrain.md"
    assert by[("between-files", 0)]["doc"] == "maintenance.md"
    moved = by[("requote-moved", 0)]  # ambiguous where the passage went: the quote too changes
    assert moved["doc"] == "drivetrain.md" and moved["quote"] != moved["old_quote"]
    assert (by[("multi", 0)]["status"], by[("multi", 1)]["doc"]) == ("kept", "wheels/tyres.md")
    assert by[("exact", 0)]["quote"] == "latex sealant"
    requoted = by[("copied", 0)]
    assert requoted["doc"] == "lights.md" and requoted["quote"] != requoted["old_quote"]
    edited = by[("reworded", 0)]
    assert edited["doc"] == "brakes.md" and 0.8 <= edited["similarity"] < 1
    assert 0 < by[("changed", 0)]["similarity"] < 1 and by[("changed", 0)]["quote"] == "lever feels spongy"
    for left in (("duplicated", 0), ("deleted", 0)):
        assert by[left]["doc"] is None and by[left]["quote"] is None
    # every new quote occurs exactly once in its document, inside the passage the old span became
    for x in report["locators"]:
        if x["status"] in ("moved", "requoted", "edited"):
            text = (root / "corpus" / x["doc"]).read_text(encoding="utf-8")
            assert text.count(x["quote"]) == 1, x


def test_the_new_quotes_span_the_old_text_where_it_moved(cli, tmp_path):
    """A moved or requoted label spans exactly the text it spanned (its artifact span has the
    same text); checked through a build of the rewritten set."""
    root, old = set_with_old_folder(tmp_path)
    lines = [
        qline("a", [loc("chain.md", "stretched past half a percent")]),
        qline("b", [loc("lights.md", "dynamo hub powers the lights")]),
    ]
    (root / "questions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert cli(["migrate", root, "--from-corpus", old, "--write"]).returncode == 0
    build = cli(["build", root])
    assert build.returncode == 0, build.stdout + build.stderr
    spans = [
        json.loads(x)["answer_spans"][0] for x in (root / "golden-set.v1.jsonl").read_text().splitlines()
    ]
    texts = [V2[s["doc_id"]][s["char_start"] : s["char_end"]] for s in spans]
    assert texts == [
        "A chain stretched past half a percent wears the cassette and the chainrings along with it.\n",
        "A dynamo hub powers the lights without batteries and costs almost nothing to run for years.\n",
    ]


def test_text_lists_each_locator_that_is_not_kept_then_the_counts(cli, tmp_path):
    root, old = set_with_old_folder(tmp_path)
    proc = cli(["migrate", root, "--from-corpus", old])
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == sum(s != "kept" for s in expected_statuses().values()) + 1
    assert lines[-1] == (
        "kept 2, kept-changed 1, moved 6, requoted 1, edited 1, fact-changed 0, ambiguous 1, lost 1 (from old)"
    )
    folder = next(x for x in lines if '"folder"' in x)
    text = (root / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    row = next(i for i, x in enumerate(text) if '"folder"' in x)
    col = text[row].index('"seal small') + 1
    assert folder == (
        f'set/questions.jsonl:{row + 1}:{col}: moved: record "folder", locator 0: doc "tyres.md" → "wheels/tyres.md"'
    )
    assert any(
        x.startswith("set/questions.jsonl:") and "edited:" in x and "% similar: review it" in x for x in lines
    )
    assert not any('"kept"' in x for x in lines)
    assert "run again with --write to rewrite 8 locators" in proc.stderr


def test_threshold_decides_what_is_edited_and_what_is_lost(cli, tmp_path):
    root, old = set_with_old_folder(tmp_path)
    strict = json.loads(
        cli(["migrate", root, "--from-corpus", old, "--format", "json", "--threshold", "0.99"]).stdout
    )
    reworded = next(x for x in strict["locators"] if x["id"] == "reworded")
    assert reworded["status"] == "lost" and 0.8 < reworded["similarity"] < 0.99  # the closest, named
    assert "99 %" in reworded["note"]
    loose = json.loads(
        cli(["migrate", root, "--from-corpus", old, "--format", "json", "--threshold", "0.3"]).stdout
    )
    assert {x["id"]: x["status"] for x in loose["locators"]}["reworded"] == "edited"


def test_a_label_written_after_the_old_corpus_is_kept(cli, tmp_path):
    lines = [qline("new", [loc("maintenance.md", "a warped rotor rubs the pads")])]
    root, old = set_with_old_folder(tmp_path, lines)
    report = json.loads(cli(["migrate", root, "--from-corpus", old, "--format", "json"]).stdout)
    (only,) = report["locators"]
    assert (only["status"], only["doc"]) == ("kept", "maintenance.md")
    assert only["note"] == "maintenance.md is not in the old corpus; it resolves now"


def test_a_label_broken_in_the_old_corpus_too_is_lost(cli, tmp_path):
    lines = [qline("never", [loc("brakes.md", "words that were never there")])]
    root, old = set_with_old_folder(tmp_path, lines)
    (only,) = json.loads(cli(["migrate", root, "--from-corpus", old, "--format", "json"]).stdout)["locators"]
    assert only["status"] == "lost" and "nothing to relocate from" in only["note"]


# --- --from REV in a real repository -----------------------------------------------------------


def test_from_a_git_revision_gives_what_the_old_folder_gives(cli, tmp_path):
    repo, v1 = repository(tmp_path)
    old = write_docs(tmp_path / "old", V1)
    by_folder = cli(["migrate", repo, "--from-corpus", old, "--format", "json"])
    for rev in ("HEAD~1", v1, v1[:10]):
        proc = cli(["migrate", repo, "--from", rev, "--format", "json"])
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout) == json.loads(by_folder.stdout)
    text = cli(["migrate", repo, "--from", "HEAD~1"]).stdout
    assert text.splitlines()[-1].endswith(f"(from commit {v1[:12]})")


def test_the_corpus_in_a_subfolder_of_the_repository(cli, tmp_path):
    """The repository's top is above the set: the corpus folder's own path in it is read."""
    root, _ = repository(tmp_path, sub="sets/bikes")
    proc = cli(["migrate", root, "--from", "HEAD~1", "--format", "json"])
    assert proc.returncode == 0, proc.stderr
    assert statuses(json.loads(proc.stdout)) == expected_statuses()


@pytest.mark.parametrize(
    ("rev", "message"),
    [
        ("no-such-branch", "--from 'no-such-branch': unknown revision in the git repository"),
        ("-x", "--from '-x': not a revision"),
        ("HEAD~5", "--from 'HEAD~5': unknown revision"),
    ],
)
def test_an_unknown_revision_is_a_usage_error_naming_it(cli, tmp_path, rev, message):
    repo, _ = repository(tmp_path)
    before = (repo / "questions.jsonl").read_bytes()
    proc = cli(["migrate", repo, f"--from={rev}", "--write"])
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"golden-lsp: {message}") and "Traceback" not in proc.stderr
    assert proc.stdout == "" and (repo / "questions.jsonl").read_bytes() == before


def test_from_a_revision_outside_a_repository_or_before_the_corpus(cli, tmp_path):
    root, _ = set_with_old_folder(tmp_path)
    proc = cli(["migrate", root, "--from", "HEAD"])
    assert proc.returncode == 2 and "is not in a git repository" in proc.stderr
    repo, _ = repository(tmp_path)
    empty_tree = subprocess.run(
        ["git", "mktree"], cwd=repo, env=cli_env(repo), input="", capture_output=True, text=True, check=True
    ).stdout.strip()
    empty = git(repo, "commit-tree", empty_tree, "-m", "before the corpus")
    proc = cli(["migrate", repo, "--from", empty])
    assert proc.returncode == 2
    assert proc.stderr == f"golden-lsp: --from '{empty}': commit {empty[:12]} holds no file in corpus\n"


@pytest.mark.parametrize(
    "args",
    [
        [],  # neither --from nor --from-corpus
        ["--from", "HEAD", "--from-corpus", "old"],
        ["--from-corpus", "old", "--threshold", "2"],
        ["--from-corpus", "old", "--threshold", "x"],
        ["--from-corpus", "missing"],
    ],
)
def test_usage_errors_exit_2(cli, tmp_path, args):
    root, _ = set_with_old_folder(tmp_path)
    proc = cli(["migrate", root, *args], cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip()


# --- --write ---------------------------------------------------------------------------------


def test_write_changes_exactly_the_rewritten_values_and_nothing_else(cli, tmp_path):
    """A BOM, CRLF line ends, comments, a blank line, another key order, odd spacing and escapes
    all stay; only the doc and quote values of moved, requoted and edited locators change."""
    odd = (
        '{"id": "odd", "expected_answer": "Sealant closes small holes.", "query": "What seals a tubeless '
        'tyre?", "locators": [ {"quote" :  "seal small punctures on their \\u006fwn",  "doc":"tyres.md"} ]}'
    )
    lines = [*case_lines(), "", "// the end", odd]
    root, old = set_with_old_folder(tmp_path, lines)
    questions = root / "questions.jsonl"
    original = "\ufeff" + "\r\n".join(lines) + "\r\n"
    questions.write_bytes(original.encode("utf-8"))
    report = json.loads(cli(["migrate", root, "--from-corpus", old, "--format", "json"]).stdout)
    assert questions.read_bytes() == original.encode("utf-8")  # no --write: nothing written

    proc = cli(["migrate", root, "--from-corpus", old, "--write"])
    assert proc.returncode == 0, proc.stderr
    assert "rewrote 9 locators in set/questions.jsonl" in proc.stderr

    expected = original
    for x in report["locators"]:
        if x["status"] not in ("moved", "requoted", "edited"):
            continue
        if x["id"] == "odd":  # the quote still points there: its value (an escape in it) stays
            assert x["quote"] == x["old_quote"]
            expected = expected.replace('"doc":"tyres.md"', f'"doc":{json.dumps(x["doc"])}')
            continue
        line = next(li for li in lines if f'"id": "{x["id"]}"' in li)
        record = json.loads(line)
        before = record["locators"][x["locator"]]
        after = {**before, "doc": x["doc"], "quote": x["quote"]}
        new_line = line.replace(json.dumps(before, ensure_ascii=False), json.dumps(after, ensure_ascii=False))
        assert new_line != line
        expected = expected.replace(line, new_line)
        lines[lines.index(line)] = new_line
    assert questions.read_bytes() == expected.encode("utf-8")
    assert '"seal small punctures on their \\u006fwn",  "doc":"wheels/tyres.md"} ]}\r\n' in expected

    # check reports exactly the labels migrate left for the author (lost and ambiguous; a
    # kept-changed label still resolves)
    check = cli(["check", root, "--format", "json"])
    failing = {
        questions.read_text(encoding="utf-8-sig").splitlines()[d["line"] - 1]
        for d in json.loads(check.stdout)
        if d["code"] in BROKEN
    }
    left = {x["id"] for x in report["locators"] if x["status"] in ("lost", "ambiguous")}
    assert {json.loads(line)["id"] for line in failing} == left == {"deleted", "duplicated"}

    # migrated, every label resolves where v2 has its text: from v1 again, nothing moves
    again = cli(["migrate", root, "--from-corpus", old, "--write"])
    assert "nothing to rewrite in set/questions.jsonl" in again.stderr
    assert questions.read_bytes() == expected.encode("utf-8")


def test_write_with_nothing_to_rewrite_leaves_the_file_alone(cli, tmp_path):
    lines = [qline("kept", [loc("brakes.md", "rotor sits away from the spray")])]
    root, old = set_with_old_folder(tmp_path, lines)
    questions = root / "questions.jsonl"
    os.utime(questions, ns=(1_000_000_000, 1_000_000_000))
    proc = cli(["migrate", root, "--from-corpus", old, "--write"])
    assert proc.returncode == 0 and "nothing to rewrite in set/questions.jsonl" in proc.stderr
    assert questions.stat().st_mtime_ns == 1_000_000_000


def test_write_after_migrate_from_a_revision_makes_check_pass_but_for_what_is_left(cli, tmp_path):
    lines = [
        qline("folder", [loc("tyres.md", "seal small punctures on their own")]),
        qline("copied", [loc("lights.md", "dynamo hub powers the lights")]),
    ]
    repo, v1 = repository(tmp_path, lines)
    assert cli(["check", repo, "--select", ",".join(BROKEN)]).returncode == 1
    assert cli(["migrate", repo, "--from", v1, "--write"]).returncode == 0
    check = cli(["check", repo, "--select", ",".join(BROKEN)])
    assert check.returncode == 0, check.stdout


# --- check in CI -------------------------------------------------------------------------------


def test_check_github_names_the_reanchoring_of_each_broken_label(cli, tmp_path):
    repo, v1 = built_repository(tmp_path)
    proc = cli(["check", repo, "--format", "github"])
    assert proc.returncode == 1
    errors = [x for x in proc.stdout.splitlines() if x.startswith("::error") and "title=stale" not in x]
    broken = [x for x in errors if any(f"title={c}::" in x for c in BROKEN)]
    assert len(broken) == 10  # each broken label once
    command = f"run `golden-lsp migrate --config repo/golden-lsp.toml --from {v1} --write`"
    folder = next(x for x in broken if "unknown doc 'tyres.md'" in x and "line=6," in x)
    assert folder.endswith(
        f'golden-lsp migrate --from {v1[:12]} re-anchors it (moved to wheels/tyres.md): doc "tyres.md" → '
        f'"wheels/tyres.md"; {command}'
    )
    edited = next(x for x in broken if "line=4," in x)
    assert "re-anchors it (edited, " in edited and "%25 similar)" in edited and "(review it)" in edited
    deleted = next(x for x in broken if "line=5," in x)
    assert deleted.endswith(
        f"golden-lsp migrate --from {v1[:12]} cannot re-anchor it (lost): no passage is 80 %25 similar to the old span"
    )
    assert sum("re-anchor" in x for x in broken) == 10
    # the command it names does what it says
    assert (
        cli(
            ["migrate", "--config", repo / "golden-lsp.toml", "--from", v1, "--write"], cwd=tmp_path
        ).returncode
        == 0
    )
    after = cli(["check", repo, "--format", "github", "--select", ",".join(BROKEN)]).stdout.splitlines()
    assert len([x for x in after if x.startswith("::error")]) == 2  # the lost and the ambiguous ones


def test_check_sarif_names_the_reanchoring_and_stays_schema_valid(cli, tmp_path):
    repo, v1 = built_repository(tmp_path)
    log = json.loads(cli(["check", repo, "--format", "sarif"]).stdout)
    jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER).validate(log)
    results = [r for r in log["runs"][0]["results"] if r["ruleId"] in BROKEN]
    assert len(results) == 10 and all(
        f"golden-lsp migrate --from {v1[:12]}" in r["message"]["text"] for r in results
    )


def test_check_text_and_json_say_nothing_of_reanchoring(cli, tmp_path):
    repo, _ = built_repository(tmp_path)
    for fmt in ("text", "json"):
        assert "re-anchor" not in cli(["check", repo, "--format", fmt]).stdout


def test_a_commit_missing_from_the_clone_is_said_once_per_label(cli, tmp_path):
    repo, _ = built_repository(tmp_path)
    manifest = repo / "golden-set.v1.manifest.json"
    m = json.loads(manifest.read_text())
    m["corpus_commit"] = "0" * 40  # e.g. a shallow clone's
    manifest.write_text(json.dumps(m, indent=2, sort_keys=True) + "\n")
    lines = cli(["check", repo, "--format", "github"]).stdout.splitlines()
    broken = [x for x in lines if any(f"title={c}::" in x for c in BROKEN)]
    assert broken and all(
        "no re-anchoring from the manifest's corpus_commit: --from '0000" in x for x in broken
    )
    assert all("fetch-depth: 0" in x for x in broken)


def test_a_clean_check_runs_no_git(cli, tmp_path):
    """Nothing broken: check in CI format neither reads the old corpus nor runs git at all."""
    repo, _ = built_repository(
        tmp_path, [qline("kept", [loc("brakes.md", "rotor sits away from the spray")])]
    )
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    marker = tmp_path / "git-was-run"
    fake = bin_dir / "git"
    fake.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n", encoding="utf-8")
    fake.chmod(0o755)
    env = {**cli_env(tmp_path), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    proc = run_cli(["check", repo, "--format", "github", "--select", ",".join(BROKEN)], tmp_path, env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not marker.exists()
    broken = write_docs(repo / "corpus", {"brakes.md": "# Brakes\n\nAll rewritten.\n"})
    assert broken
    proc = run_cli(["check", repo, "--format", "github", "--select", ",".join(BROKEN)], tmp_path, env)
    assert proc.returncode == 1 and marker.exists()  # a broken label: now git is asked


def test_check_and_migrate_name_the_same_quote_for_a_reworded_label(cli, tmp_path):
    """One quote policy and one picker: the fix ``check`` proposes for a label whose sentence was
    reworded (its closest passage's quote) is the quote ``migrate`` writes for it, and it is a
    phrase, not a fragment."""
    root, old = set_with_old_folder(tmp_path)
    found = json.loads(cli(["check", root, "--format", "json"]).stdout)
    fixes = {
        d["line"]: d["fix"]["replacement"] for d in found if d["code"] == "quote-not-found" and "fix" in d
    }
    report = json.loads(cli(["migrate", root, "--from-corpus", old, "--format", "json"]).stdout)
    edited = next(x for x in report["locators"] if x["id"] == "reworded")
    assert edited["status"] == "edited"
    assert fixes[edited["line"]] == edited["quote"], (fixes, edited)
    text = (root / "corpus" / edited["doc"]).read_text(encoding="utf-8")
    at = text.index(edited["quote"])
    assert problems(text, at, at + len(edited["quote"])) == [] and len(edited["quote"].split()) >= 4


# --- a fact changed under a label ---------------------------------------------------------------

HTTP_V1 = """\
# Client

HTTPX requires Python 3.6+ and installs with pip from the package index.

`Client.get` returns `None` when the body is streamed straight to a file on disk.

Pass the `proxies` parameter to route every request through a proxy of your own.

The connection pool keeps at most 10 connections alive per host by default.

Timeouts default to five seconds for every request that the client makes on its own.
"""
HTTP_V2 = """\
# Client

HTTPX requires Python 3.8+ and installs with pip from the package index.

`Client.get` returns `Response` when the body is streamed straight to a file on disk.

Pass the `proxy` parameter to route every request through a proxy of your own.

The connection pool keeps at most 20 connections alive per host by default.

Timeouts default to five seconds for each request that the client makes on its own.
"""
FACT_CASES = [
    ("python", "HTTPX requires Python", "It needs Python 3.6+ or newer.", "fact-changed", ["3.6+"], ["3.8+"]),
    (
        "none",
        "when the body is streamed straight",
        "It returns None.",
        "fact-changed",
        ["None"],
        ["Response"],
    ),
    (
        "proxies",
        "route every request through a proxy",
        "Pass a proxies mapping.",
        "fact-changed",
        ["proxies"],
        ["proxy"],
    ),
    (
        "pool",
        "keeps at most 10 connections alive",
        "At most 10 connections per host.",
        "fact-changed",
        ["10"],
        ["20"],
    ),
    ("timeout", "five seconds for every request", "Five seconds for each request.", "edited", None, None),
]


def fact_project(tmp_path: Path) -> tuple[Path, Path]:
    lines = [
        qline(i, [loc("client.md", q)], query=f"What about {i}?", answer=a) for i, q, a, *_ in FACT_CASES
    ]
    root = make_project(tmp_path / "set", {"client.md": HTTP_V2}, lines, CONFIG)
    return root, write_docs(tmp_path / "old", {"client.md": HTTP_V1})


def test_a_passage_whose_answer_bearing_fact_changed_is_fact_changed_not_kept(cli, tmp_path):
    root, old = fact_project(tmp_path)
    proc = cli(["migrate", root, "--from-corpus", old, "--format", "json"])
    assert proc.returncode == 0, proc.stderr
    by = {x["id"]: x for x in json.loads(proc.stdout)["locators"]}
    for rid, _, _, status, lost, new in FACT_CASES:
        assert by[rid]["status"] == status, by[rid]
        if lost is not None:
            assert (by[rid]["fact_lost"], by[rid]["fact_new"]) == (lost, new)
    assert by["pool"]["was"] == "edited" and by["python"]["was"] == "kept-changed"
    text = cli(["migrate", root, "--from-corpus", old])
    assert (
        'fact-changed: record "none", locator 0: the passage no longer says what the answer relies on (None → Response)'
        in text.stdout
    )
    assert "re-read 4 labels whose passage changed a fact" in text.stderr


def test_write_never_applies_a_fact_changed_label_unless_asked(cli, tmp_path):
    root, old = fact_project(tmp_path)
    questions = root / "questions.jsonl"
    before = questions.read_text(encoding="utf-8")
    proc = cli(["migrate", root, "--from-corpus", old, "--write"])
    assert proc.returncode == 0, proc.stderr
    after = questions.read_text(encoding="utf-8")
    assert "keeps at most 10 connections alive" in after  # the edited pool label is not rewritten
    assert after.count("\n") == before.count("\n") and after != before  # the timeout label is
    proc = cli(["migrate", root, "--from-corpus", old, "--write", "--rewrite-fact-changed"])
    assert proc.returncode == 0, proc.stderr
    assert "keeps at most 10 connections alive" not in questions.read_text(encoding="utf-8")
