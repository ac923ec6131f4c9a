"""Keeping a golden set alive: labels proposed by an LLM judge for a person to accept, and labels
that follow the corpus when its documents are edited, moved or renamed.

It sits above the uses of a set (it ranks candidates, reads runs, measures agreement) and below
the front ends, which offer its proposals and re-anchorings as commands and quick fixes.
"""
