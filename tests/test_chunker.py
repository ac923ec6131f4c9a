"""md-struct-v1 (SPEC §2): sections, blocks, packing, hard splits and content-addressed IDs."""

from __future__ import annotations

import hashlib
import itertools

import pytest

from golden_lsp.core.text import chunker
from golden_lsp.core.text.chunker import CHUNKER_VERSION, chunk_document, chunk_id


def bodies(doc_id: str, text: str, max_chars: int = 1800) -> list[str]:
    return [text[c.start : c.end] for c in chunk_document(doc_id, text, max_chars)]


def paths(doc_id: str, text: str, max_chars: int = 1800) -> list[str]:
    return [c.heading_path for c in chunk_document(doc_id, text, max_chars)]


# --- sections -------------------------------------------------------------------------------


def test_doc_without_heading_is_one_section():
    text = "Just a paragraph.\n\nAnd another one.\n"
    chunks = chunk_document("plain.md", text)
    assert len(chunks) == 1
    assert (chunks[0].start, chunks[0].end, chunks[0].heading_path) == (0, len(text), "plain.md")


def test_text_before_first_heading_is_its_own_section():
    text = "Preamble text.\n\n# First\n\nBody one.\n"
    chunks = chunk_document("d.md", text)
    assert [c.heading_path for c in chunks] == ["d.md", "d.md > First"]
    assert text[chunks[0].start : chunks[0].end] == "Preamble text.\n"
    assert text[chunks[1].start : chunks[1].end] == "Body one.\n"


def test_whitespace_only_preamble_is_not_a_section():
    text = "\n  \n\n# First\nBody.\n"
    assert paths("d.md", text) == ["d.md > First"]


def test_heading_stack_builds_paths():
    text = "# A\na\n## B\nb\n### C\nc\n## D\nd\n# E\ne\n#### F\nf\n"
    assert paths("d.md", text) == [
        "d.md > A",
        "d.md > A > B",
        "d.md > A > B > C",
        "d.md > A > D",
        "d.md > E",
        "d.md > E > F",
    ]


def test_heading_regex_trims_trailing_space_and_needs_a_space():
    text = "#NoSpace\n# Title with trailing   \nbody\n####### seven\nmore\n"
    chunks = chunk_document("d.md", text)
    # "#NoSpace" is text (the preamble), seven hashes are not a heading either
    assert [c.heading_path for c in chunks] == ["d.md", "d.md > Title with trailing"]
    assert text[chunks[1].start : chunks[1].end] == "body\n####### seven\nmore\n"


def test_section_body_excludes_its_heading_line_and_empty_sections_yield_nothing():
    text = "# Empty\n\n# Full\nContent here.\n"
    chunks = chunk_document("d.md", text)
    assert [c.heading_path for c in chunks] == ["d.md > Full"]
    assert text[chunks[0].start : chunks[0].end] == "Content here.\n"


def test_headings_inside_code_fences_do_not_open_sections():
    text = "# Real\nIntro.\n\n```python\n# not a heading\nx = 1\n```\n\nAfter the fence.\n"
    chunks = chunk_document("d.md", text)
    assert {c.heading_path for c in chunks} == {"d.md > Real"}
    assert "# not a heading" in "".join(text[c.start : c.end] for c in chunks)


def test_fence_kinds_are_not_paired():
    # ``` opens, ~~~ closes (any fence line toggles), so "# B" is a heading again
    text = "# A\n```\ncode\n~~~\n# B\nb body\n"
    assert paths("d.md", text) == ["d.md > A", "d.md > B"]
    # and a tilde fence hides headings too
    assert paths("d.md", "# A\n~~~\n# hidden\n~~~\n") == ["d.md > A"]


def test_lines_are_split_like_str_splitlines():
    # U+2028 is a line break for the chunker, so "# Title" starts a line and is a heading (and
    # "intro text", before it on its \n-line, belongs to no section: SPEC §2)
    text = "intro text\u2028# Title\nbody\n"
    assert paths("d.md", text) == ["d.md > Title"]


@pytest.mark.parametrize("brk", ["\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"])
def test_a_section_ends_where_the_next_headings_newline_line_starts(brk):
    # SPEC §2: "# B" starts a splitlines line, but its section boundary is the start of its
    # \n-delimited line, so "tail" (between the last \n and the heading) is in no chunk
    text = f"# A\nalpha body\ntail{brk}# B\nbeta body\n"
    chunks = chunk_document("d.md", text)
    assert [(c.heading_path, text[c.start : c.end]) for c in chunks] == [
        ("d.md > A", "alpha body\n"),
        ("d.md > B", "beta body\n"),
    ]
    assert not any("tail" in text[c.start : c.end] for c in chunks)


