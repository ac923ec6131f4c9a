"""A new golden set in one command (``golden-lsp init``): config, a corpus, a questions file.

Starting from an empty folder is where people give up: the config keys, the corpus layout and
the record format each have to be right before the first check says anything useful. The skeleton
written here is a complete, clean golden set — one short chapter and one record anchored in it —
so that ``check`` passes at once and every later edit is an edit of something that works (its
config turns off the two set-shape rules a one-record set cannot meet, saying when to drop that). Given
an existing corpus instead, the one record is anchored in that corpus: its quote is the shortest
unique one around the first line of prose (``prose_lines``: mostly words, no markup, never a
documentation generator's directive such as ``::: module.Class``) in a paragraph
(``quotepick.unique_quote_at``), so it resolves too,
and a corpus with Markdown files in subfolders gets the recursive glob ``**/*.md`` (with ``*.md``
every document in a subfolder would vanish from the set). Beside the set goes ``GUIDELINES.md``,
the annotation guidelines the judge's prompt is built from (``core.labels.guidelines``), for the
people labelling — unless the set's folder is inside the corpus, where it would become a document.
Nothing is ever overwritten: a file that exists is kept and reported as kept.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..core.check.rules import MIN_ANSWER_CHARS, MIN_RECORDS, MIN_SPAN_CHARS
from ..core.corpus.document import CorpusConfigError
from ..core.corpus.index import load_corpus
from ..core.goldenset.config import CONFIG_NAME, DEFAULT_QUESTIONS, ConfigError
from ..core.labels.guidelines import FILE_NAME as GUIDELINES_NAME
from ..core.labels.guidelines import PAGE as GUIDELINES
from ..core.labels.quotepick import unique_quote_at
from ..core.labels.resolve import PARAGRAPH, span_at

CHAPTER_NAME = "01-writing-a-golden-set.md"
CHAPTER = """\
# Writing a golden set

A golden set is a list of questions, each paired with the passage of the corpus that answers it.
Retrieval is measured by whether the chunks a system returns overlap those passages.

## Anchoring answers with quotes

Each answer is located by a short quote copied exactly from a chapter. The quote has to occur
exactly once in its chapter, so that a builder finds it without guessing, and golden-lsp grows it
to the paragraph, list item or table row around it.

## Keeping the set healthy

