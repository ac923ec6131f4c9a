"""The core: what a golden set means, apart from how it is made fast, and nothing that talks to a user.

Its parts, from the bottom up — each may import only those below it (import-linter contracts in
``pyproject.toml``; ``docs/architecture.md`` draws them):

- ``io``: what goes in and out — inputs read safely, outputs written atomically, JSON text, the
  error a command stops on;
- ``text``: canonical text, the md-struct-v1 chunker and its content-addressed ids, and the
  declaration of the answers of a text worth remembering;
- ``corpus``: the documents of a set and the index over them; ``findings``: what a finding is (one
  diagnostic model and the table of every code);
- ``labels``: the questions file's records, a quote resolved to a span, why a quote is missing, the
  one quote picker, the facts a rule reads, the hit rules, record ids;
- ``check``: the rules about a locator, a record and the whole set, and the result model they fill;
- ``engine``: how it is made fast — the warm cache, held texts, text memos, collector pauses, the
  cold-start map over documents, the incremental analysis. The semantics above never import it:
  they declare what they would gain through narrow interfaces, which the engine fills in;
- ``goldenset``: the set as a whole — its config, its artifact and manifest, the check and build
  jobs both front ends call.

Nothing here imports pygls, lsprotocol or any layer above the core.
"""
