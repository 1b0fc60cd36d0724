"""One request to an OpenAI-compatible chat-completions endpoint (the ``llm`` agent).

Why so little: the agent needs one call, ``POST {base_url}/chat/completions`` with the
messages, and from the answer the reply's text and the ``usage`` token counts; every
server that speaks the protocol (vLLM, llama.cpp's ``llama-server``, Ollama's ``/v1``, the
hosted APIs) answers that call alike. It is made with ``httpx2`` (the ``llm`` extra:
``pip install -e ".[llm]"``; ``require`` says so in one line when it is missing).

Failures come in two kinds. ``RequestFailed``: this request did not give a reply (a
timeout, a dropped or refused connection, an HTTP status other than 401, 403 and 404, an
answer that is not a chat completion); the agent counts it and tries again.
``EndpointError`` (an ``OSError``, so the command line prints it in one line): the
endpoint refused the request for a reason no retry mends (HTTP 401 or 403: the key; 404:
the URL or the model), or could not be reached at all; the agent stops.
"""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass
from typing import Any, Optional

EXTRA = 'pip install -e ".[llm]"'
FATAL = (401, 403, 404)  # the key, or the URL or model, is wrong: no retry mends it
BODY_CHARS = 200  # of an error's body quoted in a message


class EndpointError(OSError):
    """The endpoint refused the request for good, or cannot be reached."""


class RequestFailed(Exception):
    """One request gave no reply; ``unreachable`` when no connection could be made."""

    def __init__(self, message: str, unreachable: bool = False) -> None:
        super().__init__(message)
        self.unreachable = unreachable


@dataclass(frozen=True)
class Completion:
    """A reply: its text and the token counts the endpoint reported (0 where it reported none)."""

    text: str
    prompt_tokens: int
    completion_tokens: int


def require() -> None:
    """An ImportError naming the missing package and the install command, if it is missing."""
    if importlib.util.find_spec("httpx2") is None:
        raise ImportError(f"the llm agent needs httpx2 (the llm extra): {EXTRA}")


@functools.cache
def _tls() -> Any:
    """The TLS context of every client of this process: making one reads the trusted
    certificates (about 40 ms), a client made with it about 2 ms."""
    import httpx2

    return httpx2.create_ssl_context()


def client(timeout: float) -> Any:
    """An ``httpx2.Client`` with ``timeout`` seconds a request. The agent makes one per
    decision and closes it when the decision is made, so no connection outlives its use."""
    import httpx2

    return httpx2.Client(timeout=timeout, verify=_tls())


def _tokens(usage: Any, key: str) -> int:
    value = usage.get(key) if isinstance(usage, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def complete(client: Any, url: str, body: dict[str, Any], headers: dict[str, str]) -> Completion:
    """POST ``body`` to ``url`` with ``client`` (an ``httpx2.Client``) and read the reply."""
    import httpx2

    try:
        response = client.post(url, json=body, headers=headers)
    except httpx2.ConnectError as exc:
        raise RequestFailed(f"cannot connect to {url}: {exc}", unreachable=True) from None
    except httpx2.TimeoutException:
        raise RequestFailed(f"no reply from {url} within the timeout") from None
    except httpx2.TransportError as exc:
        raise RequestFailed(f"the request to {url} failed: {type(exc).__name__}: {exc}") from None
    if response.status_code != 200:
        said = " ".join(response.text.split())[:BODY_CHARS]
        message = f"{url} answered HTTP {response.status_code}: {said}"
        if response.status_code in FATAL:
            hint = "base_url and model" if response.status_code == 404 else "the key's variable (api_key_env)"
            raise EndpointError(f"{message} (check {hint})")
        raise RequestFailed(message)
    try:
        answer = response.json()
        message = answer["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise RequestFailed(f"{url} answered something that is not a chat completion: "
                            f"{' '.join(response.text.split())[:BODY_CHARS]}") from None
    content: Optional[str] = message.get("content") if isinstance(message, dict) else None
    usage = answer.get("usage")
    return Completion(content if isinstance(content, str) else "", _tokens(usage, "prompt_tokens"),
                      _tokens(usage, "completion_tokens"))


def request_body(model: str, messages: list[dict[str, str]], temperature: float, max_tokens: int,
                 seed: Optional[int]) -> dict[str, Any]:
    """The JSON body of a chat completion request (``seed`` left out when None)."""
    body: dict[str, Any] = {"model": model, "messages": messages, "temperature": temperature, "max_tokens": max_tokens}
    if seed is not None:
        body["seed"] = seed
    return body

