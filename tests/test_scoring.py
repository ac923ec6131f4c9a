"""Hit rules (SPEC §5) on hand-made chunk and span intervals."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from golden_lsp.core.labels.scoring import bearing_chunks, chunk_hits, overlap, parse_hit_rule, union_coverage


@dataclass(frozen=True)
class Interval:
    start: int
    end: int


SPAN = Interval(100, 200)

# chunk → (any_overlap, span_containment, coverage>=0.5)
CASES = {
    Interval(0, 100): (False, False, False),  # touches the start only: half-open, no overlap
    Interval(200, 300): (False, False, False),  # touches the end only
    Interval(0, 101): (True, False, False),  # 1 char
    Interval(150, 400): (True, False, True),  # exactly half: 50/100 >= 0.5
    Interval(151, 400): (True, False, False),  # 49/100
    Interval(120, 180): (True, False, True),  # inside the span, 60%
    Interval(100, 200): (True, True, True),  # equal
    Interval(50, 250): (True, True, True),  # contains
    Interval(100, 199): (True, False, True),  # one short of containing
}


@pytest.mark.parametrize("chunk", list(CASES))
def test_rules_differ_where_they_should(chunk):
    any_overlap, containment, half = CASES[chunk]
    assert chunk_hits(parse_hit_rule("any_overlap"), chunk, SPAN) is any_overlap
    assert chunk_hits(parse_hit_rule("span_containment"), chunk, SPAN) is containment
    assert chunk_hits(parse_hit_rule("coverage>=0.5"), chunk, SPAN) is half


def test_coverage_threshold_is_inclusive_and_tau_one_means_full_cover():
    assert chunk_hits(parse_hit_rule("coverage>=0.6"), Interval(120, 180), SPAN)
    assert not chunk_hits(parse_hit_rule("coverage>=0.61"), Interval(120, 180), SPAN)
    assert chunk_hits(parse_hit_rule("coverage>=1"), Interval(100, 200), SPAN)
    assert not chunk_hits(parse_hit_rule("coverage>=1"), Interval(100, 199), SPAN)


def test_overlap():
    assert overlap(Interval(0, 10), Interval(5, 20)) == 5
    assert overlap(Interval(0, 10), Interval(10, 20)) == 0
    assert overlap(Interval(0, 10), Interval(20, 30)) == 0


def test_union_coverage_never_exceeds_one_with_overlapping_chunks():
    chunks = [Interval(90, 160), Interval(100, 200), Interval(150, 210), Interval(100, 200)]
    assert union_coverage(chunks, SPAN) == 1.0
    assert sum(overlap(c, SPAN) for c in chunks) / 100 > 1  # naive sum would be wrong


def test_union_coverage_merges_overlaps_and_counts_gaps():
    chunks = [Interval(100, 130), Interval(120, 140), Interval(170, 180), Interval(0, 50)]
    assert union_coverage(chunks, SPAN) == pytest.approx(0.5)  # [100,140) + [170,180) = 50
    assert union_coverage([], SPAN) == 0.0
    assert union_coverage([Interval(150, 160)], Interval(5, 5)) == 0.0


def test_union_coverage_rule_is_over_the_set():
    rule = parse_hit_rule("union_coverage>=0.8")
    parts = [Interval(100, 150), Interval(150, 185)]
    assert bearing_chunks(rule, parts, SPAN) == parts  # 85% together, neither alone
    assert bearing_chunks(rule, parts[:1], SPAN) == []
    assert bearing_chunks(parse_hit_rule("coverage>=0.8"), parts, SPAN) == []
    assert bearing_chunks(parse_hit_rule("any_overlap"), parts + [Interval(300, 400)], SPAN) == parts


@pytest.mark.parametrize(
    "spelling, name, tau",
    [
        ("any_overlap", "any_overlap", None),
        ("span_containment", "span_containment", None),
        ("coverage>=0.5", "coverage", 0.5),
        ("coverage>=1", "coverage", 1.0),
        ("union_coverage>=.75", "union_coverage", 0.75),
        ("  any_overlap  ", "any_overlap", None),
    ],
)
def test_parse_hit_rule_accepts(spelling, name, tau):
    rule = parse_hit_rule(spelling)
    assert (rule.name, rule.tau) == (name, tau)
    assert str(rule) == spelling.strip()


@pytest.mark.parametrize(
    "spelling",
    [
        "",
        "overlap",
        "any_overlap2",
        "ANY_OVERLAP",
        "coverage",
        "coverage>=",
        "coverage>0.5",
        "coverage>=abc",
        "coverage>=1.",
        "union_coverage>=-0.5",
        "coverage >= 0.5",
        "span_containment>=0.5",
    ],
)
def test_parse_hit_rule_rejects_junk(spelling):
    with pytest.raises(ValueError, match="unknown hit rule"):
        parse_hit_rule(spelling)


@pytest.mark.parametrize(
    "spelling",
    ["coverage>=0", "coverage>=0.0", "coverage>=1.5", "union_coverage>=2", "union_coverage>=1.0001"],
)
def test_parse_hit_rule_rejects_tau_outside_unit_interval(spelling):
    with pytest.raises(ValueError, match="τ must be in"):
        parse_hit_rule(spelling)