Run golden-lsp check before every commit: it reports quotes that went missing or became
ambiguous when a chapter was edited, and it rebuilds nothing behind your back.
"""

OWN_RECORD = {
    "id": "q001",
    "query": "How is the answer to a golden-set question located in the corpus?",
    "expected_answer": "By a short quote copied exactly from a chapter, which must occur exactly once in it "
    "and is grown to the paragraph, list item or table row around it.",
    "locators": [{"doc": CHAPTER_NAME, "quote": "The quote has to occur"}],
    "hop": "single",
    "tags": ["example"],
}

HELP = """\
// golden-lsp questions file: one JSON object per line; blank lines and // lines are ignored.
//   id               a unique name for the question, never reused once published
//   query            the question as a user would ask it
//   expected_answer  the answer a grader compares a system's answer with
//   locators         where the answer is: [{"doc": a file under the corpus folder,
//                    "quote": a few words copied exactly from it}]; the quote must occur exactly
//                    once in that doc, and the label grows to its paragraph, list item or table
//                    row unless the locator says "exact": true
//   hop              "single" (one locator) or "multi" (two or more)
//   tags             free labels, for slicing results
// Check with `golden-lsp check`, write the artifact with `golden-lsp build`.
"""


@dataclass(frozen=True)
class Written:
    path: Path
    written: bool  # False: the file existed and was kept


FLAT_GLOB, RECURSIVE_GLOB = "*.md", "**/*.md"


def corpus_glob(corpus_root: Path) -> str:
    """The glob that reads every Markdown file of a corpus: recursive when a subfolder holds one."""
    nested = (p for p in corpus_root.glob(f"*/{RECURSIVE_GLOB}") if p.is_file())
    return RECURSIVE_GLOB if next(nested, None) is not None else FLAT_GLOB


def config_text(corpus: str, glob: str, questions: str = DEFAULT_QUESTIONS, small: bool = True) -> str:
    """The config of a set whose corpus folder is ``corpus`` (relative to the config); ``small``:
    a new set, with the two set-shape rules it cannot meet yet turned off."""
    text = (
        f"# golden-lsp: paths are relative to this file\n"
        f"corpus = {json.dumps(corpus)}\n"
        f"glob = {json.dumps(glob)}\n"
        f"questions = {json.dumps(questions)}\n"
    )
    if small:
        text += (
            f"\n"
            f"# A new set is small: delete this table once it has {MIN_RECORDS} records over several documents.\n"
            f"[severity]\n"
            f'too-few-records = "off"\n'
            f'doc-dominates = "off"\n'
        )
    return text


#: how a line that is no prose begins: headings, tables, fences, quotes, HTML, lists, rules, and the
#: directives of documentation generators (mkdocstrings' ``::: module.Class``, admonitions, Jinja)
NOT_PROSE = ("#", "|", "```", "~~~", ">", "<", ":::", "!!!", "???", "{%", "{{", "[TOC]", "---", "***", "===")
#: a prose line has this many words, and words make up this share of its characters
PROSE_WORDS, PROSE_SHARE = 6, 0.6
_WORD = re.compile(r"[^\W\d_]{2,}(?:['’-][^\W\d_]+)*")


def prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """(offset, line) of each line of ``text`` that reads as prose: outside fenced code and front
    matter, not indented code, beginning with no markup, and mostly words."""
    fence, pos = None, 0
    lines = text.split("\n")
    if lines and lines[0].strip() == "---":  # YAML front matter: up to the closing ---
        end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), 0)
        pos = sum(len(line) + 1 for line in lines[: end + 1])
        lines = lines[end + 1 :]
    for line in lines:
        start, pos = pos, pos + len(line) + 1
        body = line.strip()
        if fence is not None:
            fence = None if body.startswith(fence) else fence
            continue
        if body.startswith(("```", "~~~")):
            fence = body[:3]
            continue
        if (
            line.startswith(("    ", "\t"))
            or body.startswith(NOT_PROSE)
            or re.match(r"([-*+]|\d+[.)])\s", body)
        ):
            continue
        words = _WORD.findall(body)
        if len(words) >= PROSE_WORDS and sum(map(len, words)) >= PROSE_SHARE * len(body.replace(" ", "")):
            yield start, line


def anchored_record(corpus_root: Path, glob: str = FLAT_GLOB) -> dict:
    """One record anchored in the first prose paragraph of an existing corpus that makes a label
    (``prose_lines``: never a heading, a table, code, or a documentation generator's directive)."""
    try:
        corpus = load_corpus(corpus_root, glob)
    except CorpusConfigError as exc:
        raise ConfigError(str(exc)) from None
    for doc in corpus.docs.values():
        text = doc.text
        for start, line in prose_lines(text):
            if len(line.strip()) < MIN_SPAN_CHARS:
                continue
            found = unique_quote_at(text, start + len(line) // 2, start, start + len(line))
            if found is None:
                continue
            quote = text[found[0] : found[1]]
            span = span_at(doc.doc_id, text, found[0], quote, False)
            passage = " ".join(text[span.start : span.end].split())
            if span.rule != PARAGRAPH or len(passage) < max(MIN_SPAN_CHARS, MIN_ANSWER_CHARS):
                continue
            return {
                "id": "q001",
                "query": f"What does {doc.doc_id} say here? (write the real question)",
                "expected_answer": passage[:400],
                "locators": [{"doc": doc.doc_id, "quote": quote}],
                "hop": "single",
                "tags": ["example"],
            }
    raise ConfigError(
        f"no prose paragraph in {corpus_root} to anchor a first record in "
        f"(a line of {MIN_SPAN_CHARS}+ characters, mostly words, with a unique quote)"
    )


def write_new(path: Path, text: str) -> Written:
    """``text`` written to ``path`` only when no file is there (never overwritten)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with path.open("x", encoding="utf-8", newline="\n") as f:  # "x": never over an existing file
            f.write(text)
    except FileExistsError:
        return Written(path, False)
    return Written(path, True)


def init(target: Path, corpus: Path | None = None) -> list[Written]:
    """Write the skeleton into ``target`` (created if needed); with ``corpus``, point at it."""
    if target.exists() and not target.is_dir():
        raise ConfigError(f"not a folder: {target}")
    if corpus is not None:
        if not corpus.is_dir():
            raise ConfigError(f"corpus folder not found: {corpus}")
        glob = corpus_glob(corpus)
        record = anchored_record(corpus, glob)
        rel = Path(os.path.relpath(corpus.resolve(), target.resolve())).as_posix()
        files = [(target / CONFIG_NAME, config_text(rel, glob))]
    else:
        record = OWN_RECORD
        files = [
            (target / CONFIG_NAME, config_text("corpus", FLAT_GLOB)),
            (target / "corpus" / CHAPTER_NAME, CHAPTER),
        ]
    files.append((target / DEFAULT_QUESTIONS, HELP + json.dumps(record, ensure_ascii=False) + "\n"))
    if corpus is None or not target.resolve().is_relative_to(corpus.resolve()):
        files.append((target / GUIDELINES_NAME, GUIDELINES))  # inside the corpus it would be a document
    return [write_new(path, text) for path, text in files]
