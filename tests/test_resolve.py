"""Locators → answer spans (SPEC §4) and the help offered when a quote does not resolve."""

from __future__ import annotations

import pytest
from core_support import analyze_lines, loc, only, qline

from golden_lsp.core.engine import textcache
from golden_lsp.core.goldenset.artifact import artifact_text
from golden_lsp.core.labels import quotepick
from golden_lsp.core.labels.hints import not_found_hint
from golden_lsp.core.labels.quotepick import lengthen
from golden_lsp.core.labels.quotepolicy import problems
from golden_lsp.core.labels.resolve import (
    EXACT,
    LIST_ITEM,
    PARAGRAPH,
    TABLE_ROW,
    enclosing_block,
    occurrences,
    span_at,
)

DOC = (
    "Intro paragraph, line one.\n"
    "Intro paragraph, line two.\n"
    "\n"
    "| key | value |\n"
    "|-----|-------|\n"
    "| alpha | first row cell |\n"
    "| beta | second row cell |\n"
    "\n"
    "- item one opens the list\n"
    "  and continues here\n"
    "  - nested a under one\n"
    "  - nested b under one\n"
    "- item two\n"
    "-\n"
    "  bare dash item body\n"
    "1. numbered step\n"
    "\n"
    "- lonely item\n"
    "\n"
    "Closing paragraph without a blank line after it."
)
TEXT = DOC + "\n"


def expand(quote: str, text: str = TEXT) -> tuple[str, str]:
    start = text.index(quote)
    assert text.count(quote) == 1
    lo, hi, rule = enclosing_block(text, start, start + len(quote))
    return text[lo:hi], rule


def test_paragraph_keeps_the_blank_lines_first_newline():
    assert expand("line two") == ("Intro paragraph, line one.\nIntro paragraph, line two.\n", PARAGRAPH)


def test_last_paragraph_runs_to_end_of_text():
    assert expand("without a blank") == ("Closing paragraph without a blank line after it.\n", PARAGRAPH)


def test_table_row():
    assert expand("second row") == ("| beta | second row cell |\n", TABLE_ROW)
    assert expand("| alpha") == ("| alpha | first row cell |\n", TABLE_ROW)


def test_list_item_with_continuation_and_nested_items():
    item_one = (
        "- item one opens the list\n  and continues here\n  - nested a under one\n  - nested b under one\n"
    )
    assert expand("opens the list") == (item_one, LIST_ITEM)
    assert expand("continues here") == (item_one, LIST_ITEM)


def test_nested_item_is_its_own_span():
    assert expand("nested a") == ("  - nested a under one\n", LIST_ITEM)
    assert expand("nested b") == ("  - nested b under one\n", LIST_ITEM)


def test_bare_dash_line_is_a_list_item():
    assert expand("bare dash item") == ("-\n  bare dash item body\n", LIST_ITEM)


def test_numbered_item_ends_at_block_end():
    assert expand("numbered step") == ("1. numbered step\n", LIST_ITEM)
    assert expand("lonely") == ("- lonely item\n", LIST_ITEM)


def test_list_owner_search_stops_at_the_block():
    text = "- an item in an earlier block\n\nA plain paragraph after the list block.\n"
    assert expand("plain paragraph", text) == ("A plain paragraph after the list block.\n", PARAGRAPH)


def test_table_row_takes_precedence_over_list():
    text = "- item\n| a row | inside |\n"
    assert expand("a row", text) == ("| a row | inside |\n", TABLE_ROW)


def test_quote_across_lines_expands_from_first_to_last_line():
    text = "Para start.\n| r1 |\n| r2 |\nend\n"
    start = text.index("r1")
    end = text.index("r2") + 2
    # the table test runs on the lines from the quote's first to its last: both rows
    assert enclosing_block(text, start, end) == (text.index("| r1"), text.index("end"), TABLE_ROW)
    # a span ending at a line end counts the line of its last character only
    start = text.index("Para")
    assert enclosing_block(text, start, text.index("\n| r1") + 1)[2] == PARAGRAPH


def test_span_at_exact_and_expanded():
    start = TEXT.index("first row")
    exact = span_at("d.md", TEXT, start, "first row", exact=True)
    assert (exact.start, exact.end, exact.rule) == (start, start + len("first row"), EXACT)
    expanded = span_at("d.md", TEXT, start, "first row", exact=False)
    assert TEXT[expanded.start : expanded.end] == "| alpha | first row cell |\n"
    assert (expanded.quote_start, expanded.quote_end) == (start, start + 9)
    assert expanded.rule == TABLE_ROW


# --- occurrences ----------------------------------------------------------------------------


