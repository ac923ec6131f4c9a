"""The questions file (SPEC §3): positions of every value, per-line errors, field validation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from core_support import FAQ, GUIDE, analyze_lines, codes, loc, only, qline

from golden_lsp.core.findings.diagnostics import Diagnostic, Range
from golden_lsp.core.goldenset.artifact import artifact_text
from golden_lsp.core.goldenset.config import load_config
from golden_lsp.core.goldenset.project import GoldenSet
from golden_lsp.core.labels.jsonline import MAX_DEPTH, is_skipped, parse_json_line, split_lines
from golden_lsp.core.labels.questions import parse_record

DOCS = {"guide.md": GUIDE, "faq.md": FAQ}


# --- source positions -----------------------------------------------------------------------


def test_quote_range_through_json_escapes_and_non_bmp():
    # written by hand so the escapes are in the source text: \" \u00e9 \n \ud83d\ude00 and a raw 😀
    line = (
        '{"id": "q\\u00e9", "query": "Why \\"this\\"? \U0001f600", "expected_answer": "An answer \U0001f600 here.", '
        '"locators": [{"doc": "d.md", "quote": "caf\\u00e9 \\"and\\" \U0001f600 \\ud83d\\ude00\\n end"}]}'
    )
    rec, diags = parse_record(line)
    assert diags == []
    assert rec.id == "q\u00e9"
    assert rec.query == 'Why "this"? \U0001f600'
    (locator,) = rec.locators
    assert locator.quote == 'caf\u00e9 "and" \U0001f600 \U0001f600\n end'
    literal = '"caf\\u00e9 \\"and\\" \U0001f600 \\ud83d\\ude00\\n end"'
    start = line.index(literal)
    # columns are code points: the emoji earlier on the line counts as one
    assert (locator.quote_node.start, locator.quote_node.end) == (start, start + len(literal))
    assert line[locator.doc_node.start : locator.doc_node.end] == '"d.md"'
    s, e = rec.field_range("query")
    assert line[s:e] == '"Why \\"this\\"? \U0001f600"'
    key_node = rec.node.members["id"][0]
    assert line[key_node.start : key_node.end] == '"id"'


def test_positions_with_odd_whitespace_and_nested_values():
    line = '  {  "id" :"x" ,\t"locators":[ {"quote":"a\\\\b","doc":"d"} ] , "tags" : [ "t1" , "t2" ] }  '
    node = parse_json_line(line)
    loc_node = node.members["locators"][1].items[0]
    quote = loc_node.members["quote"][1]
    assert line[quote.start : quote.end] == '"a\\\\b"' and quote.value == "a\\b"
    tags = node.members["tags"][1]
    assert [line[i.start : i.end] for i in tags.items] == ['"t1"', '"t2"']
    assert line[node.start : node.end] == line.strip()


def test_parser_accepts_exactly_json():
    for bad in ('{"a": 1,}', "{'a': 1}", '{"a": 1} x', '{"a": tru}'):
        with pytest.raises(json.JSONDecodeError):
            parse_json_line(bad)
    node = parse_json_line('{"n": -1.5e3, "b": false, "z": null, "l": [], "o": {}}')
    assert node.value == {"n": -1500.0, "b": False, "z": None, "l": [], "o": {}}


def test_a_finding_in_a_line_is_placed_later():
    d = Diagnostic.at_columns("wrong-type", "message", 3, 7, (), doc_id="d.md")
    assert (d.range, d.data, d.related) == (Range(0, 3, 0, 7), {"doc_id": "d.md"}, ())
    assert d.moved_to(5, Path("q.jsonl")).range == Range(5, 3, 5, 7)


def test_quote_diagnostic_range_is_the_quote_string(tmp_path):
    line = qline(
        "q\U0001f600", [loc("faq.md", 'caf\u00e9 "not" here\nat all')], query="Emoji \U0001f600 query?"
    )
    _, analysis = analyze_lines(tmp_path, DOCS, ["// comment", "", line])
    d = only(analysis, "quote-not-found")
    literal = json.dumps('caf\u00e9 "not" here\nat all', ensure_ascii=False)
    assert (d.range.line, d.range.column, d.range.end_column) == (
        2,
        line.index(literal),
        line.index(literal) + len(literal),
    )


def test_lone_surrogate_escape_is_invalid_json():
    # json.loads accepts it, but no UTF-8 artifact could hold it: an error, never a crash later
    line = r'{"id": "q1", "query": "bad \udc00 here?", "expected_answer": "An answer long enough.", "locators": []}'
    rec, diags = parse_record(line)
    assert rec is None and [d.code for d in diags] == ["invalid-json"]
    assert line[diags[0].range.column : diags[0].range.end_column] == r'"bad \udc00 here?"'
    rec, diags = parse_record(line.replace(r"\udc00", r"\ud83d\ude00"))  # a proper pair is fine
    assert diags == [] and rec.query == "bad \U0001f600 here?"


# --- per-line independence ------------------------------------------------------------------


def test_invalid_json_line_does_not_hide_other_findings(tmp_path):
    lines = [
        qline("q1", [loc("faq.md", "no such words in the faq")]),
        '{"id": "q2", "query": broken, "x": 1}  ',
        qline("q3", [loc("nope.md", "x")]),
        "[1, 2]",
        qline("q4", [loc("faq.md", "offsets break whenever")]),
    ]
    _, analysis = analyze_lines(tmp_path, DOCS, lines)
    found = [(d.range.line, d.code) for d in analysis.diagnostics if d.severity.value == "error"]
    assert found == [(0, "quote-not-found"), (1, "invalid-json"), (2, "unknown-doc"), (3, "not-an-object")]
    bad = only(analysis, "invalid-json")
    # from where the decoder stopped to the end of the line's text
    assert (bad.range.column, bad.range.end_column) == (lines[1].index("broken"), len(lines[1].rstrip()))
    assert f"(column {lines[1].index('broken') + 1})" in bad.message
    # the good record still resolves
    assert analysis.record_at(4).result.resolved[0].span is not None


def test_comments_and_blank_lines_are_skipped(tmp_path):
    assert is_skipped("") and is_skipped("   \t") and is_skipped("// note") and is_skipped("   // indented")
    assert not is_skipped('{"id": 1}') and not is_skipped("/ not a comment")
    lines = ["// header", "", "   ", "  // another", qline("q1", [loc("faq.md", "offsets break whenever")])]
    _, analysis = analyze_lines(tmp_path, DOCS, lines)
    assert [r.line for r in analysis.records] == [4]
    assert "invalid-json" not in codes(analysis)


def test_lines_end_at_newline_crlf_and_lone_cr_only():
    # SPEC §3: \n, \r\n and a lone \r end a line (as LSP clients count); other breaks do not
    assert split_lines("a\u2028b\nc\r\nd\re\x85f\fg\v\x1ch") == ["a\u2028b", "c", "d", "e\x85f\fg\v\x1ch"]
    assert split_lines("x\r\r\ny\n") == ["x", "", "y", ""]


def test_raw_line_separator_inside_a_string_stays_on_its_line(tmp_path):
    first = qline("q1", [loc("faq.md", "offsets break whenever")], query="A query\u2028with a raw separator?")
    second = qline("q2", [loc("faq.md", "missing words entirely")])
    _, analysis = analyze_lines(tmp_path, DOCS, [first, second])
    assert [r.line for r in analysis.records] == [0, 1]
    assert only(analysis, "quote-not-found").range.line == 1


def test_crlf_questions_file_parses(tmp_path):
    line = qline("q1", [loc("faq.md", "offsets break whenever")])
    _, analysis = analyze_lines(tmp_path, DOCS, [line + "\r", line.replace('"q1"', '"q2"') + "\r"])
    assert "invalid-json" not in codes(analysis)
    assert [r.record.id for r in analysis.records] == ["q1", "q2"]


def test_bom_is_dropped_like_editors_do_and_a_further_one_is_a_tolerated_character(project):
    # editors keep one leading BOM out of the buffer: so does reading the file, and columns agree
    line = qline("q1", [loc("faq.md", "offsets break whenever")])
    (project / "questions.jsonl").write_bytes(("\ufeff" + line + "\n").encode("utf-8"))
    golden = GoldenSet(load_config(project / "golden-lsp.toml"))
    assert golden.read_questions() == line + "\n"
    (rec,) = golden.analyze().records
    s, e = rec.record.field_range("id")
    assert line[s:e] == '"q1"'
    # a second BOM is a character the editor shows: tolerated, and counted in the columns
    line = "\ufeff" + line
    rec, diags = parse_record(line)
    assert diags == [] and rec.id == "q1"
    s, e = rec.field_range("id")
    assert line[s:e] == '"q1"'


def test_json_the_decoder_rejects_without_a_position_is_an_invalid_json_finding():
    huge = '{"id": ' + "1" * 5000 + "}"  # int() refuses more than 4300 digits: a ValueError
    (d,) = parse_record(huge)[1]
    assert d.code == "invalid-json" and "4300 digits" in d.message and "sys." not in d.message
    assert (d.range.column, d.range.end_column) == (0, len(huge))
    deep = "[" * 100_000 + "]" * 100_000  # too deep for the decoder: a RecursionError
    (d,) = parse_record(deep)[1]
    assert d.code == "invalid-json" and "recursion" in d.message
    assert (d.range.column, d.range.end_column) == (0, len(deep))


def test_the_position_walker_stops_at_max_depth():
    ok = '{"a": ' + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "}"
    assert "invalid-json" not in [d.code for d in parse_record(ok)[1]]
    line = '{"a": ' + "[" * 150 + "]" * 150 + "}"  # valid JSON, deeper than the walker follows
    (d,) = parse_record(line)[1]
    column = len('{"a": ') + MAX_DEPTH - 1  # the array at depth MAX_DEPTH (the object is depth 0)
    assert d.code == "invalid-json" and f"nested deeper than {MAX_DEPTH} levels" in d.message
    assert (d.range.column, d.range.end_column) == (column, len(line))


def test_lines_the_decoder_rejects_never_hide_the_other_lines(tmp_path):
    lines = [
        qline("q1", [loc("faq.md", "no such words in the faq")]),
        '{"id": ' + "9" * 5000 + "}",
        "[" * 100_000 + "]" * 100_000,
        '{"a": ' + "[" * 500 + "]" * 500 + "}",
        qline("q2", [loc("nope.md", "x")]),
    ]
    _, analysis = analyze_lines(tmp_path, DOCS, lines)
    found = [(d.range.line, d.code) for d in analysis.diagnostics if d.severity.value == "error"]
    assert found == [
        (0, "quote-not-found"),
        (1, "invalid-json"),
        (2, "invalid-json"),
        (3, "invalid-json"),
        (4, "unknown-doc"),
    ]


# --- field validation -----------------------------------------------------------------------


def _record(**fields) -> str:
    base = {
        "id": "q1",
        "query": "A query?",
        "expected_answer": "An answer long enough.",
        "locators": [{"doc": "d.md", "quote": "x"}],
    }
    base.update(fields)
    return json.dumps({k: v for k, v in base.items() if v is not ...})


@pytest.mark.parametrize("name", ["id", "query", "expected_answer", "locators"])
def test_missing_required_field(name):
    rec, diags = parse_record(_record(**{name: ...}))
    assert [d.code for d in diags] == ["missing-field"]
    assert name in diags[0].message and not rec.valid


@pytest.mark.parametrize(
    "fields, value_text",
    [
        ({"id": 7}, "7"),
        ({"id": ""}, '""'),
        ({"query": ["a"]}, '["a"]'),
        ({"hop": "double"}, '"double"'),
        ({"tags": "x"}, '"x"'),
        ({"tags": ["a", 1]}, '["a", 1]'),
        ({"locators": {"doc": "d.md"}}, '{"doc": "d.md"}'),
    ],
)
def test_wrong_type_is_located_at_the_value(fields, value_text):
    line = _record(**fields)
    rec, diags = parse_record(line)
    assert [d.code for d in diags] == ["wrong-type"]
    d = diags[0]
    assert line[d.range.column : d.range.end_column] == value_text
    assert not rec.valid


@pytest.mark.parametrize(
    "locator, value_text",
    [
        ({"doc": "d.md", "quote": "x", "exact": "yes"}, '"yes"'),
        ({"doc": "d.md", "quote": 3}, "3"),
        ({"doc": None, "quote": "x"}, "null"),
    ],
)
def test_wrong_type_in_locator(locator, value_text):
    line = _record(locators=[locator])
    rec, diags = parse_record(line)
    assert [d.code for d in diags] == ["wrong-type"]
    assert line[diags[0].range.column : diags[0].range.end_column] == value_text
    assert not rec.valid


def test_locator_missing_quote_and_non_object_locator():
    rec, diags = parse_record(_record(locators=[{"doc": "d.md"}, "just a string"]))
    assert sorted(d.code for d in diags) == ["missing-field", "wrong-type"]
    assert not rec.valid


def test_unknown_fields_are_warnings_at_the_key():
    line = _record(note="hi", locators=[{"doc": "d.md", "quote": "x", "page": 3}])
    rec, diags = parse_record(line)
    assert [(d.code, line[d.range.column : d.range.end_column]) for d in diags] == [
        ("unknown-field", '"note"'),
        ("unknown-field", '"page"'),
    ]
    assert all(d.severity.value == "warning" for d in diags)
    assert rec.valid


def test_defaults_and_values():
    rec, diags = parse_record(_record())
    assert diags == [] and rec.hop == "single" and rec.tags == [] and rec.locators[0].exact is False
    rec, _ = parse_record(
        _record(hop="multi", tags=["b", "a"], locators=[{"doc": "d", "quote": "q", "exact": True}])
    )
    assert rec.hop == "multi" and rec.tags == ["b", "a"] and rec.locators[0].exact is True


def test_duplicate_id_is_an_error_and_duplicate_query_a_warning(tmp_path):
    lines = [
        "// header",
        qline("q1", [loc("faq.md", "offsets break whenever")], query="Same query?"),
        qline("q2", [loc("faq.md", "How are answers graded?")]),
        qline("q1", [loc("guide.md", "depends on the chunk boundaries")]),
        qline("q3", [loc("guide.md", "the largest chunk the packer emits")], query="Same query?"),
    ]
    path = tmp_path / "questions.jsonl"
    _, analysis = analyze_lines(tmp_path, DOCS, lines)
    dup = only(analysis, "duplicate-id")
    assert dup.severity.value == "error" and dup.range.line == 3
    assert lines[3][dup.range.column : dup.range.end_column] == '"q1"'
    (rel,) = dup.related
    assert rel.path == path and rel.range.line == 1
    assert lines[1][rel.range.column : rel.range.end_column] == '"q1"'
    assert "line 2" in dup.message
    dq = only(analysis, "duplicate-query")
    assert dq.severity.value == "warning" and dq.range.line == 4
    assert dq.related[0].range.line == 1
    assert lines[1][dq.related[0].range.column : dq.related[0].range.end_column] == '"Same query?"'
    assert artifact_text(analysis) is None  # the duplicate id blocks the build


# --- line ends, stripping and what golden-lsp refuses (SPEC §3) ------------------------------


def test_a_lone_cr_ends_a_record_line(tmp_path):
    first = qline("q1", [loc("faq.md", "offsets break whenever")])
    second = qline("q2", [loc("faq.md", "missing words entirely")])
    _, analysis = analyze_lines(tmp_path, DOCS, [first + "\r" + second])
    assert [(r.line, r.record.id) for r in analysis.records] == [(0, "q1"), (1, "q2")]
    assert only(analysis, "quote-not-found").range.line == 1


@pytest.mark.parametrize("pad", [" \t", "\u00a0", "\u3000", "\u2028", "\x1c\f"])
def test_each_line_is_stripped_before_it_is_parsed(pad):
    line = pad + qline("q1", [loc("faq.md", "offsets break whenever")]) + pad
    rec, diags = parse_record(line)
    assert diags == [] and rec.id == "q1"
    s, e = rec.field_range("id")
    assert line[s:e] == '"q1"'  # columns still count the stripped characters
    assert is_skipped(pad + "// a comment" + pad)


@pytest.mark.parametrize("brk", ["\u2028", "\u2029", "\x85", "\f", "\v", "\x1c", "\x1d", "\x1e"])
def test_two_records_separated_by_another_break_are_refused_with_advice(brk):
    first = qline("q1", [loc("faq.md", "offsets break whenever")])
    line = first + brk + qline("q2", [loc("faq.md", "offsets break whenever")])
    record, (d,) = parse_record(line)
    assert record is None and d.code == "invalid-json"
    assert "two records on one line" in d.message and "put each record on its own line" in d.message
    assert d.range.column == len(first) and f"(column {len(first) + 1})" in d.message


def test_a_raw_control_break_inside_a_string_says_how_to_escape_it():
    line = '{"id": "q1", "query": "a\fb"}'
    (d,) = parse_record(line)[1]
    assert d.code == "invalid-json" and "form feed" in d.message and "\\u000c" in d.message
    line = '{"id":\u2028 "q1"}'
    (d,) = parse_record(line)[1]
    assert "U+2028 LINE SEPARATOR is not white space in JSON" in d.message and "\\u2028" in d.message
    assert d.range.column == line.index("\u2028")


@pytest.mark.parametrize("line", ['{"id": "q1",', '{"id": "q1"', '{"id": "q1", "query": tru', '   {"id": '])
def test_an_invalid_json_range_ends_within_its_line(line):
    (d,) = parse_record(line)[1]
    assert d.code == "invalid-json"
    assert d.range.line == d.range.end_line == 0
    assert d.range.column <= d.range.end_column <= len(line)


def test_duplicate_keys_are_errors_at_the_second_key(tmp_path):
    record = qline("q1", [loc("faq.md", "offsets break whenever")])
    line = record[:-1] + ', "id": "q9"}'
    _, analysis = analyze_lines(tmp_path, DOCS, [line])
    d = only(analysis, "duplicate-key")
    assert d.severity.value == "error" and "'id'" in d.message
    assert line[d.range.column : d.range.end_column] == '"id"' and d.range.column == line.rindex('"id"')
    assert analysis.records[0].record.id == "q9"  # what json keeps, reported rather than silent
    loc_line = record.replace(
        '"quote": "offsets break whenever"',
        '"quote": "offsets break whenever", "doc": "faq.md", "quote": "x"',
    )
    _, analysis = analyze_lines(tmp_path, DOCS, [loc_line])
    found = [d for d in analysis.diagnostics if d.code == "duplicate-key"]
    assert [loc_line[d.range.column : d.range.end_column] for d in found] == ['"doc"', '"quote"']
    assert all("locator" in d.message for d in found)
    assert artifact_text(analysis) is None
