"""The analysis engine: every finding for a questions file, reusing per-line results.

This is the one function both front ends call: the CLI on a file from disk, the server on the
buffer as typed. The findings themselves come from ``rules.py`` and ``setrules.py``, the results
are the plain values of ``model.py``; this module only decides what to recompute. Parsing and
resolving are per line, and each line's result is cached per questions file by the line's text
and the versions of the documents it quotes. An analysis compares the file's lines with those of
its previous analysis (in C, from both ends) and works only on the window that changed: its
lines are looked up or analysed, their records and placed findings are spliced in, the set-level
counts (``setrules.SetTally``) lose the old records and gain the new ones, and the records after
the window are renumbered only when the number of lines changed. After a corpus change, the
lines quoting a changed document are found through an index (document → line texts) and
analysed again wherever they sit. So a keystroke costs the edited lines, not the file, and the
result is always the cold analysis's.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from itertools import compress, count
from operator import attrgetter, ne
from pathlib import Path

from ..check import rules, setrules
from ..check.model import Analysis, LineResult, RecordLine, set_anchor
from ..corpus.document import DocumentChanged
from ..corpus.index import Corpus
from ..findings.diagnostics import Diagnostic
from ..labels.jsonline import is_skipped, split_lines
from ..labels.questions import parse_record
from ..labels.scoring import HitRule
from . import docindex, gcpause, quoteindex

_LINE = attrgetter("line")
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


def _order(d: Diagnostic) -> tuple[int, int, str]:
    """The order of an analysis's findings."""
    return d.range.line, d.range.column, d.code


@dataclass
class _FileCache:
    """What the previous analysis of one questions file leaves for the next one."""

    #: the file's lines
    texts: list[str] = field(default_factory=list)
    #: the record of every line that is not skipped, in line order (never changed in place: an
    #: analysis handed out holds it)
    records: list[RecordLine] = field(default_factory=list)
    #: line number → that line's findings moved into place, in order (lines with findings only)
    placed: dict[int, list[Diagnostic]] = field(default_factory=dict)
    #: text of a record line → its result, checked against ``corpus``, and how many lines have it
    results: dict[str, LineResult] = field(default_factory=dict)
    uses: Counter = field(default_factory=Counter)
    #: doc id → the texts in ``results`` whose result depends on that document
    by_doc: dict[str, set[str]] = field(default_factory=dict)
    tally: setrules.SetTally = field(default_factory=setrules.SetTally)
    corpus: Corpus | None = None

    def keep(self, line: str, result: LineResult) -> None:
        """Cache ``result`` for the text ``line`` (replacing its previous result)."""
        self.forget(line)
        self.results[line] = result
        for doc_id, _ in result.deps:
            self.by_doc.setdefault(doc_id, set()).add(line)

    def forget(self, line: str) -> None:
        old = self.results.pop(line, None)
        for doc_id, _ in old.deps if old is not None else ():
            self.by_doc[doc_id].discard(line)


def changed_window(old: list[str], new: list[str]) -> tuple[int, int, int]:
    """(first, old_end, new_end): ``old[first:old_end]`` became ``new[first:new_end]``, the lines
    before and after being the same (compared in C, stopping at the first difference)."""
    n = min(len(old), len(new))
    first = next(compress(count(), map(ne, old, new)), n)
    same_end = min(next(compress(count(), map(ne, reversed(old), reversed(new))), n), n - first)
    return first, len(old) - same_end, len(new) - same_end


def changed_docs(before: Corpus, now: Corpus) -> set[str]:
    """The documents (readable or broken) that are not the same object in both corpora: edited,
    added or removed (an unchanged document is carried over as the same object); for a corpus
    made from ``before`` by edits, the documents they replaced (``Corpus.changed_since``)."""
    replaced = now.changed_since(before)
    if replaced is not None:
        return replaced
    return {
        d
        for docs in ((before.docs, now.docs), (before.broken, now.broken))
        for d in docs[0].keys() | docs[1].keys()
        if docs[0].get(d) is not docs[1].get(d)
    }


def _has_spans(results: list[LineResult]) -> bool:
    return any(r.span is not None for result in results for r in result.resolved)


