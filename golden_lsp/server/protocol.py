"""The wire: framing stdin into messages, and answering every malformed one.

pygls' stdio loop trusts its client. A ``Content-Length`` header it cannot parse leaves it reading
the body as headers until the stream happens to realign (in practice: deaf for good); a request
whose params do not fit the method's type is logged and never answered, so the client waits
forever; requests after ``shutdown`` are dropped silently; and ``exit`` without ``shutdown`` ends
the process with status 0. This module replaces the loop and the first steps of message handling:
``Framer`` cuts a byte stream into bodies and re-synchronises on the next header after any damage
(a raw ``Content-Length: N`` CRLF can never occur inside a JSON text — a bare word is not JSON
and a JSON string holds no raw line break — so it marks a real header wherever it appears), and
``StrictProtocol`` answers what cannot be handled with the JSON-RPC error the spec names: -32700
for a body that is not JSON, -32600 for a message that is not a request or arrives after
``shutdown``, -32601 for a method the server does not know, -32602 for params that do not fit or
a command it does not have (pygls answers the last two as well, but also reports each to the
client as a server error, and prints the command's with a traceback); a cancel of a request
already answered is taken silently (pygls writes a warning to stderr, an error in a client's log). Everything else is pygls'
own handling, except one way out: a notification (``notify_encoded``) or a request's result
(``Encoded``) that the server already holds as JSON text (its cached diagnostics) is sent as it
is, skipping pygls' serialisation of the whole message. Every message goes out through
``outgoing.QueuedWriter``, named by what it supersedes (a document's diagnostics, its status), and
stdin is read only as fast as the client reads what the server writes. The server runs
``BufferedProtocol``: all of that, without pygls' own store of open documents (the session keeps
them, ``positions.Buffer``).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import re
import sys
import threading
from collections.abc import Callable
from typing import Any, BinaryIO, TypeVar

import attrs
import cattrs
from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidParams, JsonRpcParseError
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCRequestMessage, JsonRPCResponseMessage

from .client import counted_encoding
from .outgoing import Key, QueuedWriter

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
#: bytes of header text kept while waiting for the blank line that ends a header
MAX_HEADER = 64 * 1024
_HEADER_END = b"\r\n\r\n"
_LENGTH = re.compile(rb"content-length:[ \t]*([^\r\n]*)\r\n", re.IGNORECASE)
_RESYNC = re.compile(rb"content-length:[ \t]*\d+[ \t]*\r\n", re.IGNORECASE)
T = TypeVar("T")
#: notifications of which the client wants only the last one for a document (by its URI)
SUPERSEDED = frozenset({types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, "golden-lsp/status"})
#: chunks of stdin read ahead of the loop at most (each up to 64 KiB)
READ_AHEAD = 16


class FrameError(str):
    """What was wrong with a stretch of the stream that was skipped."""


class Framer:
    """Cuts a byte stream into message bodies; ``feed`` returns the bodies and FrameErrors found."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._length: int | None = None  # the body length being waited for, None in a header
        self._scanned = 0  # body bytes already searched for a header

    def feed(self, data: bytes) -> list[bytes | FrameError]:
        self._buf += data
        out: list[bytes | FrameError] = []
        while self._header(out) if self._length is None else self._body(out, self._length):
            pass
        return out

    def _header(self, out: list) -> bool:
        """Consume one header block; False when more bytes are needed."""
        end = self._buf.find(_HEADER_END)
        if end < 0:
            if len(self._buf) > MAX_HEADER:
                keep = len(self._buf) - MAX_HEADER // 2
                out.append(FrameError(f"skipped {keep} bytes that are no message header"))
                del self._buf[:keep]
            return False
        block = bytes(self._buf[: end + 2])
        del self._buf[: end + 4]
        found = list(_LENGTH.finditer(block))
        if not found:
            out.append(FrameError(f"skipped a message header without Content-Length: {block[:80]!r}"))
            return True
        match = found[-1]
        if block[: match.start()].strip() and not _looks_like_headers(block[: match.start()]):
            out.append(FrameError(f"skipped {match.start()} bytes before a message header"))
        value = match.group(1).strip()
        if not value.isdigit():
            out.append(FrameError(f"skipped a message with a bad Content-Length header: {value[:40]!r}"))
            return True
        self._length, self._scanned = int(value), 0
        return True

    def _body(self, out: list, length: int) -> bool:
        """Consume the body of ``length`` bytes being waited for; False when more bytes are needed."""
        # a header inside the declared length: the length was too long, the next message began
        start = max(0, self._scanned - 64)
        resync = _RESYNC.search(self._buf, start, min(len(self._buf), length + 64))
        if resync is not None and resync.start() < length:
            out.append(FrameError(f"Content-Length {length} runs into the next message"))
            out.append(bytes(self._buf[: resync.start()]))
            del self._buf[: resync.start()]
            self._length = None
            return True
        if len(self._buf) < length:
            self._scanned = len(self._buf)
            return False
        out.append(bytes(self._buf[:length]))
        del self._buf[:length]
        self._length = None
        return True


