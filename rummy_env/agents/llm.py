"""``llm``: a language model plays any game through an OpenAI-compatible chat-completions
endpoint (vLLM, llama.cpp's server, Ollama's ``/v1``, a hosted API), so that tournaments
measure a model's play, and how often it fails to name a legal move, beside the other agents.

How a move is chosen (``act``): with one legal move it is played without asking (a
*forced* move). Otherwise the model gets a system prompt with the game's rules
(``rummy_env.agents.llm_prompt``) and the text view of the mover's information set with the
legal moves numbered and named; its reply is read by the exact rules of
``rummy_env.agents.llm_reply``. A reply that names no legal move is sent back with the
reason, and a request that fails (a timeout, HTTP 500, ...) is sent again, up to
``retries`` times more in all; then the ``fallback`` agent (default: the game's
``random``) plays the move, and the decision counts as a fallback.

Leak-free by construction: the prompt is built from ``info["information_set"]`` and the
rules (and the match points the env reported to this seat) alone, never from the state.

What it counts (``stats()``, summed over the agent's life and written per game into a
tournament's results): the decisions asked and forced, the requests, retries, replies
that could not be played, failed requests, fallbacks, the prompt and completion tokens
the endpoint reported (``usage``) and the seconds spent waiting. ``log`` keeps a
``Decision`` per move with the replies and problems, for reading what went wrong.

The key: never in a spec (specs are written to results files and reports). It is read
from the environment variable ``api_key_env`` names (``RUMMY_LLM_API_KEY`` by default) and
sent as ``Authorization: Bearer KEY``; with the variable unset no key is sent, as local
servers need none. A web client may not set the endpoint, the model or that variable
(``file_options``): a server offers an ``llm`` agent by name (``rummy serve --agent``).
"""

from __future__ import annotations

import math
import os
import re
import time
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Optional
from urllib.parse import urlsplit

import numpy as np

from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.agents.llm_endpoint import (
    Completion, EndpointError, RequestFailed, client, complete, request_body, require,
)
from rummy_env.agents.llm_prompt import messages, position_prompt, retry_prompt, scores_from, system_prompt
from rummy_env.agents.llm_reply import Choice, ReplyError, read_move
from rummy_env.agents.registry import make, register_generic, resolve
from rummy_env.core.game import get_game
from rummy_env.core.textview import TextEncoding

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"  # vLLM's default; llama.cpp: :8080/v1, Ollama: :11434/v1
DEFAULT_KEY_ENV = "RUMMY_LLM_API_KEY"
ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]{0,127}")  # an environment variable's name, as the convention writes it
VIEW = "text"  # the encoding the position is shown in (rummy_env.core.textview)


@dataclass
class Decision:
    """One move of the agent: the action played, whether it was forced (one legal move, no
    request) or played by the fallback, the requests sent (``retries``: those after the
    first), the replies that could not be played and the failed requests, the tokens the
    endpoint reported, the seconds spent waiting, and each reply and problem in order."""

    action: int = -1
    forced: bool = False
    fallback: bool = False
    requests: int = 0
    bad_replies: int = 0
    errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    replies: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def retries(self) -> int:
        return max(0, self.requests - 1)


def _positive(name: str, value: Any, whole: bool = False, zero: bool = False) -> None:
    ok = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value) \
        and (value >= 0 if zero else value > 0) and (not whole or isinstance(value, int))
    if not ok:
        kind = "a whole number" if whole else "a number"
        raise ValueError(f"llm option {name} must be {kind} {'>= 0' if zero else '> 0'}, got {value!r}")


def _checked_url(base_url: Any) -> str:
    if not isinstance(base_url, str):
        raise ValueError(f"llm option base_url must be an http(s) URL such as {DEFAULT_BASE_URL}, got {base_url!r}")
    parts = urlsplit(base_url)
    if parts.username or parts.password:  # not repeated: it holds a secret
        raise ValueError(f"llm option base_url must not hold a user or key; put the key in the environment "
                         f"variable {DEFAULT_KEY_ENV} (or the one api_key_env names)")
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise ValueError(f"llm option base_url must be an http(s) URL without a query, such as {DEFAULT_BASE_URL}, "
                         f"got {base_url!r}")
    return base_url.rstrip("/")


def _fallback_agent(spec: Any, seed: Optional[int], game: str) -> Agent:
    """The agent ``fallback`` names, of the same game (not another ``llm``), or a ValueError naming the option."""
    title = get_game(game).title
    if not isinstance(spec, str):
        raise ValueError(f"llm option fallback must name another agent of {title}, such as random, got {spec!r}")
    try:
        if resolve(spec, game).name == LLMAgent.name:
            raise ValueError(f"it is {LLMAgent.name!r} itself")
        return make(spec, seed=seed, game=game)
    except ValueError as exc:
        raise ValueError(f"llm option fallback={spec}: {exc}; it must name another agent of {title}, such as "
                         "random or heuristic") from None


