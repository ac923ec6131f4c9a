"""``golden-lsp accept [PATH]``: the judge's proposals accepted in bulk into the questions file,
the labels marked as the judge's (``golden_lsp.keep.accept``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..core.findings.diagnostics import plural
from ..core.goldenset.config import ConfigError
from ..core.io.files import display
from ..core.io.jsontext import dumps
from ..core.io.shown import shown
from ..core.text.canon import editor_text
from ..keep.accept import Accepted, Chooser, accept_text
from ..keep.proposals import KEPT, Proposal, by_record, proposed_unanswerable, read_proposals
from .common import add_set_options, golden_set, read_input, rewrite_file


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "accept", help="accept the judge's proposals in bulk (labels marked annotator judge:<model>)"
    )
    p.add_argument("path", nargs="?", type=Path, help="questions file or folder holding a config")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--ids", metavar="ID,...", help="these records' relevant proposals (at high or medium confidence)"
    )
    which.add_argument(
        "--confidence",
        choices=KEPT,
        help="every record's relevant proposals at this confidence (medium: high and medium)",
    )
    p.add_argument("--dry-run", action="store_true", help="say what would be accepted; write nothing")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_set_options(p)
    p.set_defaults(run=_accept)


def chooser(confidence: str | None) -> Chooser:
    """Which fresh proposals of a record to accept, and whether to mark it unanswerable: the
    relevant ones at the confidence asked (high and medium when none is), unanswerable when the
    judge proposed it with every judgment at that confidence."""
    levels = KEPT if confidence in (None, "medium") else ("high",)

    def choose(fresh: list[Proposal]) -> tuple[list[Proposal], bool]:
        sure = all(p.confidence in levels for p in fresh)
        return [p for p in fresh if p.kept(levels)], proposed_unanswerable(fresh) and sure

    return choose


def _accept(args: argparse.Namespace) -> int:
    golden = golden_set(args, args.path)
    source = golden.config.proposals_path()
    proposals = by_record(read_proposals(source))
    if not proposals:
        raise ConfigError(f"no proposals in {display(source)}: run golden-lsp judge first")
    if args.ids is not None:
        ids = [i.strip() for i in args.ids.split(",") if i.strip()]
        unknown = [i for i in ids if i not in proposals]
        if unknown or not ids:
            raise ConfigError(
                f"--ids: no proposals for {', '.join(unknown) or repr(args.ids)} in {display(source)}"
            )
        proposals = {i: proposals[i] for i in ids}
    questions = golden.questions_path
    raw = read_input(questions, "questions file")  # as it is, a BOM and line ends kept
    analysis = golden.analyze(editor_text(raw))
    text, done = accept_text(raw, analysis, golden.corpus, proposals, chooser(args.confidence))
    written = text != raw and not args.dry_run
    if written:
        rewrite_file(questions, raw, text, "accept")
    result = _result(done, written, questions)
    if args.format == "json":
        sys.stdout.write(dumps(result, indent=2) + "\n")
    else:
        sys.stdout.write(_text(done, golden))
    verb = "would accept" if args.dry_run else "accepted"
    where = f"; {display(questions)} written" if written else "; nothing written" if args.dry_run else ""
    sys.stderr.write(
        f"golden-lsp: {verb} {plural(result['accepted'], 'proposal')} into {plural(len(done), 'record')}, "
        f"{result['unanswerable']} marked unanswerable{where}\n"
    )
    return 0


def _result(done: list[Accepted], written: bool, questions: Path) -> dict[str, Any]:
    return {
        "records": [
            {
                "id": a.id,
                "line": a.line + 1,
                "added": [
                    {
                        "doc": p.doc,
                        "quote": quote,
                        "char_start": p.char_start,
                        "char_end": p.char_end,
                        "confidence": p.confidence,
                        "reason": p.reason,
                        "model": p.model,
                    }
                    for p, quote in a.added
                ],
                "unanswerable": a.unanswerable,
                "skipped": [
                    {"doc": p.doc, "char_start": p.char_start, "char_end": p.char_end, "why": why}
                    for p, why in a.skipped
                ],
            }
            for a in done
        ],
        "accepted": sum(len(a.added) for a in done),
        "unanswerable": sum(a.unanswerable for a in done),
        "written": written,
        "questions_file": str(questions),
    }


def _text(done: list[Accepted], golden) -> str:
    out = []
    for a in done:
        for p, quote in a.added:
            out.append(f"{a.id} (line {a.line + 1}): + {p.doc} {quote!r} — judge {p.confidence}: {p.reason}")
        if a.unanswerable:
            out.append(f"{a.id} (line {a.line + 1}): unanswerable (every candidate judged not relevant)")
        for p, why in a.skipped:
            line = (
                golden.corpus.docs[p.doc].positions.raw_position(p.char_start)[0] + 1
                if p.doc in golden.corpus.docs
                else "?"
            )
            out.append(f"{a.id}: skipped {p.doc}:{line}: {why}")
    return "".join(shown(line) + "\n" for line in out) or "nothing to accept\n"