def test_overlapping_occurrences_are_counted():
    assert occurrences("aaa", "aa") == [0, 1]
    assert occurrences("abababa", "aba") == [0, 2, 4]
    assert occurrences("aaaa", "a", limit=2) == [0, 1]
    assert occurrences("abc", "x") == []


def test_overlapping_quote_is_ambiguous_in_analysis(tmp_path):
    doc = "The sound aaa is made by a long paragraph of sufficient length.\n"
    _, analysis = analyze_lines(tmp_path, {"d.md": doc}, [qline("q1", [loc("d.md", "aa")])])
    d = only(analysis, "quote-ambiguous")
    assert "2 times" in d.message
    assert [r.offsets for r in d.related] == [(10, 12), (11, 13)]
    assert artifact_text(analysis) is None


def test_empty_quote_is_rejected(tmp_path):
    _, analysis = analyze_lines(
        tmp_path, {"d.md": "Some text of a document.\n"}, [qline("q1", [loc("d.md", "")])]
    )
    only(analysis, "empty-quote")
    assert artifact_text(analysis) is None


def test_unknown_doc(tmp_path):
    line = qline("q1", [loc("missing.md", "Some text")])
    _, analysis = analyze_lines(tmp_path, {"d.md": "Some text of a document.\n"}, [line])
    d = only(analysis, "unknown-doc")
    assert "missing.md" in d.message and "d.md" in d.message
    # located at the doc string of the locator
    assert line[d.range.column : d.range.end_column] == '"missing.md"'


# --- not-found hints ------------------------------------------------------------------------


def test_hint_same_words_across_a_line_break():
    hint = not_found_hint("alpha beta\ngamma delta\n", "beta gamma")
    assert (hint.kind, hint.corpus_text, hint.start, hint.end) == ("line break", "beta\ngamma", 6, 16)


def test_hint_different_whitespace():
    hint = not_found_hint("alpha beta \t gamma\n", "beta gamma")
    assert (hint.kind, hint.corpus_text) == ("whitespace", "beta \t gamma")


@pytest.mark.parametrize(
    "corpus_text, quote",
    [
        ("don\u2019t stop", "don't stop"),
        ("\u201cquoted words\u201d here", '"quoted words" here'),
        ("a \u2014 b and c", "a - b and c"),
        ("a \u2014 b and c", "a -- b and c"),
        ("range 1\u20132 pages", "range 1-2 pages"),
        ('it\'s "plain" - ascii', "it\u2019s \u201cplain\u201d \u2013 ascii"),
    ],
)
def test_hint_typographic_quotes_and_dashes(corpus_text, quote):
    text = f"Before. {corpus_text}. After.\n"
    hint = not_found_hint(text, quote)
    assert hint is not None and hint.kind == "typography"
    assert hint.corpus_text == corpus_text
    assert text[hint.start : hint.end] == corpus_text


def test_no_hint_when_nothing_or_several_places_match():
    assert not_found_hint("nothing similar here\n", "beta gamma") is None
    assert not_found_hint("beta  gamma and beta\ngamma\n", "beta gamma") is None
    assert not_found_hint("text\n", "   ") is None


def test_not_found_message_gives_raw_doc_position_and_replacement(tmp_path):
    raw = "\ufeffTitle line\r\n\r\nSome text: alpha beta\r\ngamma delta and more words here.\r\n"
    line = qline("q1", [loc("d.md", "alpha beta gamma")])
    _, analysis = analyze_lines(tmp_path, {"d.md": raw.encode("utf-8")}, [line])
    d = only(analysis, "quote-not-found")
    # line 3, column 12 (1-based) in the raw file: "Some text: " is 11 characters
    assert "across a line break at 3:12" in d.message
    # and what to do, on the command line too (the editor's quick fix does the same)
    assert d.message.endswith(
        ": a quote stays on one line, so quote 'Some text: alpha beta' (at 3:1) or "
        "'gamma delta and more words here' (at 4:1) instead"
    )
    # never a fix that spans lines: on each line, the picker's quote holding its part (the parts
    # alone, "alpha beta" and "gamma", are fragments), where it sits in the raw file
    assert d.data["replacement"] == "Some text: alpha beta"
    assert d.data["replacements"] == [
        ["Some text: alpha beta", "3:1"],
        ["gamma delta and more words here", "4:1"],
    ]
    assert d.data["hint"] == "line break"
    (rel,) = d.related
    assert (rel.range.line, rel.range.column, rel.range.end_line, rel.range.end_column) == (2, 11, 3, 5)
    # the diagnostic itself sits on the quote string of the question line
    assert line[d.range.column : d.range.end_column] == '"alpha beta gamma"'