@pytest.mark.parametrize("brk", ["\f", "\x85", "\u2028"])
def test_the_preamble_ends_where_the_first_headings_newline_line_starts(brk):
    text = f"Preamble line.\nlost words{brk}# First\nBody.\n"
    chunks = chunk_document("d.md", text)
    assert [(c.heading_path, text[c.start : c.end]) for c in chunks] == [
        ("d.md", "Preamble line.\n"),
        ("d.md > First", "Body.\n"),
    ]
    # a preamble with nothing before the heading's \n-line is no section, even if text sits there
    assert paths("d.md", f"lost words{brk}# First\nBody.\n") == ["d.md > First"]


def test_a_heading_right_after_another_on_one_newline_line_leaves_an_empty_section():
    # "# A\f" is a heading line; "# B" starts the same \n-line: A's section is empty
    text = "# A\f# B\nbody\n"
    assert [(c.heading_path, text[c.start : c.end]) for c in chunk_document("d.md", text)] == [
        ("d.md > B", "body\n")
    ]


# --- blocks and packing ---------------------------------------------------------------------


def test_blank_lines_and_rules_separate_blocks_and_belong_to_none():
    text = "# S\nalpha one\nalpha two\n\nbeta\n---\ngamma\n* * *\n\ndelta\n"
    # one block per chunk: the blank line and the rules are in none of them
    assert bodies("d.md", text, max_chars=20)[0] == "alpha one\nalpha two\n"
    # packing joins blocks into one [start, end) range, so a rule between packed blocks is kept
    assert bodies("d.md", text, max_chars=20) == ["alpha one\nalpha two\n", "beta\n---\ngamma\n", "delta\n"]
    # a rule alone never makes a chunk
    assert bodies("d.md", "# S\n---\n\n***\n") == []


def test_fence_block_ends_at_closing_fence_and_keeps_blank_lines():
    text = "# S\n```\ncode\n\nmore code\n```\nafter\n"
    assert bodies("d.md", text, max_chars=25) == ["```\ncode\n\nmore code\n```\n", "after\n"]


def test_greedy_packing_respects_max_chars():
    blocks = ["a" * 10 + "\n", "b" * 10 + "\n", "c" * 10 + "\n"]
    text = "# S\n" + "\n".join(blocks)
    # block b ends 23 chars after block a starts: fits in 23, not in 22
    assert len(chunk_document("d.md", text, max_chars=23)) == 2
    assert bodies("d.md", text, max_chars=23)[0] == blocks[0] + "\n" + blocks[1]
    assert bodies("d.md", text, max_chars=22) == blocks
    assert bodies("d.md", text, max_chars=1800) == ["\n".join(blocks)]


def test_packing_never_crosses_sections():
    text = "# A\nshort a\n# B\nshort b\n"
    assert bodies("d.md", text) == ["short a\n", "short b\n"]


def test_hard_split_of_a_long_block_at_line_boundaries():
    lines = [f"line {i:02d} of a long paragraph\n" for i in range(20)]
    width = len(lines[0])
    assert width == 28
    block = "".join(lines)
    text = "# S\nsmall block before\n\n" + block + "\nsmall after\n"
    max_chars = 100
    chunks = chunk_document("d.md", text, max_chars)
    got = [text[c.start : c.end] for c in chunks]
    assert got[0] == "small block before\n"  # flushed before the split
    pieces = got[1:-1]
    assert "".join(pieces) == block
    line_starts = {text.index(line) for line in lines} | {text.index(block) + len(block)}
    for c in chunks[1:-1]:
        assert c.start in line_starts and c.end in line_starts
        assert c.end - c.start <= max_chars
    # greedy: each piece takes as many whole lines as fit (3 × 28 = 84; 4 × 28 = 112 > 100)
    assert [len(p) for p in pieces] == [3 * width] * 6 + [2 * width]
    assert got[-1] == "small after\n"


def test_hard_split_keeps_a_single_overlong_line_whole():
    long_line = "x" * 150 + "\n"
    text = "# S\nshort first line\n" + long_line + "tail line\n"
    got = bodies("d.md", text, max_chars=50)
    assert got == ["short first line\n", long_line, "tail line\n"]


# --- chunk text and identity ----------------------------------------------------------------


def test_chunk_id_formula_and_embed_text():
    text = "# Top\n## Sub\n\n  Body text here.  \n\n"
    (chunk,) = chunk_document("dir/doc.md", text)
    embed = "dir/doc.md > Top > Sub\n\nBody text here."
    expected = hashlib.sha256(b"dir/doc.md\0md-struct-v1\0" + embed.encode() + b"\0").hexdigest()
    assert chunk.chunk_id == expected == chunk_id("dir/doc.md", embed)
    assert text[chunk.start : chunk.end] == "  Body text here.  \n"


