"""md-struct-v1 against a line-by-line reading of SPEC §2, on generated Markdown.

``chunk_document`` classifies lines with whole-text regex passes, packs with bisection and hashes
per section; the oracle here walks ``str.splitlines`` lines one at a time with SPEC §2's own
three patterns, exactly as the SPEC words it. Both must give the same chunks for any text:
headings, fences of both kinds, lists, tables, rules, blank and white-space lines, and the
other line breaks (U+2028, U+0085, ``\\v``, …) that ``splitlines`` honours.
"""

from __future__ import annotations

import hashlib
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from golden_lsp.core.text.chunker import chunk_document

HEADING = re.compile(r"^(#{1,6})\s+(.*\S)\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
RULE = re.compile(r"^\s*([-*_])(\s*\1){2,}\s*$")


def spec_chunks(doc_id: str, t: str, max_chars: int) -> list[tuple[int, int, str, str]]:
    """(start, end, heading path, chunk id) of every chunk, read straight off SPEC §2."""
    lines, pos = [], 0
    for line in t.splitlines(keepends=True):
        lines.append((pos, pos + len(line), line))
        pos += len(line)
    heads, stack, in_fence = [], [], False
    for _, end, line in lines:
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and (m := HEADING.match(line[:-1] if line.endswith("\n") else line)):
            while stack and stack[-1][0] >= len(m.group(1)):
                stack.pop()
            stack.append((len(m.group(1)), m.group(2)))
            heads.append((end, " > ".join(title for _, title in stack)))
    sections = []
    if not heads:
        sections.append((0, len(t), doc_id))
    else:
        first_end = t.rfind("\n", 0, heads[0][0] - 1) + 1
        if t[:first_end].strip():
            sections.append((0, first_end, doc_id))
        for i, (body_start, path) in enumerate(heads):
            end = t.rfind("\n", 0, heads[i + 1][0] - 1) + 1 if i + 1 < len(heads) else len(t)
            sections.append((body_start, end, f"{doc_id} > {path}"))
    out = []
    for s, e, path in sections:
        inside = [(a, b, line) for a, b, line in lines if a >= s and b <= e]
        blocks, open_at, in_fence = [], None, False
        for a, b, line in inside:
            if FENCE.match(line):
                open_at = a if open_at is None else open_at
                in_fence = not in_fence
                if not in_fence:
                    blocks.append((open_at, b))
                    open_at = None
            elif in_fence:
                continue
            elif line.strip() and not RULE.match(line):
                open_at = a if open_at is None else open_at
            elif open_at is not None:
                blocks.append((open_at, a))
                open_at = None
        if open_at is not None:
            blocks.append((open_at, e))
        packed, current = [], None
        for bs, be in blocks:
            if be - bs > max_chars:
                if current is not None:
                    packed.append(current)
                    current = None
                seg = bs
                for a, b, _ in inside:
                    if a >= bs and b <= be and b - seg > max_chars and b > seg:
                        cut = a if a > seg else b
                        packed.append((seg, cut))
                        seg = cut
                if be > seg:
                    packed.append((seg, be))
            elif current is None:
                current = (bs, be)
            elif be - current[0] <= max_chars:
                current = (current[0], be)
            else:
                packed.append(current)
                current = (bs, be)
        if current is not None:
            packed.append(current)
        for a, b in packed:
            body = t[a:b]
            if body.strip():
                embed = f"{path}\n\n{body.strip()}"
                digest = hashlib.sha256(f"{doc_id}\0md-struct-v1\0{embed}\0".encode()).hexdigest()
                out.append((a, b, path, digest))
    return out


#: lines of Markdown, and the break after each (mostly ``\n``, as in canonical text)
LINES = st.one_of(
    st.sampled_from(
        [
            "# Title",
            "## Sub  section ",
            "### C",
            "###### six",
            "####### seven",
            "#NoSpace",
            "# ",
            "```",
            "```python",
            "  ~~~",
            "~~~ text",
            "\t```",
            "---",
            " * * *",
            "___",
            "- - -",
            "-- -x",
            "- item",
            "  - nested item",
            "1. first",
            "| a | b |",
            "|---|---|",
            "| 1 | 2 |",
            "> quote",
            "",
            "",
            "",
            " ",
            "\t",
            "\u3000",
            "\x1f",
            "plain text line",
            "é🙂 ünïcode 𝔘",
            "# ```",
        ]
    ),
    st.text(st.sampled_from("ab #-*_`~|\t é🙂"), max_size=12),
    st.text(st.characters(blacklist_categories=["Cs"]), max_size=6),
)
BREAKS = st.sampled_from(
    ["\n"] * 12 + ["\u2028", "\u2029", "\x85", "\v", "\f", "\x1c", "\x1d", "\x1e", "\r\n", "\r"]
)
MARKDOWN = st.lists(st.tuples(LINES, BREAKS), max_size=40).map(lambda pairs: "".join(a + b for a, b in pairs))


def got(doc_id: str, text: str, max_chars: int) -> list[tuple[int, int, str, str]]:
    return [(c.start, c.end, c.heading_path, c.chunk_id) for c in chunk_document(doc_id, text, max_chars)]


@settings(max_examples=1500, deadline=None)
@given(
    text=MARKDOWN,
    tail=st.sampled_from(["", "\n", "no final break"]),
    max_chars=st.sampled_from([1, 8, 20, 60, 200, 1800]),
)
def test_chunks_equal_a_line_by_line_reading_of_the_spec(text, tail, max_chars):
    text += tail
    assert got("dir/d.md", text, max_chars) == spec_chunks("dir/d.md", text, max_chars)


@settings(max_examples=300, deadline=None)
@given(
    paragraphs=st.lists(st.tuples(LINES, st.integers(1, 30)), min_size=1, max_size=30),
    max_chars=st.sampled_from([40, 300, 1800]),
)
def test_long_blocks_and_fences_equal_the_spec(paragraphs, max_chars):
    # long runs of one line (hard splits, long fenced blocks) in canonical text
    text = "".join((line + "\n") * n for line, n in paragraphs)
    assert got("d.md", text, max_chars) == spec_chunks("d.md", text, max_chars)
