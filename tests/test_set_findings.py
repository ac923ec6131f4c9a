"""The findings about the whole set at scale: a corpus of many unlabelled documents does not drown
the other findings (one doc-unlabelled finding above ``MAX_UNLABELLED_LISTED``, every one with
``--select doc-unlabelled``), ``check`` prints errors first, set-level findings sit where a person
acts on them (a document's in that document, the set's on the config, else on the first line that
is not a comment, never on a record), with SARIF fingerprints that do not move with lines or
counts, and a keystroke that leaves them alone hands back the same objects.
"""

from __future__ import annotations

import json
import re

from core_support import SAMPLE_DOCS, SAMPLE_LINES, analyze_lines, loc, make_project, only, qline

from golden_lsp.core.check.setrules import MAX_UNLABELLED_LISTED, UNLABELLED_NAMED
from golden_lsp.core.corpus.index import load_corpus
from golden_lsp.core.engine.analysis import Analyzer
from golden_lsp.core.labels.scoring import parse_hit_rule


def _unused(n: int) -> dict[str, str]:
    return {f"unused-{i:03}.md": f"# Unused {i}\n\nNobody quotes document number {i}.\n" for i in range(n)}


def test_above_the_threshold_the_unlabelled_documents_are_one_finding_with_the_count(tmp_path):
    n = MAX_UNLABELLED_LISTED + 1
    corpus, analysis = analyze_lines(tmp_path, {**SAMPLE_DOCS, **_unused(n)}, SAMPLE_LINES)
    d = only(analysis, "doc-unlabelled")
    assert d.message.startswith(f"no question points into {n} of the {n + 2} documents (unused-000.md, ")
    assert "golden-lsp stats" in d.message and "--select doc-unlabelled" in d.message
    assert [r.doc_id for r in d.related] == [f"unused-{i:03}.md" for i in range(UNLABELLED_NAMED)]
    assert d.related[0].path == corpus.docs["unused-000.md"].path
    assert d.data["count"] == n


def test_at_the_threshold_each_unlabelled_document_is_its_own_finding(tmp_path):
    _, analysis = analyze_lines(tmp_path, {**SAMPLE_DOCS, **_unused(MAX_UNLABELLED_LISTED)}, SAMPLE_LINES)
    found = [d for d in analysis.diagnostics if d.code == "doc-unlabelled"]
    assert len(found) == MAX_UNLABELLED_LISTED
    assert found[0].message == "no question points into unused-000.md"


def test_select_doc_unlabelled_lists_every_document_and_stats_counts_them(tmp_path, cli):
    n = MAX_UNLABELLED_LISTED + 5
    make_project(tmp_path, {**SAMPLE_DOCS, **_unused(n)})
    summary = json.loads(cli(["check", "--format", "json"]).stdout)
    assert [f["code"] for f in summary].count("doc-unlabelled") == 1
    listed = json.loads(cli(["check", "--format", "json", "--select", "doc-unlabelled"]).stdout)
    assert sorted(f["message"] for f in listed) == [
        f"no question points into unused-{i:03}.md" for i in range(n)
    ]
    stats = cli(["stats"]).stdout
    assert re.search(rf"^  doc-unlabelled +{n}$", stats, re.M), stats


def test_without_a_config_the_sets_findings_sit_on_the_first_line_that_is_not_a_comment(tmp_path, cli):
    lines = ["// a comment", "", *SAMPLE_LINES[1:]]
    _, analysis = analyze_lines(tmp_path, SAMPLE_DOCS, lines)
    d = only(analysis, "too-few-records")
    assert (d.range.line, d.range.column, d.range.end_column) == (2, 0, 1)
    make_project(tmp_path / "set", SAMPLE_DOCS, lines, config=None)
    out = cli(["check", "--corpus", "corpus"], cwd=tmp_path / "set").stdout
    assert out.startswith("questions.jsonl:3:1: warning[too-few-records] "), out
    empty = make_project(tmp_path / "empty", SAMPLE_DOCS, ["// nothing yet"], config=None)
    out = cli(["check", "--corpus", "corpus"], cwd=empty).stdout
    assert out.startswith("questions.jsonl:1:1: warning[too-few-records] "), out


