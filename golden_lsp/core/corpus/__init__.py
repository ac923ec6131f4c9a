"""The corpus of a set: each document (its raw and canonical text, its chunks, read back when let go)
and the index over them that an edit replaces a document at a time; BM25 over its passages.

What keeps it fast (chunks between runs, texts held, memos forgotten) is asked for through
``hooks``, never imported.
"""
