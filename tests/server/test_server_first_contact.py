"""First contact with the corpus side and the quick fixes, over real JSON-RPC: anchor here on words
that repeat and on list lines (quotes on words, never on markers), and saying why when it cannot;
hover, code lenses and references naming every record whose span overlaps a block (an exact quote
inside a paragraph too); the quick fixes for a typo'd quote and a wrong doc."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import change_doc, open_doc, published, uri_of
from lsprotocol import types
from pytest_lsp import LanguageClient
from test_authoring import code_actions, pos_of
from test_server import apply_edits, quote_columns, utf16

from golden_lsp.core.labels.quotepolicy import meaningful
from golden_lsp.core.labels.resolve import occurrences

DOC = "05-first-contact.md"
#: a chapter with what tripped first contact: list lines with emphasis, words repeated on one line,
#: a list item repeated whole, a paragraph over two lines
CHAPTER = """# First contact

* The **read** path is fast on the ridge.
* The **read** path is slow in the valley.

Pay the warden at the hut. Pay the warden in cash only.

- yes
- yes

The glacier tongue retreats a little further every summer,
and the moraine below it grows. Walkers on the ridge see it first.
"""


@pytest.fixture
def chapter(golden_dir: Path) -> Path:
    path = golden_dir / "corpus" / DOC
    path.write_text(CHAPTER, encoding="utf-8")
    return path


def line_range(text: str, needle: str, length: int | None = None, nth: int = 0) -> types.Range:
    """The client range of the ``nth`` occurrence of ``needle`` (its first ``length`` characters)."""
    at = occurrences(text, needle)[nth]
    line = text.count("\n", 0, at)
    col = at - (text.rfind("\n", 0, at) + 1)
    end = col + (len(needle) if length is None else length)
    return types.Range(types.Position(line, col), types.Position(line, end))


async def anchored_quote(client: LanguageClient, golden_dir: Path, chapter: Path, rng: types.Range) -> str:
    """The quote "New golden question anchored here" writes for ``rng``; it resolves to a span
    holding the selection's start, with no quote finding."""
    uri = open_doc(client, chapter)
    actions = await code_actions(client, uri, rng)
    new = next(a for a in actions if a.title == "New golden question anchored here")
    assert new.disabled is None, new.disabled
    q = golden_dir / "questions.jsonl"
    [edit] = new.edit.changes[uri_of(q)]
    text = q.read_text(encoding="utf-8") + edit.new_text
    added = text.rstrip("\n").split("\n")[-1]
    quote = json.loads(added)["locators"][0]["quote"]
    quri = open_doc(client, q, text)
    n = len(text.rstrip("\n").split("\n")) - 1
    pub = await published(client, quri)
    assert not [d for d in pub.diagnostics if d.range.start.line == n and str(d.code).startswith("quote-")]
    s, _ = quote_columns(added)
    [loc] = await client.text_document_definition_async(
        types.DefinitionParams(types.TextDocumentIdentifier(quri), types.Position(n, utf16(added[: s + 2])))
    )
    start = rng.start
    assert loc.uri == uri and (loc.range.start.line, loc.range.start.character) <= (
        start.line,
        start.character,
    )
    assert (start.line, start.character) <= (loc.range.end.line, loc.range.end.character)
    return quote


def a_good_quote(quote: str) -> bool:
    return (
        len(occurrences(CHAPTER, quote)) == 1
        and "\n" not in quote
        and quote[0].isalnum()
        and quote[-1].isalnum()
        and meaningful(quote)
    )


# --- anchor here --------------------------------------------------------------------------------


async def test_anchor_here_on_words_repeated_elsewhere_anchors_a_longer_quote(
    client: LanguageClient, golden_dir: Path, chapter: Path
):
    # "Pay the warden" occurs twice: a quote inside the selection cannot be unique
    rng = line_range(CHAPTER, "Pay the warden", nth=1)
    quote = await anchored_quote(client, golden_dir, chapter, rng)
    assert "Pay the warden" in quote and a_good_quote(quote), quote
    assert CHAPTER.index(quote) <= occurrences(CHAPTER, "Pay the warden")[1]


