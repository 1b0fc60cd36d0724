"""The config of Basic Rummy training (``rummy train-basic``, ``rummy_env.train.basic_ppo``).

Its own dataclass, apart from Gin Rummy's ``PPOConfig``: the games are other ones (2 to 4
players at a table, mixed by ``players``; scalar ``BasicRummyState`` hands rather than a
vector engine, so no ``num_envs``/``rollout_steps``, rollout workers or Ray), and the
opponents are Basic Rummy's agents. Every field has a default; a YAML file gives any of
them, ``--set FIELD=VALUE`` overrides one, and unknown fields, values of the wrong kind
and out-of-range values are refused with the field named, before anything runs.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, NoReturn, Optional, Union

from rummy_env.basic.rules import MAX_PLAYERS, MIN_PLAYERS, load_rummy_rules
from rummy_env.core.yaml_files import parse_value, read_mapping

# Who sits in the other seats of a training game (weights in ``opponents``), one kind a game:
#   heuristic - ``rummy-heuristic`` (``rummy_env.agents.basic.agents``)
#   random    - ``rummy-random``
#   pool      - a past snapshot of the network (frozen, sampling its moves), one per game
OPPONENT_KINDS = ("heuristic", "random", "pool")


@dataclass(frozen=True)
class BasicPPOConfig:
    """Every setting of a Basic Rummy training run (``configs/ppo_basic.yaml`` shows them)."""

    name: str = "ppo_basic"
    """Run name: the run folder is ``runs_dir/NAME__SEED__TIME`` (no slashes, no ``__``)."""
    seed: int = 0
    """Seeds the deals, the network's initial weights and every random generator of the run."""
    rules: str = "basic"
    """Basic Rummy rules preset or YAML path the hands are played under (one hand at a time)."""
    players: Mapping[int, float] = field(default_factory=lambda: {2: 1.0, 3: 1.0, 4: 1.0})
    """Weights of the table sizes (2, 3, 4) a training hand is dealt for."""
    win_bonus: float = 0.1
    """The reward is the hand's points / 100 for the learner's seat, plus this if it won the
    hand and minus it if it lost (``rummy_env.train.config.with_win_bonus``)."""

    # rollouts
    hands_per_update: int = 256
    """Hands played (to the end) for each update, all at once: the network's moves of all of
    them are one forward pass a round."""
    total_updates: int = 500
    """PPO updates of the run."""
    opponents: Mapping[str, float] = field(default_factory=lambda: {"heuristic": 0.8, "pool": 0.2})
    """Weights of the opponent kinds a hand is given (``OPPONENT_KINDS``: heuristic, random,
    pool); every seat but the learner's plays that kind."""
    snapshot_every: int = 25
    """Updates between adding the current network to the pool."""
    pool_size: int = 10
    """Most recent snapshots kept in the pool (an empty pool plays the heuristic instead)."""

    # optimisation
    lr: float = 3e-4
    """Adam's learning rate."""
    anneal_lr: bool = True
    """Decay the learning rate linearly to 0 at ``total_updates``; a resume that changes
    ``total_updates`` continues the decay from the last update's rate (``train.lr_schedule``)."""
    gamma: float = 1.0
    """Discount; 1: a hand is short and its score is what matters."""
    gae_lambda: float = 0.95
    """The GAE lambda of the advantages."""
    clip_coef: float = 0.2
    """PPO's clipping range of the probability ratio."""
    ent_coef: float = 0.003
    """Weight of the entropy bonus (over legal actions only)."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Gradients are clipped to this norm."""
    update_epochs: int = 3
    """Passes over an update's moves."""
    minibatch_size: int = 1024
    """Moves per gradient step."""
    hidden: tuple[int, ...] = (256, 256)
    """Trunk layer widths (``rummy_env.agents.basic.network.BasicPolicyNet``)."""
    card_hidden: int = 64
    """Width of the per-card head."""

    # warm start
    imitation_samples: int = 150_000
    """Warm start: moves of ``rummy-heuristic`` (in its own games, every seat, at the
    ``players`` mix) the network is fitted to before PPO, its value to their results;
    0: no warm start."""
    imitation_epochs: int = 8
    """Passes of the warm start over those moves."""
    imitation_lr: float = 1e-3
    """Learning rate of the warm start."""
    init_policy: Optional[str] = None
    """Start from the weights of this policy file or checkpoint (same ``hidden`` and
    ``card_hidden``), with ``imitation_samples: 0``: to train a finished network further
    under other settings as a new run; null: fresh weights (and the warm start, if any)."""

    # evaluation, logging, checkpoints
    eval_every: int = 50
    """Updates between evaluations against ``rummy-heuristic`` (0: never)."""
    eval_hands: int = 300
    """Hands of each evaluation per table size (the same deals every time, the network
    greedy, in each seat in turn)."""
    checkpoint_every: int = 25
    """Updates between checkpoints (``checkpoint.pt`` and ``policy.pt``)."""
    torch_threads: int = 1
    """CPU threads torch may use."""
    runs_dir: str = "runs"
    """Parent folder of the run folders."""
    progress: bool = True
    """Show a progress bar."""

    def __post_init__(self) -> None:
        _validate(self)

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["hidden"] = list(self.hidden)
        out["players"] = {int(k): float(v) for k, v in self.players.items()}
        out["opponents"] = dict(self.opponents)
        return out


# Fields a resumed run may change: they do not change what is learned.
RESUMABLE = ("total_updates", "eval_every", "checkpoint_every", "progress")


def _fail(name: str, value: Any, allowed: str) -> NoReturn:
    raise ValueError(f"basic training config field {name!r} = {value!r}: {allowed}")