def test_the_sets_findings_sit_where_a_person_acts_on_them(tmp_path, cli):
    """A document's finding in that document, the set's on the config at the key it is about; the
    questions file's records carry none of them (a new set's first record used to carry them all)."""
    config = 'corpus = "corpus"\n# the types every set needs\nrequired_query_types = ["comparison"]\n'
    docs = {**SAMPLE_DOCS, "unused.md": "# Unused\n\nNobody quotes this document at all.\n"}
    lines = [qline("q1", [loc("guide.md", "depends on the chunk boundaries")])]
    make_project(tmp_path, docs, lines, config=config)
    found = {
        (f["code"], f["path"], f["line"], f["column"])
        for f in json.loads(cli(["check", "--format", "json"]).stdout)
    }
    assert found == {
        ("too-few-records", "golden-lsp.toml", 1, 1),
        ("query-type-missing", "golden-lsp.toml", 3, 1),
        ("doc-dominates", "corpus/guide.md", 1, 1),
        ("doc-unlabelled", "corpus/faq.md", 1, 1),
        ("doc-unlabelled", "corpus/unused.md", 1, 1),
    }
    text = cli(["check"]).stdout
    assert "corpus/unused.md:1:1: warning[doc-unlabelled] no question points into unused.md" in text


def test_sarif_fingerprints_of_the_sets_findings_follow_neither_lines_nor_counts(tmp_path, cli):
    make_project(tmp_path, {**SAMPLE_DOCS, "unused.md": "# Unused\n\nNobody quotes this one.\n"})

    def fingerprints() -> dict[tuple[str, str], str]:
        log = json.loads(cli(["check", "--format", "sarif"]).stdout)
        return {
            (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]): next(
                iter(r["partialFingerprints"].values())
            )
            for r in log["runs"][0]["results"]
        }

    before = fingerprints()
    assert ("too-few-records", "golden-lsp.toml") in before and (
        "doc-unlabelled",
        "corpus/unused.md",
    ) in before
    q = tmp_path / "questions.jsonl"
    q.write_text("// moved down\n\n" + q.read_text(encoding="utf-8"), encoding="utf-8")  # lines move
    assert fingerprints() == before
    # one more record: too-few-records says 8 records, not 7, and is still the same alert
    q.write_text(
        q.read_text(encoding="utf-8") + qline("q9", [loc("faq.md", "offsets break whenever")]) + "\n"
    )
    after = fingerprints()
    assert after[("too-few-records", "golden-lsp.toml")] == before[("too-few-records", "golden-lsp.toml")]


def test_check_prints_errors_first(tmp_path, cli):
    broken = qline("q8", [loc("faq.md", "not in the faq at all")])
    make_project(tmp_path, SAMPLE_DOCS, [*SAMPLE_LINES, broken])
    proc = cli(["check"])
    assert proc.returncode == 1
    found = [
        line.split(" ")[1].split("[")[0] for line in proc.stdout.splitlines() if not line.startswith(" ")
    ]
    assert found == ["error", "warning"], proc.stdout  # the error on the last line, then too-few-records
    as_json = json.loads(cli(["check", "--format", "json"]).stdout)
    assert [f["severity"] for f in as_json] == ["error", "warning"]


def test_a_keystroke_that_leaves_the_set_alone_hands_back_the_same_set_level_findings(tmp_path):
    corpus_dir = tmp_path / "corpus"
    corpus_dir.mkdir()
    for name, text in {**SAMPLE_DOCS, **_unused(30)}.items():
        (corpus_dir / name).write_text(text, encoding="utf-8")
    analyzer = Analyzer(load_corpus(corpus_dir), parse_hit_rule("any_overlap"))
    path = tmp_path / "questions.jsonl"
    first = analyzer.analyze(path, "\n".join(SAMPLE_LINES) + "\n")
    edited = list(SAMPLE_LINES)
    edited[1] = edited[1].replace("What does", "What else does")  # a query typed into
    second = analyzer.analyze(path, "\n".join(edited) + "\n")
    before = {d.code: d for d in first.diagnostics if d.code in ("doc-unlabelled", "too-few-records")}
    after = {d.code: d for d in second.diagnostics if d.code in ("doc-unlabelled", "too-few-records")}
    assert before.keys() == after.keys() == {"doc-unlabelled", "too-few-records"}
    assert all(after[code] is before[code] for code in before)
    edited.append(qline("q8", [loc("unused-000.md", "Nobody quotes document number 0")]))
    third = analyzer.analyze(path, "\n".join(edited) + "\n")
    d = only(third, "doc-unlabelled")
    assert d is not before["doc-unlabelled"] and d.data["count"] == 29
