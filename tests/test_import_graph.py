"""No import cycle in golden_lsp, counting every import: inside functions and under TYPE_CHECKING too.

The layer contracts (import-linter, ``test_code_checks.py``) keep the layers one-way; inside a
layer, a cycle between two modules means neither can be read, tested or moved without the
other, and an import hidden in a function to dodge the cycle is the same cycle. So the graph here
is every import statement in the package, wherever it stands (grimp, which import-linter
installs, reads them all), and a cycle fails the test naming each import of it with its line.
"""

from __future__ import annotations

import textwrap
from itertools import pairwise
from pathlib import Path

import grimp

#: cycles known and reported, each to be broken where it lies, by its modules: the test fails on
#: any other, and on a known one that is gone (so that its entry goes too)
KNOWN: set[frozenset[str]] = set()


def cycles(package: str) -> dict[frozenset[str], str]:
    """Each import cycle of ``package``, by its modules, as its imports with their lines."""
    graph = grimp.build_graph(package, cache_dir=None)
    out: dict[frozenset[str], str] = {}
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is None or frozenset(back) in out:
                continue
            cycle = (importer, *back)
            steps = []
            for a, b in pairwise(cycle):
                where = graph.get_import_details(importer=a, imported=b)[0]
                steps.append(f"{a}:{where['line_number']} `{where['line_contents']}`")
            out[frozenset(back)] = " → ".join(steps)
    return out


def test_golden_lsp_has_no_import_cycle():
    found = cycles("golden_lsp")
    new = [cycle for modules, cycle in found.items() if modules not in KNOWN]
    assert not new, "import cycles:\n" + "\n".join(new)
    assert found.keys() >= KNOWN, f"no longer a cycle, remove it from KNOWN: {KNOWN - found.keys()}"


def test_a_cycle_through_a_function_or_type_checking_import_is_found(tmp_path: Path, monkeypatch):
    package = tmp_path / "cyclic"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from . import b\n")
    (package / "b.py").write_text(
        textwrap.dedent(
            """\
            from typing import TYPE_CHECKING

            from . import c

            if TYPE_CHECKING:
                from .a import f
            """
        )
    )
    (package / "c.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert list(cycles("cyclic").values()) == [
        "cyclic.a:2 `from . import b` → cyclic.b:6 `from .a import f`",
    ]