def test_not_found_typography_hint_on_a_bom_line(tmp_path):
    raw = "\ufeffWe say \u201cdon\u2019t panic\u201d \u2014 always, in every chapter.\n"
    _, analysis = analyze_lines(
        tmp_path, {"d.md": raw.encode("utf-8")}, [qline("q1", [loc("d.md", '"don\'t panic" - always')])]
    )
    d = only(analysis, "quote-not-found")
    # canonical column 7; the BOM is not a column in the editor's buffer; 1-based 8
    assert "with different quotes or dashes at 1:8" in d.message
    # the corpus text starts on a quotation mark, not a word: the fix is the picker's quote holding it
    assert d.data["replacement"] == "We say \u201cdon\u2019t panic\u201d \u2014 always"


def test_line_break_hint_offers_only_the_parts_that_are_unique_on_their_line():
    text = "intro gamma\nalpha beta\ngamma delta\n"
    hint = not_found_hint(text, "alpha beta gamma")
    assert hint.kind == "line break" and [text[a:b] for a, b in hint.parts] == ["alpha beta"]


@pytest.mark.parametrize(
    "quote, kind, message",
    [
        (
            "Cafe\u0301 Mu\u0308ller opens",
            "normalisation",
            "the quote is Unicode NFD (decomposed accents) and the corpus "
            "NFC; the composed text occurs at 3:5: 'Café Müller opens'",
        ),
        (
            "the café müller opens",
            "case",
            "the same words occur with different capitalisation at 3:1: 'The Café Müller opens'",
        ),
        (
            "The Café Müller opnes at dawn",
            "closest",
            "the closest passage (97% similar) is at 3:1: 'The Café Müller opens at dawn'",
        ),
        ("opens at dawn, every day", "closest", "is at 3:17: 'opens at dawn every day'"),
    ],
)
def test_not_found_says_what_differs_and_where(tmp_path, quote, kind, message):
    doc = "# Huts\n\nThe Café Müller opens at dawn every day of the summer season.\n\nOther text.\n"
    _, analysis = analyze_lines(tmp_path, {"d.md": doc}, [qline("q1", [loc("d.md", quote)])])
    d = only(analysis, "quote-not-found")
    assert d.data["hint"] == kind and message in d.message, d.message
    (rel,) = d.related
    assert rel.range.line == 2
    # every kind has a fix the picker chose (the closest passage's too: a suggestion for a person,
    # which the editor offers without preferring it, never a relabel)
    text = doc
    fix = d.data["replacement"]
    assert (
        d.data["replacements"][0][0] == fix
        and problems(text, text.index(fix), text.index(fix) + len(fix)) == []
    )


def test_a_quote_longer_than_two_lines_of_the_document_gets_a_plain_not_found(tmp_path):
    """A quote of many lines' words is never compiled into a pattern (1 MB cost seconds per check,
    and its line-break "fix" would be a quote spanning lines); the hint still works for a normal
    quote in the same document."""
    body = [f"Line {i} says word{i} and more words after it." for i in range(12000)]
    doc = "# D\n\n" + "\n".join(body) + "\n"
    huge = " ".join(body)  # ~600 KB: the same words, across every line break
    lines = [qline("q1", [loc("d.md", huge)]), qline("q2", [loc("d.md", "Line 7 says  word7")])]
    _, analysis = analyze_lines(tmp_path, {"d.md": doc}, lines)
    big, normal = [d for d in analysis.diagnostics if d.code == "quote-not-found"]
    assert big.message == "quote not found in d.md" and big.related == ()
    assert normal.data["hint"] == "whitespace"
    assert not_found_hint(doc, " ".join(body[:3])) is None  # three lines' worth: more than two lines
    assert not_found_hint(doc, " ".join(body[:2])).kind == "line break"


def test_the_closest_passage_is_found_in_a_large_document():
    filler = "".join(f"Paragraph {i} is about topic {i % 97} and nothing else.\n\n" for i in range(150_000))
    text = filler + "The hut warden serves breakfast at seven sharp.\n" + filler
    hint = not_found_hint(text, "The hut warden serves brekfast at seven")
    assert hint.kind == "closest" and text[hint.start : hint.end].startswith(
        "The hut warden serves breakfast"
    )


@pytest.mark.parametrize(
    "doc, suggested",
    [
        ("gide.md", "did you mean 'guide.md'?"),
        ("FAQ.md", "did you mean 'faq.md'?"),
        ("zebra.md", "corpus: faq.md, guide.md"),
    ],
)
def test_unknown_doc_suggests_the_closest_doc_ids(tmp_path, doc, suggested):
    _, analysis = analyze_lines(
        tmp_path,
        {"guide.md": "Some text.\n", "faq.md": "More text.\n"},
        [qline("q1", [loc(doc, "Some text")])],
    )
    assert only(analysis, "unknown-doc").message == f"unknown doc {doc!r} ({suggested})"


