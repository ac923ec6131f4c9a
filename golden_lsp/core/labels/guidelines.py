"""The annotation guidelines: what relevant, not relevant and primary mean, in one text.

People labelling by hand and the LLM judge must follow the same rules, or the judge's agreement
with them measures two different questions. This is the one source of those rules: the judge's
default system prompt is built from it (``keep.prompt``), ``golden-lsp init`` writes it beside a
new set as ``GUIDELINES.md``, the manual's page ``docs/guidelines.md`` is this text (a test checks
them equal), and the editor shows it on hover over ``primary``, ``unanswerable`` and an empty
``locators``. It sits in core so that every one of them can import it.
"""

from __future__ import annotations

#: the file ``golden-lsp init`` writes beside a new set (never over an existing file)
FILE_NAME = "GUIDELINES.md"

#: the rules themselves (Markdown), without a title: the judge's prompt quotes them
RULES = """\
A record is a query and the passages of the corpus that answer it. For each passage ask: would a \
person answering this query want to read this passage?

- **Relevant**: the passage states the answer to the query, or a part of it that the answer \
needs. A person answering the query would quote or use it.
- **Primary**: relevant, and the single passage that answers the query most fully on its own. \
At most one passage of a record is primary.
- **Not relevant**: the passage is on the topic but does not help answer this query, answers a \
different question, or only shares words with the query.
- Judge from the passage alone, not from what you know about the subject.
- **When uncertain, err toward NOT RELEVANT.** A wrong "relevant" rewards a retriever for the \
wrong passage; a missed one costs less.
- A query may have **zero** relevant passages. Label none rather than the least bad one.
- A record whose query the corpus cannot answer at all is **unanswerable**: it keeps no \
locators and says `"unanswerable": true`. A retriever is scored on it by returning nothing \
useful, not by a hit.
- Most queries have one to three relevant passages; more than ten usually means a span grown too \
far or a question too broad.
"""

#: the page: the rules under a title (``GUIDELINES.md`` beside a set, ``docs/guidelines.md``, hover)
PAGE = f"# Annotation guidelines\n\n{RULES}"
