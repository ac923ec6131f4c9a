"""The one quote picker and the quote policy (``core/labels/quotepick.py``, ``quotepolicy.py``),
property-based (seeded, bounded) and by example.

Documents are drawn as Markdown a corpus holds — list items with bullets, headings, table rows,
emphasis, code spans, links, words repeated on purpose, near twins, stop words — and at any place
in them, every quote the picker returns is checked here by an oracle of its own (not the policy's
code): on one line, on whole words, Markdown balanced, not stop words alone nor ending on one, at
least three words or twenty characters unless its line is shorter, unique in the document and with
no other place within the margin's edits (brute force over every place), and resolving to a span
that holds the place. When the picker returns none, the oracle finds no such run of words either.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from golden_lsp.assist.anchor import no_anchor_reason, quote_at
from golden_lsp.core.labels.quotepick import (
    MAX_CHECKED,
    lengthen,
    no_quote_reason,
    passage_quote,
    quote_around,
    unique_quote_at,
)
from golden_lsp.core.labels.quotepolicy import DANGLING, STOP_WORDS, margin, problems
from golden_lsp.core.labels.resolve import enclosing_block, occurrences, span_at

PROPERTY = settings(
    derandomize=True,
    max_examples=300,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

WORDS = ["hut", "path", "read", "glacier", "Zermatt", "3.5", "don't", "e.g.", "Café", "🏔", "huts", "paths"]
STOPS = ["the", "And", "on", "Now,", "of", "a", "is"]
WRAPS = ["{}", "{}", "{}", "**{}**", "_{}_", "`{}`", "[{}](guide.md)", "({})", "{}.", "{},", "**{}", "{}`"]
PREFIXES = ["", "", "", "- ", "* ", "1. ", "## ", "| ", "> ", "  - "]

token = st.builds(lambda w, wrap: wrap.format(w), st.sampled_from(WORDS + STOPS * 2), st.sampled_from(WRAPS))
line = st.builds(
    lambda prefix, tokens, pipe: prefix + " ".join(tokens) + (" |" if pipe and prefix == "| " else ""),
    st.sampled_from(PREFIXES),
    st.lists(token, min_size=0, max_size=12),
    st.booleans(),
)
#: a document of a few lines, some blank (paragraph breaks), some repeated (ambiguity)
document = (
    st.lists(line, min_size=1, max_size=8)
    .flatmap(lambda lines: st.lists(st.sampled_from(lines), min_size=1, max_size=10))
    .map(lambda lines: "\n".join(lines) + "\n")
)
WORD = re.compile(r"[^\W_]+")


def word_char(c: str) -> bool:
    return c.isalnum() or c in "\u0301"


def line_of(text: str, pos: int) -> tuple[int, int]:
    end = text.find("\n", pos)
    return text.rfind("\n", 0, pos) + 1, len(text) if end == -1 else end


def markdown_balanced(quote: str) -> bool:
    """The oracle's own reading of balanced Markdown: code spans paired, brackets and parentheses
    paired, and each emphasis run opened before a word closed after one (a stack, not counts)."""
    if quote.count("`") % 2 or quote.count("[") != quote.count("]") or quote.count("(") != quote.count(")"):
        return False
    opened: list[str] = []
    for tok in quote.split():
        lead = re.match(r"[*_~]*", tok).group()
        trail = re.search(r"[*_~]*$", tok).group()
        core = tok[len(lead) : len(tok) - len(trail)] if trail else tok[len(lead) :]
        if lead and core and any(c.isalnum() for c in core[:1]):
            opened.append(lead)
        if trail and core and core[-1:].isalnum():
            if not opened or opened[-1] != trail:
                return False
            opened.pop()
    return not opened


def twins(text: str, a: int, b: int) -> list[int]:
    """Every other place (from a word's start to a word's end) within ``margin`` edits of
    ``text[a:b]``: brute force."""
    quote, d = text[a:b], margin(text[a:b])
    out = []
    for s in range(len(text)):
        if s > 0 and word_char(text[s - 1]) and word_char(text[s]):
            continue
        for e in range(s + len(quote) - d, s + len(quote) + d + 1):
            if (
                e > len(text)
                or (s < b and e > a)
                or (e < len(text) and word_char(text[e - 1]) and word_char(text[e]))
            ):
                continue
            if Levenshtein.distance(quote, text[s:e]) <= d:
                out.append(s)
    return out


def short_line(text: str, lo: int, hi: int, pos: int) -> bool:
    """The words a quote may take on ``pos``'s line inside [lo, hi) are fewer than 3 and 20 chars."""
    stretch = widest(text, pos, lo, hi)
    return len(WORD.findall(stretch)) < 3 and len(stretch) < 20