class LLMAgent(Agent):
    """``llm``: a language model behind an OpenAI-compatible endpoint; see the module docstring."""

    name = "llm"
    game = None  # set per instance: one class plays every game
    extra = "llm"
    file_options = ("base_url", "model", "api_key_env")  # never from a web client (rummy_env.web.choices)
    required_options = ("model",)
    refused_options = MappingProxyType({
        "api_key": f"a key in an agent spec would be written to results files and reports; set the environment "
                   f"variable {DEFAULT_KEY_ENV} (or name another variable with api_key_env=NAME)"})

    def __init__(
        self,
        game: str,
        seed: Optional[int] = None,
        model: Optional[str] = None,
        base_url: str = DEFAULT_BASE_URL,
        api_key_env: str = DEFAULT_KEY_ENV,
        temperature: float = 0.0,
        max_tokens: int = 512,
        timeout: float = 60.0,
        retries: int = 2,
        retry_wait: float = 1.0,
        fallback: str = "random",
    ) -> None:
        """``model``: the name the endpoint serves it under; ``base_url``: the endpoint, up to
        ``/v1``; ``api_key_env``: the environment variable holding the key (unset: no key);
        ``temperature``, ``max_tokens``: sent with each request; ``timeout``: seconds a
        request may take; ``retries``: requests after the first of a decision, after a reply
        that could not be played or a failed request; ``retry_wait``: seconds before sending
        a failed request again, doubled each time; ``fallback``: the agent (of the same game)
        that plays the move when no reply could be."""
        super().__init__(seed)
        played = get_game(game)
        self.game = played.name
        if not isinstance(model, str) or not model.strip():
            raise ValueError("the llm agent needs model=NAME, the model as the endpoint serves it "
                             "(e.g. llm:model=qwen2.5-7b-instruct,base_url=http://127.0.0.1:8000/v1)")
        if not isinstance(api_key_env, str) or not ENV_NAME.fullmatch(api_key_env):  # a pasted key is not repeated
            raise ValueError(f"llm option api_key_env must be the name of an environment variable (capital letters, "
                             f"digits, _), such as {DEFAULT_KEY_ENV}; the value given is not one (it is not repeated "
                             "here, in case it is a key)")
        _positive("temperature", temperature, zero=True)
        _positive("max_tokens", max_tokens, whole=True)
        _positive("timeout", timeout)
        _positive("retries", retries, whole=True, zero=True)
        _positive("retry_wait", retry_wait, zero=True)
        self.model = model.strip()
        self.base_url = _checked_url(base_url)
        self.api_key_env = api_key_env
        self.temperature = float(temperature)
        self.max_tokens = max_tokens
        self.timeout = float(timeout)
        self.retries = retries
        self.retry_wait = float(retry_wait)
        self.fallback = fallback
        self._fallback = _fallback_agent(fallback, seed, played.name)
        view = played.encoding(VIEW)
        if not isinstance(view, TextEncoding):
            raise ValueError(f"{played.title} has no text view (encoding {VIEW!r}), which the llm agent shows "
                             "the model")
        require()  # the HTTP client, named in one line if it is missing
        self._view = view
        self._systems: dict[Any, str] = {}  # rules -> system prompt
        self._scores: Optional[tuple[int, ...]] = None  # match points the env last reported to this seat
        self._reached = False  # whether the endpoint ever answered this agent
        self._seeded = seed is not None  # then each request carries a seed drawn from the agent's generator
        self.log: list[Decision] = []

    def reset(self, seed: Optional[int] = None) -> None:
        """A new game: forget the match points; with ``seed``, re-seed (the fallback too).
        ``log`` and ``stats()`` keep counting, as reports over many games want."""
        super().reset(seed)
        self._fallback.reset(seed)
        self._seeded = self._seeded or seed is not None
        self._scores = None

    # ------------------------------------------------------------------ playing

    def system(self, rules: Any) -> str:
        """The system prompt for ``rules`` (made once per rules)."""
        if rules not in self._systems:
            self._systems[rules] = system_prompt(get_game(self.game), rules)
        return self._systems[rules]

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        legal = legal_actions(observation)
        infoset, rules = game_input(self, observation, info)
        self._scores = scores_from(info, self._scores)
        decision = Decision()
        self.log.append(decision)
        if legal.size == 1:
            decision.forced, decision.action = True, int(legal[0])
            return decision.action
        system, position, choices = self._prompt(infoset, rules, self._scores)
        action = self._ask(decision, system, position, choices, observation["action_mask"])
        if action is None:
            decision.fallback = True
            action = int(self._fallback.act(observation, info))
        decision.action = action
        return action

    def prompt(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> list[dict[str, str]]:
        """The messages the first request of this decision would send (the system prompt and
        the position), without sending them: for reading and testing prompts."""
        infoset, rules = game_input(self, observation, info)
        system, position, _ = self._prompt(infoset, rules, scores_from(info, self._scores))
        return messages(system, position)

    def _prompt(self, infoset: Any, rules: Any, scores: Optional[tuple[int, ...]]) -> tuple[str, str, list[Choice]]:
        """The system prompt, the position and the legal moves as listed (with all their names)."""
        view = self._view.data(infoset, rules, scores)
        game = get_game(self.game)
        choices = [Choice(k, int(m["id"]), tuple(dict.fromkeys(
            (m["move"], game.move_view(int(m["id"]), rules)["label"], game.action_name(int(m["id"]), rules)))))
            for k, m in enumerate(view["legal_moves"], 1)]
        return self.system(rules), position_prompt(view), choices

    def _ask(self, decision: Decision, system: str, position: str, choices: list[Choice],
             mask: np.ndarray) -> Optional[int]:
        """The move the model names within ``retries`` more requests, or None."""
        exchanges: list[tuple[str, str]] = []
        failed = 0  # requests in a row that gave no reply
        unreachable = True
        key = os.environ.get(self.api_key_env)
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        with client(self.timeout) as http:
            for _ in range(self.retries + 1):
                if failed and self.retry_wait:
                    time.sleep(self.retry_wait * 2 ** (failed - 1))
                body = request_body(self.model, messages(system, position, exchanges), self.temperature,
                                    self.max_tokens, self._request_seed())
                decision.requests += 1
                start = time.perf_counter()
                try:
                    reply: Completion = complete(http, f"{self.base_url}/chat/completions", body, headers)
                except RequestFailed as exc:
                    decision.seconds += time.perf_counter() - start
                    decision.errors += 1
                    decision.problems.append(str(exc))
                    unreachable = unreachable and exc.unreachable
                    failed += 1
                    continue
                decision.seconds += time.perf_counter() - start
                self._reached, unreachable, failed = True, False, 0
                decision.prompt_tokens += reply.prompt_tokens
                decision.completion_tokens += reply.completion_tokens
                decision.replies.append(reply.text)
                try:
                    action = read_move(reply.text, choices)
                    if not mask[action]:  # the view's moves and the env's mask agree (the conformance suite checks it)
                        raise ReplyError(f"action {action} is not a legal move now")
                    return action
                except ReplyError as exc:
                    decision.bad_replies += 1
                    decision.problems.append(str(exc))
                    exchanges.append((reply.text, retry_prompt(str(exc))))
        if unreachable and not self._reached:
            raise EndpointError(f"the llm agent cannot reach {self.base_url} ({decision.problems[-1]}); is the "
                                "server running, and is base_url right?")
        return None

    def _request_seed(self) -> Optional[int]:
        """A request's ``seed`` (servers that take one sample reproducibly): drawn from the
        agent's generator when it was seeded, else none."""
        return int(self.rng.integers(2 ** 31)) if self._seeded else None

    # ------------------------------------------------------------------ reports

    def stats(self) -> dict[str, Any]:
        """Totals over ``log`` (the agent's life): ``decisions`` asked of the model,
        ``forced`` moves (one legal move: no request), ``requests``, ``retries`` (requests
        after a decision's first), ``bad_replies`` (replies that named no legal move),
        ``errors`` (requests without a reply), ``fallbacks`` (moves the fallback agent
        played), ``prompt_tokens`` and ``completion_tokens`` (as the endpoint reported them),
        ``seconds`` waiting for the endpoint."""
        asked = [d for d in self.log if not d.forced]

        def total(key: str) -> Any:
            return sum(getattr(d, key) for d in asked)

        return {"decisions": len(asked), "forced": len(self.log) - len(asked), "requests": total("requests"),
                "retries": total("retries"), "bad_replies": total("bad_replies"), "errors": total("errors"),
                "fallbacks": total("fallback"), "prompt_tokens": total("prompt_tokens"),
                "completion_tokens": total("completion_tokens"), "seconds": round(float(total("seconds")), 6)}


register_generic("llm", LLMAgent)
