"""The core: what a golden set means, and nothing that talks to an editor or a user.

Canonical text, the md-struct-v1 chunker and its content-addressed ids, the corpus index, the
questions parser, quote resolution, its hints and its facts, the one quote picker, the caches kept
from a text (``textcache``), the hit rules, every finding (rules and the code table), the
incremental analysis engine, the artifact and manifest, configuration and the set as a whole
(``project``) that both front ends share. Everything above reads the result model
(``model``) this layer produces; nothing here imports pygls, lsprotocol or any layer above.
"""