def _validate(c: BasicPPOConfig) -> None:
    for name in ("hands_per_update", "total_updates", "update_epochs", "minibatch_size", "snapshot_every", "pool_size",
                 "checkpoint_every", "torch_threads", "eval_hands", "card_hidden", "imitation_epochs"):
        value = getattr(c, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            _fail(name, value, "must be a positive integer")
    for name in ("eval_every", "imitation_samples"):
        value = getattr(c, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            _fail(name, value, "must be an integer >= 0 (0: none)")
    for name in ("lr", "clip_coef", "max_grad_norm", "imitation_lr"):
        if not getattr(c, name) > 0:
            _fail(name, getattr(c, name), "must be > 0")
    for name in ("gamma", "gae_lambda"):
        if not 0.0 <= getattr(c, name) <= 1.0:
            _fail(name, getattr(c, name), "must lie in [0, 1]")
    for name in ("ent_coef", "vf_coef", "win_bonus"):
        if getattr(c, name) < 0:
            _fail(name, getattr(c, name), "must be >= 0")
    if not c.hidden or any(isinstance(h, bool) or not isinstance(h, int) or h < 1 for h in c.hidden):
        _fail("hidden", list(c.hidden), "must be a non-empty list of positive layer widths")
    sizes = range(MIN_PLAYERS, MAX_PLAYERS + 1)
    if not c.players or any(k not in sizes for k in c.players):
        _fail("players", dict(c.players), f"keys must be table sizes {MIN_PLAYERS}..{MAX_PLAYERS}")
    for label, weights in (("players", c.players), ("opponents", c.opponents)):
        if any(w < 0 for w in weights.values()) or sum(weights.values()) <= 0:
            _fail(label, dict(weights), "weights must be >= 0 with a positive sum")
    unknown = sorted(set(c.opponents) - set(OPPONENT_KINDS))
    if unknown:
        _fail("opponents", dict(c.opponents), f"unknown kind(s) {unknown}; kinds: {', '.join(OPPONENT_KINDS)}")
    if c.init_policy is not None:
        if not isinstance(c.init_policy, str) or not c.init_policy:
            _fail("init_policy", c.init_policy, "must be the path of a policy file or checkpoint, or null")
        if c.imitation_samples:
            _fail("init_policy", c.init_policy, f"a run starts from a policy or from a warm start, not both "
                  f"(imitation_samples is {c.imitation_samples}; set it to 0)")
    if not c.name or any(ch in c.name for ch in "/\\") or "__" in c.name:
        _fail("name", c.name, "must be non-empty, without slashes or '__' (run folders are NAME__SEED__TIME)")
    try:
        load_rummy_rules(c.rules)
    except (ValueError, OSError) as exc:
        _fail("rules", c.rules, str(exc))


_FIELDS = {f.name: f for f in dataclasses.fields(BasicPPOConfig)}
_DEFAULTS = BasicPPOConfig()


def _number(name: str, value: Any) -> float:
    """A float field's value: a number, or text that reads as one (YAML 1.1 reads ``1e-4`` as text)."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            pass
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        _fail(name, value, "must be a finite number, e.g. 0.0003 or 3e-4")
    return float(value)


def _weights(name: str, value: Any, key: Any) -> dict:
    if not isinstance(value, Mapping):
        _fail(name, value, "must be a mapping of kind -> weight")
    return {key(k): _number(f"{name}.{k}", w) for k, w in value.items()}


def _table_size(k: Any) -> int:
    try:
        return int(k)
    except (TypeError, ValueError):
        _fail("players", k, f"keys must be table sizes {MIN_PLAYERS}..{MAX_PLAYERS}")


def _coerce(name: str, value: Any) -> Any:
    """A YAML or command-line value (text) converted to the field's kind, or a ValueError."""
    default = getattr(_DEFAULTS, name)
    if name == "init_policy":
        if value is None or (isinstance(value, str) and value.lower() in ("null", "none", "")):
            return None
        if not isinstance(value, str):
            _fail(name, value, "must be the path of a policy file or checkpoint, or null")
        return value
    if isinstance(value, str) and not isinstance(default, str):
        value = parse_value(value, name)
    if name == "players":
        return _weights(name, value, _table_size)
    if name == "opponents":
        return _weights(name, value, str)
    if name == "hidden":
        value = [value] if isinstance(value, int) else value
        if not isinstance(value, (list, tuple)):
            _fail(name, value, "must be a list of layer widths")
        return tuple(value)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            _fail(name, value, "must be true or false")
        return value
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            _fail(name, value, "must be a whole number")
        return value
    if isinstance(default, float):
        return _number(name, value)
    if not isinstance(value, str):
        _fail(name, value, "must be text")
    return value


def make_config(values: Mapping[str, Any]) -> BasicPPOConfig:
    """A config from a mapping (YAML's), refusing unknown fields."""
    unknown = sorted(set(values) - set(_FIELDS))
    if unknown:
        raise ValueError(f"unknown basic training config field(s) {unknown}; fields: {', '.join(_FIELDS)}")
    return BasicPPOConfig(**{k: _coerce(k, v) for k, v in values.items()})


def load_config(path: Optional[Union[str, Path]] = None, overrides: Optional[Mapping[str, Any]] = None) -> BasicPPOConfig:
    """The config in YAML file ``path`` (defaults if None) with ``overrides`` (field: value;
    ``players.N`` or ``opponents.KIND`` sets one weight)."""
    values: dict[str, Any] = {}
    if path is not None:
        values.update(read_mapping(path, "basic training config", "fields"))
    for key, value in (overrides or {}).items():
        head, dot, sub = key.partition(".")
        if dot and head in ("players", "opponents"):
            weights = dict(values.get(head, getattr(_DEFAULTS, head)))
            weights[_table_size(sub) if head == "players" else sub] = value
            values[head] = weights
        else:
            values[key] = value
    return make_config(values)
