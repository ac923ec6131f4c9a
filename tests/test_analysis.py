"""The analysis of a questions file: artifact lines (SPEC §6), shape rules (SPEC §7), caching."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest
from core_support import FAQ, GUIDE, SAMPLE_DOCS, SAMPLE_LINES, analyze_lines, codes, loc, only, qline

from golden_lsp.core.corpus.index import load_corpus
from golden_lsp.core.engine.analysis import Analysis, Analyzer
from golden_lsp.core.findings.diagnostics import FINDINGS, Severity
from golden_lsp.core.goldenset.artifact import artifact_text
from golden_lsp.core.labels.scoring import parse_hit_rule
from golden_lsp.core.text.chunker import chunk_document


def warnings_of(analysis) -> list[str]:
    return sorted(d.code for d in analysis.diagnostics if d.severity.value == "warning")


# --- artifact lines -------------------------------------------------------------------------


def test_artifact_records_follow_the_spec(tmp_path):
    corpus, analysis = analyze_lines(tmp_path, SAMPLE_DOCS, SAMPLE_LINES)
    assert not analysis.has_errors
    body = artifact_text(analysis)
    lines = body.splitlines(keepends=True)
    assert len(lines) == 7 and all(line.endswith("\n") for line in lines)
    records = [json.loads(line) for line in lines]
    for line, rec in zip(lines, records):
        assert line == json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n"
        assert rec["chunker_version"] == "md-struct-v1" and rec["canonical_version"] == "canon-v1"
        assert rec["answer_bearing_chunk_ids"] == sorted(set(rec["answer_bearing_chunk_ids"]))
    assert [r["query_id"] for r in records] == ["q1", "q2", "q3", "q4", "q5", "q6", "q7"]
    assert records[1]["tags"] == ["table", "b"]  # the author's order
    assert records[2]["tags"] == [] and records[0]["hop"] == "single" and records[4]["hop"] == "multi"
    guide = corpus.docs["guide.md"].text
    q2 = records[1]["answer_spans"][0]
    assert q2["doc_id"] == "guide.md"
    assert (
        guide[q2["char_start"] : q2["char_end"]]
        == "| max_chars | 1800 | the largest chunk the packer emits |\n"
    )
    # multi-hop: one span per locator, in locator order
    assert [s["doc_id"] for s in records[4]["answer_spans"]] == ["guide.md", "faq.md"]
    assert records[4]["span_union_coverage"] == [1.0, 1.0]
    # chunk ids are those of the chunks overlapping the span
    chunks = {c.chunk_id: c for c in chunk_document("guide.md", guide)}
    for cid in records[1]["answer_bearing_chunk_ids"]:
        c = chunks[cid]
        assert c.start < q2["char_end"] and q2["char_start"] < c.end


def test_non_ascii_is_written_as_is(tmp_path):
    doc = "# Café\n\nLe café crème est servi très chaud, avec « guillemets » et 😀.\n"
    line = qline(
        "q-é",
        [loc("café.md", "servi très chaud")],
        query="Comment est servi le café ?",
        answer="Très chaud, avec des guillemets.",
        tags=["français"],
    )
    _, analysis = analyze_lines(tmp_path, {"café.md": doc}, [line])
    body = artifact_text(analysis)
    assert "café ?" in body and "français" in body and "q-é" in body and "\\u" not in body
    rec = json.loads(body)
    assert rec["answer_spans"][0]["doc_id"] == "café.md" and rec["tags"] == ["français"]


def test_span_over_two_chunks_bears_both_sorted(tmp_path):
    doc = "# S\n" + "".join(f"- item {i} of a long list that will be split\n" for i in range(6))
    line = qline("q1", [loc("d.md", "item 2 of a long list")], answer="An answer long enough here.")
    # each item is its own line in one block; the list item span is one line → one chunk
    _, analysis = analyze_lines(tmp_path, {"d.md": doc}, [line], max_chars=100)
    rec = json.loads(artifact_text(analysis))
    assert len(rec["answer_bearing_chunk_ids"]) == 1
    # a paragraph span across a hard split bears every piece
    para = "# S\n\n" + "".join(f"sentence {i} of one long paragraph goes here\n" for i in range(6))
    chunks = chunk_document("p.md", para, 100)
    assert len(chunks) > 1
    line = qline("q2", [loc("p.md", "sentence 0 of one")])
    _, analysis = analyze_lines(tmp_path / "p", {"p.md": para}, [line], max_chars=100)
    rec = json.loads(artifact_text(analysis))
    assert rec["answer_bearing_chunk_ids"] == sorted(c.chunk_id for c in chunks)
    assert rec["span_union_coverage"] == [1.0]


def test_hit_rule_chooses_bearing_chunks(tmp_path):
    # three 43-char lines, max_chars 100: the paragraph splits 2 lines + 1 line (2/3 and 1/3)
    para = "# S\n\n" + "".join(f"sentence {i} of one long paragraph goes here\n" for i in range(3))
    line = qline("q1", [loc("p.md", "sentence 0 of one")])
    _, analysis = analyze_lines(tmp_path, {"p.md": para}, [line], hit_rule="span_containment", max_chars=100)
    d = only(analysis, "no-bearing-chunk")
    assert "span_containment" in d.message and artifact_text(analysis) is None
    _, analysis = analyze_lines(tmp_path, {"p.md": para}, [line], hit_rule="coverage>=0.5", max_chars=100)
    rec = json.loads(artifact_text(analysis))
    assert len(rec["answer_bearing_chunk_ids"]) == 1
    assert rec["span_union_coverage"] == [round(86 / 129, 4)]
    _, analysis = analyze_lines(tmp_path, {"p.md": para}, [line], hit_rule="any_overlap", max_chars=100)
    rec = json.loads(artifact_text(analysis))
    assert len(rec["answer_bearing_chunk_ids"]) == 2 and rec["span_union_coverage"] == [1.0]


def test_paragraph_under_a_heading_without_blank_line_includes_the_heading(tmp_path):
    # SPEC §4: the paragraph starts after the last blank line, so it takes the heading line,
    # which is in no chunk: coverage drops below 1 but the span is still borne
    doc = "# S\nBody sentence right under the heading, long enough.\n"
    _, analysis = analyze_lines(
        tmp_path, {"d.md": doc}, [qline("q1", [loc("d.md", "right under the heading")])]
    )
    rec = json.loads(artifact_text(analysis))
    assert rec["answer_spans"][0]["char_start"] == 0
    assert rec["span_union_coverage"] == [round(len(doc[4:]) / len(doc), 4)]


def test_quote_in_a_heading_bears_no_chunk(tmp_path):
    line = qline("q1", [loc("guide.md", "## Tables")])
    _, analysis = analyze_lines(tmp_path, SAMPLE_DOCS, [line])
    only(analysis, "no-bearing-chunk")
    assert artifact_text(analysis) is None


def test_exact_span(tmp_path):
    quote = "Because offsets break whenever the text above them changes."
    _, analysis = analyze_lines(tmp_path, SAMPLE_DOCS, [qline("q1", [loc("faq.md", quote, exact=True)])])
    rec = json.loads(artifact_text(analysis))
    span = rec["answer_spans"][0]
    start = FAQ.index(quote)
    assert (span["char_start"], span["char_end"]) == (start, start + len(quote))


# --- shape rules: warnings that never block the build ---------------------------------------


def test_hop_mismatch(tmp_path):
    lines = [
        qline("q1", [loc("faq.md", "offsets break whenever")], hop="multi"),
        qline(
            "q2",
            [loc("faq.md", "How are answers graded?"), loc("guide.md", "depends on the chunk boundaries")],
        ),
    ]
    _, analysis = analyze_lines(tmp_path, SAMPLE_DOCS, lines)
    found = [d for d in analysis.diagnostics if d.code == "hop-mismatch"]
    assert [(d.range.line, d.severity.value) for d in found] == [(0, "warning"), (1, "warning")]
    assert lines[0][found[0].range.column : found[0].range.end_column] == '"multi"'
    assert lines[1][found[1].range.column : found[1].range.end_column].startswith('[{"doc"')
    assert artifact_text(analysis) is not None


def test_span_too_short_and_answer_too_thin(tmp_path):
    lines = [
        qline("q1", [loc("faq.md", "documentation team", exact=True)]),
        qline("q2", [loc("faq.md", "How are answers graded?")], answer="  Short answer.  "),
    ]
    _, analysis = analyze_lines(tmp_path, SAMPLE_DOCS, lines)
    short = only(analysis, "span-too-short")
    assert (
        short.range.line == 0
        and lines[0][short.range.column : short.range.end_column] == '"documentation team"'
    )
    thin = only(analysis, "answer-too-thin")
    assert (
        thin.range.line == 1 and lines[1][thin.range.column : thin.range.end_column] == '"  Short answer.  "'
    )
    assert not analysis.has_errors and artifact_text(analysis).count("\n") == 2
    # an exact span inside a longer paragraph: probably mis-anchored
    assert (
        "18 characters, under 30, inside a paragraph of 87: the label is probably mis-anchored"
        in short.message
    )


def test_span_too_short_of_a_short_paragraph_says_so_not_mis_anchored(tmp_path):
    docs = {
        "notes.md": "# Notes\n\nKeep it short.\n\nA longer paragraph follows here, about nothing much at all.\n"
    }
    lines = [
        qline("q1", [loc("notes.md", "Keep it")]),  # grows to its paragraph, which is that short
        qline("q2", [loc("notes.md", "Keep it short.", exact=True)]),  # the whole block, quoted exactly
        qline("q3", [loc("notes.md", "A longer paragraph follows")]),
    ]
    _, analysis = analyze_lines(tmp_path, docs, lines)
    found = {d.range.line: d.message for d in analysis.diagnostics if d.code == "span-too-short"}
    assert sorted(found) == [0, 1]  # q3's paragraph is long enough
    assert found[0] == (
        "the resolved span (paragraph) is 14 characters, under 30, and so is its whole paragraph: a label "
        "this short rarely holds an answer (label a longer passage, or quiet span-too-short for such records)"
    )
    assert "and so is its whole block" in found[1]
    assert all("mis-anchored" not in m for m in found.values())


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_query_is_flagged(tmp_path, query):
    lines = [qline("q1", [loc("faq.md", "offsets break whenever")], query=query)]
    _, analysis = analyze_lines(tmp_path, SAMPLE_DOCS, lines)
    empty = only(analysis, "empty-query")
    assert empty.severity.value == "error" and empty.message.startswith("the query is empty")
    assert lines[0][empty.range.column : empty.range.end_column] == json.dumps(query)
    _, fixed = analyze_lines(tmp_path, SAMPLE_DOCS, [qline("q1", [loc("faq.md", "offsets break whenever")])])
    assert "empty-query" not in codes(fixed)


def test_answer_of_exactly_twenty_chars_is_enough(tmp_path):
    _, analysis = analyze_lines(
        tmp_path, SAMPLE_DOCS, [qline("q1", [loc("faq.md", "offsets break whenever")], answer="x" * 20)]
    )
    assert "answer-too-thin" not in codes(analysis)


def test_too_few_records_threshold(tmp_path):
    def lines(n):
        return [
            qline(
                f"q{i}",
                [
                    loc(
                        "guide.md" if i % 2 else "faq.md",
                        "depends on the chunk boundaries" if i % 2 else "offsets break whenever",
                    )
                ],
                query=f"Question number {i}?",
            )
            for i in range(n)
        ]

    _, analysis = analyze_lines(tmp_path, SAMPLE_DOCS, lines(49))
    d = only(analysis, "too-few-records")
    assert "49 records" in d.message and d.severity.value == "warning"
    assert artifact_text(analysis).count("\n") == 49
    _, analysis = analyze_lines(tmp_path, SAMPLE_DOCS, lines(50))
    assert "too-few-records" not in codes(analysis)


def test_doc_dominates_above_sixty_percent(tmp_path):
    g = [
        loc("guide.md", q)
        for q in (
            "depends on the chunk boundaries",
            "the largest chunk the packer emits",
            "A nested item about nested lists",
            "The third item closes the list",
        )
    ]
    f = [loc("faq.md", q) for q in ("offsets break whenever", "How are answers graded?")]
    lines = [qline(f"q{i}", [x], query=f"Q{i}?") for i, x in enumerate(g + f)]
    _, analysis = analyze_lines(tmp_path, SAMPLE_DOCS, lines)  # 4 of 6 = 67%
    d = only(analysis, "doc-dominates")
    assert "guide.md" in d.message and "4 of 6" in d.message and d.severity.value == "warning"
    assert artifact_text(analysis) is not None
    _, analysis = analyze_lines(tmp_path, SAMPLE_DOCS, lines[1:])  # 3 of 5 = 60%: not more than 60%
    assert "doc-dominates" not in codes(analysis)


def test_doc_unlabelled(tmp_path):
    docs = dict(SAMPLE_DOCS, **{"unused.md": "# Unused\n\nNobody quotes this document at all.\n"})
    corpus, analysis = analyze_lines(tmp_path, docs, SAMPLE_LINES)
    d = only(analysis, "doc-unlabelled")
    assert "unused.md" in d.message and d.severity.value == "warning"
    assert d.path == corpus.docs["unused.md"].path and d.range.line == 0  # in the document itself
    assert artifact_text(analysis) is not None


def test_sample_set_has_only_the_size_warning(tmp_path):
    _, analysis = analyze_lines(tmp_path, SAMPLE_DOCS, SAMPLE_LINES)
    assert codes(analysis) == ["too-few-records"]


def test_errors_block_the_artifact_but_every_error_is_reported(tmp_path):
    lines = SAMPLE_LINES + [
        qline("q8", [loc("faq.md", "not in the faq at all")]),
        qline("q9", [loc("ghost.md", "x")]),
        qline("q10", [loc("guide.md", "item")]),
    ]
    _, analysis = analyze_lines(tmp_path, SAMPLE_DOCS, lines)
    errors = [(d.range.line, d.code) for d in analysis.diagnostics if d.severity.value == "error"]
    n = len(SAMPLE_LINES)
    assert errors == [(n, "quote-not-found"), (n + 1, "unknown-doc"), (n + 2, "quote-ambiguous")]
    assert artifact_text(analysis) is None
    assert analysis.counts() == {"records": 10, "errors": 3, "warnings": 1}


# --- caching --------------------------------------------------------------------------------


def test_corpus_edit_re_resolves_only_lines_into_that_doc(tmp_path):
    corpus, _first = analyze_lines(tmp_path, SAMPLE_DOCS, SAMPLE_LINES)
    analyzer = Analyzer(corpus, parse_hit_rule("any_overlap"))
    path = tmp_path / "questions.jsonl"
    text = "\n".join(SAMPLE_LINES) + "\n"
    before = {r.record.id: r.result for r in analyzer.analyze(path, text).records}
    again = {r.record.id: r.result for r in analyzer.analyze(path, text).records}
    assert all(again[k] is before[k] for k in before)

    faq_path = corpus.docs["faq.md"].path
    edited = FAQ.replace("offsets break whenever", "offsets shift whenever")
    analyzer.set_corpus(corpus.with_document(faq_path, edited))
    analysis = analyzer.analyze(path, text)
    after = {r.record.id: r.result for r in analysis.records}
    assert after["q1"] is before["q1"] and after["q2"] is before["q2"]  # guide only
    assert after["q4"] is not before["q4"] and after["q5"] is not before["q5"]
    d = only(analysis, "quote-not-found")
    assert d.range.line == SAMPLE_LINES.index(next(x for x in SAMPLE_LINES if '"q4"' in x))
    # the in-memory result equals a fresh analysis of the edited corpus from disk
    faq_path.write_text(edited, encoding="utf-8")
    fresh = Analyzer(load_corpus(corpus.root), parse_hit_rule("any_overlap")).analyze(path, text)
    assert [(d.code, d.range) for d in fresh.diagnostics] == [(d.code, d.range) for d in analysis.diagnostics]


def test_max_chars_change_invalidates_cache(tmp_path):
    corpus, _ = analyze_lines(tmp_path, {"p.md": GUIDE}, [qline("q1", [loc("p.md", "depends on the chunk")])])
    analyzer = Analyzer(corpus, parse_hit_rule("any_overlap"))
    text = qline("q1", [loc("p.md", "depends on the chunk")]) + "\n"
    big = json.loads(artifact_text(analyzer.analyze(tmp_path / "q", text)))
    analyzer.set_corpus(load_corpus(corpus.root, "*.md", 40))
    small = json.loads(artifact_text(analyzer.analyze(tmp_path / "q", text)))
    assert big["answer_bearing_chunk_ids"] != small["answer_bearing_chunk_ids"]
    assert len(small["answer_bearing_chunk_ids"]) == 2


def test_each_questions_file_keeps_its_own_line_cache(tmp_path):
    corpus, _ = analyze_lines(tmp_path, SAMPLE_DOCS, SAMPLE_LINES)
    analyzer = Analyzer(corpus, parse_hit_rule("any_overlap"))
    a, b = tmp_path / "a.questions.jsonl", tmp_path / "b.questions.jsonl"
    text_a = "\n".join(SAMPLE_LINES[:4]) + "\n"
    text_b = "\n".join(SAMPLE_LINES[4:]) + "\n"
    first = [r.result for r in analyzer.analyze(a, text_a).records]
    analyzer.analyze(b, text_b)
    assert [r.result for r in analyzer.analyze(a, text_a).records] == first
    assert all(x is y for x, y in zip((r.result for r in analyzer.analyze(a, text_a).records), first))


def test_unchanged_corpus_skips_the_document_check_and_placed_findings_are_reused(tmp_path, monkeypatch):
    lines = SAMPLE_LINES + [qline("q8", [loc("faq.md", "not in the faq at all")])]
    corpus, _ = analyze_lines(tmp_path, SAMPLE_DOCS, lines)
    analyzer = Analyzer(corpus, parse_hit_rule("any_overlap"))
    checks = []
    real_fresh = Analyzer._fresh
    monkeypatch.setattr(
        Analyzer, "_fresh", lambda self, result: checks.append(result) or real_fresh(self, result)
    )
    path = tmp_path / "questions.jsonl"
    text = "\n".join(lines) + "\n"
    first = analyzer.analyze(path, text)
    second = analyzer.analyze(path, text)
    assert checks == []
    assert [(d.code, d.range) for d in second.diagnostics] == [(d.code, d.range) for d in first.diagnostics]
    before = only(first, "quote-not-found")
    assert only(second, "quote-not-found") is before  # not re-created: same line, same result
    # a line inserted above moves every finding below it, and only those are re-created
    shifted = analyzer.analyze(path, "// a new comment\n" + text)
    moved = only(shifted, "quote-not-found")
    assert moved is not before and moved.range == before.range.moved_to(before.range.line + 1)
    assert checks == []
    # after a corpus change, exactly the kept lines quoting the changed document are checked, once
    analyzer.set_corpus(corpus.with_document(corpus.docs["faq.md"].path, FAQ + "\nMore text.\n"))
    analyzer.analyze(path, text)
    quoting = {line for line in lines if '"faq.md"' in line}
    assert len(checks) == len(quoting) and 0 < len(quoting) < len(set(lines) - {"", lines[0]})
    assert all("faq.md" in dict(result.deps) for result in checks)
    checks.clear()
    analyzer.analyze(path, text)
    assert checks == []


@pytest.mark.parametrize("many", [False, True], ids=["line by line", "a cold start's batch"])
def test_a_line_that_breaks_the_analyzer_costs_only_that_line(tmp_path, monkeypatch, many):
    import golden_lsp.core.labels.facts as facts_module

    real = facts_module.not_found_hint

    def broken_hint(text, quote):
        if quote == "trigger the bug":
            raise RuntimeError("a bug")
        return real(text, quote)

    monkeypatch.setattr(facts_module, "not_found_hint", broken_hint)
    monkeypatch.setattr("golden_lsp.core.engine.docindex.not_found_hint", broken_hint)
    monkeypatch.setattr(
        "golden_lsp.core.engine.docindex.not_found_hints",
        lambda text, quotes: {q: broken_hint(text, q) for q in quotes},
    )
    lines = [
        qline("q1", [loc("faq.md", "offsets break whenever")]),
        qline("q2", [loc("faq.md", "trigger the bug")]),
        qline("q3", [loc("faq.md", "not in the faq at all")]),
    ]
    # enough more lines quoting the same document that a cold start finds them all in one batch
    extra = [qline(f"x{i}", [loc("faq.md", "offsets break whenever")]) for i in range(10)] if many else []
    _, analysis = analyze_lines(tmp_path, SAMPLE_DOCS, lines + extra)
    errors = [(d.range.line, d.code) for d in analysis.diagnostics if d.severity.value == "error"]
    assert errors[:2] == [(1, "invalid-json"), (2, "quote-not-found")]
    assert {code for _, code in errors[2:]} <= {"duplicate-query"}
    bad = only(analysis, "invalid-json")
    assert bad.message == "cannot analyse this line (RuntimeError: a bug)"
    assert (bad.range.column, bad.range.end_column) == (0, len(lines[1]))
    assert artifact_text(analysis) is None


def test_ambiguous_count_stops_after_the_listed_occurrences(tmp_path):
    doc = "# D\n\n" + "".join(
        f"Sentence {i} says tick, and only the number differs here.\n" for i in range(25)
    )
    _, analysis = analyze_lines(tmp_path, {"d.md": doc}, [qline("q1", [loc("d.md", "tick")])])
    d = only(analysis, "quote-ambiguous")
    assert d.message.startswith(
        "quote occurs more than 20 times in d.md (at 3:17, 4:17, 5:17, 6:17, 7:17, …)"
    )
    assert len(d.related) == 20 and d.related[0].message == "occurrence 1 of more than 20"
    assert len(analysis.records[0].result.resolved[0].ambiguous_at) == 21
    # up to the listed number the count is exact
    doc = "# D\n\n" + "".join(
        f"Sentence {i} says tick, and only the number differs here.\n" for i in range(20)
    )
    _, analysis = analyze_lines(tmp_path / "b", {"d.md": doc}, [qline("q1", [loc("d.md", "tick")])])
    d = only(analysis, "quote-ambiguous")
    assert (
        d.message.startswith("quote occurs 20 times in d.md")
        and d.related[-1].message == "occurrence 20 of 20"
    )


def test_config_error_is_a_declared_error_code():
    assert FINDINGS["config-error"].severity is Severity.ERROR
    assert set(Severity) == {Severity.ERROR, Severity.WARNING, Severity.INFO}  # info: a set's [severity]
    assert {f.name for f in fields(Analysis)} == {
        "path",
        "records",
        "diagnostics",
        "n_records",
        "spans_changed",
    }


def test_a_cold_start_facts_serve_later_edits_until_their_document_changes(tmp_path, monkeypatch):
    quotes = [
        "depends on the chunk boundaries",
        "the largest chunk the packer emits",
        "Retrieval quality",
        "chunk boundaries",
        "indexing time",
        "second sentence",
        "keeps the block",
        "max_chars",
        "any_overlap",
        "nested lists",
    ]
    lines = [qline(f"g{i}", [loc("guide.md", q)]) for i, q in enumerate(quotes)]
    lines.append(qline("f0", [loc("faq.md", "offsets break whenever")]))
    corpus, _ = analyze_lines(tmp_path, SAMPLE_DOCS, lines)
    analyzer = Analyzer(corpus, parse_hit_rule("any_overlap"))
    path = tmp_path / "questions.jsonl"
    cold = analyzer.analyze(path, "\n".join(lines) + "\n")
    computed = []
    import golden_lsp.core.check.rules as rules_module
    import golden_lsp.core.engine.docindex as docindex_module

    real = rules_module.quote_facts
    for where in (rules_module, docindex_module):
        monkeypatch.setattr(
            where,
            "quote_facts",
            lambda text, pos, quote, *a: computed.append(quote) or real(text, pos, quote, *a),
        )

    def edited(i: int) -> str:  # line i with another query: re-analysed, its quote unchanged
        return (
            "\n".join(
                line.replace("What does", "So what does") if n == i else line for n, line in enumerate(lines)
            )
            + "\n"
        )

    again = analyzer.analyze(path, edited(0))
    assert computed == []  # the cold start's facts of "depends on…" served the edited line
    assert [d.code for d in again.diagnostics] == [d.code for d in cold.diagnostics]
    faq = corpus.docs["faq.md"]
    analyzer.set_corpus(corpus.with_document(faq.path, faq.raw + "\nMore text.\n"))
    analyzer.analyze(path, edited(1))
    # guide.md did not change: its facts stay; faq.md did: its quote is found again in the new text
    assert computed == ["offsets break whenever"]
