"""The derived files — artifact and manifest — and the check that they are not stale.

The artifact is what retrieval evaluation reads, the manifest is its provenance; both must be
byte-reproducible from the questions file and corpus (SPEC §6) so that CI can rebuild them in
memory and fail when the committed copies differ. This module owns their serialisation: one
artifact line per record, made from the result model (``model.py``) when first asked for and kept
with the line's result (so a keystroke serialises only the lines it changed, and a check that
compares no artifact never serialises any), the artifact's text, and the manifest. A build writes
the pair all or nothing (``files.write_atomically``). The staleness check runs on every keystroke
in the editor, so the committed copies are read again only when they change.
"""

from __future__ import annotations

import json
import stat
import subprocess
from functools import cached_property
from pathlib import Path
from typing import Any

from ..check.model import Analysis, LineResult, ResolvedLocator
from ..corpus.index import Corpus
from ..findings.diagnostics import WHOLE_SET, Diagnostic, Range, plural
from ..io.files import display, kind, read_regular
from ..labels.questions import QuestionRecord
from ..labels.scoring import HitRule
from ..text.canon import CANONICAL_VERSION
from ..text.chunker import CHUNKER_VERSION
from .config import ConfigError


def artifact_line(record: QuestionRecord, resolved: list[ResolvedLocator]) -> str:
    """The record's artifact line, exactly as the reference builder serialises it (SPEC §6)."""
    out = {
        "query": record.query,
        "answer_bearing_chunk_ids": sorted({c.chunk_id for r in resolved for c in r.chunks}),
        "expected_answer": record.expected_answer,
        "query_id": record.id,
        "hop": record.hop,
        "tags": record.tags,
        "answer_spans": [_span_json(r) for r in resolved],
        "span_union_coverage": [round(r.coverage, 4) for r in resolved],
        "chunker_version": CHUNKER_VERSION,
        "canonical_version": CANONICAL_VERSION,
        **practice_keys(record),
    }
    return json.dumps(out, ensure_ascii=False, sort_keys=True) + "\n"


def _span_json(resolved: ResolvedLocator) -> dict[str, Any]:
    span = resolved.span
    assert span is not None  # a record builds only when every locator resolved
    return {
        "doc_id": span.doc_id,
        "char_start": span.start,
        "char_end": span.end,
        **({"primary": True} if resolved.locator.primary else {}),
    }


def line_of(result: LineResult) -> str | None:
    """The artifact line of a line's result (None when it does not build), serialised when first
    asked for and kept with the result (``LineResult.artifact_memo``)."""
    if not result.buildable or result.record is None:
        return None
    line = result.artifact_memo
    if line is None:
        line = result.artifact_memo = artifact_line(result.record, result.resolved)
    return line


def artifact_text(analysis: Analysis) -> str | None:
    """The artifact body, or None when any error forbids a build (made on every keystroke: the
    memo is read here before ``line_of`` is called)."""
    if analysis.has_errors:
        return None
    return "".join(
        r.result.artifact_memo or line_of(r.result) or "" for r in analysis.records if r.record is not None
    )


def practice_keys(record: QuestionRecord) -> dict[str, Any]:
    """The optional practice fields a record uses, as extra artifact keys (absent when unused, so
    a set without them builds the reference builder's bytes)."""
    out: dict[str, Any] = {
        k: v
        for k in ("query_type", "split", "annotator", "judged_by")
        if (v := getattr(record, k)) is not None
    }
    if record.unanswerable:
        out["unanswerable"] = True
    return out


def corpus_commit(root: Path) -> str:
    """``git rev-parse HEAD`` in the corpus root, or "unknown" (no git, no repo, no commit)."""
    try:
        proc = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return proc.stdout.strip() if proc.returncode == 0 else "unknown"


def manifest(corpus: Corpus, n_records: int, hit_rule: HitRule, commit: str) -> dict:
    return {
        "n_records": n_records,
        "n_chunks": corpus.n_chunks,
        "n_docs": len(corpus.docs),
        "corpus_chars": corpus.chars,
        "corpus_digest": corpus.digest(),
        "corpus_commit": commit,
        "chunker_version": CHUNKER_VERSION,
        "canonical_version": CANONICAL_VERSION,
        "max_chars": corpus.max_chars,
        "build_hit_rule": str(hit_rule),
        "docs": corpus.manifest_docs(),
    }


