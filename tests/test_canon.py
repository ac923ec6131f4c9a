"""canon-v1 (SPEC §1): canonical text, strict UTF-8, corpus loading and the raw position map."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from core_support import analyze_lines, loc, only, qline

from golden_lsp.core.corpus.document import CorpusConfigError
from golden_lsp.core.corpus.index import load_corpus
from golden_lsp.core.goldenset.artifact import artifact_text
from golden_lsp.core.text.canon import NotUtf8Error, PositionMap, canonicalize, decode_strict, line_starts

# --- canonicalize ---------------------------------------------------------------------------


def test_every_leading_bom_is_stripped_but_not_inner_ones():
    assert canonicalize("\ufeff\ufeffHello\n") == "Hello\n"
    assert canonicalize("a\ufeffb\n") == "a\ufeffb\n"


def test_crlf_then_lone_cr_become_lf():
    assert canonicalize("a\r\nb\rc\nd") == "a\nb\nc\nd\n"
    # \r\n is replaced first: "\r\r\n" is one lone CR then one CRLF → two line ends, not three
    assert canonicalize("x\r\r\ny") == "x\n\ny\n"


def test_nfc_recomposes_decomposed_accents():
    assert canonicalize("cafe\u0301") == "caf\u00e9\n"
    assert canonicalize("A\u030a") == "\u00c5\n"


def test_final_newline_appended_only_when_missing():
    assert canonicalize("text") == "text\n"
    assert canonicalize("text\n") == "text\n"
    assert canonicalize("") == "\n"
    assert canonicalize("text\r\n") == "text\n"


def test_nothing_else_changes():
    raw = "  Mixed CASE\tand  double  spaces\n\n\n   trailing   "
    assert canonicalize(raw) == raw + "\n"


def test_canonicalize_is_idempotent():
    raw = "\ufeff# T\r\ncafe\u0301\rend"
    once = canonicalize(raw)
    assert canonicalize(once) == once


# --- strict UTF-8 ----------------------------------------------------------------------------


def test_decode_strict_reports_the_byte_offset():
    with pytest.raises(NotUtf8Error) as info:
        decode_strict("héllo".encode() + b"\xff rest")
    assert info.value.offset == len("héllo".encode())
    assert str(info.value.offset) in str(info.value)


def test_decode_strict_keeps_cr_and_bom():
    assert decode_strict(b"\xef\xbb\xbfa\r\nb") == "\ufeffa\r\nb"


def test_non_utf8_corpus_file_is_a_corpus_error_naming_file_and_position(tmp_path):
    bad = "first line\nsé".encode() + b"\xe9t\xe9\n"  # latin-1 bytes on line 2
    corpus, analysis = analyze_lines(
        tmp_path,
        {"good.md": "A paragraph that is long enough to be a real span here.\n", "bad.md": bad},
        [qline("q1", [loc("good.md", "long enough to be a real span")])],
    )
    assert "bad.md" in corpus.broken and "bad.md" not in corpus.docs
    d = only(analysis, "corpus-error")
    assert d.path.name == "bad.md"
    # line 2 (0-based 1), after "sé" → column 2 in code points (3 bytes)
    assert (d.range.line, d.range.column) == (1, 2)
    assert "bad.md" in d.message and "byte 14" in d.message
    assert analysis.has_errors and artifact_text(analysis) is None


def test_non_utf8_position_counts_crlf_and_lone_cr_lines(tmp_path):
    for sep in (b"\r\n", b"\r", b"\n"):
        root = tmp_path / f"c{len(sep)}{sep[0]}"
        root.mkdir()
        (root / "d.md").write_bytes(sep.join([b"one", b"two", "é".encode() + b"x\xff"]))
        broken = load_corpus(root).broken["d.md"]
        assert (broken.line, broken.column) == (2, 2), sep


def test_quote_into_broken_doc_does_not_build(tmp_path):
    _, analysis = analyze_lines(
        tmp_path,
        {"bad.md": b"caf\xe9 latin-1 text, long enough for a span\n"},
        [qline("q1", [loc("bad.md", "latin-1 text")])],
    )
    assert [d.code for d in analysis.diagnostics if d.severity.value == "error"] == ["corpus-error"]
    assert artifact_text(analysis) is None


# --- corpus ----------------------------------------------------------------------------------


def test_corpus_docs_are_sorted_relative_posix_ids(tmp_path):
    root = tmp_path / "c"
    for name in ("b.md", "a.md", "sub/z.md", "sub/deeper/y.md", "notes.txt"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"# {name}\n", encoding="utf-8")
    (root / "dir.md").mkdir()  # not a regular file
    assert list(load_corpus(root, "*.md").docs) == ["a.md", "b.md"]
    assert list(load_corpus(root, "**/*.md").docs) == ["a.md", "b.md", "sub/deeper/y.md", "sub/z.md"]


def test_doc_sha256_and_chars_are_of_the_canonical_text(tmp_path):
    root = tmp_path / "c"
    root.mkdir()
    (root / "d.md").write_bytes("\ufeffcafe\u0301\r\nx".encode("utf-8"))
    doc = load_corpus(root).docs["d.md"]
    canonical = "caf\u00e9\nx\n"
    assert doc.text == canonical
    assert doc.chars == len(canonical) == 7
    assert doc.sha256 == hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def test_corpus_digest_formula(tmp_path):
    root = tmp_path / "c"
    root.mkdir()
    (root / "b.md").write_text("beta\n", encoding="utf-8")
    (root / "a.md").write_text("alpha", encoding="utf-8")
    corpus = load_corpus(root)
    h = hashlib.sha256()
    for doc_id, text in (("a.md", "alpha\n"), ("b.md", "beta\n")):
        h.update(doc_id.encode() + b"\0" + hashlib.sha256(text.encode()).hexdigest().encode() + b"\0")
    assert corpus.digest() == h.hexdigest()
    assert corpus.chars == len("alpha\n") + len("beta\n")


def test_missing_corpus_and_empty_glob_are_config_errors(tmp_path):
    with pytest.raises(CorpusConfigError, match="not found"):
        load_corpus(tmp_path / "nope")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "x.txt").write_text("x", encoding="utf-8")
    with pytest.raises(CorpusConfigError, match="matches"):
        load_corpus(tmp_path / "c", "*.md")


# --- PositionMap -----------------------------------------------------------------------------


def test_line_starts():
    assert line_starts("ab\ncd\n\n") == [0, 3, 6, 7]


def test_identity_when_raw_is_canonical():
    raw = "one\ntwo"
    pm = PositionMap(raw, canonicalize(raw))
    assert pm.raw_position(5) == (1, 1)
    assert pm.raw_position(0) == (0, 0)


def test_raw_position_through_bom_crlf_and_nfd():
    raw = "\ufeffTitle\r\nplain line\r\ncafe\u0301 e\u0301x bar\r\nlast"
    text = canonicalize(raw)
    assert text == "Title\nplain line\ncaf\u00e9 \u00e9x bar\nlast\n"
    pm = PositionMap(raw, text)
    raw_lines = raw.split("\r\n")

    def raw_col_of(line: int, needle: str) -> int:
        return raw_lines[line].index(needle)

    # line 0: editors keep the BOM out of the buffer, so it does not count as a column
    assert pm.raw_position(text.index("Title")) == (0, 0)
    assert pm.raw_position(text.index("itle")) == (0, 1)
    # line 1: CRLF keeps line numbers and columns
    assert pm.raw_position(text.index("line")) == (1, raw_col_of(1, "line"))
    # line 2: NFC recomposition shifts columns after each recomposed character
    line2 = text.index("caf")
    assert pm.raw_position(line2) == (2, 0)
    assert pm.raw_position(line2 + 3) == (2, 3)  # the é itself starts at the base e
    assert pm.raw_position(text.index(" \u00e9x")) == (2, raw_col_of(2, " e\u0301x"))
    assert pm.raw_position(text.index("x bar")) == (2, raw_col_of(2, "x bar"))  # right after é
    assert pm.raw_position(text.index("bar")) == (2, raw_col_of(2, "bar"))
    # end of the recomposed line (its \n) maps to the raw line end
    assert pm.raw_position(text.index("\nlast")) == (2, len(raw_lines[2]))
    # line 3: untouched
    assert pm.raw_position(text.index("last")) == (3, 0)


def test_raw_position_ends_of_a_quote_cover_its_combining_marks():
    raw = "say cafe\u0301 now\n"
    text = canonicalize(raw)
    pm = PositionMap(raw, text)
    start = text.index("caf\u00e9")
    end = start + len("caf\u00e9")
    (_, s), (_, e) = pm.raw_position(start), pm.raw_position(end)
    assert raw[s:e] == "cafe\u0301"


def test_raw_position_with_several_boms_and_lone_cr():
    raw = "\ufeff\ufeffab\rcd"
    text = canonicalize(raw)
    pm = PositionMap(raw, text)
    assert pm.raw_position(0) == (0, 1)  # the editor drops the first BOM; the second is a character
    assert pm.raw_position(text.index("cd")) == (1, 0)
    assert pm.raw_line(1) == "cd"
    assert pm.raw_line(0) == "\ufeffab"
    assert pm.raw_line(99) == ""


# --- one document again: from disk (with_file) or from an editor buffer (with_document) ------


def test_with_file_reads_a_document_exactly_as_load_corpus_does(tmp_path):
    root = tmp_path / "c"
    (root / "sub").mkdir(parents=True)
    (root / "a.md").write_text("# A\n\nAlpha text.\n", encoding="utf-8")
    (root / "sub" / "b.md").write_text("# B\n", encoding="utf-8")
    corpus = load_corpus(root, "**/*.md")

    def same_as_a_fresh_load(c):
        fresh = load_corpus(root, "**/*.md")
        assert list(c.docs) == list(fresh.docs) and c.broken == fresh.broken
        for doc_id, doc in fresh.docs.items():
            got = c.docs[doc_id]
            assert (got.path, got.raw, got.text, got.sha256, got.chunks) == (
                doc.path,
                doc.raw,
                doc.text,
                doc.sha256,
                doc.chunks,
            )

    # edited on disk, with a BOM and CRLF
    (root / "a.md").write_bytes("\ufeff# A\r\n\r\nAlpha text, edited.\r\n".encode("utf-8"))
    corpus = corpus.with_file(root / "a.md")
    same_as_a_fresh_load(corpus)
    # no longer UTF-8: broken, located like load_corpus locates it
    (root / "sub" / "b.md").write_bytes(b"# B\n\nCaf\xe9\n")
    corpus = corpus.with_file(root / "sub" / "b.md")
    assert "sub/b.md" not in corpus.docs and (
        corpus.broken["sub/b.md"].line,
        corpus.broken["sub/b.md"].column,
    ) == (2, 3)
    same_as_a_fresh_load(corpus)
    # fixed again, then removed, then created anew
    (root / "sub" / "b.md").write_text("# B\n\nCafé\n", encoding="utf-8")
    corpus = corpus.with_file(root / "sub" / "b.md")
    assert "sub/b.md" in corpus.docs and not corpus.broken
    (root / "sub" / "b.md").unlink()
    corpus = corpus.with_file(root / "sub" / "b.md")
    assert list(corpus.docs) == ["a.md"]
    (root / "new.md").write_text("# New\n", encoding="utf-8")
    corpus = corpus.with_file(root / "new.md")
    same_as_a_fresh_load(corpus)
    assert list(corpus.docs) == ["a.md", "new.md"]
    # outside the corpus or not matching its glob: the very same corpus
    (root / "notes.txt").write_text("x", encoding="utf-8")
    (tmp_path / "elsewhere.md").write_text("x", encoding="utf-8")
    assert (
        corpus.with_file(root / "notes.txt") is corpus
        and corpus.with_file(tmp_path / "elsewhere.md") is corpus
    )


def test_doc_id_for_follows_pathlib_glob_semantics(tmp_path):
    root = tmp_path / "c"
    (root / "sub").mkdir(parents=True)
    (root / "a.md").write_text("# A\n", encoding="utf-8")
    corpus = load_corpus(root, "*.md")
    (root / "a.md").unlink()
    assert corpus.doc_id_for(root / "a.md") == "a.md"  # known: with_file then removes it
    assert corpus.doc_id_for(root / "ghost.md") is None  # unknown and not on disk
    (root / "dir.md").mkdir()
    assert corpus.doc_id_for(root / "dir.md") is None  # not a regular file
    assert corpus.with_document(root / "dir.md", "# text\n") is corpus
    (root / "sub" / "deep.md").write_text("# D\n", encoding="utf-8")
    assert corpus.doc_id_for(root / "sub" / "deep.md") is None  # "*" never crosses a folder
    (root / "made.md").write_text("# M\n", encoding="utf-8")
    assert corpus.doc_id_for(root / "made.md") == "made.md"
    assert corpus.with_document(root / "made.md", "# M\n").docs["made.md"].path == root / "made.md"


def test_with_file_refuses_an_unreadable_file(tmp_path, monkeypatch):
    root = tmp_path / "c"
    root.mkdir()
    (root / "a.md").write_text("# A\n", encoding="utf-8")
    corpus = load_corpus(root)

    def denied(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(Path, "read_bytes", denied)
    with pytest.raises(CorpusConfigError, match=r"cannot read corpus file .*a\.md: Permission denied"):
        corpus.with_file(root / "a.md")


def test_positions_counted_from_line_blocks_equal_those_from_every_line_start(monkeypatch):
    import random

    import golden_lsp.core.text.canon as canon_module

    monkeypatch.setattr(canon_module, "_BLOCK", 7)  # many blocks in a short text
    rng = random.Random(3)
    for _ in range(1500):
        raw = "".join(
            rng.choice(["a", "\n", "\r\n", "é", "e\u0301", "😀", "  ", "\ufeff"])
            for _ in range(rng.randint(0, 40))
        )
        text = canon_module.canonicalize(raw)
        lazy, full = canon_module.PositionMap(raw, text), canon_module.PositionMap(raw, text)
        full._canonical_starts()
        for offset in range(len(text) + 1):
            assert lazy.canonical_position(offset) == full.canonical_position(offset), (raw, offset)
            assert lazy.raw_position(offset) == full.raw_position(offset), (raw, offset)
