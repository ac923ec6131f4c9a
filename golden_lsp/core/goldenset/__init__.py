"""A golden set as a whole: where its parts live (``config``), what a build derives (``artifact``:
the artifact and its manifest, and whether the committed ones are stale) and the two jobs both front
ends call on it (``project``: check and build), wiring the semantics to the engine.
"""
