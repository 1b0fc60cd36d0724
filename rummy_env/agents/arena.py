"""Playing agents against each other through the AEC env, exactly as users' loops do.

``play_hand`` and ``play_match`` drive ``gin_rummy_v0.raw_env`` with ``agent_iter()`` /
``last()`` / ``step(agent.act(obs, info))``, so agents get exactly the env's inputs.
Deals are reproducible (a seed, or an explicit deck), which makes duplicate deals
possible: the same deal played twice with the seats swapped. The tournament evaluator
(``eval/``) builds on these.
"""

from __future__ import annotations

from typing import Iterator, Optional, Sequence

from rummy_env.agents.base import Agent
from rummy_env import gin_rummy_v0
from rummy_env.gin.game import HandResult
from rummy_env.gin.match import MatchResult
from rummy_env.gin.rules import RulesSpec


def decisions(env) -> Iterator[tuple[int, dict, dict]]:
    """The live decisions of an AEC game, as (seat, observation, info) for the player to
    move; the caller steps the env with that player's move before the next one. Players
    whose game is over are stepped with ``None`` here, as PettingZoo requires."""
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
        else:
            yield env.possible_agents.index(name), obs, info


def _drive(env, agents: Sequence[Agent]) -> None:
    for seat, obs, info in decisions(env):
        env.step(agents[seat].act(obs, info))


def play_hand(
    agents: Sequence[Agent], rules: RulesSpec = "classic", seed: Optional[int] = None,
    deck: Optional[Sequence[int]] = None, dealer: int = 1,
) -> HandResult:
    """One hand, ``agents[0]`` as player_0; dealt from ``deck`` or shuffled by ``seed``."""
    env = gin_rummy_v0.raw_env(rules=rules)
    options: dict = {"dealer": dealer}
    if deck is not None:
        options["deck"] = list(deck)
    env.reset(seed=seed, options=options)
    _drive(env, agents)
    assert env.game is not None and env.game.result is not None
    return env.game.result


def play_match(
    agents: Sequence[Agent], rules: RulesSpec = "eaai", seed: Optional[int] = None, first_dealer: int = 1
) -> MatchResult:
    """One match to the rules' target score, ``agents[0]`` as player_0."""
    env = gin_rummy_v0.raw_env(rules=rules, episode="match")
    env.reset(seed=seed, options={"dealer": first_dealer})
    _drive(env, agents)
    assert env.match is not None
    return env.match.result()
