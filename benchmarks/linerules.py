"""Seconds per line of the per-line rules, with one rule switched off: what a keystroke re-runs.

The benchmarks that price one rule on the keystroke path (``pii.py`` for ``record_pii``,
``meaning_rates.py`` for ``record_meaning``) time the same loop — parse a line, run its rules
against the corpus's facts — with the rule in place and with it replaced by a no-op, side by side.
"""

from __future__ import annotations

import contextlib
import time
from unittest import mock

from golden_lsp.core.check import rules
from golden_lsp.core.corpus.index import Corpus
from golden_lsp.core.engine.analysis import Analyzer
from golden_lsp.core.labels.questions import parse_record
from golden_lsp.core.labels.scoring import parse_hit_rule


def seconds_per_line(corpus: Corpus, lines: list[str], repeat: int, without: str | None = None) -> float:
    """Seconds per line to parse ``lines`` and run their rules (``repeat`` times over), with the
    rule function ``rules.<without>`` a no-op when named."""
    hit_rule = parse_hit_rule("any_overlap")
    found = Analyzer(corpus, hit_rule)._found
    off = mock.patch.object(rules, without, lambda *a: None) if without else contextlib.nullcontext()
    with off:
        start = time.perf_counter()
        for _ in range(repeat):
            for line in lines:
                record, diags = parse_record(line)
                rules.line_result(corpus, hit_rule, record, diags, found)
        return (time.perf_counter() - start) / (repeat * len(lines))
