"""The annotation guidelines: what relevant, not relevant and primary mean, in one text.

People labelling by hand and the LLM judge must decide by the same rules, or their agreement
measures two different questions. So the guidelines are written once, here: ``golden-lsp init``
writes them beside a new set (``GUIDELINES.md``), the manual shows them (``docs/guidelines.md``,
checked equal by a test), the editor shows them on hover over ``primary``, ``unanswerable`` and an
empty ``locators``, and the judge's system prompt quotes them (``keep/prompt.py``).
"""

from __future__ import annotations

#: the file ``init`` writes beside a new set
FILE_NAME = "GUIDELINES.md"

#: the rules themselves, one bullet each (the judge's prompt quotes exactly these lines)
RULES = """\
- Relevant: the passage states the answer to the query, or a part of it that the answer needs. \
A person answering the query would quote or use it.
- Primary: relevant, and the single passage that answers the query most fully on its own. A \
record marks at most one locator `"primary": true`.
- Not relevant: the passage is on the topic but does not help answer this query, answers a \
different question, or only shares words with the query.
- Judge from the passage alone, not from what you know about the subject.
- When uncertain, err toward NOT RELEVANT.
- A query may have zero relevant passages: then the record is `"unanswerable": true` with empty \
`locators` — a real question the corpus does not answer, which a good system declines.
"""

TEXT = f"""\
# Annotation guidelines

How to label a passage for a question of this golden set — the same rules for people labelling by
hand and for the LLM judge (`golden-lsp judge`), so that their agreement measures one question.

{RULES}
A label is a quote of a few exact words inside the passage that answers; the passage around it
(its paragraph, list item or table row) is what is labelled. A question needs 1 to 10 relevant
passages, typically 1 to 3: more usually means a span grown too far or a question too broad.
"""