def manifest_text(m: dict) -> str:
    return json.dumps(m, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


class CommittedFile:
    """A committed derived file as read once: its text (None when missing or unreadable)."""

    def __init__(self, text: str | None):
        self.text = text

    @cached_property
    def lines(self) -> frozenset[str]:
        """The artifact's lines, with their line ends."""
        return frozenset((self.text or "").splitlines(keepends=True))

    @cached_property
    def queries(self) -> dict[str, Any]:
        """The artifact's ``query_id`` → ``query`` (lines that are not records are skipped)."""
        out: dict[str, Any] = {}
        for line in self.lines:
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(record, dict) and isinstance(record.get("query_id"), str):
                out.setdefault(record["query_id"], record.get("query"))
        return out

    @cached_property
    def parsed(self) -> Any:
        """The manifest's content, None when it is missing or not JSON."""
        try:
            return json.loads(self.text) if self.text is not None else None
        except (ValueError, RecursionError):  # json.JSONDecodeError is a ValueError
            return None


class CommittedFiles:
    """The committed artifact and manifest, re-read only when (st_mtime_ns, st_size) changes."""

    def __init__(self) -> None:
        self._files: dict[Path, tuple[tuple[int, int], CommittedFile]] = {}

    def get(self, path: Path, what: str) -> CommittedFile:
        """The committed ``what`` (artifact, manifest) at path; a FIFO, device or folder there is a
        ConfigError naming it, never a read that blocks."""
        try:
            st = path.stat()
        except OSError:
            return CommittedFile(None)
        if not stat.S_ISREG(st.st_mode):
            raise ConfigError(f"{what} {display(path)} is {kind(st.st_mode)}, not a regular file")
        key = (st.st_mtime_ns, st.st_size)
        cached = self._files.get(path)
        if cached is None or cached[0] != key:
            cached = key, CommittedFile(_read(path))
            self._files[path] = cached
        return cached[1]


def _read(path: Path) -> str | None:
    try:
        return read_regular(path).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def staleness(
    analysis: Analysis,
    fresh_manifest: dict,
    artifact_path: Path | None,
    manifest_path: Path | None,
    build_command: str,
    files: CommittedFiles,
) -> list[Diagnostic]:
    """stale-artifact / stale-manifest findings, located at the records that differ.

    A path of None is not checked (the set does not keep that file); ``files`` reads the
    committed copies.
    """
    fresh = artifact_text(analysis)
    if fresh is None:
        return []
    path = analysis.path
    top = analysis.set_anchor
    fix = f"; run `{build_command}`"
    out: list[Diagnostic] = []
    data = {"command": build_command}
    on_set = {**data, WHOLE_SET: True}
    if artifact_path is not None:
        out.extend(
            _artifact_staleness(
                analysis, fresh, artifact_path, files.get(artifact_path, "artifact"), fix, data
            )
        )
    if manifest_path is None:
        return out
    committed = files.get(manifest_path, "manifest").parsed
    if not isinstance(committed, dict):
        out.append(
            Diagnostic(
                "stale-manifest",
                f"manifest {display(manifest_path)} is missing or not JSON{fix}",
                path,
                top,
                data=on_set,
            )
        )
    else:
        keys = sorted(
            k
            for k in fresh_manifest.keys() | committed.keys()
            if k != "corpus_commit" and fresh_manifest.get(k) != committed.get(k)
        )
        if keys:
            pair = ""
            if artifact_path is not None and files.get(artifact_path, "artifact").text == fresh:
                pair = (
                    f"; the artifact {display(artifact_path)} is fresh, so the two are from different builds "
                    "(an interrupted build?)"
                )
            out.append(
                Diagnostic(
                    "stale-manifest",
                    f"manifest {display(manifest_path)} is stale ({', '.join(keys)} differ){pair}{fix}",
                    path,
                    top,
                    data=on_set,
                )
            )
    return out


def _artifact_staleness(
    analysis: Analysis, fresh: str, artifact_path: Path, committed: CommittedFile, fix: str, data: dict
) -> list[Diagnostic]:
    path = analysis.path
    top = analysis.set_anchor
    out: list[Diagnostic] = []
    if committed.text is None:
        out.append(
            Diagnostic(
                "stale-artifact",
                f"artifact {display(artifact_path)} is missing or unreadable{fix}",
                path,
                top,
                data={**data, WHOLE_SET: True},
            )
        )
    elif committed.text != fresh:
        have = committed.lines
        differing = [
            (r.line, record)
            for r in analysis.records
            if (line := r.result.artifact_memo or line_of(r.result))
            and line not in have
            and (record := r.record) is not None
        ]
        where, on = top, {**data, WHOLE_SET: True}
        if differing:
            first, record = differing[0]
            s, e = record.field_range("id")
            where, on = Range.on_line(first, s, e), data
            ids = ", ".join(str(r.id) for _, r in differing[:5]) + (", …" if len(differing) > 5 else "")
            what = (
                f"{plural(len(differing), 'record')} {'differs' if len(differing) == 1 else 'differ'} "
                f"from a fresh build ({ids})"
            )
        else:
            what = "records were removed or reordered since it was built"
        out.append(
            Diagnostic(
                "stale-artifact",
                f"artifact {display(artifact_path)} is stale: {what}{fix}",
                path,
                where,
                data=on,
            )
        )
    return out