class Analyzer:
    """Analyses questions files against one corpus, reusing per-line results across calls.

    Each questions file (by path) keeps its own cache of its previous analysis, so several files
    of one set never evict each other's results.
    """

    def __init__(self, corpus: Corpus, hit_rule: HitRule, settings: rules.SetRules = rules.SetRules()):  # noqa: B008 (frozen)
        self.corpus = corpus
        self.hit_rule = hit_rule
        self.settings = settings
        self._files: dict[Path, _FileCache] = {}
        #: what ``_prefetch`` learnt: each quote's facts (one pass per document; kept while the
        #: document is) and, for the analysis under way, each cold line's parse (none twice)
        self._found: rules.Found = {}
        self._parsed: dict[str, tuple] = {}
        #: let go of each document's text once its facts are known (a command-line check)
        self.lean = False
        #: what was learnt before the next analysis (``prime``), used by it instead of starting empty
        self._primed: tuple[rules.Found, dict[str, tuple]] | None = None
        #: every document was chunked by a ``_prefetch`` (or a ``prime``)
        self._indexed = False
        #: doc ID → its keys in ``_found`` (made when a corpus change first needs it)
        self._found_by_doc: dict[str, list[tuple[str, str]]] | None = None

    def set_corpus(self, corpus: Corpus) -> None:
        """Swap in an edited corpus; cached lines stay valid where their documents did."""
        if corpus.max_chars != self.corpus.max_chars:
            self._files.clear()
        # the facts of a quote are its document's: they stay where the document object did
        changed = changed_docs(self.corpus, corpus)
        if changed and self._primed is not None:  # a cold start's facts, not taken in yet
            found, parsed = self._primed
            self._primed = {key: f for key, f in found.items() if key[0] not in changed}, parsed
        if changed and self._found:
            if self._found_by_doc is None:  # made once, then kept with ``_found``
                self._found_by_doc = {}
                for key in self._found:
                    self._found_by_doc.setdefault(key[0], []).append(key)
            for doc_id in changed:
                for key in self._found_by_doc.pop(doc_id, ()):
                    self._found.pop(key, None)
        self.corpus = corpus

    def _fresh(self, result: LineResult) -> bool:
        docs = self.corpus.docs
        for doc_id, sha in result.deps:
            doc = docs.get(doc_id)
            if (doc.sha256 if doc is not None else None) != sha or doc_id in self.corpus.broken:
                return False
        return True

    def _stale(self, cache: _FileCache) -> set[str]:
        """The cached lines whose documents changed since the file's previous analysis (found
        through ``by_doc``: the lines quoting other documents are not looked at), and when
        documents came or went, those quoting an unknown one."""
        before, now = cache.corpus, self.corpus
        if before is None or before is now:
            return set()
        changed = changed_docs(before, now)
        candidates = set().union(*(cache.by_doc.get(d, ()) for d in changed))
        stale = {line for line in candidates if not self._fresh(cache.results[line])}
        if before.names is not now.names:  # an unknown doc's finding names the documents there are
            stale.update(line for d, lines in cache.by_doc.items() if d not in now.docs for line in lines)
        return stale

    def analyze(self, path: Path, text: str | list[str]) -> Analysis:
        """The analysis of the questions file ``path`` holding ``text`` (or its ``split_lines``)."""
        # A cold analysis makes millions of objects that all live on (``gcpause``); after it they
        # are frozen out of every later full collection (which in the server would otherwise
        # stall a keystroke ~0.5 s).
        try:
            with gcpause.paused() as pause:
                analysis, pause.made = self._analyze(path, text)
        except DocumentChanged:  # from a line's analysis, before the file's cache changed: it stays
            raise
        except BaseException:  # a cache left half-updated would corrupt every later analysis
            self._files.pop(path, None)
            raise
        return analysis

    def _analyze(self, path: Path, text: str | list[str]) -> tuple[Analysis, int]:
        """The analysis, and how many lines were analysed afresh."""
        cache = self._files.setdefault(path, _FileCache())
        texts = list(text) if isinstance(text, list) else split_lines(text)
        first, old_end, new_end = changed_window(cache.texts, texts)
        shift = new_end - old_end
        if self._primed is not None:  # what a cold start learnt before this analyzer existed
            (self._found, self._parsed), self._primed = self._primed, None
            self._found_by_doc = None
        else:  # facts stay while their documents do (``set_corpus``); parses are of one analysis
            self._parsed = {}
        stale = self._stale(cache)
        window = texts[first:new_end]
        todo = [line for line in dict.fromkeys(window) if line not in cache.results and not is_skipped(line)]
        todo += stale
        if stale or len(todo) >= quoteindex.MIN_QUOTES:  # many to resolve
            self._prefetch(todo)
        fresh = {line: self._analyze_line(line) for line in todo}

        # the window: its old records and findings out, its new ones in, the lines after moved
        records, placed = cache.records, cache.placed
        lo, hi = bisect_left(records, first, key=_LINE), bisect_left(records, old_end, key=_LINE)
        removed = [r.result for r in records[lo:hi]]
        for no in range(first, old_end):
            placed.pop(no, None)
        tail = records[hi:]
        if shift:
            after = [no for no in placed if no >= old_end]
            placed.update(
                {no + shift: [d.moved_to(no + shift, path) for d in placed.pop(no)] for no in after}
            )
            tail = [RecordLine(r.line + shift, r.result) for r in tail]
        middle = []
        for no, line in enumerate(window, first):
            result = fresh.get(line) or cache.results.get(line)
            if result is not None:
                middle.append(self._place(path, RecordLine(no, result), placed))
        records = records[:lo] + middle + tail
        added = [r.result for r in middle]
        if stale:  # lines outside the window whose documents changed
            before = {id(cache.results[line]): fresh[line] for line in stale}
            for i, r in enumerate(records):
                result = before.get(id(r.result))
                if result is not None:
                    removed.append(r.result)
                    added.append(result)
                    placed.pop(r.line, None)
                    records[i] = self._place(path, RecordLine(r.line, result), placed)

        # the cache follows: texts in use, their results and the documents they depend on
        for line, result in fresh.items():
            cache.keep(line, result)
        cache.uses.update(line for line in window if line in cache.results)
        cache.uses.subtract(line for line in cache.texts[first:old_end] if line in cache.results)
        for line in set(cache.texts[first:old_end]) | fresh.keys():
            if cache.uses[line] <= 0:
                cache.uses.pop(line, None)
                cache.forget(line)
        spans_changed = (
            cache.corpus is None or bool(shift and tail) or _has_spans(removed) or _has_spans(added)
        )
        cache.texts, cache.records, cache.corpus = texts, records, self.corpus

        cache.tally.update(removed, added, bool(shift))
        top = set_anchor(records)
        found = setrules.set_rules(self.corpus, path, top, records, cache.tally, self.settings)
        line_findings = [d for no in sorted(placed) for d in placed[no]]
        diagnostics = list(heapq.merge(line_findings, sorted(found, key=_order), key=_order))
        return Analysis(path, records, diagnostics, cache.tally.n_records, spans_changed), len(fresh)

    @staticmethod
    def _place(path: Path, record: RecordLine, placed: dict[int, list[Diagnostic]]) -> RecordLine:
        """``record`` with its findings moved to its line (into ``placed``)."""
        if record.result.diagnostics:
            placed[record.line] = sorted(
                (d.moved_to(record.line, path) for d in record.result.diagnostics), key=_order
            )
        return record

    def prime(self, found: rules.Found, parsed: dict[str, tuple]) -> None:
        """Facts and parses a cold start learnt before this analyzer existed (``cold_quotes`` and
        ``docindex.load_indexed``: the corpus read as one map), for its next analysis to use."""
        self._primed = found, parsed
        self._indexed = bool(found)

    def _prefetch(self, cold: list[str]) -> None:
        """Chunk the corpus and find the facts of the quotes of many lines to resolve, one document
        at a time (a cold start: ``docindex``, through the warm cache)."""
        wanted = cold_quotes(cold, self._parsed, self.corpus.docs)
        for doc_id, quotes in wanted.items():
            quotes.difference_update(q for q in list(quotes) if (doc_id, q) in self._found)
        if any(wanted.values()):  # every document chunked the first time, after that the wanted
            every, self._indexed = not self._indexed, True
            found = docindex.index_corpus(self.corpus, wanted, LIMIT, self.lean, every)
            self._found.update(found)
            if (by_doc := self._found_by_doc) is not None:
                for key in found:
                    by_doc.setdefault(key[0], []).append(key)

    def _analyze_line(self, line: str) -> LineResult:
        try:
            record, diags = self._parsed.pop(line, None) or parse_record(line)
            return rules.line_result(self.corpus, self.hit_rule, record, diags, self._found, self.settings)
        except DocumentChanged:  # not a bug: the file is read again (``GoldenSet.analyze``'s caller)
            raise
        except Exception as exc:  # a bug must cost its line, never the findings of the whole file
            return rules.crashed_line(line, exc)