def _looks_like_headers(text: bytes) -> bool:
    return all(re.fullmatch(rb"[A-Za-z-]+:[^\r\n]*", line) for line in text.split(b"\r\n") if line)


class StrictProtocol(LanguageServerProtocol):
    """pygls' protocol, answering malformed, mistyped and late requests instead of dropping them."""

    def handle_body(self, body: bytes) -> None:
        try:
            data = json.loads(body)
        except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
            self.send_error(None, PARSE_ERROR, f"the message is not JSON: {exc}")
            return
        msg_id = data.get("id") if isinstance(data, dict) else None
        if not isinstance(msg_id, (int, str)) or isinstance(msg_id, bool):
            msg_id = None
        method = data.get("method") if isinstance(data, dict) else None
        if (
            not isinstance(data, dict)
            or data.get("jsonrpc") != self.VERSION
            or ("method" in data and not isinstance(method, str))
            or ("method" not in data and "id" not in data)
        ):
            self.send_error(msg_id, INVALID_REQUEST, "not a JSON-RPC 2.0 request, notification or response")
            return
        is_request = method is not None and "id" in data
        if self._shutdown and method != types.EXIT:
            if is_request:
                self.send_error(
                    msg_id, INVALID_REQUEST, f"{method}: the server is shut down; only exit is accepted"
                )
            return
        if is_request and msg_id is None:
            self.send_error(None, INVALID_REQUEST, "a request id must be an integer or a string")
            return
        try:
            message = self._structure(data, method, is_request)
        except cattrs.BaseValidationError as exc:
            problem = "; ".join(cattrs.transform_error(exc, path="params"))
            if is_request:
                self.send_error(msg_id, INVALID_PARAMS, f"{method}: invalid params: {problem}")
            else:
                self._server.report_server_error(
                    ValueError(f"{method}: ignored, invalid params: {problem}"), JsonRpcInvalidParams
                )
            return
        if method is not None and is_request and (unknown := self._unknown(method, message.params)):
            self.send_error(msg_id, *unknown)
            return
        self.handle_message(message)

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        """A cancel of a request the server already answered (or never had) is the ordinary race of
        a client cancelling what it no longer needs: nothing to do, and nothing written to stderr,
        which clients log as errors (pygls warns there; Neovim's lsp.log filled with ERROR lines)."""
        if msg_id in self._request_futures:
            super()._handle_cancel_notification(msg_id)

    def _unknown(self, method: str, params: Any) -> tuple[int, str] | None:
        """The error answering a request for a method or command the server has no handler for."""
        if method not in self.fm.builtin_features and method not in self.fm.features:
            return METHOD_NOT_FOUND, f"{method}: golden-lsp has no such method"
        if method == types.WORKSPACE_EXECUTE_COMMAND and params.command not in self.fm.commands:
            known = ", ".join(sorted(self.fm.commands))
            return INVALID_PARAMS, f"golden-lsp has no command {params.command!r} (its commands: {known})"
        return None

    def _structure(self, data: dict, method: str | None, is_request: bool) -> Any:
        if method is None and "error" not in data and data.get("result") is None:
            # a null answer to a request of ours (a client answering workspace/applyEdit with null
            # where a result object is due): no result, never a message pygls cannot structure,
            # which would leave the request awaited forever
            self._result_types.pop(msg_id := data["id"], None)
            return JsonRPCResponseMessage(id=msg_id, result=None, jsonrpc=self.VERSION)
        if method is None:  # a response to a request of ours: pygls knows its result type
            return self.structure_message(data)
        fallback = JsonRPCRequestMessage if is_request else JsonRPCNotification
        return self._converter.structure(data, self.get_message_type(method) or fallback)

    def send_error(self, msg_id: int | str | None, code: int, message: str) -> None:
        self._send_data({"jsonrpc": self.VERSION, "id": msg_id, "error": {"code": code, "message": message}})

    def encode(self, value: Any) -> str:
        """The JSON text of an LSP value as pygls sends it within a message."""
        return json.dumps(self.unstructure(value))

    def unstructure(self, value: Any) -> Any:
        """An LSP value as JSON data (a command's argument)."""
        return self._converter.unstructure(value)

    def structure(self, data: Any, kind: type[T]) -> T | None:
        """JSON data (a command's argument) as an LSP value of ``kind``; None when it is not one."""
        try:
            return self._converter.structure(data, kind)
        except (cattrs.BaseValidationError, TypeError, ValueError, KeyError, AttributeError):
            return None

    def notify_encoded(self, method: str, params: str) -> None:
        """Send a notification whose params are JSON text already (parts the server keeps
        encoded are sent as they are, never unstructured and serialised again)."""
        key = None
        if method in SUPERSEDED and params.startswith('{"uri": '):  # as convert.publish_params writes
            key = (method, _DECODER.raw_decode(params, 8)[0])
        self._write(
            f'{{"jsonrpc": "{self.VERSION}", "method": {json.dumps(method)}, "params": {params}}}', key
        )

    def _send_data(self, data: Any) -> None:
        """pygls' way out for every other message, through ``_write`` (and so the queue), with
        what it supersedes."""
        if not data:
            return
        try:
            body = json.dumps(data, default=self._serialize_message)
        except Exception as error:  # as pygls: reported, the server carries on
            self._server.report_server_error(error, JsonRpcInternalError)
            return
        self._write(body, _supersedes(data))

    def _send_response(self, msg_id, result=None, error=None) -> None:
        if error is None and isinstance(result, Encoded):  # a handler's result that is JSON text already
            self._result_types.pop(msg_id, None)
            self._write(f'{{"jsonrpc": "{self.VERSION}", "id": {json.dumps(msg_id)}, "result": {result}}}')
        else:
            super()._send_response(msg_id, result, error)

    def _write(self, body: str, key: Key | None = None) -> None:
        """Frame and write one message body, as pygls does; ``key``: what it supersedes."""
        if self.writer is None:
            return
        data = body.encode()
        header = (
            f"Content-Length: {len(data)}\r\nContent-Type: {self.CONTENT_TYPE}; charset={self.CHARSET}\r\n\r\n"
            if self._include_headers
            else ""
        )
        if isinstance(self.writer, QueuedWriter):
            self.writer.write(header.encode() + data, key)
            return
        written = self.writer.write(header.encode() + data)
        if inspect.isawaitable(written):
            asyncio.ensure_future(written)  # noqa: RUF006 (as pygls does: the writer keeps it)


