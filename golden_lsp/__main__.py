"""``python -m golden_lsp``: the same entry point as the ``golden-lsp`` command."""

import sys

from .cli import main

sys.exit(main())
