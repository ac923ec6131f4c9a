"""Practising what good golden sets need, and exchanging them with other tools.

The set's figures, annotator agreement, sampling from query logs, a new set that checks clean,
exports to evaluation tools and imports from them, and the HTML report. Each reads the core's
result model (and, for the report, an evaluation), never a cache of its own.
"""
