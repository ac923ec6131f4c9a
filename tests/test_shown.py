"""No text output of golden-lsp carries a control character from its inputs: hostile text (an OSC
sequence setting the terminal title, an ANSI clear-screen, a carriage return, a line break forging
a GitHub annotation, a bidi override) in a doc name, a corpus text, a query and a judge's reason
comes out escaped (``core/io/shown.py``) in every text format of ``check``, in ``accept`` and in
``judge --audit`` (the CLI as a subprocess), the JUnit XML still parses; the JSON outputs
(``check --format json|sarif``, ``stats``) write those characters as JSON escapes
(``core/io/jsontext.py``), the same strings to a JSON reader; the server's hover,
inlay hints and code-action titles are checked over JSON-RPC in tests/server/test_shown_server.py.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest
from core_support import loc, make_project, qline
from judge_support import verdict, write_judge
from test_judge import DOCS

from golden_lsp.core.io.shown import shown

HOSTILE = "\x1b]0;pwned\x07\x1b[2J\rgone\n::error file=x.md,line=1::forged\u202eevil\u2028\x85\x9b31m"
#: a control character in output: C0 but the line feed ending each line, DEL, C1, the Unicode
#: line breaks and the bidi controls
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def clean(out: str, real_annotations: int | None = None) -> None:
    assert not CONTROL.search(out), repr(CONTROL.search(out))
    assert "forged" not in [line.split("::")[-1] for line in out.splitlines()]
    if real_annotations is not None:
        assert sum(line.startswith("::error ") for line in out.splitlines()) == real_annotations


def test_the_helper_escapes_every_control_character_and_keeps_the_rest():
    assert shown("naïve — ok ✓") == "naïve — ok ✓"
    assert shown(HOSTILE) == (
        "\\x1b]0;pwned\\x07\\x1b[2J\\rgone\\n::error file=x.md,line=1::forged\\u202eevil\\u2028\\x85\\x9b31m"
    )
    assert shown("a\nb\rc", lines=True) == "a\nb\\rc"
    assert not CONTROL.search(shown("".join(map(chr, range(0x2070)))))


@pytest.mark.parametrize("fmt", ["text", "github", "junit"])
def test_check_output_escapes_hostile_doc_names_queries_and_corpus_text(cli, tmp_path, fmt):
    docs = {"a.md": f"# A\n\nThe kettle {HOSTILE} boils water quickly today.\n"}
    lines = [
        qline("h1", [loc(f"evil{HOSTILE}.md", "boils water")], query=f"Why {HOSTILE}?"),
        qline("h2", [loc("a.md", f"kettle {HOSTILE} boils water quickly yesterday")], query="Q?"),
    ]
    root = make_project(tmp_path / "set", docs, lines)
    questions = root / f"x{HOSTILE}.questions.jsonl"  # a hostile file name, shown in every finding
    (root / "questions.jsonl").rename(questions)
    proc = cli(["check", questions, "--format", fmt])
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "\\x1b]0;pwned\\x07" in proc.stdout  # shown, escaped
    clean(proc.stdout, 2 if fmt == "github" else None)
    if fmt == "junit":
        ET.fromstring(proc.stdout.split("\n", 1)[1])


def test_accept_and_judge_audit_escape_the_judges_reason(cli, tmp_path):
    verdicts = {
        "t1": {"Green tea": verdict(True, "high", f"Green {HOSTILE} tea.")},
        "t4": {"Bread dough": verdict(False, "high", f"Not {HOSTILE} bread.")},
    }
    lines = [
        qline("t1", [], query="How long is green tea steeped?"),
        qline("t4", [loc("bread.md", "Bread dough rises")], query="How long does bread dough rise?"),
    ]
    root = make_project(tmp_path / "tea", DOCS, lines)
    command, _ = write_judge(tmp_path / "judge", verdicts)
    judged = cli(["judge", root, "--command", command, "--k", "3"])
    assert judged.returncode == 0, judged.stderr
    clean(judged.stdout)
    accepted = cli(["accept", root, "--ids", "t1"])
    assert accepted.returncode == 0 and "Green \\x1b]0;pwned" in accepted.stdout, accepted.stdout
    clean(accepted.stdout)
    clean(accepted.stderr)
    unknown = cli(["accept", root, "--ids", "x\x1b]0;pwned\x07\x1b[2J\r\u202e"])  # an error naming it
    assert unknown.returncode == 2 and "x\\x1b]0;pwned\\x07" in unknown.stderr, unknown.stderr
    clean(unknown.stderr)
    audit = cli(["judge", root, "--audit", "--command", command, "--k", "3"])
    assert audit.returncode == 0, audit.stderr
    assert "Not \\x1b]0;pwned" in audit.stdout, audit.stdout
    clean(audit.stdout)


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_json_outputs_carry_hostile_text_as_escapes(cli, tmp_path, fmt):
    docs = {"a.md": f"# A\n\nThe kettle {HOSTILE} boils water quickly today.\n"}
    lines = [qline("h1", [loc(f"evil{HOSTILE}.md", "boils water")], query=f"Why {HOSTILE}?")]
    root = make_project(tmp_path / "set", docs, lines)
    questions = root / f"x{HOSTILE}.questions.jsonl"  # a hostile file name, each finding's path
    (root / "questions.jsonl").rename(questions)
    proc = cli(["check", questions, "--format", fmt])
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    clean(proc.stdout)
    if fmt == "json":  # the path kept whole (SARIF names files by percent-encoded URIs)
        assert any(questions.name in text for text in _strings(json.loads(proc.stdout)))
    assert any(shown(f"evil{HOSTILE}.md") in text for text in _strings(json.loads(proc.stdout)))
    stats = cli(["stats", questions, "--format", "json"])
    clean(stats.stdout)
    json.loads(stats.stdout)


def _strings(value) -> list[str]:
    """Every string inside a parsed JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [s for v in value for s in _strings(v)] if isinstance(value, list) else []
