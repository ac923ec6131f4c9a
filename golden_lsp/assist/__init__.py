"""Authoring aids: what the editor offers while a person writes labels.

What the cursor is in on a half-typed line, quote completions from the corpus, the quote written
when anchoring from the corpus side, and candidate passages ranked for a query. Plain functions
over the core's result model, with no protocol types: ``server`` turns them into LSP answers.
"""
