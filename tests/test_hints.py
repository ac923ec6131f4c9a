"""The not-found hint's fast searches give what a plain full-document search gives.

``hints.not_found_hint`` tries the loose pattern only around its literal and searches in any
case through chunks of the lower-case document; ``not_found_hints`` does both for many quotes
in one pass. Here they are checked against an oracle written the plain way — the pattern over
the whole document, ``str.lower()`` of the whole document — on crafted and generated inputs,
with chunks and thresholds made tiny so that every boundary is crossed.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections import Counter
from contextlib import contextmanager
from itertools import islice
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from golden_lsp.core.engine import textcache
from golden_lsp.core.labels import anycase, facts, hints, quotepolicy
from golden_lsp.core.labels.anycase import Search, _find_any_case
from golden_lsp.core.labels.hints import longest_line, not_found_hint, not_found_hints
from golden_lsp.core.labels.loose import loose_pattern
from golden_lsp.core.labels.resolve import occurrences
from golden_lsp.core.text.memo import finish


def oracle(text: str, quote: str):
    """(kind, start, end) for the loose, normalisation and case hints, the plain way; "none" when
    several places match; "closest" when the hint falls through to the fuzzy search."""
    words = quote.split()
    if not words or len(" ".join(words)) > 2 * longest_line(text) + 1:
        return "none"
    found = list(islice(loose_pattern(quote).pattern.finditer(text), 2))
    if len(found) == 1:
        m = found[0]
        kind = (
            "line break"
            if "\n" in m.group()
            else "whitespace"
            if m.group().split() == words
            else "typography"
        )
        return kind, m.start(), m.end()
    composed = unicodedata.normalize("NFC", quote)
    if not found and composed != quote:
        found = [m.start() for m in islice(re.finditer(re.escape(composed), text), 2)]
        if len(found) == 1:
            return "normalisation", found[0], found[0] + len(composed)
    if not found:
        low = text.lower()
        if len(low) != len(text) or len(composed.lower()) != len(composed):
            found = [m.start() for m in islice(re.finditer(re.escape(composed), text, re.IGNORECASE), 2)]
        else:
            found = occurrences(low, composed.lower(), 2)
        if len(found) == 1:
            return "case", found[0], found[0] + len(composed)
    return "none" if found else "closest"


def check(text: str, quote: str) -> None:
    expected = oracle(text, quote)
    hint = not_found_hint(text, quote)
    if expected == "closest":
        assert hint is None or hint.kind == "closest"
    elif expected == "none":
        assert hint is None
    else:
        assert hint is not None and (hint.kind, hint.start, hint.end) == expected
        assert hint.corpus_text == text[hint.start : hint.end] or hint.kind == "normalisation"


@contextmanager
def tiny(chunk: int = 5, few_words: int = 6, literal_hits: int = 10_000):
    """Chunks of ``chunk`` characters, and the thresholds between ways of searching, moved."""
    with (
        mock.patch.object(anycase, "_CHUNK", chunk),
        mock.patch.object(anycase, "_FEW_WORDS", few_words),
        mock.patch.object(anycase, "_MAX_LITERAL_HITS", literal_hits),
    ):
        yield


# --- crafted cases ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, quote, kind",
    [
        # offsets are code points: emoji (outside the BMP) before the match
        ("🙂🚀 intro\n\n🧭 alpha   beta gamma 🙂 end\n", "alpha beta gamma", "whitespace"),
        ("🙂🚀 intro\n\n🧭 The Alpha Beta opens 🙂\n", "the alpha beta opens", "case"),
        # an NFD quote over NFC text
        ("Le Café Müller ouvre tôt.\n", "Cafe\u0301 Mu\u0308ller ouvre", "normalisation"),
        # lower() changes the length: İ lowers to two characters, so the IGNORECASE regex decides
        ("Road to İstanbul and more words.\n", "road to istanbul and", "case"),
        ("Road to İstanbul and more words.\n", "ROAD TO", "case"),
        # final sigma: Σ lowers by its neighbours
        ("ΟΔΟΣ ΚΑΙ ΠΟΛΗ and more\n", "οδος και πολη", "case"),
        # curly quotes and dashes, the quote starting with a class (no literal at its start)
        (
            "Before. \u201cdon\u2019t panic\u201d \u2014 always. After.\n",
            '"don\'t panic" -- always',
            "typography",
        ),
        (
            "Before. \u201cdon\u2019t panic\u201d \u2014 always. After.\n",
            '"don\'t panic" - always',
            "typography",
        ),
        ("range 1\u20132 pages and 3--4 more\n", "3-4 more", "typography"),
        # a quote of quotes and dashes only: no literal to anchor on
        ("a \u201c\u2014\u201d b\n", '"--"', "typography"),
    ],
)
def test_crafted_hints_match_the_plain_search(text, quote, kind):
    hint = not_found_hint(text, quote)
    assert hint is not None and hint.kind == kind
    check(text, quote)
    with tiny():
        check(text, quote)
        assert not_found_hints(text, [quote]) == {quote: hint}


@pytest.mark.parametrize("before, between", [(0, 100_000), (3, 100_000), (100_000, 1)])
def test_a_huge_whitespace_run_inside_the_match_is_crossed(before, between):
    """The literal sits in the last word; the match starts a whitespace run of 100,000 away."""
    text = "x " * before + "ab" + " \t" * between + "cd\n" + " " * between + "longestword tail\n"
    for quote in ("ab cd longestword", "b cd longestword", "cd longestword t"):
        hint = not_found_hint(text, quote)
        assert hint is not None and hint.kind == "line break"
        check(text, quote)


def test_overlapping_matches_count_as_regex_finditer_counts_them():
    """finditer finds non-overlapping matches: "a a" in "a a a" once, so it is a hint."""
    for text, quote in [
        ("a a a\n", "a  a"),
        ("aa aa aa\n", "aa  aa"),
        ("xaaax\n", "aa"),
        ("abab ab\n", "ab  ab"),
    ]:
        check(text, quote)
        with tiny(chunk=2, few_words=0):
            check(text, quote)


def test_a_literal_too_frequent_falls_back_to_the_whole_document():
    text = "ab " * 50 + "ab\tcd\n"
    with tiny(literal_hits=3):
        assert not_found_hint(text, "ab cd").kind == "whitespace"
        check(text, "ab cd")


def test_a_quote_too_long_for_the_automaton_is_found_the_plain_way():
    line = " ".join(f"Word{i} and more" for i in range(300))  # 3,800 characters on one line
    text = "# T\n\n" + line + "\n\nother text\n"
    quotes = [line[5:3000].lower(), line[10:2500].upper(), "word7 and more", "missing words here"]
    with tiny(chunk=1000, few_words=0):
        hints = not_found_hints(text, quotes)
    assert hints == {quote: not_found_hint(text, quote) for quote in quotes}
    assert [h and h.kind for h in hints.values()] == ["case", "case", "case", None]


def test_a_ten_megabyte_document():
    filler = "".join(
        f"Paragraph {i} is about topic {i % 97} and nothing else 🙂.\n\n" for i in range(170_000)
    )
    text = filler + "The Hut Warden serves breakfast at seven sharp.\n" + filler
    assert len(text) > 10_000_000
    for quote, kind in [
        ("the hut warden serves", "case"),
        ("Warden  serves breakfast", "whitespace"),
        ("The hut warden serves brekfast at seven", "closest"),
    ]:
        hint = not_found_hint(text, quote)
        assert hint.kind == kind and len(filler) <= hint.start < hint.end <= len(filler) + 48
    hints = not_found_hints(text, ["the hut warden serves", "The hut warden serves brekfast at seven"])
    assert [h.kind for h in hints.values()] == ["case", "closest"]


def test_lower_case_is_made_character_by_character_except_for_two():
    """What chunked lowering relies on: apart from İ and Σ, every character lowers to one
    character whatever its neighbours; white space (what ``\\s`` and ``str.split`` both mean)
    has no case."""
    chars = [chr(i) for i in range(0x110000)]
    odd = {
        c
        for c in chars
        if len(c.lower()) != 1
        or (c + "a").lower() != c.lower() + "a"
        or ("a" + c).lower() != "a" + c.lower()
        or ("A" + c + "A").lower() != "a" + c.lower() + "a"
    }
    assert odd == set(anycase._LOWER_BY_CONTEXT)
    spaces = set(re.findall(r"\s", "".join(chars)))
    assert spaces == {c for c in chars if c.isspace()} and all(c.lower() == c for c in spaces)


# --- generated cases --------------------------------------------------------------------------

_ALPHABET = list("abAB  \n\t'’\"“-—–éÉiİΣσς🙂Kkß") + ["e\u0301", "--", "ab", "AB"]
texts = st.lists(st.sampled_from(_ALPHABET), max_size=40).map("".join)


@st.composite
def text_and_quotes(draw):
    text = draw(texts)
    quotes = []
    for _ in range(draw(st.integers(1, 4))):
        if text and draw(st.booleans()):
            a = draw(st.integers(0, len(text) - 1))
            piece = text[a : draw(st.integers(a + 1, len(text)))]
            edit = draw(st.sampled_from(["swapcase", "upper", "nfd", "ws", "dash", "none"]))
            piece = {
                "swapcase": piece.swapcase(),
                "upper": piece.upper(),
                "nfd": unicodedata.normalize("NFD", piece),
                "ws": " ".join(piece.split()),
                "dash": piece.replace("—", "-").replace("’", "'"),
                "none": piece,
            }[edit]
            quotes.append(piece)
        else:
            quotes.append(draw(texts))
    return text, quotes


_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(text_and_quotes(), st.integers(1, 9), st.sampled_from([0, 6]))
def test_not_found_hint_agrees_with_the_plain_search(case, chunk, few_words):
    text, quotes = case
    with tiny(chunk, few_words):
        for quote in quotes:
            check(text, quote)


@_SETTINGS
@given(text_and_quotes(), st.integers(1, 9), st.sampled_from([0, 6]), st.sampled_from([1, 10_000]))
def test_not_found_hints_equals_one_hint_per_quote(case, chunk, few_words, literal_hits):
    text, quotes = case
    expected = {quote: not_found_hint(text, quote) for quote in quotes}
    with tiny(chunk, few_words, literal_hits):
        assert not_found_hints(text, quotes) == expected
        assert {quote: not_found_hint(text, quote) for quote in quotes} == expected


@_SETTINGS
@given(
    texts, st.lists(texts.filter(bool), min_size=1, max_size=5), st.integers(1, 9), st.sampled_from([0, 6])
)
def test_the_chunked_any_case_search_equals_lowering_the_whole_document(text, needles, chunk, few_words):
    wanted = dict.fromkeys(needles, 3)
    with tiny(chunk, few_words):
        search = Search(text)
        search.scan([], wanted)
    assert search.any_case == _find_any_case(text, wanted)


cased_texts = st.lists(
    st.sampled_from([c for c in _ALPHABET if c not in "İΣ"] + ["Ab🙂", "\U00010400"]), max_size=40
).map("".join)


@_SETTINGS
@given(
    st.one_of(texts, cased_texts),
    st.lists(st.one_of(texts, cased_texts).filter(bool), min_size=1, max_size=5),
)
def test_the_indexed_any_case_search_equals_lowering_the_whole_document(text, needles):
    wanted = dict.fromkeys(needles, 3)
    search = Search(text, indexed=True)
    search.scan([], wanted)
    assert search.any_case == _find_any_case(text, wanted)


def test_cased_characters_beyond_the_bmp_lie_in_one_range():
    lo, hi = (
        int(bound[2:], 16) for bound in anycase._ASTRAL_CASED.encode("unicode_escape").decode().split("-")
    )
    cased = [i for i in range(0x10000, 0x110000) if chr(i).lower() != chr(i)]
    assert lo <= min(cased) and max(cased) <= hi
    text = "x \U00010400 y\n"
    assert anycase.case_index(text) is None and not_found_hint(text, "X \U00010428") is not None


def test_a_prepared_document_hints_without_building_anything(monkeypatch):
    text = "# Doc\n\nThe Quick brown Fox jumps over the lazy dog.\n\n" * 50 + "Élan Vital is here.\n"
    expected = hints.not_found_hint(text, "élan vital is here")
    memo = textcache.memo_of(anycase.case_index)
    assert text not in memo.values  # a hint never makes the index: one pass costs less
    finish(hints.prepare_hints(text))
    assert text in memo.values
    monkeypatch.setattr(memo, "fn", lambda t: pytest.fail("built again"))
    assert hints.not_found_hint(text, "élan vital is here") == expected
    assert expected is not None and expected.kind == "case"


def _large_document(n_paragraphs: int) -> str:
    """Past ``quotepolicy.LARGE``: paragraphs of words from a small vocabulary (so a word occurs
    many times or a few), some capitalised or accented, each ending on a word of its own."""
    rng = random.Random(5)
    vocab = [f"{a}{b}" for a in ("ka", "lo", "mé", "Ru", "sa", "Tö") for b in ("ven", "dis", "par", "Ol")]
    vocab += ["the", "of", "and", "a"]
    paras = [
        " ".join(rng.choice(vocab) for _ in range(rng.randint(12, 40))) + f" marker{i}."
        for i in range(n_paragraphs)
    ]
    return "# Large\n\n" + "\n\n".join(paras) + "\n"


def test_facts_prepared_a_step_at_a_time_are_the_facts_made_without(monkeypatch):
    """What the server prepares in idle time (``facts.prepare``, in many small steps) changes the
    cost of a not-found quote's facts, never the facts: hints of each kind and their fixes (quotes
    picked by the words' counts in the whole document) are the same with and without it, and a
    prepared document's facts use the indexes instead of building anything."""
    monkeypatch.setattr(anycase, "STEP_CHARS", 5_000)
    monkeypatch.setattr(quotepolicy, "STEP_CHARS", 5_000)
    monkeypatch.setattr(facts, "PREPARE_FROM", quotepolicy.LARGE)
    text = _large_document(2_200)
    assert len(text) >= quotepolicy.LARGE
    rng = random.Random(9)
    broken = []
    for m in islice(re.finditer(r"(?<=\n\n)[^\n]{60,}", text), 0, None, 140):
        words = m.group().split()
        phrase = " ".join(words[3:9])
        broken += [phrase.upper(), phrase + "~", phrase.replace(" ", "  ", 1), rng.choice(words) * 3 + "q"]

    def all_facts():
        return [facts.quote_facts(text, lambda o: (0, o), q, 20) for q in broken]

    without = all_facts()
    kinds = {f.hint.kind for f in without if f.hint is not None}
    assert {"case", "closest", "whitespace"} <= kinds and any(f.fix_texts for f in without)
    cases, words = textcache.memo_of(anycase.case_index), textcache.memo_of(quotepolicy._word_index)
    assert text not in cases.values and text not in words.values  # nothing was built for them
    steps = sum(1 for _ in facts.prepare(text))
    assert steps > 2 * len(text) // 5_000 - 4  # both indexes, a step of 5,000 characters at a time
    assert text in cases.values and text in words.values
    monkeypatch.setattr(cases, "fn", lambda t: pytest.fail("case index built again"))
    monkeypatch.setattr(words, "fn", lambda t: pytest.fail("word index built again"))
    assert all_facts() == without


