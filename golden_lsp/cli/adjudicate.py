"""``golden-lsp adjudicate FILE FILE [...] --out F [--merge ADJUDICATION]``: the annotators'
disagreements written for a person to resolve, or their files merged with the resolutions
(``practice.adjudication``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..core.findings.diagnostics import plural
from ..core.goldenset.config import ConfigError
from ..core.goldenset.project import GoldenSet
from ..core.io.files import display
from ..core.io.jsontext import dumps
from ..core.io.shown import shown
from ..core.text.canon import editor_text
from ..practice.adjudication import HEADER, merge, open_record
from ..practice.agreement import by_id
from ..practice.assignment import read_records
from ..practice.reliability import reliability
from .agree import add_annotator_files, annotator_files
from .common import add_set_options, appended, read_input, rewrite_file, write_files

#: exit status of a merge that found disagreements left undecided (nothing written)
UNRESOLVED = 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "adjudicate",
        help="write the annotators' disagreements to resolve, or --merge their files with the resolutions",
    )
    add_annotator_files(p)
    p.add_argument(
        "--out", type=Path, required=True, help="the adjudication file, or with --merge the merged set"
    )
    p.add_argument("--merge", type=Path, metavar="ADJUDICATION", help="the resolved adjudication file")
    p.add_argument(
        "--append",
        action="store_true",
        help="with --merge: add the merged records to the end of the questions file --out names",
    )
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_set_options(p)
    p.set_defaults(run=_adjudicate)


def _adjudicate(args: argparse.Namespace) -> int:
    names, golden = annotator_files(args, "adjudicate")
    inputs = dict.fromkeys(args.files, "annotator's file")
    if args.merge is not None:
        inputs[args.merge] = "adjudication file"
    if args.append and args.merge is None:
        raise ConfigError("--append adds a merge to a questions file: it needs --merge")
    golden.refuse_outputs({"output": args.out}, inputs, questions=True, append=args.append)
    analyses = [golden.analyze(path=path) for path in args.files]
    for analysis in analyses:
        if analysis.counts()["errors"]:
            raise ConfigError(
                f"{display(analysis.path)} has errors: fix them first (golden-lsp check), so that every "
                "label compared is one its annotator meant"
            )
    rows = reliability(analyses, names, golden.corpus)["records"]
    disagreeing = [r["id"] for r in rows if r["disagree"]]
    files = [(name, by_id(a)) for name, a in zip(names, analyses)]
    if args.merge is None:
        return _write_open(args, files, disagreeing)
    decisions = {
        r["id"]: r for r in read_records(read_input(args.merge, "adjudication file"), display(args.merge))
    }
    merged = merge(files, set(disagreeing), decisions)
    undecided = merged.unresolved + merged.missing
    result = {
        "out": display(args.out),
        "n_records": len(merged.records),
        "single": merged.single,
        "agreed": merged.agreed,
        "adjudicated": merged.adjudicated,
        "unresolved": merged.unresolved,
        "missing": merged.missing,
        "written": not undecided,
    }
    if not undecided:
        _write_merged(golden, args.out, [dumps(r) + "\n" for r in merged.records], args.append)
    if args.format == "json":
        sys.stdout.write(dumps(result, indent=2) + "\n")
    elif undecided:
        sys.stdout.write(
            f"not merged: {plural(len(undecided), 'disagreement')} undecided — "
            + "; ".join(
                part
                for part in (
                    merged.unresolved
                    and f"no locators and not unanswerable: {shown(', '.join(merged.unresolved))}",
                    merged.missing and f"not in {display(args.merge)}: {shown(', '.join(merged.missing))}",
                )
                if part
            )
            + "\n"
        )
    else:
        sys.stdout.write(
            f"merged {plural(len(merged.records), 'record')} into {display(args.out)}: {merged.single} labelled "
            f'once, {merged.agreed} agreed, {merged.adjudicated} adjudicated (annotator "adjudicated", the '
            "annotators' labels kept in meta.adjudication); check it with golden-lsp check\n"
        )
    return UNRESOLVED if undecided else 0


def _write_open(args: argparse.Namespace, files, disagreeing: list[str]) -> int:
    """The disagreements, each an open record to resolve, after a header saying how."""
    records = [open_record([(name, recs[rid]) for name, recs in files if rid in recs]) for rid in disagreeing]
    write_files({args.out: HEADER + "".join(dumps(r) + "\n" for r in records)}, "adjudicate")
    if args.format == "json":
        sys.stdout.write(dumps({"out": display(args.out), "disagreements": disagreeing}, indent=2) + "\n")
    else:
        sys.stdout.write(
            f"{plural(len(disagreeing), 'disagreement')} to resolve in {display(args.out)}"
            + (f": {shown(', '.join(disagreeing))}" if disagreeing else "")
            + "\n"
        )
    return 0


def _write_merged(golden: GoldenSet, out: Path, lines: list[str], append: bool) -> None:
    """The merged records as a new questions file, or added to the end of ``out`` (``--append``),
    never under an id it (or, for the set's own file, the committed artifact) already holds."""
    before = read_input(out, "questions file to append to") if append and out.exists() else ""
    if before:
        analysis = golden.analyze(editor_text(before), out)
        taken = {r.record.id for r in analysis.records if r.record is not None and r.record.id}
        if out.resolve() == golden.questions_path.resolve():
            taken |= set(golden.committed_queries())
        clash = [rid for line in lines if (rid := json.loads(line)["id"]) in taken]
        if clash:
            raise ConfigError(
                f"{display(out)} already holds the ids {shown(', '.join(clash))}: nothing appended"
            )
    if append:
        rewrite_file(out, before, appended(before, lines), "adjudicate")
    else:
        write_files({out: appended(before, lines)}, "adjudicate")
