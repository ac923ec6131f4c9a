"""The CI report formats, run through the CLI: SARIF 2.1.0 (validated against the official schema
shipped in tests/data), JUnit XML (read back by junitparser), and GitHub's annotation limits."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import junitparser
from core_support import FAQ, SAMPLE_LINES, loc, make_project, qline, write_questions

from golden_lsp.core.findings.diagnostics import FINDINGS

SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
NOT_FOUND = qline("q9", [loc("faq.md", "Because offsets break  whenever")])
AMBIGUOUS = qline("q10", [loc("faq.md", "the")])


def sarif_of(cli, cwd: Path, *args) -> dict:
    proc = cli(["check", "--format", "sarif", *args], cwd=cwd)
    assert proc.returncode == 1, proc.stderr
    log = json.loads(proc.stdout)
    jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER).validate(log)
    return log


def test_every_code_has_a_one_line_description():
    assert all(code == f.code for code, f in FINDINGS.items())
    assert all(f.description and "\n" not in f.description for f in FINDINGS.values())


def test_sarif_is_schema_valid_with_rules_levels_and_one_based_regions(project, cli):
    lines = SAMPLE_LINES + [NOT_FOUND, AMBIGUOUS]
    write_questions(project / "questions.jsonl", lines)
    (run,) = sarif_of(cli, project)["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(FINDINGS)
    assert all(r["shortDescription"]["text"] == FINDINGS[r["id"]].description for r in rules)
    assert all(r["helpUri"].endswith(f"/findings/#{r['id']}") for r in rules)
    by_rule = {r["ruleId"]: r for r in run["results"]}
    assert set(by_rule) == {"quote-not-found", "quote-ambiguous", "too-few-records"}
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] == FINDINGS[result["ruleId"]].severity.value
    nf = by_rule["quote-not-found"]
    col = NOT_FOUND.index('"Because') + 1
    (where,) = nf["locations"]
    assert where["physicalLocation"]["artifactLocation"]["uri"] == "questions.jsonl"
    assert where["physicalLocation"]["region"] == {
        "startLine": len(SAMPLE_LINES) + 1,
        "startColumn": col,
        "endLine": len(SAMPLE_LINES) + 1,
        "endColumn": col + len('"Because offsets break  whenever"'),
    }
    assert nf["message"]["text"].startswith("quote not found in faq.md")
    related = by_rule["quote-ambiguous"]["relatedLocations"]
    assert len(related) == FAQ.count("the")
    assert {r["physicalLocation"]["artifactLocation"]["uri"] for r in related} == {"corpus/faq.md"}
    assert run["columnKind"] == "unicodeCodePoints"


def test_sarif_fingerprints_follow_the_record_when_lines_move(project, cli):
    write_questions(project / "questions.jsonl", SAMPLE_LINES + [NOT_FOUND, AMBIGUOUS])
    before = {r["ruleId"]: r for r in sarif_of(cli, project)["runs"][0]["results"]}
    write_questions(
        project / "questions.jsonl", ["// a new comment", "", AMBIGUOUS] + SAMPLE_LINES + [NOT_FOUND]
    )
    after = {r["ruleId"]: r for r in sarif_of(cli, project)["runs"][0]["results"]}
    for code in ("quote-not-found", "quote-ambiguous"):
        assert (
            before[code]["locations"][0]["physicalLocation"]["region"]["startLine"]
            != after[code]["locations"][0]["physicalLocation"]["region"]["startLine"]
        )
        assert before[code]["partialFingerprints"] == after[code]["partialFingerprints"]
    assert (
        before["quote-not-found"]["partialFingerprints"] != before["quote-ambiguous"]["partialFingerprints"]
    )
    # the same record with another quote is another alert
    write_questions(project / "questions.jsonl", SAMPLE_LINES + [NOT_FOUND.replace("  whenever", "  always")])
    changed = {r["ruleId"]: r for r in sarif_of(cli, project)["runs"][0]["results"]}
    assert (
        changed["quote-not-found"]["partialFingerprints"] != before["quote-not-found"]["partialFingerprints"]
    )


def test_paths_are_relative_under_the_working_directory_and_absolute_outside(tmp_path, cli):
    root = make_project(tmp_path / "set dir", lines=SAMPLE_LINES + [NOT_FOUND])
    inside = sarif_of(cli, tmp_path, root / "questions.jsonl")["runs"][0]["results"]
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in inside} == {
        "set%20dir/questions.jsonl",
        "set%20dir/golden-lsp.toml",  # too-few-records, on the config
    }
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    outside = sarif_of(cli, elsewhere, root / "questions.jsonl")["runs"][0]["results"]
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in outside} == {
        (root / "questions.jsonl").as_uri(),
        (root / "golden-lsp.toml").as_uri(),
    }


def test_junit_has_one_test_case_per_record(project, cli):
    lines = SAMPLE_LINES + [NOT_FOUND, AMBIGUOUS]
    write_questions(project / "questions.jsonl", lines)
    proc = cli(["check", "--format", "junit"], cwd=project)
    assert proc.returncode == 1
    report = project / "report.xml"
    report.write_text(proc.stdout, encoding="utf-8")
    xml = junitparser.JUnitXml.fromfile(str(report))
    (suite,) = list(xml)
    assert suite.name == "questions.jsonl"
    cases = {case.name: case for case in suite}
    records = {
        f"{json.loads(line)['id']} (line {no})" for no, line in enumerate(lines, 1) if line.startswith("{")
    }
    assert set(cases) == records | {"golden set"}
    failed = {name for name, case in cases.items() if not case.is_passed}
    assert failed == {f"q9 (line {len(SAMPLE_LINES) + 1})", f"q10 (line {len(SAMPLE_LINES) + 2})"}
    (failure,) = cases[f"q9 (line {len(SAMPLE_LINES) + 1})"].result
    assert failure.type == "quote-not-found" and failure.message.startswith("quote not found in faq.md")
    assert "warning[too-few-records]" in cases["golden set"].system_out
    assert cases["golden set"].is_passed
    assert suite.tests == len(records) + 1 and suite.failures == 2


def test_github_format_stays_within_the_annotation_limits(project, cli):
    broken = [qline(f"b{i}", [loc("faq.md", f"no such words {i}")]) for i in range(13)]
    write_questions(project / "questions.jsonl", SAMPLE_LINES + broken)
    proc = cli(["check", "--format", "github"], cwd=project)
    assert proc.returncode == 1
    out = proc.stdout.splitlines()
    errors = [line for line in out if line.startswith("::error ")]
    assert len(errors) == 10
    assert 1 <= len([line for line in out if line.startswith("::warning ")]) < 10  # all annotated
    (notice,) = [line for line in out if line.startswith("::notice")]
    assert "3 more errors not annotated" in notice
    plain = [line for line in out if not line.startswith("::")]
    assert len(plain) == 3 and all("error[quote-not-found]" in line for line in plain)
    all_lines = SAMPLE_LINES + broken
    assert [json.loads(all_lines[int(line.split(":")[1]) - 1])["id"] for line in plain] == [
        "b10",
        "b11",
        "b12",
    ]


def test_info_findings_are_notices_and_sarif_notes(project, cli):
    (project / "golden-lsp.toml").write_text(
        'corpus = "corpus"\n[severity]\ntoo-few-records = "info"\n', encoding="utf-8"
    )
    write_questions(project / "questions.jsonl", SAMPLE_LINES + [NOT_FOUND])
    github = cli(["check", "--format", "github"], cwd=project).stdout
    assert "::notice file=golden-lsp.toml,line=1,col=1," in github and "title=too-few-records::" in github
    results = {r["ruleId"]: r for r in sarif_of(cli, project)["runs"][0]["results"]}
    assert results["too-few-records"]["level"] == "note" and results["quote-not-found"]["level"] == "error"
