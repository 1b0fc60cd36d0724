"""The config of expert iteration (``rummy expert-iteration``, ``rummy_env.train.expert_iteration``).

Its own module, apart from PPO's ``PPOConfig``: the loop is another procedure (a search
labels the network's games and the network is fitted to the labels, round after round,
no reinforcement-learning update), so it shares none of PPO's fields but the rules and
the seed. Every field has a default; a YAML file gives any of them, and unknown fields,
values of the wrong kind and out-of-range values are refused with the field named.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional, Union

from rummy_env.core.yaml_files import read_mapping

NET = "{net}"  # in the teacher's spec: the policy file of the network being improved
DECISIONS = ("all", "knock")


@dataclass(frozen=True)
class ExpertIterationConfig:
    """Expert iteration's settings (docs/training.md, "Expert iteration").

    Each round the current network plays ``hands_per_round`` hands against ``opponent``;
    ``teacher`` (an agent spec; ``{net}`` in it stands for the current network's policy
    file) labels each of its decisions; the network is fitted to the labels of this round
    and the ``fit_window - 1`` before it; the fitted network is evaluated over
    ``eval_hands`` hands of duplicate deals against each of ``eval_opponents``.
    """

    rules: str = "classic"
    init: str = "ppo"  # the ppo agent whose network round 1 starts from (ppo:PATH for a file)
    rounds: int = 4
    hands_per_round: int = 400
    # confidence=2.5: with the search's default 1 standard error, 13% of its labels replaced
    # the network's move and fitting them made it play worse (docs/findings/expert-iteration.md)
    teacher: str = "mcts:rollout=net,net={net},prior=2,base=net,confidence=2.5"
    opponent: str = "heuristic"  # the student's opponent in the labelled hands
    decisions: str = "all"  # which decisions the teacher labels (``rummy distill --decisions``)
    win_bonus: float = 0.1  # added to the hand results the value head fits (as in PPO training)
    fit_window: int = 2  # rounds of labels each fit reads: this one and the ones just before
    epochs: int = 10
    lr: float = 3e-4
    batch_size: int = 512
    eval_opponents: tuple[str, ...] = ("heuristic",)
    eval_hands: int = 400  # per opponent, an even number: each deal played twice, seats swapped
    seed: int = 0
    workers: int = 1  # processes labelling hands and playing evaluation deals

    def __post_init__(self) -> None:
        for name in ("rounds", "hands_per_round", "fit_window", "epochs", "batch_size", "workers"):
            if getattr(self, name) < 1:
                raise ValueError(f"expert iteration config: {name} must be >= 1, got {getattr(self, name)}")
        if self.hands_per_round > SEED_STRIDE:
            raise ValueError(f"expert iteration config: hands_per_round must be <= {SEED_STRIDE:,} (each round's "
                             f"hands have their own seeds), got {self.hands_per_round}")
        if self.eval_hands < 0 or self.eval_hands % 2:
            raise ValueError("expert iteration config: eval_hands must be an even number >= 0 (each deal is played "
                             f"twice, seats swapped), got {self.eval_hands}")
        if not self.lr > 0:
            raise ValueError(f"expert iteration config: lr must be > 0, got {self.lr}")
        if self.win_bonus < 0:
            raise ValueError(f"expert iteration config: win_bonus must be >= 0, got {self.win_bonus}")
        if self.decisions not in DECISIONS:
            raise ValueError(f"expert iteration config: decisions must be one of {', '.join(DECISIONS)}, "
                             f"got {self.decisions!r}")
        if len(set(self.eval_opponents)) != len(self.eval_opponents):
            raise ValueError(f"expert iteration config: eval_opponents has repeats: {list(self.eval_opponents)}")

    def teacher_for(self, policy: Union[str, Path]) -> str:
        """The teacher's agent spec for the network in policy file ``policy``."""
        return self.teacher.replace(NET, str(policy))

    def to_dict(self) -> dict[str, Any]:
        values = dataclasses.asdict(self)
        values["eval_opponents"] = list(self.eval_opponents)
        return values


