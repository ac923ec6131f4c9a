"""What ``check`` proposes for a quote it does not find, on the command line: a ``fix`` in
``--format json`` for every kind of near miss — the typo's closest passage too — each fix a quote
of the quote policy, and every passage shown on whole words (never "'gurations should…'")."""

from __future__ import annotations

import json

import pytest
from core_support import loc, make_project, qline

from golden_lsp.core.check.rules import short
from golden_lsp.core.labels.quotepolicy import problems

DOC = (
    "# Settings\n\n"
    "Configurations should always be explicit, so that every deployment reads the same values.\n\n"
    "The **Response** object carries the status code and the headers of the reply.\n"
)


@pytest.mark.parametrize(
    "quote, hint",
    [
        ("Configuratoins should always be explicit", "closest"),  # a typo: 98 % similar
        ("configurations should always be explicit", "case"),
        ("Configurations  should always be explicit", "whitespace"),
    ],
)
def test_every_near_miss_has_a_fix_that_meets_the_policy(cli, tmp_path, quote, hint):
    root = make_project(tmp_path / "p", {"settings.md": DOC}, [qline("q1", [loc("settings.md", quote)])])
    out = json.loads(cli(["check", root, "--format", "json"]).stdout)
    [d] = [d for d in out if d["code"] == "quote-not-found"]
    fix = d["fix"]["replacement"]
    at = DOC.index(fix)
    assert problems(DOC, at, at + len(fix)) == [], fix
    assert "Configurations should always be explicit" in fix
    # the passage the message shows starts and ends on whole words
    shown = d["message"].split(": '", 1)[1].split("'", 1)[0]
    assert shown.split()[0] in DOC.split() or shown.split()[0].rstrip(",") in DOC.replace(",", " ").split()


def test_a_closest_passage_is_never_cut_inside_a_word(cli, tmp_path):
    lines = [qline("q1", [loc("settings.md", "gurations should alwas be explicit")])]
    root = make_project(tmp_path / "p", {"settings.md": DOC}, lines)
    [d] = [
        d
        for d in json.loads(cli(["check", root, "--format", "json"]).stdout)
        if d["code"] == "quote-not-found"
    ]
    assert (
        "the closest passage" in d["message"] and "'Configurations should always be explicit" in d["message"]
    )
    assert "'gurations" not in d["message"]


def test_a_long_passage_is_shortened_at_a_word():
    text = "Configurations should always be explicit, so that every deployment reads the same values."
    assert short(text) == "Configurations should always be explicit, so that every…"
    assert short("x" * 80).endswith("…") and len(short("x" * 80)) == 60  # one long word: cut where it must