async def test_anchor_here_on_a_list_line_quotes_words_not_markers(
    client: LanguageClient, golden_dir: Path, chapter: Path
):
    quote = await anchored_quote(client, golden_dir, chapter, line_range(CHAPTER, "* The **read**"))
    assert a_good_quote(quote) and not quote.startswith(("*", "-")), quote
    quote = await anchored_quote(client, golden_dir, chapter, line_range(CHAPTER, "* The **read**", 1, nth=1))
    assert a_good_quote(quote) and ("slow" in quote or "valley" in quote), quote


async def test_anchor_here_says_why_it_cannot(client: LanguageClient, chapter: Path):
    uri = open_doc(client, chapter)
    actions = await code_actions(client, uri, line_range(CHAPTER, "yes", nth=1))
    [new] = [a for a in actions if a.title.startswith("New golden question anchored here")]
    assert new.edit is None and new.disabled is not None
    assert new.disabled.reason == "cannot anchor here: every quote of the words here also occurs at line 8"
    # the title says why too: Neovim lists a disabled action by its title alone
    assert new.title == f"New golden question anchored here — {new.disabled.reason}"


# --- the corpus side: every record overlapping the block ----------------------------------------


async def test_hover_lens_and_references_name_an_exact_quote_inside_the_block(
    client: LanguageClient, golden_dir: Path, chapter: Path
):
    q = golden_dir / "questions.jsonl"
    exact = {
        "id": "ex901",
        "query": "What grows below the glacier?",
        "expected_answer": "The moraine, as the tongue retreats each summer.",
        "locators": [{"doc": DOC, "quote": "moraine below it grows", "exact": True}],
        "hop": "single",
    }
    text = q.read_text(encoding="utf-8").rstrip("\n") + "\n" + json.dumps(exact) + "\n"
    q.write_text(text, encoding="utf-8")
    record_line = text.split("\n").index(json.dumps(exact))
    uri = open_doc(client, chapter)
    first_line = pos_of(CHAPTER, "The glacier tongue", 4)  # in the paragraph, outside the exact span
    hov = await client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), first_line)
    )
    assert hov is not None and "ex901" in hov.contents.value and exact["query"] in hov.contents.value
    assert hov.range.start.line == first_line.line and hov.range.end.line == first_line.line + 1
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(types.TextDocumentIdentifier(uri))
    )
    named = {lens.range.start.line: lens.command.title for lens in lenses}
    assert named == {first_line.line: "labelled by ex901"}  # above the block, not the quote's line
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri),
            position=first_line,
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert [(r.uri, r.range.start.line) for r in refs] == [(uri_of(q), record_line)]
    # a blank line between blocks is no block
    blank = types.Position(first_line.line - 1, 0)
    assert (
        await client.text_document_hover_async(types.HoverParams(types.TextDocumentIdentifier(uri), blank))
        is None
    )


# --- quick fixes for a typo'd quote and a wrong doc ---------------------------------------------


async def fixes_for(client: LanguageClient, uri: str, text: str, line: int, code: str):
    pub = await published(
        client, uri, lambda p: any(d.code == code and d.range.start.line == line for d in p.diagnostics)
    )
    [d] = [d for d in pub.diagnostics if d.code == code and d.range.start.line == line]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(types.TextDocumentIdentifier(uri), d.range, types.CodeActionContext([d]))
    )
    return d, [a for a in actions if a.kind == types.CodeActionKind.QuickFix]


async def test_a_typod_quote_gets_the_closest_passage_as_a_quick_fix(
    client: LanguageClient, golden_dir: Path, chapter: Path
):
    q = golden_dir / "questions.jsonl"
    typo = {
        "id": "ex902",
        "query": "Who is paid in cash?",
        "expected_answer": "The warden, in cash only.",
        "locators": [{"doc": DOC, "quote": "Pay the wardne in cash only"}],
        "hop": "single",
    }
    text = q.read_text(encoding="utf-8").rstrip("\n") + "\n" + json.dumps(typo) + "\n"
    n = text.split("\n").index(json.dumps(typo))
    uri = open_doc(client, q, text)
    d, fixes = await fixes_for(client, uri, text, n, "quote-not-found")
    assert "similar" in d.message
    [fix] = [a for a in fixes if a.title.startswith("Use the closest passage at 6:")]
    assert not fix.is_preferred  # a guess: offered, never applied unasked
    fixed = apply_edits(text, fix.edit.changes[uri])
    quote = json.loads(fixed.split("\n")[n])["locators"][0]["quote"]
    assert quote == "Pay the warden in cash only"
    change_doc(client, uri, 2, fixed)
    pub = await published(client, uri, lambda p: p.version == 2)
    assert not [x for x in pub.diagnostics if x.range.start.line == n and str(x.code).startswith("quote-")]


