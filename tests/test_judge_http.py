"""The ``anthropic`` and ``openai`` providers through their official SDKs, against a local HTTP
server on 127.0.0.1 (pytest-httpserver) speaking each wire format: the request (path, key header,
model, max_tokens, system and user messages), the answer parsed into proposals, a 429 retried
after the server's retry-after, a body that is not JSON, an answer that is not the judgment, and
a refused key. ``golden-lsp judge`` runs as a subprocess for the request and the answer (the base
URL pointed at the server by the SDKs' own variables), the judge's run loop in process for the
failures (an SDK's import takes seconds); nothing leaves the machine."""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path

import pytest
from core_support import make_project, qline, run_cli
from judge_support import proposals
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from golden_lsp.keep.cache import JudgmentCache
from golden_lsp.keep.judge import Judgment, Outcome, Passage, run
from golden_lsp.keep.prompt import DEFAULT, SYSTEM, user_message
from golden_lsp.keep.providers import MAX_TOKENS, TIMEOUT, make_provider
from golden_lsp.keep.untrusted import read_blocks

KEY = "sk-test-not-a-real-key"
DOC = "# Huts\n\nThe Rifugio Alto serves dinner at seven and breakfast at six.\n"
QUERY = "When is dinner served at the Rifugio Alto?"
PASSAGE = "The Rifugio Alto serves dinner at seven and breakfast at six.\n"
JUDGMENT = {"relevant": True, "confidence": "high", "reason": "It gives the dinner time."}


@pytest.fixture(scope="session")
def httpserver_listen_address():
    return ("127.0.0.1", 0)


@pytest.fixture
def hut(tmp_path: Path) -> Path:
    return make_project(tmp_path / "hut", {"huts.md": DOC}, [qline("h1", [], query=QUERY)])


def anthropic_message(text: str) -> dict:
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10},
    }


