"""Re-anchoring in the editor: the quick fix and the hover of a label the corpus change broke.

A ``quote-not-found``, ``quote-ambiguous`` or ``unknown-doc`` finding in a set whose corpus is in
git and whose committed manifest records the ``corpus_commit`` the last build read gets the quick
fix "Re-anchor (moved to wheels/tyres.md)" or "Re-anchor (edited, 93 % similar)", and its hover
says what the label used to span. Both come from ``keep.migrate.Relocator`` — the code
``golden-lsp migrate`` runs — so the fix is the very rewrite ``migrate --from <commit> --write``
makes for that locator, and its edits replace exactly the ``doc`` and ``quote`` values
(``migrate.value_edits``). The old corpus at a commit never changes: it is read with git once per
(corpus folder, commit, glob, max_chars) and kept, on the first code action or hover that needs
it — never on a keystroke, since diagnostics never need it. A ``Relocator`` is kept per golden set
and current corpus object, so its word index is made once per version of the corpus.
"""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import NamedTuple

from lsprotocol import types

from ..core.check.model import RecordLine
from ..core.corpus.index import Corpus
from ..core.findings.diagnostics import BROKEN_LABEL, Diagnostic, Range
from ..core.goldenset.config import ConfigError
from ..core.goldenset.project import GoldenSet
from ..core.labels.questions import Locator
from ..keep.migrate import value_edits
from ..keep.oldcorpus import OldCorpus, at_revision
from ..keep.relocate import Relocation, Relocator, texts_of, with_answer
from .convert import to_lsp
from .view import View

#: old corpora kept at once (a set's recorded commit, and the previous one across a build)
KEPT_OLD_CORPORA = 4


class Reanchoring:
    """The old corpora read so far and the relocators made from them, for one server."""

    def __init__(self) -> None:
        #: (corpus folder, commit, glob, max_chars) → the corpus then (None: it cannot be read)
        self._old: dict[tuple[Path, str, str, int], OldCorpus | None] = {}
        #: golden set → its corpus object, the old corpus, the relocator between them and what it
        #: answered (a code action is asked for again on every cursor move)
        self._relocators: weakref.WeakKeyDictionary[GoldenSet, _Kept] = weakref.WeakKeyDictionary()

    def old_corpus(self, golden: GoldenSet) -> OldCorpus | None:
        """The set's corpus at the commit its manifest records; None when there is no such
        commit or it cannot be read (no git, no repository, a commit this clone lacks)."""
        commit = golden.recorded_commit()
        if commit is None:
            return None
        config = golden.config
        key = (config.corpus_path().resolve(), commit, config.glob, config.max_chars)
        if key not in self._old:
            try:
                self._old[key] = at_revision(key[0], commit, config.glob, config.max_chars)
            except ConfigError:
                self._old[key] = None
            while len(self._old) > KEPT_OLD_CORPORA:
                del self._old[next(iter(self._old))]
        return self._old[key]

    def relocation(self, golden: GoldenSet, locator: Locator) -> Relocation | None:
        """What ``migrate`` does with this locator; None when there is no old corpus to read."""
        if not isinstance(locator.doc, str) or not isinstance(locator.quote, str):
            return None
        old = self.old_corpus(golden)
        if old is None:
            return None
        kept = self._relocators.get(golden)
        if kept is None or kept.corpus is not golden.corpus or kept.old is not old:
            kept = _Kept(golden.corpus, old, Relocator(old.texts, texts_of(golden.corpus)), {})
            self._relocators[golden] = kept
        key = (locator.doc, locator.quote, locator.exact)
        if key not in kept.answers:
            kept.answers[key] = kept.relocator.relocate(*key)
        return kept.answers[key]


class _Kept(NamedTuple):
    corpus: Corpus
    old: OldCorpus
    relocator: Relocator
    answers: dict[tuple[str, str, bool], Relocation]


def broken_locator(view: View, d: Diagnostic) -> Locator | None:
    """The locator a broken-label finding sits on (its quote, or its doc for ``unknown-doc``)."""
    rec = view.analysis.record_at(d.range.line)
    if d.code not in BROKEN_LABEL or rec is None or rec.record is None:
        return None
    for locator in rec.record.locators:
        node = locator.doc_node if d.code == "unknown-doc" else locator.quote_node
        if node is not None and node.start == d.range.column:
            return locator
    return None


def actions(view: View, d: Diagnostic, reanchoring: Reanchoring) -> list[types.CodeAction]:
    """ "Re-anchor (…)" for a broken label that ``migrate`` would rewrite (moved, requoted, edited)."""
    locator = broken_locator(view, d)
    found = reanchoring.relocation(view.golden, locator) if locator is not None else None
    rec = view.analysis.record_at(d.range.line)
    if found is not None and rec is not None and rec.record is not None:
        found = with_answer(
            found, rec.record.expected_answer
        )  # offered, never preferred: a person re-reads it
    if locator is None or found is None or not found.writes(fact_changed=True):
        return []
    line = d.range.line
    edits = [
        types.TextEdit(view.range(Range.on_line(line, start, end)), new)
        for start, end, new in value_edits(locator, found, fact_changed=True)
    ]
    return [
        types.CodeAction(
            title=f"Re-anchor ({found.summary()})",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[to_lsp(view, d)],
            # an edited passage, or one whose facts changed, is for a person to review
            is_preferred=found.status not in ("edited", "fact-changed"),
            edit=types.WorkspaceEdit(changes={view.uri: edits}),
        )
    ]


def used_to_span(
    view: View, rec: RecordLine, locator: Locator, reanchoring: Reanchoring
) -> Relocation | None:
    """The relocation of a broken locator that spanned a passage in the old corpus (hover shows
    that passage); None for a locator that is not broken or had no old span."""
    broken = any(
        d.range.line == rec.line and d.code in BROKEN_LABEL and broken_locator(view, d) is locator
        for d in view.analysis.diagnostics
    )
    found = reanchoring.relocation(view.golden, locator) if broken else None
    return found if found is not None and found.old_span is not None else None