_DECODER = json.JSONDecoder()


def _supersedes(message: Any) -> Key | None:
    """What a message pygls sends replaces when it is queued behind an earlier one: a document's
    diagnostics or status; None for everything else."""
    method = getattr(message, "method", None)
    if method not in SUPERSEDED:
        return None
    params = getattr(message, "params", None)
    uri = params.get("uri") if isinstance(params, dict) else getattr(params, "uri", None)
    return (method, uri) if isinstance(uri, str) else None


def _user_handler_only(method: str) -> Callable:
    @lsp_method(method)
    def forward(self: LanguageServerProtocol, params: Any):
        if (handler := self.fm.features.get(method)) is not None:
            yield handler, (params,), None

    return forward


class BufferedProtocol(StrictProtocol):
    """pygls' protocol minus its document store: golden-lsp keeps documents in its own buffers
    (``positions.Buffer``), so pygls would only hold and re-split a second copy per keystroke."""

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        """pygls' initialize, with the encoding a client counts in without offering it offered for
        it (``client.counted_encoding``), so the negotiated encoding is the one it uses."""
        if (counted := counted_encoding(params)) is not None:
            general = params.capabilities.general or types.GeneralClientCapabilities()
            params.capabilities.general = attrs.evolve(general, position_encodings=[counted])
        return (yield from super().lsp_initialize(params))

    lsp_text_document__did_open = _user_handler_only(types.TEXT_DOCUMENT_DID_OPEN)
    lsp_text_document__did_change = _user_handler_only(types.TEXT_DOCUMENT_DID_CHANGE)
    lsp_text_document__did_close = _user_handler_only(types.TEXT_DOCUMENT_DID_CLOSE)