def test_nul_separators_prevent_concatenation_collisions():
    assert chunk_id("ab", "c") != chunk_id("a", "bc")
    assert chunk_id("a", "b") == hashlib.sha256(b"a\0md-struct-v1\0b\0").hexdigest()
    assert chunk_id("a", "b") != hashlib.sha256(b"a\0md-struct-v1\0b").hexdigest()


def test_ids_are_scoped_by_doc_id():
    text = "# Same\nIdentical body text.\n"
    a = chunk_document("a.md", text)
    b = chunk_document("b.md", text)
    assert [(c.start, c.end) for c in a] == [(c.start, c.end) for c in b]
    assert a[0].chunk_id != b[0].chunk_id


def test_ids_are_scoped_by_chunker_version(monkeypatch):
    text = "# Same\nIdentical body text.\n"
    before = chunk_document("a.md", text)[0].chunk_id
    assert CHUNKER_VERSION == "md-struct-v1"
    monkeypatch.setattr(chunker, "CHUNKER_VERSION", "md-struct-v2")
    assert chunk_document("a.md", text)[0].chunk_id != before


def test_edit_in_another_section_keeps_chunk_ids():
    base = "# One\nFirst section body.\n\n# Two\nSecond section body.\n\n# Three\nThird section body.\n"
    edited = base.replace("First section body.", "First section body, now considerably longer.\n\nWith more.")
    old = {c.heading_path: c.chunk_id for c in chunk_document("d.md", base)}
    new_chunks = chunk_document("d.md", edited)
    new = {c.heading_path: c.chunk_id for c in new_chunks}
    assert new["d.md > Two"] == old["d.md > Two"]
    assert new["d.md > Three"] == old["d.md > Three"]
    assert new["d.md > One"] != old["d.md > One"]
    # offsets moved, IDs did not
    assert [c.start for c in new_chunks if c.heading_path == "d.md > Two"] != [
        c.start for c in chunk_document("d.md", base) if c.heading_path == "d.md > Two"
    ]


def test_renaming_a_heading_changes_its_ids_only():
    base = "# One\nBody one.\n# Two\nBody two.\n"
    renamed = base.replace("# Two", "# Deux")
    old = [c.chunk_id for c in chunk_document("d.md", base)]
    new = [c.chunk_id for c in chunk_document("d.md", renamed)]
    assert old[0] == new[0] and old[1] != new[1]


@pytest.mark.parametrize("max_chars", [20, 60, 1800])
def test_chunks_are_ordered_disjoint_and_never_empty(max_chars):
    text = (
        "Preamble.\n\n# A\n" + "para a line\n" * 7 + "\n| t | r |\n|---|---|\n\n## B\n- item\n- item two\n"
        "\n```\ncode\n```\n"
    )
    chunks = chunk_document("d.md", text, max_chars)
    assert chunks
    for prev, cur in itertools.pairwise(chunks):
        assert prev.end <= cur.start
    for c in chunks:
        assert text[c.start : c.end].strip()
        assert 0 <= c.start < c.end <= len(text)


def test_whole_text_line_classes_equal_specs_per_line_patterns():
    # the chunker finds fence, heading, blank and rule lines with whole-text passes; they must be
    # exactly the lines SPEC §2's patterns match on str.splitlines lines, whatever the breaks
    import random
    import re

    heading, fence = re.compile(r"^(#{1,6})\s+(.*\S)\s*$"), re.compile(r"^\s*(```|~~~)")
    rule = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")
    atoms = [
        "# A",
        "## B c ",
        "### ",
        "#x",
        "####### s",
        "```",
        " ~~~py",
        "---",
        " * * *",
        "_ _",
        "- item",
        "text",
        "",
        " ",
        "\t",
        "é🙂",
        "\x1f",
        "#\tT\u00a0",
        "\u3000-\u3000-\u2003-",
        "\xa0```",
    ]
    breaks = ["\n"] * 6 + ["\r\n", "\r", "\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
    rng = random.Random(2)
    for _ in range(3000):
        text = "".join(rng.choice(atoms) + rng.choice(breaks) for _ in range(rng.randint(0, 12)))
        text = text if rng.random() < 0.7 else text.rstrip("\n")
        rare, seps, pos = [], [], 0
        for line in text.splitlines(keepends=True):
            start, pos = pos, pos + len(line)
            if fence.match(line):
                rare.append((chunker.FENCE, start, pos, None))
            elif m := heading.match(line[:-1] if line.endswith("\n") else line):
                rare.append((chunker.HEAD, start, pos, m.groups()))
            elif not line.strip() or rule.match(line):
                seps.append((start, pos))
        got_rare, sep_starts, sep_ends = chunker._lines(text)
        titles = [
            chunker._HEAD.match(text, s).groups() if k == chunker.HEAD else None for k, s, _ in got_rare
        ]
        assert [(k, s, e, t) for (k, s, e), t in zip(got_rare, titles)] == rare, repr(text)
        assert list(zip(sep_starts, sep_ends)) == seps, repr(text)
