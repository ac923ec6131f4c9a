"""Slices: ``eval --by FIELD`` over any record field (metadata, ``meta.KEY``, tags), and the gate per slice.

An aggregate hides the tenant whose corpus is broken. A slice is the records sharing a value of a
field; each is scored with its N and interval like the fixed breakdowns (hop, query type, split,
document), and with ``--gate-slices`` a slice whose paired delta against the baseline dropped with a
95 % interval excluding zero fails the gate even when the aggregate holds. Slices of fewer than
``MIN_INTERVAL_N`` records get no interval and are not gated (said so in the output).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .evalspec import MIN_INTERVAL_N
from .evaluation import Comparison, Evaluation, Group, Scored, compare, gate_failed
from .subsets import field_values
from .targets import Target

#: the breakdowns every evaluation has (``evaluation._groups``)
FIXED = ("hop", "query_type", "split", "document")


def slice_groups(answerable: list[Target], fields: list[str]) -> list[Group]:
    """One group per value of each field not among the fixed breakdowns (a record without the
    field falls in ``(none)``; a record with several tags in each of theirs)."""
    out: list[Group] = []
    for by in dict.fromkeys(f for f in fields if f not in FIXED):
        members: dict[str, list[int]] = {}
        for i, t in enumerate(answerable):
            for v in field_values(t, by) or ["(none)"]:
                members.setdefault(v, []).append(i)
        out.extend(Group(by, v, np.asarray(rows)) for v, rows in sorted(members.items()))
    return out


@dataclass(frozen=True)
class SliceGate:
    by: str
    value: str
    n: int
    metric: str
    k: int
    #: (delta, lo, hi, p); None for a slice too small to gate
    result: tuple[float, float, float, float] | None
    failed: bool


def slice_gates(
    ev: Evaluation, baseline: Comparison, gates: list[tuple[str, int]], fields: list[str]
) -> list[SliceGate]:
    """Each gate on each slice of ``fields``: the paired delta over the slice's queries."""
    st, out = ev.settings, []
    for g in ev.groups:
        if g.by not in fields:
            continue
        for metric, k in gates:
            if len(g.rows) < MIN_INTERVAL_N:
                out.append(SliceGate(g.by, g.value, len(g.rows), metric, k, None, False))
                continue
            part = Scored(
                f"{ev.run.name} [{g.by}={g.value}]",
                baseline.a.fingerprint,
                st,
                [ev.targets.answerable[i].query_id for i in g.rows],
                ev.values[g.rows],
            )
            cmp = compare(part, baseline.b, st.resamples, st.seed, allow_different_sets=True)
            out.append(
                SliceGate(
                    g.by, g.value, len(g.rows), metric, k, cmp.at(metric, k), gate_failed(cmp, metric, k)
                )
            )
    return out