def openai_completion(text: str) -> dict:
    return {
        "id": "chatcmpl-01",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-test",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


PROVIDERS = {
    "anthropic": ("/v1/messages", anthropic_message, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", ""),
    "openai": ("/v1/chat/completions", openai_completion, "OPENAI_API_KEY", "OPENAI_BASE_URL", "/v1"),
}


def run_judge(hut: Path, provider: str, server, *extra) -> tuple:
    _, _, key_var, url_var, suffix = PROVIDERS[provider]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    env.update({key_var: KEY, url_var: server.url_for("/").rstrip("/") + suffix})
    args = [
        "judge",
        hut,
        "--provider",
        provider,
        "--model",
        f"{provider}-model",
        "--k",
        "1",
        "--format",
        "json",
    ]
    proc = run_cli([*args, *extra], hut.parent, env)
    return proc, (json.loads(proc.stdout) if proc.stdout.strip() else None)


def assert_request(provider: str, request: Request) -> None:
    path, _, _, _, _ = PROVIDERS[provider]
    body = json.loads(request.get_data())
    assert request.path == path and request.method == "POST"
    # the SDKs send the key as their API expects it (Anthropic's ``x-api-key``, or ``Authorization:
    # Bearer`` in its newer SDKs; OpenAI's ``Authorization: Bearer``)
    sent = request.headers.get("x-api-key") or request.headers.get("authorization", "").removeprefix(
        "Bearer "
    )
    assert sent == KEY
    assert body["model"] == f"{provider}-model" and body["max_tokens"] == MAX_TOKENS
    user = {"role": "user", "content": user_message(QUERY, PASSAGE)}
    if provider == "anthropic":
        assert body["system"] == SYSTEM and body["messages"] == [user]
    else:
        assert body["messages"] == [{"role": "system", "content": SYSTEM}, user]


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_the_request_and_the_answer_through_the_official_sdk(provider, hut, httpserver):
    path, reply, *_ = PROVIDERS[provider]
    fenced = "```json\n" + json.dumps(JUDGMENT) + "\n```"  # a code fence around the JSON is tolerated
    httpserver.expect_request(path, method="POST").respond_with_json(reply(fenced))
    proc, summary = run_judge(hut, provider, httpserver)
    assert proc.returncode == 0, proc.stderr
    assert len(httpserver.log) == 1
    assert_request(provider, httpserver.log[0][0])
    (line,) = proposals(hut / "proposals.jsonl")
    assert {k: line[k] for k in ("relevant", "confidence", "reason")} == JUDGMENT
    assert (line["provider"], line["model"], line["doc"]) == (provider, f"{provider}-model", "huts.md")
    assert DOC[line["char_start"] : line["char_end"]] == PASSAGE
    assert summary["calls"] == 1 and summary["relevant"]["high"] == 1
    again, summary = run_judge(hut, provider, httpserver)
    assert again.returncode == 0 and summary["cached"] == 1 and len(httpserver.log) == 1


def judged_in_process(
    provider: str, server, monkeypatch, tmp_path: Path, base: str | None = None, timeout: float = TIMEOUT
) -> Outcome:
    """One candidate judged by ``keep.judge.run`` in this process, the SDK's base URL the server's
    (or ``base``)."""
    _, _, key_var, url_var, suffix = PROVIDERS[provider]
    for var in [v for v in os.environ if v.startswith(("ANTHROPIC_", "OPENAI_"))]:
        monkeypatch.delenv(var)
    monkeypatch.setenv(key_var, KEY)
    monkeypatch.setenv(url_var, (base or server.url_for("/").rstrip("/")) + suffix)
    judge = make_provider(provider, f"{provider}-model", None, timeout)
    start = DOC.index(PASSAGE)
    passage = Passage("h1", QUERY, "huts.md", start, start + len(PASSAGE), PASSAGE, ("c1",), 1)
    try:
        return run(judge, DEFAULT, [passage], JudgmentCache(tmp_path / "judge-cache"))
    finally:
        judge.close()


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_a_rate_limit_is_retried_by_the_sdk_after_retry_after(provider, httpserver, monkeypatch, tmp_path):
    path, reply, *_ = PROVIDERS[provider]
    answers = iter(
        [
            Response(
                json.dumps({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}),
                status=429,
                headers={"retry-after-ms": "1", "retry-after": "0", "content-type": "application/json"},
            ),
            Response(json.dumps(reply(json.dumps(JUDGMENT))), status=200, content_type="application/json"),
        ]
    )
    httpserver.expect_request(path, method="POST").respond_with_handler(lambda request: next(answers))
    outcome = judged_in_process(provider, httpserver, monkeypatch, tmp_path)
    assert [r.status_code for _, r in httpserver.log] == [429, 200]
    for request, _ in httpserver.log:
        assert_request(provider, request)
    assert outcome.judged == {0: Judgment(True, "high", JUDGMENT["reason"])} and outcome.calls == 1


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_a_malformed_body_is_that_candidates_error(provider, httpserver, monkeypatch, tmp_path):
    path, *_ = PROVIDERS[provider]
    httpserver.expect_request(path, method="POST").respond_with_data(
        "<html>bad gateway</html>", status=200, content_type="application/json"
    )
    outcome = judged_in_process(provider, httpserver, monkeypatch, tmp_path)
    assert outcome.fatal is None and list(outcome.errors()) == [0]
    assert outcome.errors()[0].startswith("the response is not what the API returns")


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_an_answer_that_is_not_the_judgment_is_asked_again_once(provider, httpserver, monkeypatch, tmp_path):
    path, reply, *_ = PROVIDERS[provider]
    answers = iter([reply("Relevant, I would say."), reply(json.dumps(JUDGMENT))])
    httpserver.expect_request(path, method="POST").respond_with_handler(
        lambda request: Response(json.dumps(next(answers)), content_type="application/json")
    )
    outcome = judged_in_process(provider, httpserver, monkeypatch, tmp_path)
    assert len(httpserver.log) == 2 and outcome.judged[0] == Judgment(True, "high", JUDGMENT["reason"])


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_a_refused_key_stops_the_run(provider, httpserver, monkeypatch, tmp_path):
    path, *_ = PROVIDERS[provider]
    httpserver.expect_request(path, method="POST").respond_with_json(
        {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}},
        status=401,
    )
    outcome = judged_in_process(provider, httpserver, monkeypatch, tmp_path)
    assert outcome.fatal is not None and outcome.fatal.startswith("HTTP 401")
    assert len(httpserver.log) == 1 and outcome.judged == {}  # not retried


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_concurrent_calls_each_get_their_own_answer(provider, httpserver, monkeypatch, tmp_path):
    path, reply, key_var, url_var, suffix = PROVIDERS[provider]

    def answer(request: Request) -> Response:
        said = json.loads(request.get_data())["messages"][-1]["content"]
        number = dict(read_blocks(said))["passage"].rsplit(" ", 1)[-1].strip(".")
        judged = {"relevant": number == "2", "confidence": "medium", "reason": f"Passage {number}."}
        return Response(json.dumps(reply(json.dumps(judged))), content_type="application/json")

    httpserver.expect_request(path, method="POST").respond_with_handler(answer)
    for var in [v for v in os.environ if v.startswith(("ANTHROPIC_", "OPENAI_"))]:
        monkeypatch.delenv(var)
    monkeypatch.setenv(key_var, KEY)
    monkeypatch.setenv(url_var, httpserver.url_for("/").rstrip("/") + suffix)
    passages = [Passage("h1", QUERY, "huts.md", i, i + 1, f"Passage number {i}.", (), i) for i in range(1, 7)]
    judge = make_provider(provider, f"{provider}-model", None)
    try:
        outcome = run(judge, DEFAULT, passages, JudgmentCache(tmp_path / "judge-cache"), concurrency=3)
    finally:
        judge.close()
    assert len(httpserver.log) == 6 and outcome.calls == 6
    assert {i: (j.relevant, j.reason) for i, j in outcome.judged.items()} == {
        i - 1: (i == 2, f"Passage {i}.") for i in range(1, 7)
    }


def test_a_missing_key_is_exit_2_naming_the_variable_before_any_request(hut, httpserver):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    env["ANTHROPIC_BASE_URL"] = httpserver.url_for("/").rstrip("/")
    proc = run_cli(["judge", hut, "--provider", "anthropic", "--model", "m"], hut.parent, env)
    assert proc.returncode == 2 and "ANTHROPIC_API_KEY" in proc.stderr
    assert httpserver.log == []


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_a_redirect_to_another_origin_is_never_followed(provider, httpserver, monkeypatch, tmp_path):
    path, reply, *_ = PROVIDERS[provider]
    elsewhere = HTTPServer(host="127.0.0.1", port=0)
    elsewhere.expect_request(path, method="POST").respond_with_json(reply(json.dumps(JUDGMENT)))
    elsewhere.start()
    try:
        target = elsewhere.url_for(path)
        httpserver.expect_request(path, method="POST").respond_with_response(
            Response(status=307, headers={"Location": target})
        )
        outcome = judged_in_process(provider, httpserver, monkeypatch, tmp_path)
        assert elsewhere.log == []  # nothing reached the other port: no prompt, no passage
    finally:
        elsewhere.clear()
        elsewhere.stop()
    assert outcome.judged == {} and outcome.fatal is not None
    assert outcome.fatal.startswith("HTTP 307: the API redirects to another origin")
    assert "never follows a redirect" in outcome.fatal and str(elsewhere.port) in outcome.fatal


class Dripping:
    """A raw HTTP server on 127.0.0.1 that answers any request with headers, then a valid body one
    byte every 0.2 s (the SDK's per-read timeout never fires)."""

    def __init__(self, body: bytes):
        self.body, self.stop = body, threading.Event()
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.requests = 0
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.drip, args=(conn,), daemon=True).start()

    def drip(self, conn: socket.socket) -> None:
        with conn:
            conn.recv(1 << 20)
            self.requests += 1
            head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(self.body)}\r\n\r\n"
            try:
                conn.sendall(head.encode())
                for i in range(len(self.body)):
                    if self.stop.wait(0.2):
                        return
                    conn.sendall(self.body[i : i + 1])
            except OSError:
                return

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_a_server_dripping_its_answer_meets_a_total_deadline(provider, httpserver, monkeypatch, tmp_path):
    _, reply, *_ = PROVIDERS[provider]
    server = Dripping(json.dumps(reply(json.dumps(JUDGMENT))).encode())
    try:
        outcome = judged_in_process(provider, httpserver, monkeypatch, tmp_path, server.url, timeout=1.5)
    finally:
        server.close()
    assert server.requests >= 1 and outcome.fatal is None
    assert outcome.judged == {0: "no complete answer within 1.5 s (--timeout), retries included"}
