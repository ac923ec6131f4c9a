"""A corpus edit costs its document (issue 22): the server's edit of one chapter among many reads
that chapter only — the corpus's totals, digest and manifest entries, the facts looked up, the
set's shape findings, the lines analysed again — and gives what a fresh load of the edited corpus
gives; the warm cache answers one entry without parsing its pack and keeps no buffer's passing
state. The work is counted by spies on the functions that do it per document, never timed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from core_support import loc, make_project, qline
from test_diskcache import cache_root, packs, write_pack

from golden_lsp.core.corpus import index as corpus_module
from golden_lsp.core.corpus.document import CorpusDoc
from golden_lsp.core.corpus.index import load_corpus
from golden_lsp.core.engine import diskcache, docindex
from golden_lsp.core.engine import packs as packstore
from golden_lsp.core.engine.analysis import changed_docs
from golden_lsp.core.goldenset import project
from golden_lsp.core.goldenset.config import config_for
from golden_lsp.core.goldenset.project import GoldenSet
from golden_lsp.server.workspace import GoldenSets

N_DOCS = 40


def doc_text(i: int, extra: str = "") -> str:
    return (
        f"# Document {i}\n\nThe unique sentence of document number {i} stays here.{extra}\n\n"
        "- A list item that every document shares.\n"
    )


def lines() -> list[str]:
    """Questions into the first ten documents: thirty are unlabelled (one summary finding)."""
    return [
        qline(f"q{i}", [loc(f"d{i:02}.md", f"sentence of document number {i} stays")], query=f"Q {i}?")
        for i in range(10)
    ]


@pytest.fixture
def built(tmp_path) -> Path:
    """A set of many documents, built (so its manifest is kept and compared)."""
    make_project(tmp_path, {f"d{i:02}.md": doc_text(i) for i in range(N_DOCS)}, lines())
    _, ok = GoldenSet(config_for(tmp_path / "questions.jsonl")).build()
    assert ok
    return tmp_path


def _text(root: Path) -> str:
    return (root / "questions.jsonl").read_text(encoding="utf-8")


class Spies:
    """Which documents each per-document step read, by doc ID."""

    def __init__(self, monkeypatch) -> None:
        self.read: dict[str, list[str]] = {"n_chunks": [], "digest": [], "manifest": [], "index": []}
        n_chunks = CorpusDoc.n_chunks.fget  # type: ignore[attr-defined]
        monkeypatch.setattr(CorpusDoc, "n_chunks", property(lambda d: self._note("n_chunks", d, n_chunks(d))))
        part = getattr(corpus_module, "_digest_part", None)
        entry = getattr(corpus_module, "_manifest_entry", None)
        spy_part = lambda i, d: self._note("digest", d, part(i, d))  # noqa: E731
        monkeypatch.setattr(corpus_module, "_digest_part", spy_part, raising=False)
        spy_entry = lambda d: self._note("manifest", d, entry(d))  # noqa: E731
        monkeypatch.setattr(corpus_module, "_manifest_entry", spy_entry, raising=False)
        index = docindex.index_document
        monkeypatch.setattr(docindex, "index_document", lambda d, *a: self._note("index", d, index(d, *a)))

    def _note(self, what: str, doc: CorpusDoc, value):
        self.read[what].append(doc.doc_id)
        return value

    def clear(self) -> None:
        for read in self.read.values():
            read.clear()


def test_a_corpus_edit_reads_the_edited_document_only(built, monkeypatch):
    sets = GoldenSets()
    q = built / "questions.jsonl"
    golden = sets.golden_set_for(q)
    before = golden.check(_text(built), q)
    spies = Spies(monkeypatch)
    chapter = built / "corpus" / "d03.md"
    for k in range(3):
        spies.clear()
        assert sets.buffer_changed(chapter, doc_text(3, f" Edit {k}."))
        after = golden.check(_text(built), q)
        assert {d for read in spies.read.values() for d in read} == {"d03.md"}, spies.read
    stale = [d.message for d in after.diagnostics if d.code == "stale-manifest"]
    assert stale and "corpus_digest" in stale[0]  # the quotes still resolve, the manifest is stale
    # the edited paragraph's labels are named as changed since the build (passage-changed)
    assert any(d.code == "passage-changed" for d in after.diagnostics)
    derived = ("stale-artifact", "stale-manifest", "passage-changed")
    assert [d for d in after.diagnostics if d.code not in derived] == before.diagnostics
    # the same as a fresh load of the edited corpus
    chapter.write_text(doc_text(3, " Edit 2."), encoding="utf-8")
    fresh = GoldenSet(config_for(q))
    assert fresh.fresh_manifest(fresh.check(_text(built), q)) == golden.fresh_manifest(after)
    assert [(d.code, d.message.split("; run")[0]) for d in fresh.check(_text(built), q).diagnostics] == [
        (d.code, d.message.split("; run")[0]) for d in after.diagnostics
    ]


def test_the_shape_findings_are_kept_while_the_documents_names_are(built):
    sets = GoldenSets()
    q = built / "questions.jsonl"
    golden = sets.golden_set_for(q)
    [summary] = [d for d in golden.check(_text(built), q).diagnostics if d.code == "doc-unlabelled"]
    assert summary.data["count"] == N_DOCS - 10
    sets.buffer_changed(built / "corpus" / "d20.md", doc_text(20, " An unlabelled edit."))
    again = [d for d in golden.check(_text(built), q).diagnostics if d.code == "doc-unlabelled"]
    assert again == [summary] and again[0] is summary  # the same object: not made again nor sent
    (built / "corpus" / "d99.md").write_text(doc_text(99), encoding="utf-8")  # a new document
    sets.file_changed(built / "corpus" / "d99.md")
    [grown] = [d for d in golden.check(_text(built), q).diagnostics if d.code == "doc-unlabelled"]
    assert grown.data["count"] == N_DOCS - 9


def test_no_manifest_is_made_for_a_set_that_keeps_none(tmp_path, monkeypatch):
    make_project(tmp_path, {f"d{i:02}.md": doc_text(i) for i in range(N_DOCS)}, lines())
    made = []
    real = project.manifest
    monkeypatch.setattr(project, "manifest", lambda *a: made.append(1) or real(*a))
    q = tmp_path / "questions.jsonl"
    golden = GoldenSet(config_for(q))
    assert not [d for d in golden.check(_text(tmp_path), q).diagnostics if d.code.startswith("stale")]
    assert made == []


def test_a_corpus_knows_what_its_edits_replaced(tmp_path):
    make_project(tmp_path, {f"d{i:02}.md": doc_text(i) for i in range(5)}, lines())
    root = tmp_path / "corpus"
    c0 = load_corpus(root, "*.md", 1800)
    c1 = c0.with_document(root / "d01.md", doc_text(1, " one"))
    c2 = c1.with_document(root / "d03.md", doc_text(3, " three"))
    (root / "d09.md").write_text(doc_text(9), encoding="utf-8")
    c3 = c2.with_file(root / "d09.md")  # a new document
    assert c3.changed_since(c0) == {"d01.md", "d03.md", "d09.md"}
    assert c2.changed_since(c1) == {"d03.md"} and c1.changed_since(c1) == set()
    branch = c1.with_document(root / "d04.md", doc_text(4, " four"))  # from an older corpus:
    assert branch.changed_since(c1) is None  # a line of its own, compared in full
    tip = branch.with_document(root / "d00.md", "")
    assert tip.changed_since(branch) == {"d00.md"} and branch.changed_since(tip) is None
    assert branch.with_document(root / "d02.md", "").changed_since(branch) is None  # a second child
    assert c2.changed_since(branch) is None and c3.changed_since(c1) == {"d03.md", "d09.md"}
    assert c0.changed_since(c2) is None  # backwards: not a line of edits
    fresh = load_corpus(root, "*.md", 1800)
    for a, b in [(c0, c3), (c1, branch), (branch, c2), (fresh, c3)]:
        # the full comparison, whichever way it is answered
        full = {d for d in a.docs.keys() | b.docs.keys() if a.docs.get(d) is not b.docs.get(d)}
        assert changed_docs(a, b) >= full
        assert changed_docs(a, b) == full or b.changed_since(a) is not None


def test_one_entry_is_read_without_parsing_its_pack(tmp_path, monkeypatch):
    folder = packstore._pack_dir(packstore.cache_dir())  # this code's generation
    folder.mkdir(parents=True)
    keys = [f"fab{i:061x}" for i in range(40)]  # facts' keys, all in one pack
    found = {}
    for i, key in enumerate(keys):
        k, body = key.encode(), json.dumps({"entry": i}).encode()
        found[k] = (packstore._digest(k, body), body)
    found[keys[7].encode()] = (b"0" * 64, found[keys[7].encode()][1])  # a damaged entry
    write_pack(folder / f"{packstore.pack_of(keys[0])}.pack", found)
    parsed = []
    real = packstore.parse_pack
    monkeypatch.setattr(packstore, "parse_pack", lambda data: parsed.append(1) or real(data))
    diskcache.flush()
    assert packstore.read(keys[30]) == {"entry": 30}
    assert packstore.read(keys[0]) == {"entry": 0}  # the first entry: no line end before it
    assert packstore.read(keys[7]) is None  # its digest is checked as before
    assert packstore.read("fab" + "f" * 61) is None  # absent
    assert parsed == []
    packstore.write(keys[39], {"entry": "new"})
    assert packstore.read(keys[39]) == {"entry": "new"}  # what was written, before the flush
    assert [packstore.read(key) for key in keys[10:20]] == [{"entry": i} for i in range(10, 20)]
    assert parsed == [1]  # many wanted from one pack: parsed once, whole
    assert packstore.read(keys[39]) == {"entry": "new"}
    diskcache.flush()


def test_an_edited_buffer_leaves_the_warm_cache_alone(built):
    sets = GoldenSets()
    q = built / "questions.jsonl"
    golden = sets.golden_set_for(q)
    golden.check(_text(built), q)
    diskcache.flush()
    on_disk = {p: p.read_bytes() for p in packs(cache_root())}
    assert on_disk
    for k in range(3):
        sets.buffer_changed(built / "corpus" / "d03.md", doc_text(3, f" Typed {k}."))
        golden.check(_text(built), q)
        diskcache.flush()
    assert {p: p.read_bytes() for p in packs(cache_root())} == on_disk