async def test_an_occurrence_no_quote_on_its_line_can_point_at_says_why(
    client: LanguageClient, golden_dir: Path, chapter: Path
):
    q = golden_dir / "questions.jsonl"
    record = {
        "id": "ex904",
        "query": "Yes?",
        "expected_answer": "Yes, twice over, on purpose.",
        "locators": [{"doc": DOC, "quote": "yes"}],
        "hop": "single",
    }
    text = q.read_text(encoding="utf-8").rstrip("\n") + "\n" + json.dumps(record) + "\n"
    n = text.split("\n").index(json.dumps(record))
    uri = open_doc(client, q, text)
    _, fixes = await fixes_for(client, uri, text, n, "quote-ambiguous")
    # each "- yes" line is the other's twin: no fix, and the reason why (never a quote across lines)
    why = "no quote on line {} holds this occurrence, occurs only once and has a word of its own"
    assert [(a.title, a.edit, a.disabled.reason if a.disabled else None) for a in fixes] == [
        (f"Lengthen to the occurrence at {row}:3 — {why.format(row)}", None, why.format(row))
        for row in (8, 9)
    ]


async def test_a_wrong_doc_gets_the_doc_meant_as_a_quick_fix(
    client: LanguageClient, golden_dir: Path, chapter: Path
):
    q = golden_dir / "questions.jsonl"
    wrong = {
        "id": "ex903",
        "query": "Who is paid at the hut?",
        "expected_answer": "The warden, in cash only.",
        "locators": [{"doc": "first-contact.md", "quote": "Pay the warden in cash"}],
        "hop": "single",
    }
    text = q.read_text(encoding="utf-8").rstrip("\n") + "\n" + json.dumps(wrong) + "\n"
    n = text.split("\n").index(json.dumps(wrong))
    uri = open_doc(client, q, text)
    d, fixes = await fixes_for(client, uri, text, n, "unknown-doc")
    assert f"did you mean '{DOC}'?" in d.message
    [fix] = [a for a in fixes if a.title.startswith(f"Change doc to {DOC!r}")]
    assert fix.is_preferred
    fixed = apply_edits(text, fix.edit.changes[uri])
    assert json.loads(fixed.split("\n")[n])["locators"][0] == {"doc": DOC, "quote": "Pay the warden in cash"}
    change_doc(client, uri, 2, fixed)
    pub = await published(client, uri, lambda p: p.version == 2)
    assert not [
        x for x in pub.diagnostics if x.range.start.line == n and x.severity == types.DiagnosticSeverity.Error
    ]


async def test_a_doc_renamed_to_an_unrelated_name_gets_the_document_its_quotes_are_in(
    client: LanguageClient, golden_dir: Path
):
    """No doc name is close to ``setup-guide.md``, but the record's quote occurs once in one
    chapter: the quick fix names that chapter (preferred), as ``check --format json``'s ``fix``."""
    q = golden_dir / "questions.jsonl"
    renamed = {
        "id": "ex904",
        "query": "Where do boots go in the hut?",
        "expected_answer": "In the boot room by the entrance, on the rack.",
        "locators": [{"doc": "setup-guide.md", "quote": "Take off your boots in the boot room"}],
        "hop": "single",
    }
    text = q.read_text(encoding="utf-8").rstrip("\n") + "\n" + json.dumps(renamed) + "\n"
    n = text.split("\n").index(json.dumps(renamed))
    uri = open_doc(client, q, text)
    _, fixes = await fixes_for(client, uri, text, n, "unknown-doc")
    [fix] = [a for a in fixes if a.is_preferred]
    assert fix.title == "Change doc to '03-life-in-the-hut.md' (every quote of it is there: renamed?)"
    fixed = apply_edits(text, fix.edit.changes[uri])
    assert json.loads(fixed.split("\n")[n])["locators"][0]["doc"] == "03-life-in-the-hut.md"
    change_doc(client, uri, 2, fixed)
    pub = await published(client, uri, lambda p: p.version == 2)
    assert not [
        x for x in pub.diagnostics if x.range.start.line == n and x.severity == types.DiagnosticSeverity.Error
    ]
