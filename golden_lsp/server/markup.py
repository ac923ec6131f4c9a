"""Hover text as Markdown, or as plain text for a client that renders no Markdown.

A client lists the formats it renders (``hover.contentFormat``); Markdown sent to one that takes
plain text only shows its asterisks, backticks and table pipes as they are. The hovers (``hover``,
and the corpus side's in ``labels``) are written through a ``Markup``, Markdown's or plain text's
as ``client.ClientSupport.markdown_hover`` says, so one function writes each hover in both forms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lsprotocol import types


@dataclass(frozen=True)
class Markup:
    markdown: bool = True

    def strong(self, text: str) -> str:
        return f"**{text}**" if self.markdown else text

    def em(self, text: str) -> str:
        return f"*{text}*" if self.markdown else text

    def code(self, text: str) -> str:
        return f"`{text}`" if self.markdown else text

    def block(self, text: str) -> str:
        """Text shown as it is (a fenced block in Markdown, long enough for any backticks in it)."""
        if not self.markdown:
            return text
        longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
        fence = "`" * max(3, longest + 1)
        return f"{fence}text\n{text}\n{fence}"

    def table(self, header: list[str], rows: list[list[str]]) -> str:
        if not self.markdown:
            return "\n".join(" · ".join(cells) for cells in [header, *rows])
        lines = [header, ["---"] * len(header), *rows]
        return "\n".join("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |" for cells in lines)

    def content(self, text: str) -> types.MarkupContent:
        kind = types.MarkupKind.Markdown if self.markdown else types.MarkupKind.PlainText
        return types.MarkupContent(kind, text)
