"""Hypothesis fuzzing of the core: the questions parser and the analyzer (seeded, bounded).

Whatever a questions file holds — broken JSON, wrong types, odd line breaks, surrogates, quotes
cut anywhere out of the corpus — the core must never raise (nor fall back to its per-line crash
guard, which would hide a bug as an ``invalid-json``), must place every finding inside the
document (an existing line, columns within it, related corpus ranges inside the corpus file), and
must be a function of the text: analysing, editing and restoring the text gives the first
findings again. ``derandomize`` fixes the seed and ``max_examples`` bounds the time, so this runs
in the normal ``pytest`` run and in ``.ci/run``.
"""

from __future__ import annotations

import json

import pytest
from core_support import SAMPLE_DOCS, write_docs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from golden_lsp.core.corpus.index import load_corpus
from golden_lsp.core.engine.analysis import Analyzer
from golden_lsp.core.goldenset.artifact import artifact_text
from golden_lsp.core.labels.jsonline import split_lines
from golden_lsp.core.labels.questions import parse_record
from golden_lsp.core.labels.scoring import parse_hit_rule

FUZZ = settings(
    derandomize=True,
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: corpus documents with the awkward parts: CRLF, a BOM, NFD, non-BMP characters, a lone CR
DOCS = {
    **SAMPLE_DOCS,
    "odd.md": "\ufeff# Odd\r\n\r\nCafe\u0301 \U0001f3d4\ufe0f peaks\r\nand a line\rwith a lone CR.\r\n\r\n"
    "| a | b |\r\n|---|---|\r\n| x\u2028y | \U0001f600 |\r\n",
}
CRASH = "cannot analyse this line"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = write_docs(tmp_path_factory.mktemp("fuzz") / "corpus", DOCS)
    return load_corpus(root, "*.md", 1800)


def quotes(corpus_texts: list[str]) -> st.SearchStrategy[str]:
    """Quotes cut anywhere out of the canonical documents, or made up."""
    cut = st.sampled_from(corpus_texts).flatmap(
        lambda t: st.tuples(st.integers(0, len(t)), st.integers(0, 80)).map(lambda p: t[p[0] : p[0] + p[1]])
    )
    return st.one_of(cut, st.text(max_size=30))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def records(corpus_texts: list[str], doc_ids: list[str]) -> st.SearchStrategy[str]:
    locator = st.fixed_dictionaries(
        {
            "doc": st.sampled_from(doc_ids + ["missing.md"]) | json_values,
            "quote": quotes(corpus_texts) | json_values,
        },
        optional={"exact": st.booleans() | json_values},
    )
    record = st.fixed_dictionaries(
        {
            "id": st.text(max_size=6) | json_values,
            "query": st.text(max_size=20),
            "expected_answer": st.text(max_size=40),
            "locators": st.lists(locator, max_size=3) | json_values,
        },
        optional={
            "hop": st.sampled_from(["single", "multi", "triple"]) | json_values,
            "tags": st.lists(st.text(max_size=5), max_size=2) | json_values,
            "split": st.sampled_from(["dev", "test", "canary", "x"]),
            "colour": json_values,
        },
    )
    return st.one_of(
        record.map(lambda r: json.dumps(r, ensure_ascii=False)),
        record.map(lambda r: json.dumps(r)),  # \\u escapes, surrogate pairs
        json_values.map(json.dumps),
        st.text(max_size=60),  # anything at all: broken JSON, line-break characters, comments
        record.map(lambda r: json.dumps(r, ensure_ascii=False)).flatmap(  # a record cut short
            lambda s: st.integers(0, len(s)).map(lambda n: s[:n])
        ),
    )


def files(corpus) -> st.SearchStrategy[str]:
    texts = [d.text for d in corpus.docs.values()]
    line = records(texts, list(corpus.docs))
    return st.tuples(st.lists(line, max_size=6), st.sampled_from(["\n", "\r\n", "\r"]), st.booleans()).map(
        lambda t: t[1].join(t[0]) + (t[1] if t[2] else "")
    )


def assert_inside(analysis, text: str, corpus) -> None:
    lines = split_lines(text)
    for d in analysis.diagnostics:
        assert CRASH not in d.message, d.message
        if d.path == analysis.path:
            r = d.range
            assert 0 <= r.line <= r.end_line < len(lines), (d, len(lines))
            assert 0 <= r.column <= len(lines[r.line]) and 0 <= r.end_column <= len(lines[r.end_line]), (
                d,
                lines,
            )
            assert (r.line, r.column) <= (r.end_line, r.end_column), d
        for rel in d.related:
            if rel.doc_id is None:
                continue
            raw = corpus.docs[rel.doc_id].path.read_bytes().decode("utf-8-sig")
            raw_lines = raw.replace("\r\n", "\n").split("\n")  # the lines an editor shows (CR-LF ends)
            r = rel.range
            assert 0 <= r.line <= r.end_line < len(raw_lines), (rel, len(raw_lines))


@st.composite
def file_and_edit(draw, corpus):
    text = draw(files(corpus))
    at = draw(st.integers(0, len(text)))
    cut = draw(st.integers(0, 20))
    insert = draw(st.text(max_size=10) | st.sampled_from(['"', "{", "}", "\n", "\r", "\\", ","]))
    return text, text[:at] + insert + text[at + cut :]


@FUZZ
@given(data=st.data())
def test_the_parser_never_raises_and_keeps_its_ranges_inside_the_line(corpus, data):
    line = data.draw(records([d.text for d in corpus.docs.values()], list(corpus.docs)))
    for one in split_lines(line):
        record, diags = parse_record(one)
        for d in diags:
            assert 0 <= d.range.column <= d.range.end_column <= len(one), (d, one)
        if record is not None:
            for loc in record.locators:
                for node in (loc.doc_node, loc.quote_node):
                    if node is not None:
                        assert 0 <= node.start <= node.end <= len(one), (node, one)


@FUZZ
@given(data=st.data())
def test_the_analyzer_never_raises_places_findings_inside_and_is_a_function_of_the_text(corpus, data):
    text, edited = data.draw(file_and_edit(corpus))
    analyzer = Analyzer(corpus, parse_hit_rule("any_overlap"))
    path = corpus.root.parent / "questions.jsonl"  # analysed from the text: never read
    first = analyzer.analyze(path, text)
    assert_inside(first, text, corpus)
    after_edit = analyzer.analyze(path, edited)
    assert_inside(after_edit, edited, corpus)
    again = analyzer.analyze(path, text)
    assert again.diagnostics == first.diagnostics
    assert artifact_text(again) == artifact_text(first)
    fresh = Analyzer(corpus, parse_hit_rule("any_overlap")).analyze(path, text)  # no cache at all
    assert fresh.diagnostics == first.diagnostics
