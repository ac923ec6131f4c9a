"""The finding codes hold together: the table in ``diagnostics.FINDINGS``, the code that emits them
and their page, docs/findings.md.

Every code a rule can emit is in the table and every code in the table is emitted somewhere (an
AST scan of golden_lsp for the codes given to a diagnostic's constructor); every code the package
compares a finding's ``code`` with exists; the page has one section per code, anchored as the table
says, stating the table's severity and blocking; and each example line on the page, appended to
the bundled example set, gets its section's finding from ``golden-lsp check`` (an import example
from ``golden-lsp import``) on that very line.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
from pathlib import Path

import pytest

from golden_lsp.core.findings.diagnostics import FINDINGS

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "golden_lsp"
PAGE = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
EXAMPLES = ROOT / "examples"
#: the callables that make a finding from a code: the core's constructor and its per-line form,
#: the importer's helper, and the LSP diagnostic the server builds for a set it cannot load
EMITTERS = {"Diagnostic", "at_columns", "_finding"}
HEADING = re.compile(r"^## (\S+) \{#([\w-]+)\}$", re.M)
FACTS = re.compile(r"^\*\*Default severity:\*\* (\w+) · \*\*Blocking:\*\* (yes|no)$", re.M)
#: the codes whose finding is about the whole set, a corpus file or the config, not a line one can
#: append: their sections describe what triggers them instead
NO_EXAMPLE_LINE = {
    "too-few-records",
    "doc-dominates",
    "doc-unlabelled",
    "stale-manifest",
    "passage-changed",
    "corpus-error",
    "config-error",
    "query-type-missing",
    "retention-expired",  # needs the config's retention_days (tests/test_governance.py)
}


def sections() -> dict[str, str]:
    """Each section of the page by its anchor: its text up to the next heading."""
    heads = list(HEADING.finditer(PAGE))
    ends = [h.start() for h in heads[1:]] + [len(PAGE)]
    return {h.group(2): PAGE[h.end() : end] for h, end in zip(heads, ends)}


class _Codes(ast.NodeVisitor):
    """The code literals given to an emitter, resolved through the names assigned in the function
    around the call (``code = "a" if … else "b"``); a parameter or a ``….code`` passes a code
    made elsewhere on. Anything else is unresolved: a test cannot tell which codes it emits."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.codes: set[str] = set()
        self.unresolved: list[str] = []
        self.scopes: list[tuple[dict[str, list[ast.expr]], set[str]]] = []

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        assigned: dict[str, list[ast.expr]] = {}
        for sub in ast.walk(node):
            if isinstance(sub, ast.Assign):
                for target in sub.targets:
                    if isinstance(target, ast.Name):
                        assigned.setdefault(target.id, []).append(sub.value)
        args = node.args
        params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
        self.scopes.append((assigned, params))
        self.generic_visit(node)
        self.scopes.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = (
            func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        )
        if name in EMITTERS:
            code = next((k.value for k in node.keywords if k.arg == "code"), None)
            if code is None and node.args:
                code = node.args[0]
            if code is not None:
                self.resolve(code, node.lineno)
        self.generic_visit(node)

    def resolve(self, expr: ast.expr, line: int) -> None:
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            self.codes.add(expr.value)
        elif isinstance(expr, ast.IfExp):
            self.resolve(expr.body, line)
            self.resolve(expr.orelse, line)
        elif isinstance(expr, ast.Attribute) and expr.attr == "code":
            pass  # a finding's own code, passed on
        elif isinstance(expr, ast.Name) and self.scopes:
            assigned, params = self.scopes[-1]
            if expr.id in assigned:
                for value in assigned[expr.id]:
                    self.resolve(value, line)
            elif expr.id not in params:
                self.unresolved.append(f"{self.where}:{line}")
        else:
            self.unresolved.append(f"{self.where}:{line}")


def _modules() -> list[tuple[str, ast.Module]]:
    return [
        (str(p.relative_to(ROOT)), ast.parse(p.read_text(encoding="utf-8")))
        for p in sorted(PACKAGE.rglob("*.py"))
    ]


