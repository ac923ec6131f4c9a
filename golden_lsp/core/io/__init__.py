"""What goes in and out: inputs read only when they are regular files, outputs written atomically,
the JSON text golden-lsp writes for other tools, and the error a command stops on.

The bottom of the core: every other part reads or writes files and may need to stop a command
with a reason, and none of this knows what a golden set is.
"""