def test_a_large_documents_case_index_is_made_by_the_first_search_that_needs_it(monkeypatch):
    """Past ``anycase.INDEX_FROM`` a document is searched through its case index, made when first
    needed (a keystroke's next search is then cheap), and a preparation under way stops there."""
    text = _large_document(300)
    quote = re.search(r"(?<=\n\n)[^\n]{60,}", text).group().split()
    broken = " ".join(quote[2:8]).upper()
    expected = hints.not_found_hint(text, broken)
    cases = textcache.memo_of(anycase.case_index)
    assert text not in cases.values
    steps = hints.prepare_hints(text)
    next(steps)  # a preparation under way
    monkeypatch.setattr(anycase, "INDEX_FROM", len(text))
    assert hints.not_found_hint(text, broken) == expected and expected is not None
    assert text in cases.values  # made by the search
    assert list(steps) == []  # the preparation stops: nothing left to make


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="ab_1 é\u0301.-AÉ\n", max_size=80),
    st.text(alphabet="ab_1éA-", min_size=1, max_size=3),
    st.integers(1, 6),
)
def test_whole_words_are_counted_as_the_word_index_counts_them(text, word, cap):
    index = finish(quotepolicy._word_index_steps(text))
    assert quotepolicy._whole_words(text, word, cap) == min(index[word], cap)
    assert index == Counter(quotepolicy.WORD.findall(text))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab AÉé_\n.Σ", max_size=120), st.integers(1, 9))
def test_indexes_made_in_steps_are_those_of_one_pass(text, step):
    one_pass = anycase.case_index.fn(text), Counter(quotepolicy.WORD.findall(text))
    with mock.patch.object(anycase, "STEP_CHARS", step), mock.patch.object(quotepolicy, "STEP_CHARS", step):
        assert (
            finish(anycase.case_index_steps(text)),
            finish(quotepolicy._word_index_steps(text)),
        ) == one_pass
