"""The judges golden-lsp can ask, behind one small interface: Anthropic, OpenAI-compatible, a command.

A provider turns one request (a query, a passage, the prompt) into the judge's raw answer text;
what the answer means is the run's business (``judge.parse_judgment``). Three are offered:

- ``anthropic``: the official ``anthropic`` SDK, Messages API (``ANTHROPIC_API_KEY``,
  ``ANTHROPIC_BASE_URL`` read by the SDK);
- ``openai``: the official ``openai`` SDK, Chat Completions (``OPENAI_API_KEY``,
  ``OPENAI_BASE_URL``) — which vLLM, Ollama, llama.cpp's server and LM Studio speak too;
- ``command``: a local program started once per run, one JSON request per line on its stdin, one
  JSON judgment per line on its stdout, in order (any local model, no network).

The SDKs are the ``judge`` extra, imported only when their provider is chosen; their own retries
(with backoff, honouring ``retry-after``) handle rate limits and transient errors. A missing or
empty API key is a ``ConfigError`` naming the variable before any request; an error no retry
can fix (a refused key, an unknown model, a judge program that died) is ``FatalProviderError``,
which stops the run; any other failed call is a ``ProviderError`` recorded for its candidate.
"""

from __future__ import annotations

import json
import os
import select
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from ..core.check.rules import short
from ..core.goldenset.config import ConfigError
from .prompt import Prompt, user_message

PROVIDERS = ("anthropic", "openai", "command")
#: the environment variable holding each HTTP provider's key
KEY_VARIABLES = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
#: room for the one-sentence JSON answer
MAX_TOKENS = 300
#: the SDKs' retries of a rate limit, a timeout or a server error (with their backoff)
MAX_RETRIES = 4
#: the seconds one call may take in all, retries included (``--timeout``, ``[judge] timeout``)
TIMEOUT = 300.0
#: HTTP statuses no retry fixes: a bad or refused key, an unknown model or endpoint
FATAL_STATUSES = (401, 403, 404)


class ProviderError(Exception):
    """A call failed after the SDK's retries: recorded as that candidate's error."""


class FatalProviderError(ProviderError):
    """The run cannot go on: every further call would fail the same way."""


@dataclass(frozen=True)
class Request:
    """What the judge is asked about one candidate (the ``command`` provider's line, plus the prompt)."""

    record: str
    query: str
    passage: str
    doc: str
    char_start: int
    char_end: int
    #: the whole user message when it is not the judge's ``Query … Passage`` (the grader's, the
    #: generator's: ``keep.grade``)
    user: str | None = None

    def message(self) -> str:
        return self.user if self.user is not None else user_message(self.query, self.passage)


class Provider(Protocol):
    name: str
    model: str
    #: whether calls may run in parallel (``--concurrency``)
    concurrent: bool

    def ask(self, prompt: Prompt, request: Request) -> str:
        """The judge's answer text; ProviderError when the call failed."""
        ...

    def close(self) -> None: ...


def _sdk(module: str, provider: str) -> Any:
    try:
        return __import__(module)
    except ImportError:
        raise ConfigError(
            f"--provider {provider} needs the judge extra: pip install 'golden-lsp[judge]'"
        ) from None


def _key(provider: str) -> str:
    var = KEY_VARIABLES[provider]
    key = os.environ.get(var, "").strip()
    if not key:
        raise ConfigError(f"--provider {provider} needs an API key in {var}, which is missing or empty")
    return key


def _origin(url: Any) -> tuple[str, str, int | None]:
    return (url.scheme, url.host, url.port)


def _failure(exc: Exception, sdk: Any) -> ProviderError:
    """The error a failed SDK call is, fatal when retrying cannot help."""
    status = getattr(exc, "status_code", None)
    if isinstance(exc, sdk.APIStatusError) and status is not None and 300 <= status < 400:
        # the client follows no redirect: the request (prompt, query, passage) goes nowhere else
        asked = exc.response.request.url
        target = asked.join(exc.response.headers.get("location", ""))
        where = "another origin" if _origin(target) != _origin(asked) else "another path"
        return FatalProviderError(
            f"HTTP {status}: the API redirects to {where} ({short(str(target.copy_with(query=None)), 120)}); "
            "golden-lsp never follows a redirect — point the base URL at the API itself"
        )
    if isinstance(exc, sdk.APIStatusError):
        message = f"HTTP {status}: {short(str(exc), 200)}"
        return FatalProviderError(message) if status in FATAL_STATUSES else ProviderError(message)
    if isinstance(exc, sdk.APIError):
        return ProviderError(f"{type(exc).__name__}: {short(str(exc), 200)}")
    return ProviderError(f"the response is not what the API returns: {short(str(exc), 200)}")


