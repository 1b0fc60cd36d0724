"""Playing agents against each other through the AEC env, exactly as users' loops do.

``decisions`` yields the live decisions of any env's ``agent_iter()`` / ``last()`` loop;
``play_hand`` and ``play_match`` seat agents (``agents[k]`` in seat ``k``) at the env of
the game they play (``Agent.game``, through the game registry) and step it with
``agent.act(obs, info)``, so agents get exactly the env's inputs. Deals are reproducible
(a seed, or an explicit deck), which makes duplicate deals possible: the same deal played
again with the seats changed. The tournaments (``rummy_env.eval``) build on these.
"""

from __future__ import annotations

from typing import Any, Iterator, Optional, Sequence

from rummy_env.agents.base import Agent
from rummy_env.agents.registry import plays
from rummy_env.core.game import Game, HandResult, get_game


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


def _game_of(agents: Sequence[Agent]) -> Game:
    """The game every agent plays, or a ValueError naming who plays what."""
    names = {plays(a) for a in agents}
    if len(names) != 1:
        raise ValueError(f"the agents play different games: {', '.join(f'{a.name}: {plays(a)}' for a in agents)}")
    return get_game(names.pop())


def _drive(env, agents: Sequence[Agent]) -> None:
    for seat, obs, info in decisions(env):
        env.step(agents[seat].act(obs, info))


def play_hand(
    agents: Sequence[Agent], rules: Any = None, seed: Optional[int] = None,
    deck: Optional[Sequence[int]] = None, dealer: Optional[int] = None,
) -> HandResult:
    """One hand of the agents' game, ``agents[k]`` as player_k, under ``rules`` (default: the
    game's default preset); dealt from ``deck`` or shuffled by ``seed``; ``dealer``
    defaults to the last seat (player_0 plays first)."""
    env = _game_of(agents).raw_env(num_players=len(agents), rules=rules)
    options: dict = {"dealer": len(agents) - 1 if dealer is None else dealer}
    if deck is not None:
        options["deck"] = list(deck)
    env.reset(seed=seed, options=options)
    _drive(env, agents)
    assert env.game is not None and env.game.result is not None
    return env.game.result


def play_match(agents: Sequence[Agent], rules: Any = None, seed: Optional[int] = None,
               first_dealer: Optional[int] = None) -> Any:
    """One match to the rules' target score (default rules: the game's default preset),
    ``agents[k]`` as player_k; returns the match's result."""
    env = _game_of(agents).raw_env(num_players=len(agents), rules=rules, episode="match")
    env.reset(seed=seed, options={"dealer": len(agents) - 1 if first_dealer is None else first_dealer})
    _drive(env, agents)
    assert env.match is not None
    return env.match.result()
