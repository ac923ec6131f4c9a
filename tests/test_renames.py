"""A document renamed to an unrelated name, the corpus not in git: ``check`` says where the labels'
quotes went and offers that document as the fix (text and JSON), only on evidence — every quote
given for the unknown doc occurring once, in one and the same other document."""

from __future__ import annotations

import json

from core_support import loc, make_project, qline

CONFIG = 'corpus = "corpus"\nglob = "**/*.md"\n'
DOCS = {
    "getting-started/install.md": "# Install\n\nRun the installer from the release page and restart the shell.\n\n"
    "The first launch asks for a licence key before anything else.\n",
    "usage.md": "# Usage\n\nOpen a project folder and press the build button.\n\nAsk for help in the forum.\n",
    "faq.md": "# FAQ\n\nAsk for help in the forum.\n",
}


def unknown_docs(cli, root):
    proc = cli(["check", root, "--format", "json"])
    return proc, [d for d in json.loads(proc.stdout) if d["code"] == "unknown-doc"]


def test_every_quote_of_a_renamed_doc_in_one_document_names_it_as_the_fix(cli, tmp_path):
    lines = [
        qline("q1", [loc("setup.md", "Run the installer from the release page")]),
        qline("q2", [loc("setup.md", "asks for a licence key")]),
    ]
    root = make_project(tmp_path / "p", DOCS, lines, CONFIG)
    proc, found = unknown_docs(cli, root)
    assert proc.returncode == 1 and len(found) == 2
    for d in found:
        assert d["fix"] == {"doc": "getting-started/install.md"}
        assert "every quote labelled with it occurs once in 'getting-started/install.md'" in d["message"]
    text = cli(["check", root]).stdout
    assert "renamed? set doc to 'getting-started/install.md'" in text


def test_no_fix_without_evidence(cli, tmp_path):
    lines = [
        # one quote in install.md, the other in usage.md: two places, no rename
        qline("q1", [loc("setup.md", "Run the installer from the release page")]),
        qline("q2", [loc("setup.md", "press the build button")]),
        # a quote occurring in two documents tells nothing
        qline("q3", [loc("help.md", "Ask for help in the forum")]),
        # a quote found nowhere
        qline("q4", [loc("gone.md", "text no document holds")]),
    ]
    root = make_project(tmp_path / "p", DOCS, lines, CONFIG)
    _, found = unknown_docs(cli, root)
    assert len(found) == 4
    assert all("fix" not in d and "renamed?" not in d["message"] for d in found)