def assert_good_quote(text: str, found: tuple[int, int], lo: int, hi: int, pos: int | None) -> str:
    a, b = found
    quote = text[a:b]
    assert len(occurrences(text, quote)) == 1, quote
    assert lo <= a < b <= hi, (found, lo, hi)
    assert "\n" not in quote and (pos is None or line_of(text, a) == line_of(text, pos)), quote
    assert word_char(quote[0]) and word_char(quote[-1]), quote
    assert a == 0 or not text[a - 1].isalnum(), quote  # never inside a word
    assert b == len(text) or not text[b].isalnum(), quote
    ls, le = line_of(text, a)
    bullet = re.match(r"[ \t]*(?:[-*+]|\d+\.)[ \t]", text[ls:le])
    assert bullet is None or a >= ls + bullet.end(), quote  # never the list bullet
    words = WORD.findall(quote)
    assert any(w.lower() not in STOP_WORDS for w in words), quote
    assert words[-1].lower() not in DANGLING, quote  # never cut mid-phrase on "the"
    assert markdown_balanced(quote), quote
    assert len(words) >= 3 or len(quote) >= 20 or short_line(text, lo, hi, a), quote
    whole = quote == widest(text, a, lo, hi)  # all its line offers: unique suffices, no margin
    assert whole or not twins(text, a, b), (quote, twins(text, a, b))
    assert problems(text, a, b, short_line(text, lo, hi, a), whole) == []
    return quote


def widest(text: str, pos: int, lo: int, hi: int) -> str:
    """The longest stretch of ``pos``'s line inside [lo, hi) a quote could be (bullet and edge
    markers left out)."""
    ls, le = line_of(text, pos)
    a, b = max(lo, ls), min(hi, le)
    bullet = re.match(r"[ \t]*(?:[-*+]|\d+\.)[ \t]", text[ls:le])
    if bullet:
        a = max(a, ls + bullet.end())
    while a < b and not word_char(text[a]):
        a += 1
    while b > a and not word_char(text[b - 1]):
        b -= 1
    return text[a:b]


def runs(text: str, pos: int, lo: int, hi: int) -> list[tuple[int, int]]:
    """Every run of whole words of ``pos``'s line inside [lo, hi) (a link's ``](`` splitting its
    token), as the oracle of when there is no quote at all."""
    ls, le = line_of(text, pos)
    bullet = re.match(r"[ \t]*(?:[-*+]|\d+\.)[ \t]", text[ls:le])
    start = ls + (bullet.end() if bullet else 0)
    words = []
    for m in re.finditer(r"\S+", text[start:le]):
        for part in re.split(r"(?<=\])(?=\()", m.group()):
            at = start + m.start() + m.group().index(part)
            s, e = at, at + len(part)
            while s < e and not word_char(text[s]):
                s += 1
            while e > s and not word_char(text[e - 1]):
                e -= 1
            if s < e and lo <= s and e <= hi:
                words.append((s, e))
    return [(words[i][0], words[j][1]) for i in range(len(words)) for j in range(i, min(len(words), i + 16))]


