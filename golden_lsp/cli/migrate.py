"""``golden-lsp migrate [PATH] (--from REV | --from-corpus OLD_DIR)``: re-anchor every label after
the corpus changed (``golden_lsp.keep.migrate``), and the re-anchoring ``check`` names in CI.

The command resolves each locator against the corpus as it was (a git revision, read with git, or
a folder) and relocates it in the corpus as it is; it prints one line per locator that is not
``kept`` (or all of them as JSON) and, with ``--write``, rewrites the questions file atomically:
only the ``doc`` and ``quote`` values of the moved, requoted and edited locators change, every
other byte stays. ``check --format github|sarif`` calls ``with_reanchoring`` here, so a pull
request that breaks labels by editing the corpus is told, for each, what this command would do.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path

from ..core.check.model import Analysis
from ..core.findings.diagnostics import BROKEN_LABEL, Diagnostic, plural
from ..core.goldenset.config import ConfigError
from ..core.goldenset.project import GoldenSet
from ..core.io.files import display, read_regular
from ..core.io.jsontext import dumps
from ..core.io.shown import shown
from ..core.text.canon import NotUtf8Error, decode_strict, editor_text
from ..keep.migrate import Migrated, counts, migrate, parsed_records, rewritten
from ..keep.oldcorpus import OldCorpus, at_revision, from_folder
from ..keep.relocate import DEFAULT_THRESHOLD, REWRITTEN, Relocation, Relocator, texts_of
from .common import add_set_options, golden_set, rewrite_file


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "migrate",
        help="re-anchor every label after the corpus changed (edited, moved or renamed documents)",
    )
    p.add_argument("path", nargs="?", type=Path, help="questions file or folder holding a config")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--from",
        dest="rev",
        metavar="REV",
        help="the corpus as it was at this git revision of the repository holding the corpus folder "
        "(e.g. the manifest's corpus_commit)",
    )
    source.add_argument(
        "--from-corpus",
        dest="old_dir",
        type=Path,
        metavar="OLD_DIR",
        help="the corpus as it was, in a folder",
    )
    p.add_argument(
        "--write",
        action="store_true",
        help="rewrite the doc and quote of the moved, requoted and edited locators in the questions "
        "file (atomically; nothing else changes)",
    )
    p.add_argument(
        "--rewrite-fact-changed",
        action="store_true",
        help="with --write, also rewrite the fact-changed locators: their passage lost a number, version, "
        "code span or name the record's expected_answer relies on (re-read each first)",
    )
    p.add_argument(
        "--threshold",
        type=_threshold,
        default=DEFAULT_THRESHOLD,
        metavar="T",
        help=f"the similarity (0-1, rapidfuzz ratio) an edited passage needs (default {DEFAULT_THRESHOLD})",
    )
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_set_options(p)
    p.set_defaults(run=_migrate)


def _threshold(value: str) -> float:
    try:
        t = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, not {value!r}") from None
    if not 0 < t <= 1:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 1, not {value}")
    return t


def _migrate(args: argparse.Namespace) -> int:
    golden = golden_set(args, args.path)
    text = golden.read_questions()
    config = golden.config
    if args.rev is not None:
        old = at_revision(config.corpus_path(), args.rev, config.glob, config.max_chars)
    else:
        old = from_folder(args.old_dir, config.glob, config.max_chars)
    relocator = Relocator(old.texts, texts_of(golden.corpus), args.threshold)
    migrated = migrate(parsed_records(text), relocator)
    path = golden.questions_path
    if args.format == "json":
        out = {"locators": [_as_json(m) for m in migrated], "counts": counts(migrated)}
        sys.stdout.write(dumps(out, indent=2) + "\n")
    else:
        sys.stdout.write(
            "".join(
                f"{shown(f'{_where(path, m)}: {describe(m)}')}\n"
                for m in migrated
                if m.relocation.status != "kept"
            )
        )
        sys.stdout.write(
            ", ".join(f"{status} {n}" for status, n in counts(migrated).items()) + f" (from {old.source})\n"
        )
    facts = [m for m in migrated if m.relocation.status == "fact-changed"]
    if facts and args.format == "text":
        sys.stderr.write(
            f"golden-lsp: re-read {plural(len(facts), 'label')} whose passage changed a fact the answer "
            f"relies on (records {', '.join(sorted({_q(m.record.id) for m in facts}))}): correct each "
            "expected_answer or label; "
            + (
                "--rewrite-fact-changed writes their new quotes\n"
                if not args.rewrite_fact_changed
                else "their new quotes are written as asked\n"
            )
        )
    n = sum(m.relocation.writes(args.rewrite_fact_changed) for m in migrated)
    if args.write:
        _write(path, text, migrated, args.rewrite_fact_changed)
    elif n:
        sys.stderr.write(
            f"golden-lsp: run again with --write to rewrite {plural(n, 'locator')} ({', '.join(REWRITTEN)})\n"
        )
    return 0


def _write(path: Path, text: str, migrated: list[Migrated], fact_changed: bool) -> None:
    """Rewrite the questions file atomically, unless it changed since it was read."""
    try:
        raw = decode_strict(read_regular(path))
    except (OSError, NotUtf8Error) as exc:
        raise ConfigError(f"cannot read questions file {display(path)} again: {exc}") from None
    if editor_text(raw) != text:
        raise ConfigError(
            f"questions file {display(path)} changed while golden-lsp was migrating it: nothing written"
        )
    new = rewritten(raw, migrated, fact_changed)
    if new is None:
        sys.stderr.write(f"golden-lsp: nothing to rewrite in {display(path)}\n")
        return
    rewrite_file(path, raw, new, "migrate")
    n = sum(m.relocation.writes(fact_changed) for m in migrated)
    sys.stderr.write(f"golden-lsp: rewrote {plural(n, 'locator')} in {display(path)}\n")


def _where(path: Path, m: Migrated) -> str:
    node = m.locator.quote_node or m.locator.node
    return f"{display(path)}:{m.line + 1}:{node.start + 1}"


def _q(value: str | None) -> str:
    return dumps(value)


def describe(m: Migrated) -> str:
    """One line for a person: the status, the locator, and what changes (or why nothing does)."""
    r = m.relocation
    record = _q(m.record.id) if m.record.id is not None else "without an id"
    what = change(r) if r.rewritten else r.note
    if r.status == "edited":
        what += f" ({r.note})"
    if r.status == "fact-changed" and (moves := change(r)):
        what += f"; its new place: {moves}"
    return f"{r.status}: record {record}, locator {m.locator.index}: {what}"


def change(r: Relocation) -> str:
    """The values a rewritten relocation changes: 'doc "a.md" → "b.md", quote "x" → "y"'."""
    parts = []
    if r.doc != r.old_doc:
        parts.append(f"doc {_q(r.old_doc)} → {_q(r.doc)}")
    if r.quote != r.old_quote:
        parts.append(f"quote {_q(r.old_quote)} → {_q(r.quote)}")
    return ", ".join(parts)


def _as_json(m: Migrated) -> dict:
    r = m.relocation
    return {
        "id": m.record.id,
        "line": m.line + 1,
        "locator": m.locator.index,
        "status": r.status,
        "old_doc": r.old_doc,
        "doc": r.doc,
        "old_quote": r.old_quote,
        "quote": r.quote,
        "similarity": r.similarity,
        "note": r.note,
        **(
            {"was": r.was, "fact_lost": list(r.fact.lost), "fact_new": list(r.fact.added)}
            if r.fact is not None
            else {}
        ),
    }


# --- what check tells in CI --------------------------------------------------------------------


def with_reanchoring(
    checked: Sequence[tuple[GoldenSet, Analysis]], diags: list[Diagnostic]
) -> list[Diagnostic]:
    """``diags`` with, on each broken label's finding, the re-anchoring ``migrate`` would apply
    from the commit the set's manifest records (when its corpus is in git); nothing is read, and
    git is not run, when no label is broken."""
    notes: dict[int, str] = {}
    for golden, analysis in checked:
        broken = [d for d in analysis.diagnostics if d.code in BROKEN_LABEL and d.path == analysis.path]
        commit = golden.recorded_commit() if broken else None
        if commit is None:
            continue
        config = golden.config
        try:
            old: OldCorpus | str = at_revision(config.corpus_path(), commit, config.glob, config.max_chars)
        except ConfigError as exc:
            old = str(exc)
        notes.update(_notes(golden, analysis, broken, old, commit))
    return [
        dataclasses.replace(d, message=f"{d.message}; {notes[id(d)]}") if id(d) in notes else d for d in diags
    ]


def _notes(
    golden: GoldenSet, analysis: Analysis, broken: list[Diagnostic], old: OldCorpus | str, commit: str
) -> dict[int, str]:
    """id(finding) → what re-anchoring from ``commit`` does for its locator."""
    if isinstance(old, str):
        return {id(d): f"no re-anchoring from the manifest's corpus_commit: {old}" for d in broken}
    located = []
    for d in broken:
        rec = analysis.record_at(d.range.line)
        for loc in rec.record.locators if rec is not None and rec.record is not None else ():
            nodes = (loc.quote_node, loc.doc_node)
            on_it = any(n is not None and n.start == d.range.column for n in nodes)
            if on_it and isinstance(loc.doc, str) and isinstance(loc.quote, str):
                located.append((d, (loc.doc, loc.quote, loc.exact)))
                break
    relocator = Relocator(old.texts, texts_of(golden.corpus))
    found = relocator.relocate_all([wanted for _, wanted in located])
    command = golden.command_line("migrate", "--from", commit, "--write")
    out = {}
    for (d, _), r in zip(located, found):
        migrate = f"golden-lsp migrate --from {commit[:12]}"
        if r.rewritten:
            review = " (review it)" if r.status == "edited" else ""
            out[id(d)] = f"{migrate} re-anchors it ({r.summary()}): {change(r)}{review}; run `{command}`"
        else:
            out[id(d)] = f"{migrate} cannot re-anchor it ({r.status}): {r.note}"
    return out
