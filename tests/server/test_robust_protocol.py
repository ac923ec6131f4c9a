"""The server over a raw stdio pipe: malformed frames, mistyped params, the shutdown/exit rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pygls.uris import from_fs_path
from raw_lsp import RawServer


@pytest.fixture
def raw(golden_dir: Path):
    server = RawServer(golden_dir)
    server.initialize(golden_dir)
    yield server
    if server.proc.poll() is None:
        server.proc.kill()
    server.close()


def open_questions(raw: RawServer, golden_dir: Path) -> str:
    q = golden_dir / "questions.jsonl"
    uri = from_fs_path(str(q))
    raw.notify(
        "textDocument/didOpen",
        {
            "textDocument": {
                "uri": uri,
                "languageId": "golden-questions",
                "version": 1,
                "text": q.read_text(encoding="utf-8"),
            }
        },
    )
    return uri


def assert_still_answers(raw: RawServer, uri: str) -> None:
    reply = raw.call("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert "error" not in reply and len(reply["result"]) > 10, reply
    assert raw.proc.poll() is None
    assert "Traceback" not in raw.stderr


@pytest.mark.parametrize(
    "params",
    [
        {"position": {"line": -1, "character": 0}},
        {"position": "12:3"},
        {"position": {"line": 0}},
        5,
    ],
    ids=["negative-line", "string-position", "missing-character", "params-5"],
)
def test_invalid_params_get_an_error_response(raw: RawServer, golden_dir: Path, params):
    uri = open_questions(raw, golden_dir)
    if isinstance(params, dict):
        params = {"textDocument": {"uri": uri}, **params}
    reply = raw.call("textDocument/hover", params)
    assert reply["error"]["code"] == -32602, reply
    assert "textDocument/hover" in reply["error"]["message"]
    assert_still_answers(raw, uri)


def frame(body: bytes, length: bytes | None = None) -> bytes:
    return b"Content-Length: " + (str(len(body)).encode() if length is None else length) + b"\r\n\r\n" + body


HOVER = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 999,
        "method": "textDocument/hover",
        "params": {"textDocument": {"uri": "file:///x.jsonl"}, "position": {"line": 0, "character": 0}},
    }
).encode()


@pytest.mark.parametrize(
    "garbage",
    [
        frame(HOVER, b"abc"),
        frame(HOVER, b"-5"),
        frame(HOVER, b"12"),  # too short: the rest of the body arrives where a header should
        frame(HOVER, b"99999999"),  # too long: the next message arrives inside the declared body
        b"Content-Type: application/json\r\n\r\n" + HOVER,  # no Content-Length at all
        frame(b"{not json"),
        frame(b"\xff\xfe{}"),
        frame(b"[1, 2]"),
        frame(b'{"jsonrpc": "2.0", "id": [1], "method": "textDocument/hover"}'),
        b"\r\n\r\n\r\n",
    ],
    ids=[
        "letters",
        "negative",
        "too-short",
        "too-long",
        "no-length",
        "not-json",
        "not-utf8",
        "batch",
        "bad-id",
        "blank-lines",
    ],
)
def test_a_bad_frame_does_not_make_the_server_deaf(raw: RawServer, golden_dir: Path, garbage: bytes):
    uri = open_questions(raw, golden_dir)
    raw.send_raw(garbage)
    assert_still_answers(raw, uri)
    assert_still_answers(raw, uri)  # and stays in step with the stream


def test_a_body_that_is_not_json_gets_a_parse_error(raw: RawServer):
    raw.send_raw(frame(b"{not json"))
    reply = raw.wait_for(lambda m: "error" in m)
    assert reply["id"] is None and reply["error"]["code"] == -32700


def test_requests_after_shutdown_are_invalid_and_exit_is_0(raw: RawServer, golden_dir: Path):
    uri = open_questions(raw, golden_dir)
    assert raw.call("shutdown")["result"] is None
    reply = raw.call("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    assert reply["error"]["code"] == -32600, reply
    raw.notify("exit")
    assert raw.close() == 0


def test_exit_without_shutdown_exits_1(raw: RawServer):
    raw.notify("exit")
    assert raw.close() == 1
