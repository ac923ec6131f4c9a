"""Untrusted text delimited in a prompt: a tagged block its text can never close or leave.

A question, an expected answer, a system's answer or a corpus chunk is data, not instructions:
a prompt gives each its own ``<tag>`` block, and a text that holds ``</answer>`` or ``<question>``
must not end its block early or open another, or it could pass itself off as the prompt's own
words. So every markup character of the text is escaped (``&`` ``<`` ``>`` as ``&amp;`` ``&lt;``
``&gt;``): inside a block no delimiter form survives, and the model still reads the text.
"""

from __future__ import annotations


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def block(tag: str, text: str) -> str:
    """``<tag>\\ntext\\n</tag>`` with the text escaped (``tag``: the prompt's own, a plain name)."""
    return f"<{tag}>\n{escape(text)}\n</{tag}>"
