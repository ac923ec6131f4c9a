"""Practice fields on records (query_type, unanswerable, split, annotator, locator primary): their
parsing, their types, and how the artifact carries them."""

from __future__ import annotations

import json

import pytest
from core_support import FAQ, GUIDE, analyze_lines, codes, loc, qline

from golden_lsp.core.goldenset.artifact import artifact_text
from golden_lsp.core.labels.questions import parse_record

DOCS = {"guide.md": GUIDE, "faq.md": FAQ}


def with_fields(line: str, **fields) -> str:
    rec = json.loads(line)
    rec.update(fields)
    return json.dumps(rec, ensure_ascii=False)


# --- parsing ----------------------------------------------------------------------------------


def test_practice_fields_parse_onto_the_record_and_locator():
    line = with_fields(
        qline("q1", [loc("guide.md", "a"), {**loc("faq.md", "b"), "primary": True}], hop="multi"),
        query_type="comparison",
        split="test",
        annotator="ana",
        unanswerable=False,
    )
    rec, diags = parse_record(line)
    assert diags == [] and rec.valid
    assert (rec.query_type, rec.split, rec.annotator, rec.unanswerable) == (
        "comparison",
        "test",
        "ana",
        False,
    )
    assert [loc.primary for loc in rec.locators] == [False, True]


@pytest.mark.parametrize(
    "fields, labelled, proposed",
    [
        ({"annotator": "judge:claude"}, True, True),
        ({"annotator": "ana", "judged_by": "judge:claude"}, False, True),
        ({"judged_by": "judge:claude"}, False, True),
        ({"annotator": "ana"}, False, False),
        ({}, False, False),
    ],
)
def test_labels_an_llm_judge_had_a_hand_in_are_told_from_a_persons(fields, labelled, proposed):
    rec, diags = parse_record(with_fields(qline("q1", [loc("guide.md", "a")]), **fields))
    assert diags == [] and rec.judged_by == fields.get("judged_by")
    assert (rec.judge_labelled, rec.judge_proposed) == (labelled, proposed)


def test_practice_fields_default_when_absent():
    rec, diags = parse_record(qline("q1", [loc("guide.md", "a")]))
    assert diags == []
    assert (rec.query_type, rec.split, rec.annotator, rec.unanswerable) == (None, None, None, False)
    assert rec.locators[0].primary is False


@pytest.mark.parametrize(
    "name, value",
    [
        ("query_type", 3),
        ("query_type", ""),
        ("annotator", ["ana"]),
        ("judged_by", ""),
        ("unanswerable", "yes"),
        ("unanswerable", 1),
        ("split", "train"),
        ("split", None),
    ],
)
def test_mistyped_practice_fields_are_wrong_type_at_the_value(name, value):
    line = with_fields(qline("q1", [loc("guide.md", "a")]), **{name: value})
    rec, diags = parse_record(line)
    assert [d.code for d in diags] == ["wrong-type"] and not rec.valid
    literal = json.dumps(value)
    start = line.index(f'"{name}": ') + len(f'"{name}": ')
    assert line[start : start + len(literal)] == literal
    assert (diags[0].range.column, diags[0].range.end_column) == (start, start + len(literal))
    assert name in diags[0].message


def test_mistyped_primary_is_wrong_type_at_the_value():
    line = qline("q1", [{**loc("guide.md", "a"), "primary": "yes"}])
    rec, diags = parse_record(line)
    assert [d.code for d in diags] == ["wrong-type"] and not rec.valid
    assert line[diags[0].range.column : diags[0].range.end_column] == '"yes"'
    assert "'primary'" in diags[0].message


# --- the artifact -----------------------------------------------------------------------------


def artifact_records(tmp_path, lines):
    _, analysis = analyze_lines(tmp_path, DOCS, lines)
    text = artifact_text(analysis)
    assert text is not None, codes(analysis)
    return [json.loads(x) for x in text.splitlines()]


