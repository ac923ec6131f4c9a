"""Diagnostics as CI systems read them: text for people, JSON for tools, GitHub annotations,
SARIF for code scanning, JUnit XML for test-report views.

The core's ``Diagnostic`` objects are the single source; every format here renders the same list,
with paths relative to the working directory when under it (``files.display``). Each format is
``fn(diags, analyses) -> str``: the analyses give the formats that need them the records behind
the findings (JUnit's one test case per record, SARIF's fingerprints from record id and quote).
"""

from __future__ import annotations

import hashlib
import urllib.parse
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path, PurePath

from .. import __version__
from ..core.check.model import Analysis, RecordLine
from ..core.findings.diagnostics import FINDINGS, Diagnostic, Severity
from ..core.io.files import display as _display
from ..core.io.jsontext import dumps
from ..core.io.shown import shown

#: GitHub shows at most this many annotations of each kind per step (actions/toolkit,
#: docs/problem-matchers.md: 10 error, 10 warning and 10 notice annotations per step)
GITHUB_ANNOTATIONS_PER_KIND = 10
GITHUB_KINDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
SARIF_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
#: the formats whose broken labels name the re-anchoring ``migrate`` would apply (``cli/migrate.py``)
REANCHORED_FORMATS = ("github", "sarif")


def format_text(diags: Sequence[Diagnostic], analyses: Sequence[Analysis] = ()) -> str:
    lines = []
    for d in diags:
        r = d.range.one_based()
        lines.append(
            f"{shown(_display(d.path))}:{r.line}:{r.column}: {d.severity.value}[{d.code}] {shown(d.message)}"
        )
        for rel in d.related:
            r = rel.range.one_based()
            lines.append(f"  {_display(rel.path)}:{r.line}:{r.column}: note: {rel.message}")
    return "".join(shown(line) + "\n" for line in lines)


def format_json(diags: Sequence[Diagnostic], analyses: Sequence[Analysis] = ()) -> str:
    out = []
    for d in diags:
        item = {
            "path": _display(d.path),
            **asdict(d.range.one_based()),
            "severity": d.severity.value,
            "code": d.code,
            "message": d.message,
            "related": [
                {"path": _display(r.path), **asdict(r.range.one_based()), "message": r.message}
                for r in d.related
            ],
        }
        if "replacement" in d.data:
            item["fix"] = {"replacement": d.data["replacement"]}
        elif "renamed_to" in d.data:
            item["fix"] = {"doc": d.data["renamed_to"]}
        out.append(item)
    return dumps(out, indent=2) + "\n"


def _gh_escape(value: str, prop: bool = False) -> str:
    """A value of a workflow command: its control characters escaped (``shown``: a line break
    never ends the annotation), then GitHub's own %-escapes."""
    value = shown(value).replace("%", "%25")
    return value.replace(":", "%3A").replace(",", "%2C") if prop else value


def format_github(diags: Sequence[Diagnostic], analyses: Sequence[Analysis] = ()) -> str:
    """Workflow annotations, at most ``GITHUB_ANNOTATIONS_PER_KIND`` of each severity (GitHub drops
    the rest silently); the others are printed as plain text lines and counted in one notice."""
    lines: list[str] = []
    annotated: Counter[str] = Counter()
    folded: list[Diagnostic] = []
    for d in diags:
        kind = GITHUB_KINDS[d.severity]
        if annotated[kind] >= GITHUB_ANNOTATIONS_PER_KIND:
            folded.append(d)
            continue
        annotated[kind] += 1
        r = d.range.one_based()
        props = (
            f"file={_gh_escape(_display(d.path), True)},line={r.line},col={r.column},"
            f"endLine={r.end_line},endColumn={r.end_column},title={_gh_escape(d.code, True)}"
        )
        lines.append(f"::{kind} {props}::{_gh_escape(d.message)}\n")
    if folded:
        lines.append(format_text(folded))
        more = Counter(GITHUB_KINDS[d.severity] for d in folded)
        parts = [
            f"{more[k]} more {k}{'s' if more[k] != 1 else ''}"
            for k in ("error", "warning", "notice")
            if more[k]
        ]
        lines.append(
            f"::notice title=golden-lsp::{' and '.join(parts)} not annotated (GitHub shows "
            f"{GITHUB_ANNOTATIONS_PER_KIND} of each kind per step); they are listed in the log above\n"
        )
    return "".join(lines)


# --- SARIF 2.1.0 --------------------------------------------------------------------------

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
FINGERPRINT = "goldenLsp/recordQuote/v1"


def _records_by_place(analyses: Sequence[Analysis]) -> dict[tuple[Path, int], RecordLine]:
    return {(a.path.resolve(), r.line): r for a in analyses for r in a.records}


def _quote_at(record: RecordLine, d: Diagnostic) -> str:
    """The quote of the locator the finding sits in ('' for a finding on the record as a whole)."""
    rec = record.record
    for loc in rec.locators if rec else ():
        node = loc.quote_node or loc.node
        if (
            node.start <= d.range.column
            and d.range.end_column <= node.end
            and d.range.line == d.range.end_line
        ):
            return loc.quote if isinstance(loc.quote, str) else ""
    return ""