SEED_STRIDE = 1_000_000  # round k labels the hands seed + k * SEED_STRIDE onwards
_FIELDS = {f.name: f for f in dataclasses.fields(ExpertIterationConfig)}
_DEFAULTS = ExpertIterationConfig()


def _coerce(name: str, value: Any) -> Any:
    """``value`` as field ``name``'s kind, or a ValueError naming the field and the kind."""
    default = getattr(_DEFAULTS, name)
    if isinstance(default, tuple):
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v.strip() for v in value):
            raise ValueError(f"expert iteration config: {name} must be a list of agent specs, got {value!r}")
        return tuple(value)
    if isinstance(default, bool) or isinstance(value, bool):
        raise ValueError(f"expert iteration config: {name} must be {type(default).__name__}, got {value!r}")
    if isinstance(default, int):
        if not isinstance(value, int):
            raise ValueError(f"expert iteration config: {name} must be a whole number, got {value!r}")
        return value
    if isinstance(default, float):
        if not isinstance(value, (int, float)):
            raise ValueError(f"expert iteration config: {name} must be a number, got {value!r}")
        return float(value)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"expert iteration config: {name} must be non-empty text, got {value!r}")
    return value


def make_config(values: Mapping[str, Any]) -> ExpertIterationConfig:
    """A config from a mapping (YAML's), refusing unknown fields and checking the agent
    specs (each must make an agent; ``init`` a ``ppo`` one) before any work starts."""
    unknown = sorted(set(values) - set(_FIELDS))
    if unknown:
        raise ValueError(f"unknown expert iteration config field(s) {unknown}; fields: {', '.join(_FIELDS)}")
    config = ExpertIterationConfig(**{k: _coerce(k, v) for k, v in values.items()})
    check_agents(config)
    return config


def check_agents(config: ExpertIterationConfig, policy: Optional[Union[str, Path]] = None) -> None:
    """Make each agent the config names once, so a bad spec fails before any hand is
    played; the teacher with ``policy`` (default: ``init``'s network) for ``{net}``."""
    from rummy_env import agents
    from rummy_env.agents.gin.ppo import PPOAgent

    try:
        init = agents.make(config.init)
    except ValueError as exc:
        raise ValueError(f"expert iteration config: init: {exc}") from None
    if not isinstance(init, PPOAgent):
        raise ValueError(f"expert iteration config: init must be a ppo agent (its network is trained), got {config.init!r}")
    for name, spec in [("teacher", config.teacher_for(policy or init.path)), ("opponent", config.opponent)] + [
            ("eval_opponents", s) for s in config.eval_opponents]:
        try:
            agent = agents.make(spec)
        except ValueError as exc:
            raise ValueError(f"expert iteration config: {name}: {exc}") from None
        if agent.game != init.game:
            raise ValueError(f"expert iteration config: {name} {spec!r} plays {agent.game}, the network {init.game}")


def load_config(path: Optional[Union[str, Path]] = None, overrides: Optional[Mapping[str, Any]] = None
                ) -> ExpertIterationConfig:
    """The config in YAML file ``path`` (defaults if None), with ``overrides`` (field: value)."""
    values: dict[str, Any] = {}
    if path is not None:
        values.update(read_mapping(path, "expert iteration config", "fields"))
    values.update(overrides or {})
    return make_config(values)


def changed_fields(old: ExpertIterationConfig, new: ExpertIterationConfig) -> list[str]:
    """Fields in which ``new`` differs from ``old`` that would change work already done
    (all but ``rounds``, which a run may grow, and ``workers``)."""
    return sorted(k for k in _FIELDS if k not in ("rounds", "workers") and getattr(old, k) != getattr(new, k))


__all__ = ["ExpertIterationConfig", "load_config", "make_config", "changed_fields", "NET", "SEED_STRIDE"]