class Encoded(str):
    """The JSON text of a request's result, which the handler made itself (sent as it is)."""


def serve_stdio(server, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> int:
    """Serve ``server`` (whose protocol is a StrictProtocol) on stdio; the exit status: 0 after
    ``shutdown`` then ``exit``, 1 when the client exits or goes away without ``shutdown``."""
    stdin = stdin or sys.stdin.buffer
    server._stop_event = threading.Event()
    writer = QueuedWriter(stdout or sys.stdout.buffer)
    server.protocol.set_writer(writer)
    try:
        asyncio.run(_read_loop(server, stdin, writer))
    except SystemExit as exc:  # pygls' exit handler
        return exc.code if isinstance(exc.code, int) else 1
    finally:
        writer.close()
        server.shutdown()
    return 0 if server.protocol._shutdown else 1


async def _read_loop(server, stdin: BinaryIO, writer: QueuedWriter) -> None:
    """Feed stdin, read by a daemon thread (a blocked read never holds up exit; ``os.read`` takes
    no lock that interpreter shutdown would wait for), to the protocol: at most ``READ_AHEAD``
    chunks ahead of it, and nothing more while the client leaves the outgoing queue full."""
    loop = asyncio.get_running_loop()
    chunks: asyncio.Queue[bytes] = asyncio.Queue()
    ahead = threading.Semaphore(READ_AHEAD)

    def gone() -> None:  # stdout broke: the client is gone, as when stdin ends
        loop.call_soon_threadsafe(chunks.put_nowait, b"")

    writer.on_broken = gone

    fd = stdin.fileno()

    def read() -> None:
        while True:
            ahead.acquire()
            try:
                chunk = os.read(fd, 65536)
            except (OSError, ValueError):
                chunk = b""
            loop.call_soon_threadsafe(chunks.put_nowait, chunk)
            if not chunk:
                return

    threading.Thread(target=read, name="golden-lsp-stdin", daemon=True).start()
    framer = Framer()
    protocol: StrictProtocol = server.protocol
    while not server._stop_event.is_set():
        chunk = await chunks.get()
        ahead.release()
        if not chunk:
            return
        for item in framer.feed(chunk):
            await writer.drained()  # each message waits for room for what it may answer
            if isinstance(item, FrameError):
                server.report_server_error(ValueError(item), JsonRpcParseError)
                continue
            try:
                protocol.handle_body(item)
            except Exception as exc:  # a handler's own error is reported; the loop carries on
                server.report_server_error(exc, JsonRpcInternalError)