@PROPERTY
@given(document, st.data())
def test_every_quote_at_a_place_meets_the_policy_and_resolves_there(text, data):
    pos = data.draw(st.integers(0, len(text) - 1))
    lo, hi, _ = enclosing_block(text, pos, pos + 1)
    found = unique_quote_at(text, pos, lo, hi)
    if found is not None:
        quote = assert_good_quote(text, found, lo, hi, pos)
        span = span_at("d.md", text, found[0], quote, exact=False)
        assert span.start <= found[0] < span.end
        return
    # none: no run of words on the line is a good quote (the picker checks at most MAX_CHECKED)
    whole = widest(text, pos, lo, hi)
    good = [
        (a, b)
        for a, b in runs(text, pos, lo, hi)
        if not problems(text, a, b, short_line(text, lo, hi, pos), text[a:b] == whole)
    ]
    assert not good or len(runs(text, pos, lo, hi)) > MAX_CHECKED, [text[a:b] for a, b in good]
    assert no_quote_reason(text, pos, pos + 1, lo, hi)


@PROPERTY
@given(document, st.data())
def test_a_quote_around_a_selection_holds_all_of_it(text, data):
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start, min(len(text), start + 40)))
    lo, hi, _ = enclosing_block(text, start, start + 1)
    found = quote_around(text, start, end, lo, hi)
    if found is None:
        return
    assert_good_quote(text, found, lo, hi, start)
    a, b = found
    # the selection's words on its first line (the bullet and edge markers left out) are all in it
    _, le = line_of(text, start)
    sel = widest(text, start, start, min(max(end, start + 1), le))
    if sel:
        at = text.index(sel, start)
        assert a <= at and at + len(sel) <= b, (text[a:b], sel)


@PROPERTY
@given(document, st.data())
def test_anchor_here_on_any_selection_anchors_or_says_why(text, data):
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.one_of(st.none(), st.integers(start, min(len(text), start + 60))))
    quote = quote_at(text, start, end)
    if quote is None:
        assert no_anchor_reason(text, start, end)
        return
    [a] = occurrences(text, quote)
    lo, hi, _ = enclosing_block(text, start, start + 1)
    assert_good_quote(text, (a, a + len(quote)), lo, hi, start)


@PROPERTY
@given(document, st.data())
def test_every_lengthening_meets_the_policy_and_holds_the_occurrence(text, data):
    found = sorted(
        {(m.start(), m.end()) for m in re.finditer(r"[^\s*_`|#\[\]().,]+(?: [^\s*_`|#\[\]().,]+)?", text)}
    )
    ambiguous = [(a, b) for a, b in found if len(occurrences(text, text[a:b])) > 1]
    if not ambiguous:
        return
    a, b = data.draw(st.sampled_from(ambiguous))
    quote = text[a:b]
    for at in occurrences(text, quote):
        ext = lengthen(text, quote, at)
        if ext is None:
            continue
        e = text.index(ext)
        assert e <= at and at + len(quote) <= e + len(ext)
        assert_good_quote(text, (e, e + len(ext)), 0, len(text), at)


@PROPERTY
@given(document, st.data())
def test_a_passage_quote_meets_the_policy_inside_the_passage(text, data):
    pos = data.draw(st.integers(0, len(text) - 1))
    lo, hi, _ = enclosing_block(text, pos, pos + 1)
    found = passage_quote(text, lo, hi, near=pos)
    if found is not None:
        assert_good_quote(text, found, lo, hi, None)


# --- by example: the fragments the first-contact rounds found, and what is written now ---------

#: passages modelled on the real documentation sets of the label-integrity issue, each at the place
#: where the old picker wrote a fragment, with the fragment it wrote
FRAGMENTS = [
    (
        "We use a configuration file for this. Configurations are loaded via the CLI.\n\n"
        "Read the configurations via the API, as we use them in tests.\n",
        "via the API",
        "via the",
    ),
    (
        "Configuration should always be explicit.\n\nThe default is fine. The default port is 8000.\n",
        "The default port",
        "The default",
    ),
    (
        "We differ from Flask here. Starlette does not, and we differ on purpose.\n",
        "Starlette does",
        "Starlette does",
    ),
    (
        "The **pool size** sets how many connections are kept. The pool is per process.\n",
        "**pool size**",
        "The **pool",
    ),
    (
        "Run the `mkdocs serve` command to preview the site, then the `mkdocs build` one.\n",
        "`mkdocs serve`",
        "the `mkdocs serve",
    ),
]


