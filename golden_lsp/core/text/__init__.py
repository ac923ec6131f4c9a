"""Text as the builder sees it: canonical text (canon-v1), the md-struct-v1 chunker and its
content-addressed chunk ids (SPEC §1–2), and the declaration of the answers of a text worth
remembering (``memo``), which the engine fills in.
"""
