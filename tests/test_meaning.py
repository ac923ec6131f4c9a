"""What a label means: answer-unsupported, query-copies-passage, and the tokens both stand on."""

from __future__ import annotations

import json

import pytest
from core_support import analyze_lines, loc, make_project, qline
from hypothesis import given
from hypothesis import strategies as st

from golden_lsp.core.check.meaning import COPIED_RUN, copied_run
from golden_lsp.core.labels.answertokens import fact_change, tokens, unsupported

DOC = (
    "# Install\n\n"
    "HTTPX requires Python 3.8+ and installs with `pip install httpx`.\n\n"
    "Call `client.get()` to fetch a page; it returns `Response` when the request is done.\n\n"
    "Set the `proxy` parameter to route requests through a proxy server of your own choosing.\n"
)


def codes(tmp_path, line: str, code: str):
    _, analysis = analyze_lines(tmp_path, {"d.md": DOC}, [line])
    return [d for d in analysis.diagnostics if d.code == code]


@pytest.mark.parametrize(
    "answer, missing",
    [
        ("HTTPX needs Python 3.6 or newer.", ["3.6"]),  # a version the passage no longer says
        ("It needs Python 3.8+ at least.", []),
        ("Python three point eight: 3.8.", []),
    ],
)
def test_answer_unsupported_names_the_missing_tokens(tmp_path, answer, missing):
    line = qline(
        "q1", [loc("d.md", "HTTPX requires Python 3.8+")], query="Which Python does it need?", answer=answer
    )
    found = codes(tmp_path, line, "answer-unsupported")
    if not missing:
        assert found == []
        return
    [d] = found
    assert d.data["missing"] == missing
    assert "'3.6'" in d.message and "HTTPX requires Python 3.8+" in d.message  # the span is shown
    assert d.severity.value == "warning"
    assert line[d.range.column : d.range.end_column] == f'"{answer}"'  # on expected_answer


def test_code_and_identifiers_must_be_in_the_span(tmp_path):
    line = qline(
        "q1",
        [loc("d.md", "it returns `Response` when the request is done")],
        query="What does a GET return?",
        answer="It returns `None` once `client.get()` finishes.",
    )
    [d] = codes(tmp_path, line, "answer-unsupported")
    assert d.data["missing"] == ["None"]  # client.get() is in the span


def test_a_figure_the_query_gives_is_not_required_of_the_passage(tmp_path):
    line = qline(
        "q1",
        [loc("d.md", "HTTPX requires Python 3.8+")],
        query="Does HTTPX still run on Python 3.6?",
        answer="No: 3.6 is too old, it needs 3.8+.",
    )
    assert codes(tmp_path, line, "answer-unsupported") == []


def test_an_unresolved_label_is_not_judged_on_meaning(tmp_path):
    line = qline("q1", [loc("d.md", "not in the document at all")], answer="It needs Python 2.7 only.")
    assert codes(tmp_path, line, "answer-unsupported") == []


def test_query_copying_five_content_words_in_a_row_is_flagged(tmp_path):
    copied = qline(
        "q1",
        [loc("d.md", "Set the `proxy` parameter to route requests")],
        query="How do I route requests through a proxy server of your own choosing?",
        answer="Set the proxy parameter of the client.",
    )
    [d] = codes(tmp_path, copied, "query-copies-passage")
    assert "route requests proxy server choosing" in d.message and d.data["words"] == 5
    natural = qline(
        "q2",
        [loc("d.md", "Set the `proxy` parameter to route requests")],
        query="Can my traffic go through a company proxy?",
        answer="Yes: set the proxy parameter of the client.",
    )
    assert codes(tmp_path / "n", natural, "query-copies-passage") == []


def test_fact_change_says_old_and_new_tokens():
    change = fact_change("A GET returns None.", "`get` returns `None`.", "`get` returns `Response`.")
    assert change is not None and change.lost == ("None",) and change.added == ("Response",)
    assert str(change) == "None → Response"
    assert fact_change(
        "Pass a proxies dict.", "Use the `proxies` parameter.", "Use the `proxy` one."
    ).lost == ("proxies",)
    version = fact_change(
        "It needs Python 3.6+.", "HTTPX requires Python 3.6+.", "HTTPX requires Python 3.8+."
    )
    assert version is not None and version.lost == ("3.6+",)
    # a rewording that keeps every token the answer relies on is not a changed fact
    assert (
        fact_change("It needs Python 3.6+.", "HTTPX requires Python 3.6+.", "Python 3.6+ is required.")
        is None
    )