@pytest.mark.parametrize("text, place, fragment", FRAGMENTS)
def test_the_fragments_of_first_contact_become_phrases(text, place, fragment):
    at = text.index(place)
    lo, hi, _ = enclosing_block(text, at, at + 1)
    found = unique_quote_at(text, at, lo, hi)
    assert found is not None
    quote = assert_good_quote(text, found, lo, hi, at)
    assert quote != fragment and len(WORD.findall(quote)) >= 3
    assert problems(text, *found) == []
    start = text.index(fragment)
    assert problems(text, start, start + len(fragment))  # the old fragment breaks a rule


def test_the_policy_names_what_a_fragment_breaks():
    text = FRAGMENTS[4][0]
    at = text.index("the `mkdocs serve")
    assert "it leaves Markdown markers unbalanced" in problems(text, at, at + len("the `mkdocs serve"))
    why = problems("Read it via the API here.\n", 8, 15)
    assert "it ends on 'the', cut before the words it leads to" in why
    assert any("shorter than 3 words" in w for w in why)
    near = "The hut opens in June.\nThe hut opens in July.\n"
    assert any("differs from it by a few characters" in w for w in problems(near, 0, 21))


def test_a_near_twin_is_passed_over_for_a_quote_that_tells_the_places_apart():
    text = "The hut opens in mid-June for hikers.\n\nThe hut opens in mid-July for climbers.\n"
    at = text.index("hut")
    lo, hi, _ = enclosing_block(text, at, at + 1)
    a, b = unique_quote_at(text, at, lo, hi)
    quote = assert_good_quote(text, (a, b), lo, hi, at)
    assert "hikers" in quote or "June" in quote


def test_the_answer_and_the_rarest_words_are_preferred():
    text = (
        "The hut is open in summer. Dinner is served at seven, breakfast from six.\n"
        "The hut keeps a small shop with chocolate and tea.\n"
    )
    lo, hi = 0, text.index("\n")
    plain = text[slice(*passage_quote(text, lo, hi))]
    answered = text[slice(*passage_quote(text, lo, hi, answer="Dinner is at seven o'clock."))]
    assert "seven" in answered and problems(text, *passage_quote(text, lo, hi, answer="seven")) == []
    assert plain and answered


def test_a_list_line_is_quoted_from_its_words_not_its_bullet_or_emphasis():
    text = "Intro.\n\n* The **read** path is fast.\n* The **write** path is slow.\n"
    at = text.index("* The **read**")
    quote = quote_at(text, at, at + len("* The **read**"))
    assert quote == "The **read** path is fast"
    assert quote_at(text, at) == quote  # the cursor on the bullet: the item's words


def test_stop_word_fragments_grow_to_a_phrase_that_means_something():
    text = "And then the hut.\nNow, the glacier.\nOn the ridge.\n"
    for start, expected in (
        ("And", "And then the hut"),
        ("Now,", "Now, the glacier"),
        ("On the", "On the ridge"),
    ):
        at = text.index(start)
        a, b = unique_quote_at(text, at, at, text.index("\n", at))
        assert text[a:b] == expected


def test_a_repeated_selection_anchors_on_a_longer_quote_inside_its_block():
    text = "Book the hut early. Pay the hut late.\n\nThe hut closes.\n"
    at = text.index("the hut", 10)
    assert quote_at(text, at, at + len("the hut")) == "Pay the hut late"
    at = text.index("the hut")
    assert quote_at(text, at, at + len("the hut")) == "Book the hut early"


def test_no_quote_says_why():
    text = "- yes\n- yes\n\nand so on\n"
    assert quote_at(text, 2, 5) is None
    assert "also occurs" in no_anchor_reason(text, 2, 5) and "line 2" in no_anchor_reason(text, 2, 5)
    at = text.index("and so")
    assert quote_at(text, at) is None and "common words" in no_anchor_reason(text, at, None)
    assert "no words" in no_anchor_reason("# \n\n|---|\n", 5, None)
