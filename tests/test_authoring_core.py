"""Core parts of authoring: the next free id, the renumbering guard in the CLI, raw→canonical."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from golden_lsp.core.labels.ids import FreeIds, next_free_id
from golden_lsp.core.text.canon import PositionMap, canonicalize

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_next_free_id_continues_the_numbering_past_committed_ids():
    assert next_free_id(["ex001", "ex002", "ex010"]) == "ex011"
    assert next_free_id(["ex001"], ["ex001", "ex002"]) == "ex003"  # the committed artifact counts
    assert next_free_id(["a7", "ex001", "ex002"]) == "ex003"  # the most common pattern wins
    assert next_free_id([]) == "q001"
    assert next_free_id(["ex009", "ex010"]) == "ex011"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["ex001", "ex002", "a7", "a8", "q001", "x", "ex010", "a0009"]), max_size=6),
    st.lists(
        st.one_of(st.none(), st.sampled_from(["a1", "a2", "ex003", "b01", "ex011", "a10"])), max_size=12
    ),
)
def test_free_ids_read_once_answer_as_next_free_id_of_everything_used(start, steps):
    """``FreeIds`` (an import's numbering, read once) takes and is told of ids in any order, and
    each id it takes is the one ``next_free_id`` of everything used so far would take."""
    used = list(start)
    ids = FreeIds(start)
    for own in steps:
        if own is None or own in used:  # a record without a free id of its own: the next free one
            expected = next_free_id(used)
            assert ids.take() == expected
            used.append(expected)
        else:
            ids.add(own)
            used.append(own)


def test_canonical_offset_inverts_raw_position_through_bom_crlf_and_nfd():
    raw = "\ufeffCafe\u0301 one\r\nsecond line\r\n"
    m = PositionMap(raw, canonicalize(raw))
    text = canonicalize(raw)
    for offset in (0, 3, 5, 8, text.index("second"), text.index("line")):
        assert m.canonical_offset(*m.raw_position(offset)) == offset


def test_id_reused_is_a_warning_in_the_cli(tmp_path: Path, cli):
    golden = tmp_path / "golden"
    shutil.copytree(EXAMPLES, golden)
    q = golden / "questions.jsonl"
    lines = q.read_text(encoding="utf-8").split("\n")
    n = next(i for i, line in enumerate(lines) if line.startswith("{"))
    record = json.loads(lines[n])
    record["query"] = "A different question under an old id?"
    lines[n] = json.dumps(record, ensure_ascii=False)
    q.write_text("\n".join(lines), encoding="utf-8")
    out = cli(["check", "--format", "json", str(golden)])
    found = [d for d in json.loads(out.stdout) if d["code"] == "id-reused"]
    assert len(found) == 1
    assert found[0]["severity"] == "warning" and found[0]["line"] == n + 1
    assert record["id"] in found[0]["message"]
    col = lines[n].index(json.dumps(record["id"])) + 1
    assert found[0]["column"] == col


def test_cursor_context_on_every_prefix_of_every_example_line():
    from golden_lsp.assist.cursor import context_at

    lines = [
        line
        for line in (EXAMPLES / "questions.jsonl").read_text(encoding="utf-8").split("\n")
        if line.startswith("{")
    ]
    for line in lines[:10]:
        for cut in range(len(line) + 1):
            half = line[:cut]
            for col in {0, cut // 2, cut}:
                ctx = context_at(half, col)
                assert 0 <= ctx.start <= ctx.end <= max(len(half), col)
    line = lines[0]
    at = line.index('"quote": "') + len('"quote": "') + 3
    ctx = context_at(line, at)
    assert (ctx.kind, ctx.key, ctx.in_locator) == ("value", "quote", True)
    assert ctx.prefix == json.loads(line)["locators"][0]["quote"][:3]
    assert ctx.members["doc"] == json.loads(line)["locators"][0]["doc"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='{}[]":, \\abcqu0\u00e9\U0001f600', max_size=40), st.integers(0, 45))
def test_cursor_context_never_raises(line, col):
    from golden_lsp.assist.cursor import context_at

    ctx = context_at(line, min(col, len(line)))
    assert ctx.kind in ("key", "value", "none")


def test_continuations_put_unique_quotes_first_with_exact_counts():
    from golden_lsp.assist.continuations import MAX_COUNT, continuations
    from golden_lsp.core.labels.resolve import occurrences

    text = canonicalize((EXAMPLES / "corpus" / "01-planning-a-hut-tour.md").read_text(encoding="utf-8"))
    found = continuations(text, "the hut")
    assert found and found[0][1] == 1
    for quote, n in found:
        assert quote.startswith("the hut")
        assert n == min(len(occurrences(text, quote, MAX_COUNT)), MAX_COUNT)
    assert continuations(text, "   ") == []
