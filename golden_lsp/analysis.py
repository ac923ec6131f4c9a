"""The analysis engine: every finding for a questions file, reusing per-line results.

This is the one function both front ends call: the CLI on a file from disk, the server on the
buffer as typed. The findings themselves come from ``rules.py`` and the results are the plain
values of ``model.py``; this module only decides what to recompute. Parsing and resolving are per
line, and each line's result is cached per questions file by the line's text and the versions of
the documents it quotes, so a keystroke re-parses and re-resolves only the lines whose text
changed (and a corpus edit only the lines quoting the edited document). Every analysis still
walks the whole file: it splits the text, looks each line up in the cache (checking its
documents only when the corpus changed since), reuses the placed findings of lines whose number
and result are unchanged, and reruns the set-level rules and the final sort over all records.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from pathlib import Path

from . import docindex, quoteindex, rules
from .corpus import Corpus
from .diagnostics import Diagnostic
from .model import Analysis, LineResult, RecordLine
from .questions import is_skipped, parse_record, split_lines
from .scoring import HitRule


#: an analysis that analysed this many lines afresh freezes what it made (``gc.freeze``)
FREEZE_AFTER = 1000
#: the occurrences of a quote found ahead of time: those a finding lists, and one more
LIMIT = rules.MAX_LISTED_OCCURRENCES + 1


def cold_quotes(lines: list[str], parsed: dict[str, tuple], docs=None) -> dict[str, set[str]]:
    """Parse each line (into ``parsed``, so no line is parsed twice) and collect its well-formed
    quotes by doc ID (only of ``docs`` when given): what a cold start looks for in each document."""
    wanted: dict[str, set[str]] = {}
    for line in lines:
        if line not in parsed:
            parsed[line] = parse_record(line)
        record = parsed[line][0]
        for loc in record.locators if record else ():
            if loc.well_formed and loc.quote and (docs is None or loc.doc in docs):
                wanted.setdefault(loc.doc, set()).add(loc.quote)
    return wanted


@dataclass
class _FileCache:
    """What the previous analysis of one questions file leaves for the next one."""

    #: line text → its result, each checked against the corpus of ``generation``
    lines: dict[str, LineResult]
    #: line number → that line's record and its findings moved into place
    placed: dict[int, tuple[RecordLine, list[Diagnostic]]]
    generation: int


class Analyzer:
    """Analyses questions files against one corpus, reusing per-line results across calls.

    Each questions file (by path) keeps its own cache of the lines of its previous analysis, so
    several files of one set never evict each other's results.
    """

    def __init__(self, corpus: Corpus, hit_rule: HitRule, settings: rules.SetRules = rules.SetRules()):
        self.corpus = corpus
        self.hit_rule = hit_rule
        self.settings = settings
        self._files: dict[Path, _FileCache] = {}
        #: what ``_prefetch`` learnt: each quote's facts (one pass per document; kept while the
        #: document is) and, for the analysis under way, each cold line's parse (none twice)
        self._found: rules.Found = {}
        self._parsed: dict[str, tuple] = {}
        #: bumped by every ``set_corpus``: cached lines of an older generation are rechecked
        self._generation = 0
        #: let go of each document's text once its facts are known (a command-line check)
        self.lean = False
        #: what was learnt before the next analysis (``prime``), used by it instead of starting empty
        self._primed: tuple[rules.Found, dict[str, tuple]] | None = None

    def set_corpus(self, corpus: Corpus) -> None:
        """Swap in an edited corpus; cached lines stay valid where their documents did."""
        if corpus.max_chars != self.corpus.max_chars:
            self._files.clear()
        # the facts of a quote are its document's: they stay where the document object did
        self._found = {key: f for key, f in self._found.items()
                       if corpus.docs.get(key[0]) is self.corpus.docs.get(key[0]) is not None}
        self.corpus = corpus
        self._generation += 1

    def _fresh(self, result: LineResult) -> bool:
        docs = self.corpus.docs
        for doc_id, sha in result.deps:
            doc = docs.get(doc_id)
            if (doc.sha256 if doc is not None else None) != sha or doc_id in self.corpus.broken:
                return False
        return True

    def analyze(self, path: Path, text: str) -> Analysis:
        # A cold analysis makes millions of objects that all live on: collections during it
        # only traverse them again and again, and after it they are frozen out of every later
        # full collection (which in the server would otherwise stall a keystroke ~0.5 s).
        collecting = gc.isenabled()
        gc.disable()
        try:
            analysis, analysed = self._analyze(path, text)
        finally:
            if collecting:
                gc.enable()
        if analysed >= FREEZE_AFTER:
            gc.freeze()
        return analysis

    def _analyze(self, path: Path, text: str) -> tuple[Analysis, int]:
        """The analysis, and how many lines were analysed afresh."""
        analysed = 0
        previous = self._files.get(path) or _FileCache({}, {}, -1)
        # every line cached by the previous analysis was checked against the corpus of its
        # generation: after a corpus change, each is checked once against its documents
        checked = previous.generation == self._generation
        lines: dict[str, LineResult] = {}
        placed: dict[int, tuple[RecordLine, list[Diagnostic]]] = {}
        records: list[RecordLine] = []
        diagnostics: list[Diagnostic] = []
        if self._primed is not None:  # what a cold start learnt before this analyzer existed
            (self._found, self._parsed), self._primed = self._primed, None
        else:  # facts stay while their documents do (``set_corpus``); parses are of one analysis
            self._parsed = {}
        all_lines = split_lines(text)
        stale = set() if checked else {line for line, r in previous.lines.items() if not self._fresh(r)}
        if stale or len(all_lines) - len(previous.lines) >= quoteindex.MIN_QUOTES:  # many to resolve
            self._prefetch([line for line in all_lines if (line not in previous.lines or line in stale)
                            and not is_skipped(line)])
        previous_lines, previous_placed = previous.lines, previous.placed
        for no, line in enumerate(all_lines):
            result = lines.get(line)
            if result is None:
                result = previous_lines.get(line)  # only records are cached: a hit is no comment
                if result is None or line in stale:
                    if is_skipped(line):
                        continue
                    result = self._analyze_line(line)
                    analysed += 1
                lines[line] = result
            entry = previous_placed.get(no)
            if entry is None or entry[0].result is not result:
                entry = RecordLine(no, result), [d.moved_to(no, path) for d in result.diagnostics]
            placed[no] = entry
            records.append(entry[0])
            diagnostics.extend(entry[1])
        self._files[path] = _FileCache(lines, placed, self._generation)
        diagnostics.extend(rules.set_rules(self.corpus, path, text, records, self.settings))
        diagnostics.sort(key=lambda d: (d.range.line, d.range.column, d.code))
        return Analysis(path, records, diagnostics), analysed

    def prime(self, found: rules.Found, parsed: dict[str, tuple]) -> None:
        """Facts and parses a cold start learnt before this analyzer existed (``cold_quotes`` and
        ``docindex.load_indexed``: the corpus read as one map), for its next analysis to use."""
        self._primed = found, parsed

    def _prefetch(self, cold: list[str]) -> None:
        """Chunk the corpus and find the facts of the quotes of many lines to resolve, one document
        at a time (a cold start: ``docindex``, through the warm cache)."""
        wanted = cold_quotes(cold, self._parsed, self.corpus.docs)
        for doc_id, quotes in wanted.items():
            quotes.difference_update(q for q in list(quotes) if (doc_id, q) in self._found)
        if any(wanted.values()):
            self._found.update(docindex.index_corpus(self.corpus, wanted, LIMIT, self.lean))

    def _analyze_line(self, line: str) -> LineResult:
        try:
            record, diags = self._parsed.pop(line, None) or parse_record(line)
            return rules.line_result(self.corpus, self.hit_rule, record, diags, self._found, self.settings)
        except Exception as exc:  # a bug must cost its line, never the findings of the whole file
            return rules.crashed_line(line, exc)
