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
import shlex
import subprocess
import threading
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
TIMEOUT = 120.0
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


def _failure(exc: Exception, sdk: Any) -> ProviderError:
    """The error a failed SDK call is, fatal when retrying cannot help."""
    status = getattr(exc, "status_code", None)
    if isinstance(exc, sdk.APIStatusError):
        message = f"HTTP {status}: {short(str(exc), 200)}"
        return FatalProviderError(message) if status in FATAL_STATUSES else ProviderError(message)
    if isinstance(exc, sdk.APIError):
        return ProviderError(f"{type(exc).__name__}: {short(str(exc), 200)}")
    return ProviderError(f"the response is not what the API returns: {short(str(exc), 200)}")


class _SdkProvider:
    """What the two HTTP providers share: the key checked before the official SDK is imported,
    one client made with the SDK's own retries and timeout, closed at the end of the run."""

    name = module = client_class = ""
    concurrent = True

    def __init__(self, model: str):
        key = _key(self.name)  # before the SDK's import, which takes seconds
        self._sdk = _sdk(self.module, self.name)
        self.model = model
        self._client = getattr(self._sdk, self.client_class)(
            api_key=key, max_retries=MAX_RETRIES, timeout=TIMEOUT
        )

    def close(self) -> None:
        self._client.close()


class AnthropicProvider(_SdkProvider):
    name = module = "anthropic"
    client_class = "Anthropic"

    def ask(self, prompt: Prompt, request: Request) -> str:
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

    def ask(self, prompt: Prompt, request: Request) -> str:
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
    """A local judge program, started on the first call and kept for the run."""

    name, concurrent = "command", False

    def __init__(self, command: str, model: str | None = None):
        try:
            self._argv = shlex.split(command)
        except ValueError as exc:
            raise ConfigError(f"--command {command!r}: {exc}") from None
        if not self._argv:
            raise ConfigError("--command is empty")
        self.command = command
        #: the command line names the judge unless --model does
        self.model = model or command
        self._proc: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()

    def _started(self) -> subprocess.Popen[str]:
        if self._proc is None:
            try:
                self._proc = subprocess.Popen(
                    self._argv,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                    encoding="utf-8",
                    bufsize=1,
                )
            except OSError as exc:
                raise FatalProviderError(f"cannot start the judge command {self.command!r}: {exc}") from None
        return self._proc

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
            proc = self._started()
            assert proc.stdin is not None and proc.stdout is not None  # both are pipes
            try:
                proc.stdin.write(line + "\n")
                proc.stdin.flush()
                answer = proc.stdout.readline()
            except OSError:
                answer = ""
            if not answer:
                try:
                    said = f"exited with status {proc.wait(timeout=10)}"
                except subprocess.TimeoutExpired:
                    said = "closed its output"
                raise FatalProviderError(f"the judge command {self.command!r} {said} before answering")
            return answer

    def close(self) -> None:
        proc = self._proc
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()


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


def make_provider(name: str | None, model: str | None, command: str | None) -> Provider:
    """The provider ``name`` (one of ``PROVIDERS``), its SDK and key checked before any call."""
    judged_by = judge_model(name, model, command)
    if name == "command":
        assert command is not None  # judge_model checked it
        return CommandProvider(command, model)
    return AnthropicProvider(judged_by) if name == "anthropic" else OpenAIProvider(judged_by)
