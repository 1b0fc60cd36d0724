"""The ``llm`` agent (rummy_env/agents/llm.py) against a scripted chat-completions server of
the same protocol on 127.0.0.1, started here: no model and no network.

The server answers each request with the next step of a script: a reply's text, an HTTP
status, a wait longer than the agent's timeout, or a function of the request (the first
legal move of the prompt). Checked: the moves read from a number, an id and a name, a
retry after garbage, the fallback after garbage or failures, the counts recorded per
decision and summed in a tournament's results, the key read from the environment and
never from a spec, the prompts the same whoever holds the hidden cards, one-line errors.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Union

import numpy as np
import pytest

from rummy_env import agents
from rummy_env.agents.llm_endpoint import EndpointError
from rummy_env.agents.llm_reply import Choice, ReplyError, read_move
from rummy_env.core.game import games, get_game

pytest.importorskip("httpx2")  # the llm extra

PROMPT_TOKENS, COMPLETION_TOKENS = 11, 3  # what the server reports for every reply
LEGAL_LINE = re.compile(r"^\s+\d+\. .* \(action (\d+)\)$", re.M)

Step = Union[str, int, float, Callable[[dict[str, Any]], str]]  # text, HTTP status, seconds to stall, a function


def first_legal(body: dict[str, Any]) -> str:
    """The reply of a model that plays the first legal move its prompt lists."""
    return f"Answer: {LEGAL_LINE.findall(body['messages'][1]['content'])[0]}"


class Server:
    """A chat-completions endpoint answering from ``script`` (then ``after`` for every further request)."""

    def __init__(self, script: list[Step] = (), after: Step = first_legal) -> None:
        self.script, self.after = deque(script), after
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.bodies.append(body)
                server.headers.append(dict(self.headers))
                step = server.script.popleft() if server.script else server.after
                if isinstance(step, float):  # stall past the client's timeout
                    time.sleep(step)
                    step = "too late"
                if isinstance(step, int):
                    self._send(step, {"error": {"message": "scripted failure"}})
                    return
                text = step(body) if callable(step) else step
                self._send(200, {"id": "x", "object": "chat.completion", "model": body["model"],
                                 "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                              "finish_reason": "stop"}],
                                 "usage": {"prompt_tokens": PROMPT_TOKENS, "completion_tokens": COMPLETION_TOKENS}})

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (a stalled step)
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "Server":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


def spec(url: str, **options: Any) -> str:
    settings = {"model": "test-model", "base_url": url, "retry_wait": 0, **options}
    return "llm:" + ",".join(f"{k}={v}" for k, v in settings.items())


def decision_point(game: str = "gin", seed: int = 0) -> tuple[Any, dict, dict]:
    """An env where the seat to move has several legal moves, with its observation and info."""
    env = get_game(game).env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while True:
        obs, _, _, _, info = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        if legal.size > 2:
            return env, obs, info
        env.step(int(rng.choice(legal)))


def listed(info: dict, game: str = "gin") -> list[dict[str, Any]]:
    """The legal moves as the prompt lists them: id and label, in order."""
    view = get_game(game).encoding("text").data(info["information_set"], info["rules"])
    return view["legal_moves"]


# ----------------------------------------------------------------------------- the reply parser

CHOICES = [Choice(1, 3, ("discard AC",)), Choice(2, 5, ("discard 3C",)),
           Choice(3, 58, ("knock, discard 3C: deadwood 7", "knock, discard 3C face down", "knock 3C")),
           Choice(4, 40, ("discard QH",))]


@pytest.mark.parametrize("reply, action", [
    ("5", 5), ("Answer: 5", 5), ("**Answer:** `40`", 40), ("I think...\nAnswer: action 58", 58),
    ("Answer: #2", 5), ("Answer: number 4", 40), ("Discard QH", 40), ("discard 3C.", 5),
    ("I will play knock, discard 3C face down now", 58), ("KNOCK 3C", 58),
    ("<think>discard AC? no, action 40</think>Answer: 3", 3), ("Answer: 3 (discard AC)", 3),
    ("Answer: 5 - discard 3C", 5), ("3. discard 3C (action 5)", 5), ("Answer: action #5", 5),
    ("Maybe discard AC.\nAnswer:\n\n  discard QH\nbecause it is high", 40),
])
def test_a_reply_names_a_move_by_its_id_number_or_name(reply, action):
    assert read_move(reply, CHOICES) == action


@pytest.mark.parametrize("reply, problem", [
    ("", "empty"), ("I like cards", "names no legal move"), ("Answer: 7", "action 7 is not a legal move"),
    ("Answer: #9", "no move number 9 (the moves are numbered 1 to 4)"),
    ("discard AC or discard QH", "more than one move: action 3 (discard AC), action 40 (discard QH)"),
    ("Answer: 5 (discard QH)", "more than one move"),
    ("I will discard 3C now", "'discard 3c' is also part of the move 'knock, discard 3C: deadwood 7'"),
    ("<think>Answer: 5", "no answer"), ("Answer: 7 of hearts", "names no legal move"),
])
def test_a_reply_that_is_not_one_legal_move_says_why(reply, problem):
    with pytest.raises(ReplyError, match=re.escape(problem)):
        read_move(reply, CHOICES)


# ----------------------------------------------------------------------------- one decision


def test_the_model_moves_by_number_by_name_and_by_id_and_each_request_is_counted():
    env, obs, info = decision_point()
    moves = listed(info)
    second, third = moves[1], moves[2]
    with Server(["Answer: #2", f"I'll {third['move']}.", f"Answer: {moves[0]['id']}"]) as server:
        agent = agents.make(spec(server.url), seed=3)
        assert agent.act(obs, info) == second["id"]
        assert agent.act(obs, info) == third["id"]
        assert agent.act(obs, info) == moves[0]["id"]
    counts = [(d.requests, d.retries, d.bad_replies, d.errors, d.fallback) for d in agent.log]
    assert counts == [(1, 0, 0, 0, False)] * 3
    assert agent.stats() == {"decisions": 3, "forced": 0, "requests": 3, "retries": 0, "bad_replies": 0, "errors": 0,
                             "fallbacks": 0, "prompt_tokens": 3 * PROMPT_TOKENS,
                             "completion_tokens": 3 * COMPLETION_TOKENS, "seconds": agent.stats()["seconds"]}
    assert agent.stats()["seconds"] > 0
    body = server.bodies[0]
    assert body["model"] == "test-model" and body["temperature"] == 0.0 and body["max_tokens"] == 512
    assert isinstance(body["seed"], int)  # a seeded agent sends a seed
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    assert system.startswith("You are a player in a game of Gin Rummy.") and get_game("gin").rules_summary in system
    assert "- knock_limit: 10 (" in system and system.endswith("end your reply with one line: Answer: <action id>")
    assert user.startswith("rummy-env text view 1\nGin Rummy")
    assert f"2. {second['move']} (action {second['id']})" in user
    assert agent.prompt(obs, info) == body["messages"]  # what prompt() shows is what is sent


def test_the_match_points_the_env_reports_are_shown_from_then_on():
    env, obs, info = decision_point()
    agent = agents.make(spec("http://127.0.0.1:9/v1"))
    assert "Match points" not in agent.prompt(obs, info)[1]["content"]
    with Server() as server:
        agent = agents.make(spec(server.url))
        agent.act(obs, dict(info, match_points=[25, 0]))
        agent.act(obs, info)  # later decisions of the hand: the last points reported
    for body in server.bodies:
        assert "Match points: player_0 25, player_1 0 (match goal:" in body["messages"][1]["content"]


def test_a_garbage_reply_is_sent_back_with_the_reason_and_the_next_reply_played():
    env, obs, info = decision_point()
    target = listed(info)[-1]["id"]
    with Server(["I like cards", f"Answer: {target}"]) as server:
        agent = agents.make(spec(server.url))
        assert agent.act(obs, info) == target
    d = agent.log[0]
    assert (d.requests, d.retries, d.bad_replies, d.errors, d.fallback) == (2, 1, 1, 0, False)
    assert d.replies == ["I like cards", f"Answer: {target}"] and d.problems == ["the answer names no legal move"]
    first, second = (b["messages"] for b in server.bodies)
    assert second[:2] == first and second[2] == {"role": "assistant", "content": "I like cards"}
    assert second[3]["role"] == "user" and "cannot be played: the answer names no legal move" in second[3]["content"]
    assert "seed" not in server.bodies[0]  # an agent made without a seed sends none
    assert agent.stats()["prompt_tokens"] == 2 * PROMPT_TOKENS


def test_always_garbage_falls_back_to_the_game_s_random_after_the_retries():
    env, obs, info = decision_point("basic", seed=1)
    with Server(after="no idea") as server:
        agent = agents.make(spec(server.url, retries=3), seed=5, game="basic")
        action = agent.act(obs, info)
    assert action == agents.make("random", seed=5, game="basic").act(obs, info)  # the fallback, seeded alike
    assert len(server.bodies) == 4 and len(server.bodies[-1]["messages"]) == 2 + 2 * 3
    s = agent.stats()
    assert (s["requests"], s["retries"], s["bad_replies"], s["errors"], s["fallbacks"]) == (4, 3, 4, 0, 1)
    assert agent.log[0].fallback and agent.log[0].action == action


def test_failed_requests_are_retried_then_the_fallback_plays():
    env, obs, info = decision_point()
    target = listed(info)[1]["id"]
    with Server([500, f"Answer: {target}"]) as server:  # a server error, then a reply
        agent = agents.make(spec(server.url))
        assert agent.act(obs, info) == target
    d = agent.log[0]
    assert (d.requests, d.retries, d.errors, d.bad_replies, d.fallback) == (2, 1, 1, 0, False)
    assert "answered HTTP 500" in d.problems[0]
    assert server.bodies[0] == server.bodies[1]  # the same request again: nothing was replied

    with Server([503, 1.0, 500]) as server:  # an error, a stall past the timeout, an error: then the fallback
        agent = agents.make(spec(server.url, timeout=0.2, fallback="heuristic"), seed=2)
        action = agent.act(obs, info)
    assert action == agents.make("heuristic", seed=2).act(obs, info)
    d = agent.log[0]
    assert (d.requests, d.retries, d.errors, d.bad_replies, d.fallback) == (3, 2, 3, 0, True)
    assert "within the timeout" in d.problems[1] and d.seconds >= 0.2
    assert agent.stats()["fallbacks"] == 1 and agent.stats()["prompt_tokens"] == 0


def test_a_forced_move_asks_nothing():
    game = get_game("gin")
    with Server() as server:
        agent = agents.make(spec(server.url))
        state = game.deal(game.load_rules(None), 2, seed=0)
        mask = np.zeros(game.num_actions, dtype=np.int8)
        mask[state.legal_actions()[0]] = 1
        info = {"information_set": state.information_set(state.current_player), "rules": state.rules}
        assert agent.act({"observation": None, "action_mask": mask}, info) == state.legal_actions()[0]
    assert server.bodies == [] and agent.stats()["forced"] == 1 and agent.stats()["decisions"] == 0


# ----------------------------------------------------------------------------- the key and the endpoint


def test_the_key_comes_from_the_environment_variable_never_from_the_spec(monkeypatch):
    env, obs, info = decision_point()
    monkeypatch.setenv("RUMMY_LLM_API_KEY", "sekrit-1")
    monkeypatch.setenv("MY_KEY", "sekrit-2")
    with Server() as server:
        agents.make(spec(server.url)).act(obs, info)
        agents.make(spec(server.url, api_key_env="MY_KEY")).act(obs, info)
    assert [h.get("Authorization") for h in server.headers] == ["Bearer sekrit-1", "Bearer sekrit-2"]
    monkeypatch.delenv("RUMMY_LLM_API_KEY")
    with Server() as server:
        agents.make(spec(server.url)).act(obs, info)
    assert "Authorization" not in server.headers[0]  # a local server needs no key
    with pytest.raises(ValueError, match="api_key is refused.*environment variable RUMMY_LLM_API_KEY") as err:
        agents.make(spec(server.url, api_key="sk-live-123"))
    assert "sk-live-123" not in str(err.value)
    with pytest.raises(ValueError, match="must be the name of an environment variable") as err:
        agents.make(spec(server.url, api_key_env="sk-live-123"))
    assert "sk-live-123" not in str(err.value)
    with pytest.raises(ValueError, match="must not hold a user or key") as err:
        agents.make(spec("http://me:sk-live-123@127.0.0.1:9/v1"))
    assert "sk-live-123" not in str(err.value)


def test_a_refused_key_or_model_and_an_unreachable_endpoint_stop_the_agent_in_one_line():
    env, obs, info = decision_point()
    with Server([401, 404]) as server:
        with pytest.raises(EndpointError, match=r"answered HTTP 401.*check the key's variable \(api_key_env\)"):
            agents.make(spec(server.url)).act(obs, info)
        with pytest.raises(EndpointError, match=r"answered HTTP 404.*check base_url and model"):
            agents.make(spec(server.url)).act(obs, info)
    with socket.socket() as s:  # a port with nothing listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    agent = agents.make(spec(f"http://127.0.0.1:{port}/v1", retries=1))
    with pytest.raises(OSError, match=f"cannot reach http://127.0.0.1:{port}/v1 .*is the server running") as err:
        agent.act(obs, info)
    assert "\n" not in str(err.value) and agent.log[0].errors == 2


def test_without_the_llm_extra_it_says_how_to_install_it(monkeypatch, capsys, tmp_path):
    import importlib.util

    from rummy_env.cli.main import main

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "httpx2" else real(name, *a))
    needs = 'the llm agent needs httpx2 (the llm extra): pip install -e ".[llm]"'
    with pytest.raises(ImportError, match=re.escape(needs)):
        agents.make("llm:model=m")
    assert main(["tournament", "--agents", "llm:model=m", "random", "--out", str(tmp_path / "t")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("options, problem", [
    ({"model": ""}, "needs model=NAME"), ({"timeout": 0}, "timeout must be a number > 0"),
    ({"retries": -1}, "retries must be a whole number >= 0"),
    ({"max_tokens": 0}, "max_tokens must be a whole number > 0"),
    ({"temperature": -0.5}, "temperature must be a number >= 0"),
    ({"base_url": "ftp://host/v1"}, "base_url must be an http(s) URL"),
    ({"fallback": "llm"}, "fallback=llm: it is 'llm' itself"),
    ({"fallback": "mcts"}, "fallback=mcts: unknown agent 'mcts' for Basic Rummy"), ({"retries": 1.5}, "whole number"),
    ({"colour": "red"}, "has no option(s) ['colour']"),
])
def test_bad_options_get_one_line_errors(options, problem):
    with pytest.raises(ValueError, match=re.escape(problem)) as err:
        agents.make(spec("http://127.0.0.1:9/v1", **options), game="basic")
    assert "\n" not in str(err.value)


def test_a_web_client_cannot_point_it_anywhere_and_pages_do_not_list_it():
    factory = agents.factory_of("llm", "romme")
    assert {"base_url", "model", "api_key_env"} <= set(factory.file_options) and factory.extra == "llm"
    assert "llm" in agents.available("romme") and "llm" not in agents.available("romme", required=False)
    assert agents.default_opponent("romme") != "llm"


# ----------------------------------------------------------------------------- no leak


@pytest.mark.parametrize("name", games())
def test_the_prompts_do_not_change_when_hidden_cards_are_dealt_otherwise(name):
    game = get_game(name)
    rules = game.load_rules(None)
    rng = np.random.default_rng(7)
    sent = []
    with Server(after="nothing playable") as server:  # every request answered alike: the prompts are what differs
        for trial in range(3):
            state = game.deal(rules, game.min_players, seed=trial)
            while len(state.legal_actions()) < 2 or rng.random() < 0.8:
                state.step(int(rng.choice(state.legal_actions())))
            seat = state.current_player
            other = game.redeal_hidden(state, seat, np.random.default_rng(trial))
            assert other.card_places() != state.card_places()  # the hidden cards moved
            for world in (state, other):
                agent = agents.make(spec(server.url, retries=1), seed=trial, game=name)
                mask = world.legal_mask()
                agent.act({"observation": None, "action_mask": mask},
                          {"information_set": world.information_set(seat), "rules": rules})
            sent.append(server.bodies[-4:])
    for bodies in sent:
        assert bodies[:2] == bodies[2:]  # both requests of each decision, identical
    assert sent[0] != sent[1]


# ----------------------------------------------------------------------------- in a tournament


def test_a_tournament_records_each_game_s_counts_and_sums_them_in_its_summary_and_report(tmp_path, capsys):
    from rummy_env.cli.main import main

    replies = iter(range(10 ** 6))

    def sometimes_garbage(body: dict[str, Any]) -> str:  # every fifth request is unreadable
        return "hmm" if next(replies) % 5 == 4 else first_legal(body)

    with Server(after=sometimes_garbage) as server:
        llm = spec(server.url)
        code = main(["tournament", "--agents", llm, "random", "--deals", "2", "--out", str(tmp_path), "--quiet"])
    assert code == 0
    lines = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()[1:]]
    assert len(lines) == 4
    total: dict[str, float] = {}
    for record in lines:
        seat = record["players"].index(llm)
        own, other = record["agent_stats"][seat], record["agent_stats"][1 - seat]
        assert other is None and own["decisions"] > 0 and own["requests"] == own["decisions"] + own["retries"]
        assert own["prompt_tokens"] == PROMPT_TOKENS * own["requests"]
        for key, value in own.items():
            total[key] = total.get(key, 0) + value
    assert total["bad_replies"] > 0 and total["fallbacks"] == 0
    assert total["requests"] == len(server.bodies)
    summary = json.loads((tmp_path / "summary.json").read_text())
    rows = {row["agent"]: row for row in summary["agents"]}
    assert "agent_stats" not in rows["random"]
    assert {k: v for k, v in rows[llm]["agent_stats"].items() if k != "seconds"} == \
        {k: v for k, v in total.items() if k != "seconds"}
    report = (tmp_path / "report.md").read_text()
    assert "## Agents' own counts" in report
    row = next(line for line in report.splitlines() if line.startswith(f"| {llm} | {total['decisions']} |"))
    assert f"| {total['bad_replies']} ({total['bad_replies'] / total['decisions']:.3g}) |" in row
    assert "Agents' own counts" in capsys.readouterr().out


def test_a_key_in_a_tournament_spec_is_refused_in_one_line_before_anything_is_written(tmp_path, capsys):
    from rummy_env.cli.main import main

    code = main(["tournament", "--agents", "llm:model=m,api_key=sk-live-123", "random", "--out", str(tmp_path / "t")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "RUMMY_LLM_API_KEY" in err and "sk-live-123" not in err
    assert not (tmp_path / "t").exists()


def test_an_agent_that_keeps_counts_is_played_one_game_at_a_time(monkeypatch):
    from rummy_env.agents import registry
    from rummy_env.eval import games as eval_games

    class CountingRandom(agents.RandomAgent):  # has an array policy, but also counts of its own
        def stats(self) -> dict[str, Any]:
            return {"moves": self.decision_index}

    monkeypatch.setattr(registry, "_FACTORIES", {g: dict(t) for g, t in registry._FACTORIES.items()})
    monkeypatch.setattr(eval_games, "_POLICIES", {})
    agents.register("counting-random", CountingRandom, game="gin")
    assert eval_games.batch_policy_of("random", "gin") is not None
    assert eval_games.batch_policy_of("counting-random", "gin") is None  # the batch engine would lose its counts