def test_the_artifact_carries_practice_keys_only_on_records_that_use_them(tmp_path):
    plain = qline("q1", [loc("guide.md", "depends on the chunk boundaries")])
    used = with_fields(
        qline("q2", [{**loc("faq.md", "offsets break whenever"), "primary": True}]),
        query_type="factual",
        split="dev",
        annotator="ana",
    )
    first, second = artifact_records(tmp_path, [plain, used])
    assert not {"query_type", "split", "annotator", "unanswerable"} & first.keys()
    assert "primary" not in first["answer_spans"][0]
    assert (second["query_type"], second["split"], second["annotator"]) == ("factual", "dev", "ana")
    assert "unanswerable" not in second
    assert second["answer_spans"][0]["primary"] is True


def test_an_unanswerable_record_without_locators_builds_with_no_chunk_ids(tmp_path):
    line = with_fields(qline("q1", [], query="Which hut serves sushi?"), unanswerable=True)
    (rec,) = artifact_records(tmp_path, [line])
    assert rec["unanswerable"] is True
    assert rec["answer_bearing_chunk_ids"] == [] and rec["answer_spans"] == []


# --- the findings -----------------------------------------------------------------------------


def found(analysis, code):
    return [d for d in analysis.diagnostics if d.code == code]


def cols(line, d):
    return line[d.range.column : d.range.end_column]


def test_no_locators_replaces_hop_mismatch_and_unanswerable_records_need_none(tmp_path):
    lines = [
        qline("q1", []),
        with_fields(qline("q2", []), unanswerable=True),
        with_fields(qline("q3", [], hop="multi"), unanswerable=True),
    ]
    _, analysis = analyze_lines(tmp_path, DOCS, lines)
    (d,) = found(analysis, "no-locators")
    assert d.range.line == 0 and d.severity.value == "warning" and cols(lines[0], d) == "[]"
    assert not found(analysis, "hop-mismatch")
    assert artifact_text(analysis) is not None


def test_unanswerable_with_locators_is_an_error_at_the_locators(tmp_path):
    lines = [with_fields(qline("q1", [loc("faq.md", "offsets break whenever")]), unanswerable=True)]
    _, analysis = analyze_lines(tmp_path, DOCS, lines)
    (d,) = found(analysis, "unanswerable-with-locators")
    assert d.severity.value == "error" and cols(lines[0], d).startswith('[{"doc"')
    assert artifact_text(analysis) is None


def test_multiple_primary_points_at_each_extra_primary(tmp_path):
    locs = [
        {**loc("faq.md", "offsets break whenever"), "primary": True},
        {**loc("guide.md", "depends on the chunk boundaries"), "primary": True},
        {**loc("faq.md", "How are answers graded?"), "primary": True},
    ]
    line = qline("q1", locs, hop="multi")
    _, analysis = analyze_lines(tmp_path, DOCS, [line])
    extra = found(analysis, "multiple-primary")
    assert len(extra) == 2 and all(d.severity.value == "error" and cols(line, d) == "true" for d in extra)
    second = line.index('"primary": true', line.index('"primary": true') + 1) + len('"primary": ')
    assert extra[0].range.column == second


def test_multi_hop_single_span(tmp_path):
    one = with_fields(qline("q1", [loc("faq.md", "offsets break whenever")]), query_type="multi-hop")
    same = with_fields(
        qline("q2", [loc("faq.md", "Because offsets break"), loc("faq.md", "text above them")], hop="multi"),
        query_type="multi-hop",
    )
    two = with_fields(
        qline(
            "q3",
            [loc("faq.md", "How are answers graded?"), loc("guide.md", "depends on the chunk boundaries")],
            hop="multi",
        ),
        query_type="multi-hop",
    )
    _, analysis = analyze_lines(tmp_path, DOCS, [one, same, two])
    assert [
        (d.range.line, cols([one, same][d.range.line], d)) for d in found(analysis, "multi-hop-single-span")
    ] == [(0, '"multi-hop"'), (1, '"multi-hop"')]


