"""The incremental engine gives the cold analysis: random edits to a set, analysed on one Analyzer
(which splices the changed window, keeps the set-level counts and re-resolves after a corpus edit
only the lines quoting the edited document) and on a fresh one, must give equal records, equal
findings with equal data, in the same order, and the same counts. The same over a corpus of more
documents than doc-unlabelled lists one by one (the set-level tallies and its summary), with edits
in the documents that must equal a fresh load of the edited corpus (its totals, digest and manifest
entries too); and a session's last publication after random edits of a questions file and a
chapter, republishes of the same text skipped, is a fresh session's. Seeded and bounded, like the
core fuzzing (``test_fuzz_core.py``).
"""

from __future__ import annotations

import json

import pytest
from core_support import FAQ, GUIDE, SAMPLE_LINES, loc, make_project, qline, write_docs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types
from pygls.uris import from_fs_path

from golden_lsp.core.check.rules import SetRules
from golden_lsp.core.corpus.index import load_corpus
from golden_lsp.core.engine.analysis import Analyzer, changed_window
from golden_lsp.core.goldenset.artifact import artifact_text, line_of
from golden_lsp.core.labels.jsonline import split_lines
from golden_lsp.core.labels.scoring import parse_hit_rule
from golden_lsp.server.app import server
from golden_lsp.server.convert import Converted
from golden_lsp.server.session import Session

