"""What a request to the API must be, and how its answer is sent: a JSON object with known fields, integers and
numbers in range, one of the allowed words, agent specs, and a game with its players,
rules and length. Each refusal is a ``WebError`` 400 naming the field, what it got and
what is allowed, before anything is made (the games' pages and the people's tables check
their requests with the same functions)."""

from __future__ import annotations

import json
import logging
import math
from typing import Any, Awaitable, Callable, Optional, Sequence

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from rummy_env.core.game import Game
from rummy_env.web.sessions import WebError

DEALS = 2**53  # deal numbers 0..2**53 - 1: a page's JavaScript holds them exactly
LOG = logging.getLogger("rummy_env.web")


def refused(exc: WebError) -> Response:
    """A refusal's answer: its status and ``{"error": message}``."""
    return JSONResponse({"error": exc.message}, status_code=exc.status)


def api(handler: Callable[[Request], Awaitable[Any]]) -> Callable[[Request], Awaitable[Response]]:
    """A route answering ``handler``'s result as JSON: a ``WebError`` as its status and
    ``{"error": message}``, any other exception (a bug, an agent failing mid-move) as a
    JSON 500 with the traceback in the server's log. A handler that makes its own response
    (one that sets a cookie) returns it as it is."""
    async def wrapped(request: Request) -> Response:
        try:
            answer = await handler(request)
            return answer if isinstance(answer, Response) else JSONResponse(answer)
        except WebError as exc:
            return refused(exc)
        except Exception as exc:
            LOG.exception("%s %s failed", request.method, request.url.path)
            return JSONResponse({"error": f"internal error: {type(exc).__name__}: {exc}"}, status_code=500)
    return wrapped


async def body(request: Request, allowed: set[str]) -> dict[str, Any]:
    """The request's JSON object (its size and type checked by the guard already), refusing
    other content and unknown keys (naming them)."""
    raw = await request.body()
    try:
        data = json.loads(raw or b"{}")
    except (ValueError, RecursionError):  # RecursionError: arrays nested thousands deep
        raise WebError(400, "the request body must be a JSON object") from None
    if not isinstance(data, dict):
        raise WebError(400, f"the request body must be a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise WebError(400, f"unknown field(s) {unknown}; allowed: {', '.join(sorted(allowed))}")
    return data


def integer(data: dict[str, Any], key: str, low: int, high: int, default: Optional[int] = None,
            required: bool = False) -> Optional[int]:
    """``data[key]`` if it is an integer in ``low..high`` (``default`` when absent or null)."""
    if required and key not in data:
        raise WebError(400, f"{key} is required: an integer {low}..{high}")
    value = data.get(key)
    if value is None and not required:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise WebError(400, f"{key} must be an integer {low}..{high}, got {value!r}")
    return value


def choice(data: dict[str, Any], key: str, allowed: list[str], default: str) -> str:
    """``data[key]`` if it is one of ``allowed`` (``default`` when absent), else a 400 naming them."""
    value = data.get(key, default)
    if value not in allowed:
        raise WebError(400, f"{key} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value


def specs(data: dict[str, Any], key: str, count: int, default: str) -> list[str]:
    """``count`` agent specs from ``data[key]``: a list of ``count``, or of one for every seat."""
    value = data.get(key, [default])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise WebError(400, f"{key} must be a list of agent specs such as ['heuristic'], got {value!r}")
    if len(value) not in (1, count):
        raise WebError(400, f"{key}: give one agent spec for each of the {count} seats, or one for all; got {len(value)}")
    return [v.strip() for v in value] * count if len(value) == 1 else [v.strip() for v in value]


def number(data: dict[str, Any], key: str, low: float, high: float, default: float) -> float:
    """``data[key]`` if it is a finite number in ``low..high`` (``default`` when absent or null)."""
    value = data.get(key)
    if value is None:
        return default
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value)
            or not low <= value <= high):
        raise WebError(400, f"{key} must be a number {low:g}..{high:g}, got {value!r}")
    return float(value)


def game_settings(data: dict[str, Any], playable: Sequence[Game]) -> tuple[Game, int, str, Any, str]:
    """The game a request names (``game``, default Gin Rummy) among ``playable``, its number
    of ``players``, its ``rules`` preset (name and rules) and its ``episode`` ("hand", or
    "match" for rules that have one)."""
    name = data.get("game", "gin")
    found = [g for g in playable if isinstance(name, str) and (name == g.name or name in g.aliases)]
    if not found:
        raise WebError(400, f"unknown game {name!r}; games: {', '.join(g.name for g in playable)}")
    game = found[0]
    n = integer(data, "players", game.min_players, game.max_players, game.min_players)
    preset = choice(data, "rules", list(game.presets), game.default_preset)
    rules = game.load_rules(preset)
    episode = choice(data, "episode", ["hand", "match"], "hand")
    if episode == "match" and not getattr(rules, "match", False):
        raise WebError(400, f"the {preset!r} rules of {game.title} have no match (no target score): play a hand")
    assert n is not None
    return game, n, preset, rules, episode
