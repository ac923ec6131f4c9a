"""The pygls server as the scheduler and the handlers both see it, without the handlers.

``app.py`` builds the server with its session and scheduler and registers the handlers on it; the
scheduler needs only what any golden-lsp server has — the buffered protocol it writes through and
a way to log a failure to the client that never raises. Keeping that here lets the scheduler name
its server's type without importing ``app`` (which imports the scheduler).
"""

from __future__ import annotations

import logging
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from .. import __version__
from .protocol import BufferedProtocol

log = logging.getLogger(__name__)


class BaseServer(LanguageServer):
    """A pygls server speaking through ``BufferedProtocol`` that logs its errors to the client."""

    protocol: BufferedProtocol

    def __init__(self) -> None:
        super().__init__(
            "golden-lsp",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=BufferedProtocol,
        )

    def report_server_error(self, error: Exception, source: Any) -> None:
        self.log_error(f"{type(error).__name__}: {error}")

    def log_error(self, message: str) -> None:
        try:
            self.window_log_message(types.LogMessageParams(types.MessageType.Error, f"golden-lsp: {message}"))
        except Exception:  # the client may be gone; never raise from the error path
            log.exception("cannot log to client")