def test_unknown_query_type_against_the_default_vocabulary(tmp_path):
    lines = [
        with_fields(qline("q1", [loc("faq.md", "offsets break whenever")]), query_type="factoid"),
        with_fields(qline("q2", [loc("faq.md", "How are answers graded?")]), query_type="procedural"),
    ]
    _, analysis = analyze_lines(tmp_path, DOCS, lines)
    (d,) = found(analysis, "unknown-query-type")
    assert d.range.line == 0 and cols(lines[0], d) == '"factoid"' and "multi-hop" in d.message


def project_with(root, lines, config=""):
    from core_support import make_project

    make_project(root, lines=lines, config='corpus = "corpus"\n' + config)
    return root


def test_vocabulary_and_required_types_come_from_the_config(tmp_path):
    from golden_lsp.core.goldenset.config import load_config
    from golden_lsp.core.goldenset.project import GoldenSet

    lines = [
        with_fields(qline("q1", [loc("faq.md", "offsets break whenever")]), query_type="factoid"),
        with_fields(qline("q2", [loc("faq.md", "How are answers graded?")]), query_type="factual"),
    ]
    root = project_with(
        tmp_path / "p", lines, 'query_types = ["factoid", "why"]\nrequired_query_types = ["why"]\n'
    )
    analysis = GoldenSet(load_config(root / "golden-lsp.toml")).check()
    assert [(d.range.line, cols(lines[1], d)) for d in found(analysis, "unknown-query-type")] == [
        (1, '"factual"')
    ]
    (missing,) = found(analysis, "query-type-missing")
    assert missing.severity.value == "warning" and "'why'" in missing.message
    # on the config, at the line of the key it is about
    config = (root / "golden-lsp.toml").read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(config) if line.startswith("required_query_types"))
    assert missing.path == root / "golden-lsp.toml" and missing.range.line == at


def test_split_leak_same_query_or_overlapping_spans_across_dev_and_test(tmp_path):
    lines = [
        with_fields(qline("q1", [loc("faq.md", "offsets break whenever")], query="Why quote?"), split="dev"),
        with_fields(
            qline("q2", [loc("faq.md", "How are answers graded?")], query="  why   QUOTE? "), split="test"
        ),
        with_fields(qline("q3", [loc("guide.md", "depends on the chunk boundaries")]), split="dev"),
        # the same paragraph as q3, so the spans overlap
        with_fields(qline("q4", [loc("guide.md", "A second sentence of the same paragraph")]), split="test"),
        # canary records never leak (q5 overlaps q3 and q4); q6 leaks with q2, not with q1 (both dev)
        with_fields(qline("q5", [loc("guide.md", "keeps the block together")]), split="canary"),
        with_fields(qline("q6", [loc("faq.md", "text above them changes")], query="Why quote?"), split="dev"),
        qline("q7", [loc("guide.md", "keeps the block together")]),
    ]
    _, analysis = analyze_lines(tmp_path, DOCS, lines)
    leaks = found(analysis, "split-leak")
    assert [(d.range.line, cols(lines[d.range.line], d)) for d in leaks] == [
        (1, '"q2"'),
        (3, '"q4"'),
        (5, '"q6"'),
    ]
    assert "the same query" in leaks[0].message and "overlapping spans in guide.md" in leaks[1].message
    assert [[r.range.line for r in d.related] for d in leaks] == [[0], [2], [1]]
    assert all(d.severity.value == "warning" for d in leaks)


# --- severities per set ---------------------------------------------------------------------

SMALL = [
    qline("q1", [loc("faq.md", "offsets break whenever")], hop="multi"),
    with_fields(qline("q2", [loc("guide.md", "depends on the chunk boundaries")]), query_type="factoid"),
]


