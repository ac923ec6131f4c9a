"""``golden-lsp sample LOG [LOG ...] [PATH] --n N``: skeleton records drawn from query logs
(``golden_lsp.practice.sampling``; strata in ``practice.strata``) for the set at ``PATH`` (its
queries are not drawn again, its ids not reused), on stdout or into a new file."""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

from ..core.findings.diagnostics import plural
from ..core.goldenset.config import ConfigError
from ..core.goldenset.project import is_input_name
from ..core.io.files import display
from ..core.io.jsontext import dumps
from ..core.io.shown import shown
from ..core.labels.recordmeta import is_iso_date
from ..practice import sampling
from ..practice.strata import DEFAULT_TAIL_FACTOR
from .common import add_set_options, golden_set, read_input, tell, write_files


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sample", help="draw new questions from query logs into skeleton records")
    p.add_argument(
        "inputs",
        type=Path,
        nargs="+",
        metavar="LOG [LOG ...] [PATH]",
        help="query logs (one query per line, or JSONL with 'query', 'rephrased', 'request_id', any "
        "fields); then, optionally, the set: a folder holding a config or a questions file",
    )
    p.add_argument("--n", type=int, required=True, help="how many queries to draw")
    p.add_argument(
        "--strategy",
        choices=sampling.STRATEGIES,
        help="random (the default), stratified (by length, or by --by), hard-cases (rephrased)",
    )
    p.add_argument(
        "--by",
        action="append",
        metavar="FIELD,...",
        help="stratify by these log fields, or length, frequency (head/torso/tail) or topic (clusters "
        "of the query text when the log has no topic field); repeatable",
    )
    p.add_argument(
        "--tail-factor",
        type=float,
        default=DEFAULT_TAIL_FACTOR,
        help=f"with --by frequency: the tail's weight multiplied by this (default {DEFAULT_TAIL_FACTOR:g})",
    )
    p.add_argument("--topics", type=int, default=8, help="topic clusters for --by topic (default 8)")
    p.add_argument("--keep", metavar="FIELD,...", help="log fields copied into each record's meta")
    p.add_argument(
        "--redact", action="store_true", help="replace personal data in the queries with <EMAIL>, <PHONE>…"
    )
    p.add_argument("--sampled-at", help="the records' sampled_at (ISO 8601 date; default today)")
    p.add_argument("--seed", type=int, help="the same seed draws the same sample")
    p.add_argument("--out", type=Path, help="write the records here (never an input) instead of stdout")
    p.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text: questions.jsonl lines; json: a list of the records",
    )
    add_set_options(p)
    p.set_defaults(run=_sample)


def _fields(values: list[str] | None) -> list[str]:
    return [f.strip() for v in values or () for f in v.split(",") if f.strip()]


def _checked(args: argparse.Namespace) -> list[str]:
    """The strata named (``--by``), once the flags are known to fit together."""
    if args.n < 1:
        raise ConfigError("--n must be a positive number")
    strata = _fields(args.by)
    if strata and args.strategy == "hard-cases":
        raise ConfigError("--by stratifies the sample; hard-cases draws among the rephrased queries only")
    if args.tail_factor <= 0 or args.topics < 1:
        raise ConfigError("--tail-factor must be positive and --topics at least 1")
    if args.sampled_at is not None and not is_iso_date(args.sampled_at):
        raise ConfigError(
            f"--sampled-at must be an ISO 8601 date such as 2026-03-01, not {args.sampled_at!r}"
        )
    return strata


def _logs_and_set(inputs: list[Path]) -> tuple[list[Path], Path | None]:
    """The logs, and the set's PATH: the last of two or more inputs when it is a folder or named as
    a questions file is (``questions.jsonl``, ``*.questions.jsonl``) — a log is neither."""
    last = inputs[-1]
    if len(inputs) > 1 and (last.is_dir() or is_input_name(last.name)):
        return inputs[:-1], last
    return inputs, None


def _sample(args: argparse.Namespace) -> int:
    strata = _checked(args)
    args.logs, path = _logs_and_set(args.inputs)
    golden = golden_set(args, path)
    texts = [read_input(log, "query log") for log in args.logs]
    if args.out is not None:
        golden.refuse_outputs({"output": args.out}, dict.fromkeys(args.logs, "query log"))
    analysis = golden.analyze()
    records = [r.record for r in analysis.records if r.record is not None]
    committed = golden.committed_queries()  # deleted questions keep their ids and queries
    existing_ids = [r.id for r in records if r.id is not None] + list(committed)
    queries = [r.query for r in records if r.query is not None] + [
        q for q in committed.values() if isinstance(q, str)
    ]
    logged = [
        q
        for i, (log, text) in enumerate(zip(args.logs, texts))
        for q in sampling.read_log(text, display(log), i, log.name)
    ]
    if args.redact:
        logged, n_redacted = sampling.redacted(logged, golden.config.pii_region)
        tell([f"redacted {plural(n_redacted, 'identifier')} (personal data) in the logs"])
    pool = sampling.candidates(logged, queries)
    if strata:
        drawn = sampling.draw_by(pool, args.n, strata, args.seed, args.tail_factor, args.topics)
    else:
        drawn = sampling.Draw(*sampling.draw(pool, args.n, args.strategy or "random", args.seed))
    tell(drawn.notes)
    if strata:
        tell(_summary(drawn, strata, args.tail_factor))
    sampled_at = args.sampled_at or date.today().isoformat()
    skeletons = sampling.skeletons(drawn.picked, existing_ids)
    out = sampling.with_provenance(skeletons, drawn, sampled_at, _fields([args.keep or ""]))
    text = dumps(out, indent=2) + "\n" if args.format == "json" else "".join(dumps(r) + "\n" for r in out)
    if args.out is None:
        sys.stdout.write(text)
    else:
        write_files({args.out: text}, "sample")
        sys.stderr.write(f"golden-lsp: wrote {plural(len(out), 'record')} to {display(args.out)}\n")
    return 0


def _summary(drawn: sampling.Draw, strata: list[str], tail_factor: float) -> list[str]:
    tail = f", the tail's ×{tail_factor:g}" if "frequency" in strata else ""
    out = [f"strata by {', '.join(strata)} (shares of the sample follow the log lines{tail}):"]
    width = max((len(shown(a.name)) for a in drawn.strata), default=0)
    out.extend(
        f"  {shown(a.name):<{width}}  log: {plural(a.lines, 'line')}, {a.distinct} distinct · sample: "
        f"{a.drawn} ({a.wanted} wanted)"
        for a in drawn.strata
    )
    return out
