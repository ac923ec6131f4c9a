"""``golden-lsp incidents EXPORT``: a trace or incident export as skeleton records, and the run of
what production retrieved for them, for ``judge --run`` (``practice.incidents``)."""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

from ..core.check.pii import find as find_pii
from ..core.check.pii import redact
from ..core.check.rules import folded
from ..core.findings.diagnostics import plural
from ..core.goldenset.config import ConfigError
from ..core.io.files import display
from ..core.io.jsontext import dumps
from ..core.labels.recordmeta import is_iso_date
from ..core.text.canon import editor_text
from ..evaluate.runs import run_text
from ..practice.incidents import Incident, intake, read_export
from .common import add_set_options, appended, golden_set, read_input, tell, write_files


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "incidents", help="production incidents into skeleton records, their retrieved chunks a run to judge"
    )
    p.add_argument(
        "export",
        type=Path,
        help="JSON lines: 'query', 'request_id', the retrieved 'chunk_ids' (or 'retrieved')",
    )
    p.add_argument("--out", type=Path, help="questions file to write (default: standard output)")
    p.add_argument(
        "--append", action="store_true", help="add the records to the end of the questions file --out names"
    )
    p.add_argument(
        "--run-out",
        type=Path,
        metavar="RUN",
        help="write the retrieved chunks as a JSONL run here (for judge --run)",
    )
    p.add_argument(
        "--redact", action="store_true", help="replace personal data in the queries with <EMAIL>, <PHONE>…"
    )
    p.add_argument("--sampled-at", help="the records' sampled_at (ISO 8601 date; default today)")
    p.add_argument(
        "--format", choices=("text", "json"), default="text", help="json: a summary object on stdout"
    )
    add_set_options(p)
    p.set_defaults(run=_incidents)


def _incidents(args: argparse.Namespace) -> int:
    if args.append and args.out is None:
        raise ConfigError("--append needs --out QUESTIONS_FILE: the questions file to add the records to")
    if args.sampled_at is not None and not is_iso_date(args.sampled_at):
        raise ConfigError(
            f"--sampled-at must be an ISO 8601 date such as 2026-03-01, not {args.sampled_at!r}"
        )
    if args.format == "json" and args.out is None:
        raise ConfigError("--format json prints a summary: name the questions file with --out")
    golden = golden_set(args, None)
    incidents = read_export(read_input(args.export, "incident export"), display(args.export))
    outputs = {"questions file": args.out} if args.out is not None else {}
    if args.run_out is not None:
        outputs["run"] = args.run_out
    golden.refuse_outputs(outputs, {args.export: "incident export"}, questions=True, append=args.append)
    if args.redact:
        incidents = [
            Incident(
                redact(i.query, find_pii(i.query, golden.config.pii_region)),
                i.request_id,
                i.chunk_ids,
                i.line,
            )
            for i in incidents
        ]
    before = read_input(args.out, "questions file to append to") if args.append and args.out.exists() else ""
    analysis = golden.analyze(editor_text(before), args.out) if before else golden.analyze()
    records = [r.record for r in analysis.records if r.record is not None]
    committed = golden.committed_queries()
    used = [r.id for r in records if r.id] + list(committed)
    existing = {folded(q): rid for rid, q in committed.items() if isinstance(q, str)}
    existing.update((folded(r.query), r.id or "?") for r in records if r.query is not None)
    done = intake(incidents, existing, used, args.export.name, args.sampled_at or date.today().isoformat())
    tell(
        f"{display(args.export)}:{line}: note: incident skipped: the set already asks its query (record {rid})"
        for line, rid in done.skipped
    )
    lines = [dumps(r) + "\n" for r in done.records]
    files: dict[Path, str | list[str]] = {}
    if args.out is not None and lines:
        files[args.out] = appended(before, lines)
    if args.run_out is not None:
        files[args.run_out] = run_text(done.run, {}, "jsonl", "incidents")
    if files:  # the questions file appended to is re-checked, as by every writer of it
        write_files(files, "incidents", {args.out: before} if args.append and args.out in files else None)
    if args.out is None:
        sys.stdout.writelines(lines)
    if args.format == "json":
        summary = {
            "out": display(args.out),
            "run": display(args.run_out) if args.run_out is not None else None,
            "records": [r["id"] for r in done.records],
            "skipped": [{"line": line, "asked_by": rid} for line, rid in done.skipped],
            "retrieved": sum(len(ids) for ids in done.run.values()),
        }
        sys.stdout.write(dumps(summary, indent=2) + "\n")
    judge = (
        f"; judge them: golden-lsp judge --run {display(args.run_out)} --records {','.join(done.run)}"
        if args.run_out is not None and done.run
        else ""
    )
    tell([f"{plural(len(done.records), 'incident')} into records{judge}"])
    return 0