EDITS = settings(
    derandomize=True,
    max_examples=60,
    deadline=None,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
RULES = SetRules(required_query_types=("procedural",))


def _record(id: str, locators: list[dict], **extra) -> str:
    rec = json.loads(qline(id, locators))
    rec.update(extra)
    return json.dumps(rec, ensure_ascii=False)


#: lines an author might write: good, broken, duplicated, split into dev and test, skipped
POOL = SAMPLE_LINES + [
    qline("q1", [loc("faq.md", "offsets break whenever")]),  # a duplicate id
    qline(
        "q9",
        [loc("guide.md", "depends on the chunk boundaries")],
        query="What does question q1 ask about the corpus?",
    ),  # a duplicate query
    qline("q10", [loc("faq.md", "not in the faq at all")]),
    qline("q11", [loc("guide.md", "the")]),  # ambiguous
    qline("q12", [loc("nowhere.md", "anything")]),
    _record("d1", [loc("faq.md", "offsets break whenever")], split="dev"),
    _record("t1", [loc("faq.md", "offsets break whenever")], split="test"),
    _record(
        "t2", [loc("guide.md", "A nested item about nested lists")], split="test", query_type="procedural"
    ),
    _record("e1", [loc("faq.md", "Added later to the faq")]),  # found only after a corpus edit
    '{"id": "broken", "query": ',
    "// a comment",
    "",
    "   ",
]
FAQ_EDITS = [
    FAQ,
    FAQ + "\nAdded later to the faq, with words.\n",
    FAQ.replace("offsets break whenever", "offsets go"),
]

step = st.one_of(
    st.tuples(st.just("replace"), st.integers(0, 40), st.sampled_from(POOL)),
    st.tuples(st.just("insert"), st.integers(0, 40), st.sampled_from(POOL)),
    st.tuples(st.just("delete"), st.integers(0, 40), st.just("")),
    st.tuples(st.just("type"), st.integers(0, 40), st.sampled_from(["x", '"', "}", "é", "\U0001f600", ""])),
    st.tuples(st.just("swap"), st.integers(0, 40), st.just("")),
    st.tuples(st.just("corpus"), st.integers(0, len(FAQ_EDITS) - 1), st.just("")),
)


def _apply(lines: list[str], kind: str, at: int, what: str) -> None:
    i = at % (len(lines) + (kind == "insert")) if lines or kind == "insert" else 0
    if kind == "insert":
        lines.insert(i, what)
    elif not lines:
        return
    elif kind == "replace":
        lines[i] = what
    elif kind == "delete":
        del lines[i]
    elif kind == "type":  # a keystroke in the middle of a line (or a deletion of one character)
        line = lines[i]
        mid = len(line) // 2
        lines[i] = line[:mid] + what + line[mid + (not what) :]
    elif kind == "swap" and i + 1 < len(lines):
        lines[i], lines[i + 1] = lines[i + 1], lines[i]


def _record_view(r) -> tuple:
    """A record line by value (a parsed record compares by identity)."""
    res, rec = r.result, r.result.record
    return (
        r.line,
        rec and (rec.text, rec.value, rec.span, rec.valid),
        res.diagnostics,
        line_of(res),
        res.deps,
        [
            (x.locator.doc, x.locator.quote, x.span, x.chunks, x.coverage, x.ambiguous_at)
            for x in res.resolved
        ],
    )


def _same(warm, cold) -> None:
    assert list(map(_record_view, warm.records)) == list(map(_record_view, cold.records))
    assert warm.diagnostics == cold.diagnostics
    assert [(d.message, d.data, d.related) for d in warm.diagnostics] == [
        (d.message, d.data, d.related) for d in cold.diagnostics
    ]
    assert warm.counts() == cold.counts()
    assert artifact_text(warm) == artifact_text(cold)


@pytest.fixture
def root(tmp_path):
    write_docs(tmp_path / "corpus", {"guide.md": GUIDE, "faq.md": FAQ})
    return tmp_path


@EDITS
@given(steps=st.lists(step, min_size=1, max_size=12), crlf=st.booleans(), as_lines=st.booleans())
def test_random_edits_give_the_cold_analysis(root, steps, crlf, as_lines):
    corpus = load_corpus(root / "corpus", "*.md", 1800)
    faq_path = corpus.docs["faq.md"].path
    rule = parse_hit_rule("any_overlap")
    warm = Analyzer(corpus, rule, RULES)
    path = root / "questions.jsonl"
    lines = list(SAMPLE_LINES)
    end = "\r\n" if crlf else "\n"
    warm.analyze(path, end.join(lines) + end)
    for kind, at, what in steps:
        if kind == "corpus":
            corpus = corpus.with_document(faq_path, FAQ_EDITS[at])
            warm.set_corpus(corpus)
        else:
            _apply(lines, kind, at, what)
        text = end.join(lines) + end
        # an editor hands in its buffer's lines (``split_lines`` of the text), the CLI the text
        cold = Analyzer(corpus, rule, RULES).analyze(path, text)
        _same(warm.analyze(path, split_lines(text) if as_lines else text), cold)


def test_an_edit_in_one_line_analyses_that_line_only(root, monkeypatch):
    corpus = load_corpus(root / "corpus", "*.md", 1800)
    analyzer = Analyzer(corpus, parse_hit_rule("any_overlap"))
    path = root / "questions.jsonl"
    lines = [
        qline(f"q{i}", [loc("faq.md", "offsets break whenever")], query=f"Question {i}?") for i in range(60)
    ]
    first = analyzer.analyze(path, "\n".join(lines) + "\n")
    analysed = []
    real = Analyzer._analyze_line
    monkeypatch.setattr(
        Analyzer, "_analyze_line", lambda self, line: analysed.append(line) or real(self, line)
    )
    lines[30] = qline("q30", [loc("faq.md", "offsets break whenever")], query="Question thirty?")
    second = analyzer.analyze(path, "\n".join(lines) + "\n")
    assert analysed == [lines[30]]
    assert all(a is b for a, b in zip(first.records[:30], second.records[:30]))
    assert all(a is b for a, b in zip(first.records[31:], second.records[31:]))
    assert second.records[30] is not first.records[30] and first.records[30].line == 30


def test_spans_changed_only_when_a_labelled_line_changes_or_moves(root):
    corpus = load_corpus(root / "corpus", "*.md", 1800)
    analyzer = Analyzer(corpus, parse_hit_rule("any_overlap"))
    path = root / "questions.jsonl"
    lines = SAMPLE_LINES + ["// notes"]
    assert analyzer.analyze(path, "\n".join(lines) + "\n").spans_changed  # the first analysis
    lines[-1] = "// notes, longer"
    assert not analyzer.analyze(path, "\n".join(lines) + "\n").spans_changed
    lines[1] = qline("q1", [loc("guide.md", "the largest chunk the packer emits")])
    assert analyzer.analyze(path, "\n".join(lines) + "\n").spans_changed  # a span moved
    lines.insert(0, "")
    assert analyzer.analyze(path, "\n".join(lines) + "\n").spans_changed  # labelled records moved


@pytest.mark.parametrize(
    "old, new, window",
    [
        ([], ["a", "b"], (0, 0, 2)),
        (["a", "b", "c"], ["a", "x", "c"], (1, 2, 2)),
        (["a", "b", "c"], ["a", "c"], (1, 2, 1)),
        (["a", "a", "a"], ["a", "a"], (2, 3, 2)),
        (["a", "b"], ["a", "b"], (2, 2, 2)),
        (["a", "b"], ["x", "a", "b"], (0, 0, 1)),
    ],
)
def test_changed_window(old, new, window):
    assert changed_window(old, new) == window
    first, old_end, new_end = window
    assert old[:first] + new[first:new_end] + old[old_end:] == new


def test_an_analysis_that_fails_midway_leaves_no_half_updated_cache(root, monkeypatch):
    import golden_lsp.core.check.setrules as setrules

    corpus = load_corpus(root / "corpus", "*.md", 1800)
    rule = parse_hit_rule("any_overlap")
    analyzer = Analyzer(corpus, rule)
    path = root / "questions.jsonl"
    analyzer.analyze(path, "\n".join(SAMPLE_LINES) + "\n")
    real = setrules.SetTally.update

    def fail(*args):
        raise RuntimeError("a bug in the set-level counts")

    monkeypatch.setattr(setrules.SetTally, "update", fail)  # after the lines were spliced in
    edited = "\n".join(SAMPLE_LINES[:3] + SAMPLE_LINES[4:]) + "\n"
    with pytest.raises(RuntimeError):
        analyzer.analyze(path, edited)
    monkeypatch.setattr(setrules.SetTally, "update", real)
    _same(analyzer.analyze(path, edited), Analyzer(corpus, rule).analyze(path, edited))


# --- many documents: the set-level tallies, the doc-unlabelled summary and corpus edits ---------

#: more documents than doc-unlabelled lists one by one: its summary is what is checked
MANY_DOCS = 24


def many_text(i: int, variant: int) -> str:
    """Document ``i`` in one of its versions: with its own sentence, without it (its quotes go
    missing), with a sentence added (quoted only once it is there), or empty."""
    own = f"The own sentence of document number {i} is here."
    return [
        f"# D{i}\n\n{own}\n\n- An item that all documents share.\n",
        f"# D{i}\n\nIts own sentence was removed from this one.\n",
        f"# D{i}\n\n{own}\n\nAn added sentence about topic {i}.\n",
        "",
    ][variant]


def many_line(n: int, doc: int, added: bool) -> str:
    quote = f"added sentence about topic {doc}" if added else f"own sentence of document number {doc}"
    return _record(f"m{n}", [loc(f"m{doc:02}.md", quote)], query=f"Question {n} on {doc}?")


many_step = st.one_of(
    st.tuples(st.just("label"), st.integers(0, 30), st.integers(0, MANY_DOCS + 1), st.booleans()),
    st.tuples(st.just("unlabel"), st.integers(0, 30), st.just(0), st.just(False)),
    st.tuples(st.just("doc"), st.integers(0, MANY_DOCS + 1), st.integers(0, 3), st.booleans()),
    st.tuples(st.just("remove"), st.integers(0, MANY_DOCS + 1), st.just(0), st.just(False)),
    st.tuples(st.just("totals"), st.just(0), st.just(0), st.just(False)),
)


@EDITS
@given(steps=st.lists(many_step, min_size=1, max_size=14), in_full=st.booleans())
def test_random_edits_of_many_documents_give_a_fresh_load(tmp_path_factory, steps, in_full):
    """Questions that label and unlabel documents and edits in the documents (an editor's buffer,
    a file changed, added or removed on disk): the warm analysis — its set-level counts, the
    doc-unlabelled summary, the lines quoting an edited document — and the edited corpus's totals,
    digest and manifest entries are what a fresh load of the edited corpus gives."""
    root = tmp_path_factory.mktemp("many")
    write_docs(root / "corpus", {f"m{i:02}.md": many_text(i, 0) for i in range(MANY_DOCS)})
    corpus = load_corpus(root / "corpus", "*.md", 1800)
    rule = parse_hit_rule("any_overlap")
    rules = SetRules(unlabelled_in_full=in_full)
    warm = Analyzer(corpus, rule, rules)
    path = root / "questions.jsonl"
    lines = [many_line(n, n % 5, False) for n in range(6)]
    warm.analyze(path, "\n".join(lines) + "\n")
    for n, (kind, at, which, flag) in enumerate(steps):
        doc = root / "corpus" / f"m{at:02}.md"
        if kind == "label":
            lines.insert(at % (len(lines) + 1), many_line(100 + n, which, flag))
        elif kind == "unlabel" and lines:
            del lines[at % len(lines)]
        elif kind == "doc":  # typed in an open chapter (a buffer), or saved and read from disk
            doc.write_text(many_text(at, which), encoding="utf-8")
            corpus = corpus.with_document(doc, many_text(at, which)) if flag else corpus.with_file(doc)
        elif kind == "remove" and doc.exists() and len(corpus.docs) > 1:
            doc.unlink()
            corpus = corpus.with_file(doc)
        elif kind == "totals":  # what a republish reads of the corpus, carried to the next edit
            corpus.digest(), corpus.n_chunks, corpus.chars, corpus.manifest_docs()
        warm.set_corpus(corpus)
        text = "\n".join(lines) + "\n"
        fresh = load_corpus(root / "corpus", "*.md", 1800)
        _same(warm.analyze(path, text), Analyzer(fresh, rule, rules).analyze(path, text))
        assert list(corpus.docs) == list(fresh.docs)
        assert (corpus.n_chunks, corpus.chars, corpus.digest()) == (
            fresh.n_chunks,
            fresh.chars,
            fresh.digest(),
        )
        assert corpus.manifest_docs() == fresh.manifest_docs()


# --- republishing: what the editor was last sent is a fresh analysis's ------------------------

publish_step = st.one_of(
    st.tuples(st.just("questions"), st.integers(0, 40), st.sampled_from(POOL)),
    st.tuples(st.just("type"), st.integers(0, 40), st.sampled_from(["x", '"', "é", "\U0001f600"])),
    st.tuples(st.just("chapter"), st.integers(0, len(FAQ_EDITS) - 1), st.just("")),
    st.tuples(st.just("keystroke"), st.integers(0, 400), st.sampled_from(["e", "\n", " the"])),
)


@EDITS
@given(steps=st.lists(publish_step, min_size=1, max_size=10))
def test_the_last_publication_after_random_edits_is_a_fresh_analysis(tmp_path_factory, steps):
    """A session takes random edits of an open questions file and of an open chapter; each
    republish whose text is the one last sent is skipped (as the scheduler does); the text the
    editor holds at the end is what a fresh session on the same buffers publishes."""
    root = make_project(tmp_path_factory.mktemp("publish"))
    q, chapter = root / "questions.jsonl", root / "corpus" / "faq.md"
    uri, chapter_uri = from_fs_path(str(q)), from_fs_path(str(chapter))

    def session(text: str, faq: str, version: int) -> tuple[Session, Converted]:
        s, converted = Session(), Converted(server.protocol.encode)
        s.open(uri, text, version)
        s.open(chapter_uri, faq, version)
        return s, converted

    lines = list(SAMPLE_LINES)
    warm, converted = session("\n".join(lines), FAQ, 1)
    sent = converted.publish_params(warm.view(uri))
    for version, (kind, at, what) in enumerate(steps, start=2):
        if kind in ("questions", "type"):
            i = at % len(lines)
            old = lines[i]
            lines[i] = what if kind == "questions" else old[: len(old) // 2] + what + old[len(old) // 2 :]
            end = types.Position(i, len(old.encode("utf-16-le")) // 2)
            change = types.TextDocumentContentChangePartial(types.Range(types.Position(i, 0), end), lines[i])
            warm.edit(uri, version, [change])
        else:
            faq = warm.buffers[chapter_uri].text
            if kind == "chapter":
                change = types.TextDocumentContentChangeWholeDocument(FAQ_EDITS[at])
            else:  # a keystroke somewhere in the chapter
                where = types.Position(at % faq.count("\n"), 0)
                change = types.TextDocumentContentChangePartial(types.Range(where, where), what)
            buf = warm.edit(chapter_uri, version, [change])
            warm.corpus_changed(chapter, buf.text)
        params = converted.publish_params(warm.view(uri))
        if params != sent:  # else not sent: the editor keeps what it has
            sent = params
    # the version is the buffer's: compare what the editor shows, at the version it holds
    fresh, fresh_converted = session(
        warm.buffers[uri].text, warm.buffers[chapter_uri].text, warm.buffers[uri].version
    )
    assert (
        json.loads(sent)["diagnostics"]
        == json.loads(fresh_converted.publish_params(fresh.view(uri)))["diagnostics"]
    )