class _SdkProvider:
    """What the two HTTP providers share: the key checked before the official SDK is imported,
    one client made with the SDK's own retries and timeout, following no redirect (the request
    would carry the prompt and the corpus's text to wherever the redirect points), closed at the
    end of the run. A call, retries included, has ``timeout`` seconds in all: the SDK's timeout
    bounds each read, so a server dripping its answer a byte at a time would hold it forever; the
    call runs in a thread of its own that is abandoned (and its answer ignored) at the deadline."""

    name = module = client_class = ""
    concurrent = True

    def __init__(self, model: str, timeout: float = TIMEOUT):
        key = _key(self.name)  # before the SDK's import, which takes seconds
        self._sdk = _sdk(self.module, self.name)
        self.model = model
        self.timeout = timeout
        self._client = getattr(self._sdk, self.client_class)(
            api_key=key,
            max_retries=MAX_RETRIES,
            timeout=timeout,
            http_client=self._sdk.DefaultHttpxClient(follow_redirects=False, timeout=timeout),
        )

    def _call(self, prompt: Prompt, request: Request) -> str:
        raise NotImplementedError

    def ask(self, prompt: Prompt, request: Request) -> str:
        result: list[str] = []
        failed: list[BaseException] = []

        def call() -> None:
            try:
                result.append(self._call(prompt, request))
            except BaseException as exc:  # handed to the caller's thread
                failed.append(exc)

        worker = threading.Thread(target=call, name=f"judge-{self.name}", daemon=True)
        worker.start()
        worker.join(self.timeout)
        if worker.is_alive():
            raise ProviderError(f"no complete answer within {self.timeout:g} s (--timeout), retries included")
        if failed:
            raise failed[0]
        return result[0]

    def close(self) -> None:
        self._client.close()


class AnthropicProvider(_SdkProvider):
    name = module = "anthropic"
    client_class = "Anthropic"

    def _call(self, prompt: Prompt, request: Request) -> str:
        try:
            message = self._client.messages.create(
                model=self.model,
                max_tokens=MAX_TOKENS,
                system=prompt.system,
                messages=[{"role": "user", "content": request.message()}],
            )
            return "".join(b.text for b in message.content if getattr(b, "type", None) == "text")
        except (self._sdk.APIError, ValueError, AttributeError, TypeError) as exc:
            raise _failure(exc, self._sdk) from None


class OpenAIProvider(_SdkProvider):
    name = module = "openai"
    client_class = "OpenAI"

    def _call(self, prompt: Prompt, request: Request) -> str:
        try:
            completion = self._client.chat.completions.create(
                model=self.model,
                max_tokens=MAX_TOKENS,
                messages=[
                    {"role": "system", "content": prompt.system},
                    {"role": "user", "content": request.message()},
                ],
            )
            return completion.choices[0].message.content or ""
        except (self._sdk.APIError, ValueError, AttributeError, TypeError, IndexError) as exc:
            raise _failure(exc, self._sdk) from None


