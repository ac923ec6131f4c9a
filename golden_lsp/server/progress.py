"""Work-done progress (``$/progress``) around the one slow thing the server does: indexing a set.

Opening the first questions file of a large corpus reads and chunks every document before any
diagnostic can appear (seconds for tens of megabytes); without a word from the server an editor
looks hung. So that first analysis is wrapped in a server-initiated work-done progress
(``window/workDoneProgress/create``, then begin and end), shown by the editor as a spinner with
the message. Clients that do not announce ``window.workDoneProgress`` just get the work done.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable

from lsprotocol import types
from pygls.lsp.server import LanguageServer

_tokens = itertools.count(1)


def supported(ls: LanguageServer) -> bool:
    window = ls.client_capabilities.window if ls.client_capabilities else None
    return bool(window and window.work_done_progress)


async def with_progress(ls: LanguageServer, title: str, message: str, work: Callable[[], str | None]) -> None:
    """Run ``work()`` between a progress begin (``message``) and end (what ``work`` returns)."""
    if not supported(ls):
        work()
        return
    token = f"golden-lsp/{next(_tokens)}"
    try:
        await ls.work_done_progress.create_async(token)
    except Exception:  # the client refused the token: do the work without progress
        work()
        return
    ls.work_done_progress.begin(
        token, types.WorkDoneProgressBegin(title=title, message=message, cancellable=False)
    )
    await asyncio.sleep(0)  # let the begin notification go out before the (synchronous) work
    done = None
    try:
        done = work()
    finally:
        ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=done))
