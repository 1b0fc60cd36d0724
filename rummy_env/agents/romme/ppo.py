"""``ppo`` of Rommé: a Rommé policy network trained by ``rummy train --game romme``.

``make("ppo", game="romme")`` loads the policy shipped with the package
(``rummy_env/agents/romme/data/ppo_romme.pt``; how it was made: that folder's README.md); ``ppo:RUN/policy.pt``
(or ``ppo:path=RUN/policy.pt``) loads another policy file or training checkpoint. One
network plays every table size.

The network (``rummy_env.agents.romme.network``) reads the ``flat`` encoding of the
player's information set, re-encoded here from ``info`` (so it works whatever encoding
the env was built with) and without match scores, and the move Rommé's ``heuristic``
would play there (``network_inputs``: the heuristic reads the same
information set, and its random tie-breaks are seeded the same way at every decision, so
the input is a function of the information set alone). It plays the most probable legal
action (``greedy=true``, the default; the lowest id among exact ties) or samples one
(``greedy=false``, with the agent's generator). torch is imported only when an agent is
made: ``import rummy_env`` and the env never need it.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from rummy_env.agents.base import game_input, legal_actions
from rummy_env.agents.mlp_policy import MLPPolicyAgent
from rummy_env.agents.ppo_base import PPOAgentBase, check_greedy, need_torch
from rummy_env.agents.romme.agents import RommeHeuristicAgent
from rummy_env.core.game import get_game
from rummy_env.romme.encoding import encode
from rummy_env.romme.game import NUM_ACTIONS, RommeInformationSet
from rummy_env.romme.rules import RommeRules

SHIPPED = Path(__file__).resolve().parent / "data" / "ppo_romme.pt"
OLD_FORMAT = "rummy-env-mlp-policy-v1"  # the generic MLP's files (``rummy_env.agents.mlp_network``)
ADVICE_SEED = 0  # the heuristic adviser's tie-breaks: the same generator state at every decision


def advised_move(info: RommeInformationSet, rules: RommeRules, legal: Any) -> int:
    """The move Rommé's ``heuristic`` (default options) plays at this decision, from the
    mover's information set and legal moves only; its random tie-breaks drawn from a
    generator seeded ``ADVICE_SEED`` afresh, so the same information set always gets the
    same advice (in training, in play and after a resume)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[np.asarray(legal, dtype=np.int64)] = 1
    adviser = RommeHeuristicAgent(seed=ADVICE_SEED)
    return int(adviser.act({"action_mask": mask}, {"information_set": info, "rules": rules}))


def network_inputs(info: RommeInformationSet, rules: RommeRules, legal: Any) -> np.ndarray:
    """The network's input for one decision: the ``flat`` encoding of ``info`` (no match
    scores), then the id of the heuristic's move (``advised_move``)."""
    return np.append(encode(info, rules, "flat"), np.float32(advised_move(info, rules, legal)))


@functools.lru_cache(maxsize=8)
def _load(path: str, mtime_ns: int) -> tuple[Any, dict[str, Any]]:
    """Load a policy once per process (a tournament makes an agent per game): Rommé's own
    network, or the generic MLP of a file written before Rommé had one (``OLD_FORMAT``)."""
    from rummy_env.agents import torch_files
    from rummy_env.agents.mlp_network import load_policy as load_generic
    from rummy_env.agents.romme.network import load_policy

    payload = torch_files.policy_payload(path)
    if isinstance(payload, dict) and payload.get("format") == OLD_FORMAT:
        return load_generic(path, "romme")
    return load_policy(path)


class RommePPOAgent(MLPPolicyAgent):
    """``ppo`` of Rommé: a trained network (see the module docstring). It is the generic
    ``ppo`` (``rummy_env.agents.mlp_policy``) for a generic MLP file of an older run, and
    plays Rommé's own network (``RommePolicyNet``) otherwise."""

    game = "romme"
    required_options = ()  # the shipped network plays without a file

    def __init__(self, seed: Optional[int] = None, path: Optional[Union[str, Path]] = None, greedy: bool = True) -> None:
        PPOAgentBase.__init__(self, seed)
        self._torch = need_torch("the Rommé ppo agent")
        self.greedy = check_greedy(greedy)
        if path is None and not SHIPPED.is_file():
            raise FileNotFoundError(f"the shipped Rommé ppo policy {str(SHIPPED)!r} is missing; train one with "
                                    "rummy train --game romme and use ppo:path=RUN/policy.pt with --game romme")
        self.path = Path(path) if path is not None else SHIPPED
        where = (str(self.path.resolve()), self.path.stat().st_mtime_ns if self.path.is_file() else 0)
        self.net, meta = _load(*where)
        self.trained_rules = meta.get("rules")
        self._encoding = get_game("romme").encoding("flat")  # what the generic network reads

    @classmethod
    def from_net(cls, net: Any, greedy: bool = True, seed: Optional[int] = None) -> "RommePPOAgent":
        """An agent around a network in memory (tests, evaluations), not a file."""
        return cls._around(net, greedy, seed)

    def inputs(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> np.ndarray:
        """The network's input for this decision (``network_inputs``), what training feeds it too."""
        infoset, rules = game_input(self, observation, info)
        return network_inputs(infoset, rules, legal_actions(observation))

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        if not hasattr(self.net, "advice_weight"):  # the generic MLP of an older file
            return super().act(observation, info)
        legal = legal_actions(observation)
        if len(legal) == 1:
            game_input(self, observation, info)
            return int(legal[0])
        return self.network_move(self.inputs(observation, info), legal, NUM_ACTIONS)
