"""many-chunks: a record whose spans bear more than ten chunks (the guide's 1–10 relevant chunks)."""

from __future__ import annotations

from core_support import analyze_lines, loc, qline

#: twelve sections, each its own chunk, each with a sentence of its own
DOC = "# Guide\n\n" + "".join(
    f"## Part {i}\n\nThe rule of part number {i} says something nobody else says.\n\n" for i in range(12)
)


def findings(tmp_path, n: int):
    locators = [loc("g.md", f"The rule of part number {i} says") for i in range(n)]
    _, analysis = analyze_lines(tmp_path, {"g.md": DOC}, [qline("q1", locators, hop="multi")])
    return [d for d in analysis.diagnostics if d.code == "many-chunks"]


def test_eleven_bearing_chunks_are_too_many_ten_are_not(tmp_path):
    assert findings(tmp_path / "ten", 10) == []
    [d] = findings(tmp_path / "eleven", 11)
    assert "bear 11 chunks" in d.message and d.data["chunks"] == 11
    assert d.severity.value == "info"
    line = qline("q1", [loc("g.md", f"The rule of part number {i} says") for i in range(11)], hop="multi")
    assert line[d.range.column : d.range.end_column].startswith('[{"doc"')  # on the locators


def test_a_chunk_borne_by_two_spans_counts_once(tmp_path):
    locators = [loc("g.md", f"The rule of part number {i} says") for i in range(10)]
    locators.append(loc("g.md", "says something nobody else says", exact=False))  # ambiguous: no span
    locators.append(loc("g.md", "part number 3 says something"))  # the same chunk as part 3
    _, analysis = analyze_lines(tmp_path, {"g.md": DOC}, [qline("q1", locators, hop="multi")])
    assert not [d for d in analysis.diagnostics if d.code == "many-chunks"]