def test_every_code_a_rule_emits_is_in_the_table_and_every_entry_is_emitted():
    codes: set[str] = set()
    unresolved: list[str] = []
    for where, tree in _modules():
        visitor = _Codes(where)
        visitor.visit(tree)
        codes |= visitor.codes
        unresolved += visitor.unresolved
    assert unresolved == [], "findings whose code the scan cannot tell"
    assert codes - FINDINGS.keys() == set(), "emitted, but not in diagnostics.FINDINGS"
    assert FINDINGS.keys() - codes == set(), "in diagnostics.FINDINGS, but never emitted"


def _strings(expr: ast.expr, constants: dict[str, ast.expr]) -> list[str]:
    """The string literals an expression compared with a code stands for (a module constant too)."""
    if isinstance(expr, ast.Name) and expr.id in constants:
        expr = constants[expr.id]
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.args:
        expr = expr.args[0]  # frozenset({...}), set((...))
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return [expr.value]
    if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in expr.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def test_every_code_the_package_compares_a_finding_with_exists():
    named: dict[str, str] = {}
    for where, tree in _modules():
        constants = {
            t.id: node.value
            for node in tree.body
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(t, ast.Name)
        }
        for node in ast.walk(tree):
            left = getattr(node, "left", None)
            if isinstance(node, ast.Compare) and isinstance(left, ast.Attribute) and left.attr == "code":
                for other in node.comparators:
                    named.update(dict.fromkeys(_strings(other, constants), f"{where}:{node.lineno}"))
    assert len(named) >= 5  # quote-ambiguous, quote-not-found, the editor's hints, …
    assert {code: at for code, at in named.items() if code not in FINDINGS} == {}


def test_the_page_has_one_section_per_code_anchored_as_the_table_says():
    heads = HEADING.findall(PAGE)
    assert [code for code, _ in heads] == [anchor for _, anchor in heads]  # the heading is its code
    assert len(heads) == len({anchor for _, anchor in heads})
    assert {anchor for _, anchor in heads} == {f.anchor for f in FINDINGS.values()}
    assert all(f.help_uri.endswith(f"findings/#{f.anchor}") for f in FINDINGS.values())


def test_each_section_states_the_tables_severity_and_blocking():
    for anchor, text in sections().items():
        finding = next(f for f in FINDINGS.values() if f.anchor == anchor)
        (facts,) = FACTS.findall(text)
        assert facts == (finding.severity.value, "yes" if finding.blocking else "no"), anchor
        assert "**Fix:**" in text, anchor
        assert ("**Silence:**" in text) is not finding.blocking, anchor


def _example(text: str, lang: str) -> str | None:
    blocks = re.findall(rf"^```{lang}\n(.*?)\n```$", text, re.M | re.S)
    assert len(blocks) <= 1
    return blocks[0] if blocks else None


EXAMPLE_LINES = {
    anchor: line
    for anchor, text in sections().items()
    if (line := _example(text, "json") or _example(text, "text")) is not None
}


def test_every_code_of_a_line_has_an_example_line():
    assert set(EXAMPLE_LINES) == {f.anchor for f in FINDINGS.values()} - NO_EXAMPLE_LINE
    assert all("\n" not in line for line in EXAMPLE_LINES.values())


@pytest.mark.parametrize("code", sorted(EXAMPLE_LINES))
def test_the_example_line_gets_its_finding(code, cli, tmp_path):
    project = tmp_path / "examples"
    shutil.copytree(EXAMPLES, project)
    line = EXAMPLE_LINES[code]
    if code.startswith("import-"):
        (project / "ragas.jsonl").write_text(line + "\n", encoding="utf-8")
        proc = cli(["import", "ragas.jsonl", "--from", "ragas"], cwd=project)
        assert proc.returncode == 0, proc.stderr
        assert re.search(rf"^ragas\.jsonl:1:\d+: warning\[{code}\] ", proc.stderr, re.M), proc.stderr
        return
    questions = project / "questions.jsonl"
    text = questions.read_text(encoding="utf-8")
    assert text.endswith("\n")
    questions.write_text(text + line + "\n", encoding="utf-8")
    proc = cli(["check", "--format", "json"], cwd=project)
    assert proc.returncode in (0, 1), proc.stderr
    at_line = {f["code"] for f in json.loads(proc.stdout) if f["line"] == text.count("\n") + 1}
    assert code in at_line
