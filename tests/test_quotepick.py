"""The one quote picker (``core/quotepick.py``), property-based (seeded, bounded) and by example.

Documents are drawn as Markdown a corpus holds — list items with bullets, headings, table rows,
emphasis, code spans, links, words repeated on purpose, stop words — and at any place in them,
every quote the picker returns must be unique in the document, inside the block and on one line,
start and end on a letter or digit, hold a word that is not a stop word, and resolve to a span
containing the place; and when it returns none, the whole line around the place is no quote either
(both properties are monotone, so then there is none). Anchor here (``assist.anchor.quote_at``)
is checked the same way on a selection, falling back to a longer quote around it inside its block.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from golden_lsp.assist.anchor import no_anchor_reason, quote_at
from golden_lsp.core.labels.quotepick import (
    STOP_WORDS,
    lengthen,
    meaningful,
    no_quote_reason,
    quote_around,
    unique_quote_at,
)
from golden_lsp.core.labels.resolve import enclosing_block, occurrences, span_at

PROPERTY = settings(
    derandomize=True,
    max_examples=300,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

WORDS = ["hut", "path", "read", "glacier", "Zermatt", "3.5", "don't", "e.g.", "Café", "🏔"]
STOPS = ["the", "And", "on", "Now,", "of", "a", "is"]
WRAPS = ["{}", "{}", "{}", "**{}**", "_{}_", "`{}`", "[{}](guide.md)", "({})", "{}.", "{},"]
PREFIXES = ["", "", "", "- ", "* ", "1. ", "## ", "| ", "> ", "  - "]

token = st.builds(lambda w, wrap: wrap.format(w), st.sampled_from(WORDS + STOPS * 2), st.sampled_from(WRAPS))
line = st.builds(
    lambda prefix, tokens, pipe: prefix + " ".join(tokens) + (" |" if pipe and prefix == "| " else ""),
    st.sampled_from(PREFIXES),
    st.lists(token, min_size=0, max_size=9),
    st.booleans(),
)
#: a document of a few lines, some blank (paragraph breaks), some repeated (ambiguity)
document = (
    st.lists(line, min_size=1, max_size=8)
    .flatmap(lambda lines: st.lists(st.sampled_from(lines), min_size=1, max_size=10))
    .map(lambda lines: "\n".join(lines) + "\n")
)


def word_char(c: str) -> bool:
    return c.isalnum() or c in "\u0301"


def line_of(text: str, pos: int) -> tuple[int, int]:
    end = text.find("\n", pos)
    return text.rfind("\n", 0, pos) + 1, len(text) if end == -1 else end


def assert_good_quote(text: str, found: tuple[int, int], lo: int, hi: int, pos: int) -> str:
    a, b = found
    quote = text[a:b]
    assert len(occurrences(text, quote)) == 1, quote
    assert lo <= a < b <= hi, (found, lo, hi)
    assert "\n" not in quote and line_of(text, a) == line_of(text, pos), quote
    assert word_char(quote[0]) and word_char(quote[-1]), quote
    assert a == 0 or not text[a - 1].isalnum(), quote  # never inside a word
    assert b == len(text) or not text[b].isalnum(), quote
    ls, le = line_of(text, a)
    bullet = re.match(r"[ \t]*(?:[-*+]|\d+\.)[ \t]", text[ls:le])
    assert bullet is None or a >= ls + bullet.end(), quote  # never the list bullet
    assert meaningful(quote) and any(w.lower() not in STOP_WORDS for w in re.findall(r"[^\W_]+", quote))
    span = span_at("d.md", text, a, quote, exact=False)
    assert span.start <= pos < span.end or not text[pos].strip(), (quote, span, pos)
    return quote


def widest(text: str, pos: int, lo: int, hi: int) -> str:
    """The longest stretch of ``pos``'s line inside [lo, hi) a quote could be (bullet and edge
    markers left out): an independent oracle for when there is no quote at all."""
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


@PROPERTY
@given(document, st.data())
def test_every_quote_at_a_place_is_unique_meaningful_on_one_line_and_resolves_there(text, data):
    pos = data.draw(st.integers(0, len(text) - 1))
    lo, hi, _ = enclosing_block(text, pos, pos + 1)
    found = unique_quote_at(text, pos, lo, hi)
    if found is not None:
        assert_good_quote(text, found, lo, hi, pos)
        return
    stretch = widest(text, pos, lo, hi)
    assert not stretch or not meaningful(stretch) or len(occurrences(text, stretch)) > 1, stretch
    reason = no_quote_reason(text, pos, pos + 1, lo, hi)
    if stretch and meaningful(stretch):
        line = int(reason.rsplit(" ", 1)[1])  # "... also occurs at line N": there it is
        assert stretch in text.split("\n")[line - 1] and len(occurrences(text, stretch)) > 1, reason
    else:
        assert reason.startswith(("there are no words", repr(stretch))), reason


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
    span = span_at("d.md", text, a, quote, exact=False)
    assert span.start <= start < span.end


@PROPERTY
@given(document, st.data())
def test_every_lengthening_is_unique_on_the_line_and_holds_the_occurrence(text, data):
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


# --- by example: the quotes first contact produced --------------------------------------------


def test_a_list_line_is_quoted_from_its_words_not_its_bullet_or_emphasis():
    text = "Intro.\n\n* The **read** path is fast.\n* The **write** path is slow.\n"
    at = text.index("* The **read**")
    quote = quote_at(text, at, at + len("* The **read**"))
    assert quote == "The **read"
    assert quote_at(text, at) == "The **read"  # the cursor on the bullet: the item's first word


def test_stop_word_fragments_grow_to_a_word_that_means_something():
    text = "And then the hut.\nNow, the glacier.\nOn the ridge.\n"
    for start in ("And", "Now,", "On the"):
        at = text.index(start)
        a, b = unique_quote_at(text, at, at, text.index("\n", at))
        assert (
            text[a:b]
            == {"And": "And then the hut", "Now,": "Now, the glacier", "On the": "On the ridge"}[start]
        )


def test_a_repeated_selection_anchors_on_a_longer_quote_inside_its_block():
    text = "Book the hut early. Pay the hut late.\n\nThe hut closes.\n"
    at = text.index("the hut", 10)
    assert quote_at(text, at, at + len("the hut")) == "Pay the hut"
    at = text.index("the hut")
    assert quote_at(text, at, at + len("the hut")) == "Book the hut"


def test_no_quote_says_why():
    text = "- yes\n- yes\n\nand so on\n"
    assert quote_at(text, 2, 5) is None
    assert "also occurs" in no_anchor_reason(text, 2, 5) and "line 2" in no_anchor_reason(text, 2, 5)
    at = text.index("and so")
    assert quote_at(text, at) is None and "common words" in no_anchor_reason(text, at, None)
    assert "no words" in no_anchor_reason("# \n\n|---|\n", 5, None)
