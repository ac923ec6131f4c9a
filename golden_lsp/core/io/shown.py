"""Text from a file, the corpus or a model, fit to be shown: no control character gets through.

Corpus pages, questions, query logs and a judge's reasons are text anyone may have written. Shown
raw, an ANSI or OSC sequence sets a terminal's title or clears its screen, a line break forges an
output line (a fake ``::error`` annotation, a fake finding), a bidi override reorders what a
reviewer reads, and a C0 character makes JUnit XML unreadable. So every place text leaves
golden-lsp — the command line's text, GitHub annotations and JUnit, the editor's hover, inlay
hints, code-action titles and diagnostics — passes it through ``shown``: each character that is
not printable (``str.isprintable``: controls, format characters such as the bidi overrides and
zero-width ones, line and paragraph separators, every space but the ASCII one) is written as its
Python escape (``\\x1b``, ``\\n``, ``\\u202e``), visible and inert. JSON and SARIF carry text as
data, escaped by their own encoding.
"""

from __future__ import annotations


def shown(text: str) -> str:
    """``text`` on one line with every character that is not printable escaped."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def shown_lines(text: str) -> str:
    """``text`` with its line breaks (``\\n``) kept and every other character that is not
    printable escaped (a hover's Markdown, a multi-line report)."""
    return "\n".join(shown(line) for line in text.split("\n"))
