"""Diagnostics as CI systems read them: text for people, JSON for tools, GitHub annotations.

The core's ``Diagnostic`` objects are the single source; every format here renders the same list,
with paths relative to the working directory when under it (``files.display``).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Iterable

from ..diagnostics import Diagnostic
from ..files import display as _display


def format_text(diags: Iterable[Diagnostic]) -> str:
    lines = []
    for d in diags:
        r = d.range.one_based()
        lines.append(f"{_display(d.path)}:{r.line}:{r.column}: {d.severity.value}[{d.code}] {d.message}")
        for rel in d.related:
            r = rel.range.one_based()
            lines.append(f"  {_display(rel.path)}:{r.line}:{r.column}: note: {rel.message}")
    return "".join(line + "\n" for line in lines)


def format_json(diags: Iterable[Diagnostic]) -> str:
    out = []
    for d in diags:
        item = {"path": _display(d.path), **asdict(d.range.one_based()), "severity": d.severity.value,
                "code": d.code, "message": d.message,
                "related": [{"path": _display(r.path), **asdict(r.range.one_based()), "message": r.message}
                            for r in d.related]}
        if "replacement" in d.data:
            item["fix"] = {"replacement": d.data["replacement"]}
        out.append(item)
    return json.dumps(out, ensure_ascii=False, indent=2) + "\n"


def _gh_escape(value: str, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return value.replace(":", "%3A").replace(",", "%2C") if prop else value


def format_github(diags: Iterable[Diagnostic]) -> str:
    kinds = {"error": "error", "warning": "warning"}
    lines = []
    for d in diags:
        r = d.range.one_based()
        props = (f"file={_gh_escape(_display(d.path), True)},line={r.line},col={r.column},"
                 f"endLine={r.end_line},endColumn={r.end_column},title={_gh_escape(d.code, True)}")
        lines.append(f"::{kinds.get(d.severity.value, 'notice')} {props}::{_gh_escape(d.message)}\n")
    return "".join(lines)


FORMATS = {"text": format_text, "json": format_json, "github": format_github}