def test_not_found_without_hint_has_no_replacement(tmp_path):
    _, analysis = analyze_lines(
        tmp_path, {"d.md": "Nothing like it.\n"}, [qline("q1", [loc("d.md", "zebra")])]
    )
    d = only(analysis, "quote-not-found")
    assert d.message == "quote not found in d.md"
    assert "replacement" not in d.data and d.related == ()


# --- lengthen -------------------------------------------------------------------------------


def _check_extension(text: str, quote: str, at: int, ext: str) -> int:
    """Assert the properties every extension must have; return where it sits."""
    assert ext is not None and ext != quote and quote in ext
    assert len(occurrences(text, ext)) == 1, ext
    e = text.index(ext)
    end = e + len(ext)
    # it points at the chosen occurrence
    assert e <= at and at + len(quote) <= end
    assert text[at : at + len(quote)] == quote
    # on one line, starting and ending on a word (never inside one)
    assert "\n" not in ext
    assert ext[0].isalnum() and ext[-1].isalnum(), ext
    assert e == 0 or not text[e - 1].isalnum()
    assert end == len(text) or not text[end].isalnum()
    return e


def test_lengthen_known_results_stay_on_the_line():
    text = "the cat sat on the big mat. the cat ran off.\nthe cat slept.\n"
    found = occurrences(text, "the cat")
    assert len(found) == 3
    got = [lengthen(text, "the cat", at) for at in found]
    # each a phrase to the clause's end (the policy prefers four words or more, and whole clauses);
    # the third never leaves its line, and the full stop is no word to end on
    assert got == ["the cat sat on the big mat", "the cat ran off", "the cat slept"]
    for at, ext in zip(found, got):
        _check_extension(text, "the cat", at, ext)


def test_lengthen_every_occurrence_property_based():
    text = (
        "Set the flag before the run. Always set the flag twice before a release.\n"
        "You must set the flag when the job starts, and set the flag again after.\n"
        "set the flag\n"
        "Finally set the flag.\n"
    )
    quote = "set the flag"
    found = occurrences(text, quote)
    assert len(found) == 5
    for at in found:
        ext = lengthen(text, quote, at)
        line_lo = text.rfind("\n", 0, at) + 1
        line = text[line_lo : text.index("\n", at)]
        if line == quote:  # the line holds nothing more: no quote on it points here only
            assert ext is None
        else:
            _check_extension(text, quote, at, ext)


def test_lengthen_never_crosses_lines():
    # a quote across lines is the quote-multiline warning: no extension when the line cannot be
    # unique, rather than one that leaves it
    text = "alpha\nthe cat\nbeta\nthe cat\ngamma\n"
    first, second = occurrences(text, "the cat")
    assert lengthen(text, "the cat", first) is None and lengthen(text, "the cat", second) is None
    assert lengthen(text, "the cat\nbeta", first) is None


def test_lengthen_ends_on_words_not_on_markdown_markers():
    text = "* The **read** path is fast.\n* The **read** path is slow.\n"
    first, second = occurrences(text, "The **read** path")
    assert lengthen(text, "The **read** path", first) == "The **read** path is fast"
    assert lengthen(text, "The **read** path", second) == "The **read** path is slow"
    # a quote starting on a marker grows to the word before it, never to the bullet
    at = text.index("**read", second)
    assert lengthen(text, "**read**", at) == "The **read** path is slow"
    # only stop words added: not unique enough to mean anything, so more words
    text = "On the way up. On the way down.\n"
    assert lengthen(text, "the way", text.index("the way", 5)) == "On the way down"


def test_lengthen_is_cached_for_repeated_code_action_requests(monkeypatch):
    text = "alpha the cat sat\nbeta the cat ran\n"
    searches = []
    real = quotepick.occurrences
    monkeypatch.setattr(quotepick, "occurrences", lambda *args: searches.append(args) or real(*args))
    textcache.reset()
    first = lengthen(text, "the cat", 6)
    # the quote's occurrences are found once; every uniqueness probe looks only there
    assert searches == [(text, "the cat")]
    # asked again (the next cursor move): answered from the memo, nothing searched at all
    monkeypatch.setattr(quotepick, "count_at_most", lambda *args: pytest.fail("searched again"))
    monkeypatch.setattr(quotepick, "acceptable", lambda *args: pytest.fail("checked again"))
    assert lengthen(text, "the cat", 6) == first == "alpha the cat sat"
    assert len(searches) == 1 and textcache.memo_of(lengthen).hits == 1