def test_the_severity_table_changes_and_silences_codes(tmp_path, cli):
    root = project_with(
        tmp_path / "p",
        SMALL,
        '[severity]\ntoo-few-records = "off"\nhop-mismatch = "info"\nunknown-query-type = "warning"\n',
    )
    proc = cli(["check", "--format", "json", root])
    findings = {f["code"]: f["severity"] for f in json.loads(proc.stdout)}
    assert proc.returncode == 0, proc.stderr
    assert findings == {"hop-mismatch": "info", "unknown-query-type": "warning"}
    text = cli(["check", root]).stdout
    assert "info[hop-mismatch]" in text and "warning[unknown-query-type]" in text
    assert cli(["build", "--config", root / "golden-lsp.toml"]).returncode == 0


def test_select_and_ignore_on_the_command_line(tmp_path, cli):
    root = project_with(tmp_path / "p", SMALL)
    base = cli(["check", "--format", "json", root])
    assert base.returncode == 1 and {"too-few-records", "hop-mismatch", "unknown-query-type"} <= {
        f["code"] for f in json.loads(base.stdout)
    }
    picked = cli(["check", "--format", "json", "--select", "hop-mismatch,unknown-query-type", root])
    assert sorted(f["code"] for f in json.loads(picked.stdout)) == ["hop-mismatch", "unknown-query-type"]
    quiet = cli(["check", "--format", "json", "--ignore", "unknown-query-type,too-few-records", root])
    assert quiet.returncode == 0
    assert {f["code"] for f in json.loads(quiet.stdout)} == {"hop-mismatch"}


@pytest.mark.parametrize(
    "args, config, reason",
    [
        (["--ignore", "quote-not-found"], "", "always reported"),
        (["--select", "no-such-code"], "", "unknown code 'no-such-code'"),
        ([], '[severity]\nquote-ambiguous = "warning"\n', "always an error"),
        ([], '[severity]\nhop-mismatch = "loud"\n', "must be one of error, warning, info, off"),
        (
            [],
            '[severity]\nhop-mismach = "off"\n',
            "unknown code 'hop-mismach' (did you mean 'hop-mismatch'?)",
        ),
        ([], 'required_query_types = ["why"]\n', "required_query_types why not in query_types"),
    ],
)
def test_bad_severity_or_vocabulary_settings_exit_2_with_the_reason(tmp_path, cli, args, config, reason):
    root = project_with(tmp_path / "p", SMALL, config)
    proc = cli(["check", *args, root])
    assert proc.returncode == 2 and reason in proc.stderr and proc.stdout == ""


def test_split_leak_sees_keys_written_with_escapes(tmp_path):
    lines = [
        with_fields(qline("q1", [loc("faq.md", "offsets break whenever")], query="Why quote?"), split="dev"),
        with_fields(
            qline("q2", [loc("faq.md", "How are answers graded?")], query="why quote?"), split="test"
        ),
    ]
    lines = [line.replace('"split"', '"\\u0073plit"') for line in lines]
    _, analysis = analyze_lines(tmp_path, DOCS, lines)
    assert [d.range.line for d in found(analysis, "split-leak")] == [1]


def test_pyproject_severity_table_and_vocabulary(tmp_path):
    from core_support import make_project

    from golden_lsp.core.goldenset.config import config_for
    from golden_lsp.core.goldenset.project import GoldenSet

    root = make_project(tmp_path / "p", lines=SMALL, config=None)
    (root / "pyproject.toml").write_text(
        '[tool.golden-lsp]\ncorpus = "corpus"\nquery_types = ["factoid"]\n'
        '[tool.golden-lsp.severity]\ntoo-few-records = "off"\n'
        'hop-mismatch = "info"\n',
        encoding="utf-8",
    )
    analysis = GoldenSet(config_for(root / "questions.jsonl")).check()
    # factoid is in this set's vocabulary; too-few-records is off, hop-mismatch an info
    assert [(d.code, d.severity.value) for d in analysis.diagnostics] == [("hop-mismatch", "info")]
    assert not analysis.has_errors