def test_tokens_kinds():
    got = {
        (t.text, t.kind)
        for t in tokens('Set `max_chars` to 1,200 via --max-chars, see docs/cli.md, "Strict mode", v2.1')
    }
    assert got == {
        ("max_chars", "code"),
        ("Strict mode", "quoted"),
        ("--max-chars", "identifier"),
        ("docs/cli.md", "identifier"),
        ("1,200", "number"),
        ("2.1", "number"),
    }
    assert tokens("Yes, e.g. when it rains, unused/misread chunks.") == []


WORDS = st.lists(
    st.sampled_from(
        ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda", "sigma"]
    ),
    max_size=30,
)


@given(WORDS, WORDS)
def test_copied_run_is_a_run_of_both(query, passage):
    run = copied_run(" ".join(query), " ".join(passage))
    assert run == [] or len(run) >= COPIED_RUN
    if run:
        joined = " ".join(run)
        assert joined in " ".join(query) and joined in " ".join(passage)


PIECES = st.one_of(
    st.from_regex(r"[A-Za-z]{1,8}", fullmatch=True),
    st.from_regex(r"v?\d{1,4}(\.\d{1,2}){0,2}[+%x]?", fullmatch=True),
    st.from_regex(r"\d{1,3},\d{3}", fullmatch=True),
    st.from_regex(r"`[A-Za-z_.()]{1,10}`", fullmatch=True),
    st.from_regex(r"[a-z]{1,5}_[a-z]{1,5}|--[a-z]{2,6}|[a-z]{2,5}/[a-z]{2,5}\.md", fullmatch=True),
    st.from_regex(r'"[A-Za-z ]{2,12}"', fullmatch=True),
)
SEPARATORS = st.sampled_from([" ", ", ", "; ", " (", ") ", ". "])


@given(st.lists(st.tuples(PIECES, SEPARATORS), max_size=12), st.text(max_size=100))
def test_a_passage_holding_the_answer_supports_it(pieces, rest):
    answer = "".join(p + s for p, s in pieces)
    assert unsupported(answer, "", [rest + " " + answer + " " + rest]) == []


# --- passage-changed: the labels whose passage changed since the last build ----------------------


def test_check_names_each_label_whose_passage_changed_since_the_build(cli, tmp_path):
    docs = {"d.md": DOC, "e.md": "# Other\n\nAn unrelated page about something else entirely, for balance.\n"}
    lines = [
        qline("py", [loc("d.md", "HTTPX requires Python")], answer="It needs Python 3.8+ to run."),
        qline("get", [loc("d.md", "fetch a page")], answer="It returns a Response object."),
        qline("other", [loc("e.md", "An unrelated page about")], answer="Nothing at all about HTTPX here."),
    ]
    root = make_project(tmp_path / "set", docs, lines)
    assert cli(["build"], cwd=root).returncode == 0
    recorded = json.loads((root / "golden-set.v1.passages.json").read_text(encoding="utf-8"))["records"]
    assert [x["doc"] for x in recorded["py"]] == ["d.md"] and len(recorded["py"][0]["sha256"]) == 64
    clean = cli(["check", "--format", "json"], cwd=root)
    assert "passage-changed" not in clean.stdout
    (root / "corpus" / "d.md").write_text(DOC.replace("3.8+", "3.9+"), encoding="utf-8")
    proc = cli(["check", "--format", "json"], cwd=root)
    found = [f for f in json.loads(proc.stdout) if f["code"] == "passage-changed"]
    assert [(f["line"], f["severity"]) for f in found] == [(1, "warning")]  # only the label on that passage
    assert "d.md changed since the last build" in found[0]["message"]
    assert {f["code"] for f in json.loads(proc.stdout) if f["line"] == 1} >= {
        "passage-changed",
        "answer-unsupported",
    }
    assert cli(["build"], cwd=root).returncode == 0  # the build records the passage as it is now
    assert "passage-changed" not in cli(["check", "--format", "json"], cwd=root).stdout