class CommandProvider:
    """A local judge program, started on the first call and kept for the run.

    It runs in a session (a process group) of its own, so that a program that never answers,
    or exits leaving a child holding its output, is ended with everything it started when a call
    takes longer than ``timeout`` seconds; its answers are read as bytes, and one that is not
    UTF-8 is that candidate's error."""

    name, concurrent = "command", False

    def __init__(self, command: str, model: str | None = None, timeout: float = TIMEOUT):
        try:
            self._argv = shlex.split(command)
        except ValueError as exc:
            raise ConfigError(f"--command {command!r}: {exc}") from None
        if not self._argv:
            raise ConfigError("--command is empty")
        self.command = command
        #: the command line names the judge unless --model does
        self.model = model or command
        self.timeout = timeout
        self._proc: subprocess.Popen[bytes] | None = None
        self._pending = b""
        #: why the program was ended: every later call fails the same way
        self._ended: str | None = None
        self._lock = threading.Lock()

    def _started(self) -> subprocess.Popen[bytes]:
        if self._proc is None:
            try:
                self._proc = subprocess.Popen(
                    self._argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
                )
            except OSError as exc:
                raise FatalProviderError(f"cannot start the judge command {self.command!r}: {exc}") from None
        return self._proc

    def _end(self, proc: subprocess.Popen[bytes], why: str) -> FatalProviderError:
        """The program and every process of its group ended; the error every call now is."""
        self._ended = why
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass  # the group is gone already
        proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                pipe.close()
        return FatalProviderError(why)

    def _line(self, proc: subprocess.Popen[bytes]) -> bytes:
        """The program's next answer line, or b"" when it closed its output or exited without one;
        FatalProviderError when none came within the timeout (the program is then ended)."""
        assert proc.stdout is not None
        deadline = time.monotonic() + self.timeout
        fd = proc.stdout.fileno()
        while b"\n" not in self._pending:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._end(
                    proc,
                    f"the judge command {self.command!r} did not answer within {self.timeout:g} s "
                    "(--timeout); it was ended with every process it started",
                )
            ready, _, _ = select.select([fd], [], [], min(left, 0.2))
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    return b""
                self._pending += chunk
            elif proc.poll() is not None:  # exited, though a child of it may hold the output
                return b""
        line, _, self._pending = self._pending.partition(b"\n")
        return line + b"\n"

    def ask(self, prompt: Prompt, request: Request) -> str:
        line = json.dumps(
            {
                **{k: v for k, v in asdict(request).items() if k != "user"},
                "system": prompt.system,
                "user": request.message(),
            },
            ensure_ascii=False,
        )
        with self._lock:
            if self._ended is not None:
                raise FatalProviderError(self._ended)
            proc = self._started()
            assert proc.stdin is not None  # a pipe
            try:
                proc.stdin.write(line.encode("utf-8") + b"\n")
                proc.stdin.flush()
                answer = self._line(proc)
            except OSError:
                answer = b""
            if not answer:
                try:
                    said = f"exited with status {proc.wait(timeout=10)}"
                except subprocess.TimeoutExpired:
                    said = "closed its output"
                raise self._end(proc, f"the judge command {self.command!r} {said} before answering")
        try:
            return answer.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ProviderError(
                f"the answer is not UTF-8 (byte {exc.start}: {answer[exc.start : exc.start + 1]!r})"
            ) from None

    def close(self) -> None:
        proc = self._proc
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass
        if self._ended is None:
            self._end(proc, "closed")  # whatever it left running


def judge_model(name: str | None, model: str | None, command: str | None) -> str:
    """The model a provider would judge with (for a command: ``model`` or the command line),
    checked without importing an SDK or reading a key (a dry run needs neither)."""
    if name is None:
        raise ConfigError("choose a judge: --provider anthropic|openai|command (or [judge] provider)")
    if name not in PROVIDERS:
        raise ConfigError(f"unknown judge provider {name!r} (known: {', '.join(PROVIDERS)})")
    if name == "command":
        if not command:
            raise ConfigError('--provider command needs --command "CMD" (or [judge] command)')
        return model or command
    if not model:
        raise ConfigError(f"--provider {name} needs --model (or [judge] model)")
    return model


def make_provider(
    name: str | None, model: str | None, command: str | None, timeout: float = TIMEOUT
) -> Provider:
    """The provider ``name`` (one of ``PROVIDERS``), its SDK and key checked before any call;
    ``timeout``: the seconds a call may take in all (retries included)."""
    judged_by = judge_model(name, model, command)
    if name == "command":
        assert command is not None  # judge_model checked it
        return CommandProvider(command, model, timeout)
    cls = AnthropicProvider if name == "anthropic" else OpenAIProvider
    return cls(judged_by, timeout)