def _fingerprints(diags: Sequence[Diagnostic], analyses: Sequence[Analysis]) -> list[str]:
    """One stable value per finding: code + record id + quote where the finding is on a record,
    so an alert follows its record when lines above it move; code + what it is about for a finding
    about the set (the document, the query type; nothing for the set as a whole), so it follows
    neither lines nor the counts in its message; code + file + message otherwise. A repeat within
    one run gets an occurrence number."""
    places = _records_by_place(analyses)
    seen: Counter[str] = Counter()
    out = []
    for d in diags:
        record = places.get((d.path.resolve(), d.range.line))
        if d.whole_set:
            about = d.data.get("doc") or d.data.get("query_type") or ""
            key = "\0".join((d.code, "set", str(about)))
        elif record is not None and record.record is not None:
            rec = record.record
            key = "\0".join((d.code, "record", str(rec.id or rec.query or ""), _quote_at(record, d)))
        else:
            key = "\0".join((d.code, "file", _display(d.path), d.message))
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        seen[digest] += 1
        out.append(f"{digest}:{seen[digest]}")
    return out


def _sarif_uri(path: Path) -> str:
    shown = _display(path)
    if Path(shown).is_absolute():
        return Path(shown).as_uri()
    return urllib.parse.quote(PurePath(shown).as_posix())


def _sarif_location(path: Path, d_range) -> dict:
    r = d_range.one_based()
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": _sarif_uri(path)},
            "region": {
                "startLine": r.line,
                "startColumn": r.column,
                "endLine": r.end_line,
                "endColumn": r.end_column,
            },
        }
    }


def format_sarif(diags: Sequence[Diagnostic], analyses: Sequence[Analysis] = ()) -> str:
    index = {code: i for i, code in enumerate(FINDINGS)}
    rules = [
        {
            "id": f.code,
            "shortDescription": {"text": f.description},
            "helpUri": f.help_uri,
            "defaultConfiguration": {"level": SARIF_LEVELS[f.severity]},
        }
        for f in FINDINGS.values()
    ]
    results = []
    for d, fingerprint in zip(diags, _fingerprints(diags, analyses)):
        result = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": SARIF_LEVELS[d.severity],
            "message": {"text": d.message},
            "locations": [_sarif_location(d.path, d.range)],
            "partialFingerprints": {FINGERPRINT: fingerprint},
        }
        if d.related:
            result["relatedLocations"] = [
                {"id": i, **_sarif_location(rel.path, rel.range), "message": {"text": rel.message}}
                for i, rel in enumerate(d.related)
            ]
        results.append(result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "golden-lsp", "version": __version__, "rules": rules}},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return dumps(log, indent=2) + "\n"


# --- JUnit XML ----------------------------------------------------------------------------

SET_CASE = "golden set"


def format_junit(diags: Sequence[Diagnostic], analyses: Sequence[Analysis] = ()) -> str:
    """One test suite per questions file, one test case per record line (failed by its errors,
    its warnings in ``system-out``) and one case for the set's own findings."""
    listed = {id(d) for d in diags}
    suites = ET.Element("testsuites", name="golden-lsp")
    total = failed = 0
    for a in analyses:
        suite = ET.SubElement(suites, "testsuite", name=shown(_display(a.path)))
        by_line: dict[int | None, list[Diagnostic]] = {}
        lines = {r.line for r in a.records}
        for d in a.diagnostics:
            if id(d) in listed:
                on_record = d.path.resolve() == a.path.resolve() and d.range.line in lines and not d.whole_set
                by_line.setdefault(d.range.line if on_record else None, []).append(d)
        cases = [
            (f"{shown(r.record.id) if r.record and r.record.id else 'record'} (line {r.line + 1})", r.line)
            for r in a.records
        ] + [(SET_CASE, None)]
        n_failed = 0
        for name, line in cases:
            case = ET.SubElement(
                suite,
                "testcase",
                name=shown(name),
                classname=shown(_display(a.path)),
                file=shown(_display(a.path)),
            )
            if line is not None:
                case.set("line", str(line + 1))
            found = by_line.get(line, [])
            errors = [d for d in found if d.severity is Severity.ERROR]
            if errors:
                n_failed += 1
                failure = ET.SubElement(
                    case, "failure", type=errors[0].code, message=shown(errors[0].message)
                )
                failure.text = format_text(errors)
            warnings = [d for d in found if d.severity is not Severity.ERROR]
            if warnings:
                ET.SubElement(case, "system-out").text = format_text(warnings)
        suite.set("tests", str(len(cases)))
        suite.set("failures", str(n_failed))
        suite.set("errors", "0")
        total += len(cases)
        failed += n_failed
    suites.set("tests", str(total))
    suites.set("failures", str(failed))
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


Format = Callable[[Sequence[Diagnostic], Sequence[Analysis]], str]
FORMATS: dict[str, Format] = {
    "text": format_text,
    "json": format_json,
    "github": format_github,
    "sarif": format_sarif,
    "junit": format_junit,
}
