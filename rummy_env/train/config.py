"""Training-run settings: one frozen dataclass, loaded from YAML, overridable field by field.

``rummy train --config configs/ppo.yaml --lr 1e-4 --opponents.heuristic 0.2`` reads the
file, then applies each command-line override (any field; nested opponent weights by
``opponents.NAME``). Unknown fields and bad values get an error naming the field and
what is allowed, before anything runs: a typo must not silently train with a default.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, NoReturn, Optional, Union

import numpy as np

from rummy_env.core.yaml_files import parse_value, read_mapping
from rummy_env.gin.rules import load_rules

# Opponent kinds a learner game can be assigned at each deal (weights in ``opponents``):
#   self      - the current policy plays both seats; both seats' moves are training data
#               (from scratch, pure self-play drifts to passive play: both take every
#               discard and hands run to max_turns; the defaults learn mostly from simple)
#   pool      - a past snapshot of the policy (frozen), chosen uniformly from the pool
#   random / simple / heuristic - the scripted Gin agents (``rummy_env.agents.gin``) as array
#   operations (heuristic: by default its turn-based knock rule, ``heuristic:knock=turn``;
#   ``heuristic_vector``; ``heuristic_knock: estimate`` gives it the agent's default knock estimate)
OPPONENT_KINDS = ("self", "pool", "random", "simple", "heuristic")
# Value baselines (``critic``): the policy network's own value head, or the oracle critic
# of ``train.critic`` (it also reads the cards the player cannot see; training only).
CRITICS = ("shared", "oracle")
# Where the rollouts run (``backend``): this process, or Ray actors (``train.ray_rollouts``).
BACKENDS = ("local", "ray")


@dataclass(frozen=True)
class PPOConfig:
    """Every setting of a training run (``configs/ppo.yaml`` shows them with their values)."""

    name: str = "ppo"
    """Run name: the run folder is ``runs_dir/NAME__SEED__TIME`` (no slashes, no ``__``)."""
    seed: int = 0
    """Seeds the deals, the network's initial weights and every random generator of the run."""
    rules: str = "classic"
    """Gin Rummy rules preset or YAML path the games are played under."""
    reward: str = "scaled"
    """The vector engine's reward: ``points``, ``scaled`` (points / 100) or ``win_loss``."""
    win_bonus: float = 0.0
    """Added to the winner's reward of a hand, taken from the loser's (``with_win_bonus``)."""

    # rollout
    num_envs: int = 512
    """Games played at once on the vector engine."""
    rollout_steps: int = 32
    """Vector steps per update (each moves every game once)."""
    total_updates: int = 1000
    """PPO updates of the run (each plays ``num_envs`` x ``rollout_steps`` env steps)."""
    backend: str = "local"
    """Where the rollouts are played: ``local`` (in this process) or ``ray`` (Ray actors, on a
    cluster at ``ray_address`` or a Ray instance on this machine; ``train.ray_rollouts``)."""
    rollout_workers: int = 1
    """Rollout workers the ``num_envs`` games are split over (each its own deals and draws;
    Ray actors of one CPU each with ``backend: ray``). 1 with ``local``: the single-process trainer."""
    ray_address: Optional[str] = None
    """The Ray cluster to join with ``backend: ray`` (e.g. ``ray://head:10001`` or ``auto``); null: start Ray here."""

    # optimisation
    lr: float = 5e-4
    """Adam's learning rate."""
    anneal_lr: bool = True
    """Decay the learning rate linearly to 0 at ``total_updates``; a resume that changes
    ``total_updates`` continues the decay from the last update's rate (``train.lr_schedule``)."""
    gamma: float = 1.0
    """Discount; 1 by default: a hand is short and its score is what matters."""
    gae_lambda: float = 0.95
    """The GAE lambda of the advantages."""
    clip_coef: float = 0.2
    """PPO's clipping range of the probability ratio."""
    clip_vloss: bool = True
    """Clip the value loss around the old values as well."""
    ent_coef: float = 0.01
    """Weight of the entropy bonus (over legal actions only)."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Gradients are clipped to this norm."""
    update_epochs: int = 3
    """Passes over an update's rollout."""
    minibatch_size: int = 1024
    """Samples per gradient step."""
    target_kl: Optional[float] = None
    """Stop an update's epochs early past this KL (null: never)."""
    hidden: tuple[int, ...] = (256, 256)
    """Trunk layer widths."""
    card_hidden: int = 64
    """Width of the per-card head (``rummy_env.agents.gin.network.PolicyNet``)."""
    advice: bool = False
    """Also feed the heuristic's evaluation of the position (``rummy_env.agents.gin.heuristic_features``)."""
    critic: str = "shared"
    """The value baseline: ``shared`` (the policy network's value head) or ``oracle`` (a separate
    network that also sees the opponent's hand and the stock, ``rummy_env.train.critic``;
    training only)."""
    critic_hidden: tuple[int, ...] = (256, 256)
    """Layer widths of the oracle critic."""
    critic_warmup: int = 0
    """First updates in which only the value learns (a fresh critic on a trained policy)."""

    # self-play
    opponents: Mapping[str, float] = field(default_factory=lambda: {"simple": 0.75, "pool": 0.2, "heuristic": 0.05})
    """Weights of the opponent kinds a game is given at each deal (``OPPONENT_KINDS``: self,
    pool, random, simple, heuristic)."""
    heuristic_knock: str = "turn"
    """The knock rule of the ``heuristic`` opponent: ``turn`` (``heuristic:knock=turn``, fast)
    or ``estimate`` (the ``heuristic`` agent's default, the ``hard`` level: it samples the
    opponent's hand wherever it may knock, ``rummy_env.agents.gin.knock_vector``; a few
    milliseconds a decision)."""
    init_policy: Optional[str] = None
    """Start from the weights of a policy file or checkpoint (same network shape); null: fresh weights."""
    imitation_teacher: Optional[str] = None
    """Warm start: imitate a scripted teacher (``simple`` or ``heuristic``) before PPO
    (``rummy_env.train.imitation``); null: none."""
    imitation_samples: int = 150_000
    """Moves of the teacher collected for the warm start."""
    imitation_epochs: int = 10
    """Passes of the warm start over those moves."""
    imitation_lr: float = 1e-3
    """Learning rate of the warm start."""
    snapshot_every: int = 20
    """Updates between adding the current policy to the pool."""
    pool_size: int = 10
    """Most recent snapshots kept in the pool."""

    # evaluation, logging, checkpoints
    eval_every: int = 50
    """Updates between evaluations (0: never)."""
    eval_hands: int = 200
    """Hands of each evaluation, over duplicate deals (``eval_hands`` / 2 deals, seats swapped)."""
    eval_opponents: tuple[str, ...] = ("random", "simple", "heuristic")
    """Scripted opponents of the evaluations (random, simple, heuristic)."""
    checkpoint_every: int = 25
    """Updates between checkpoints (``checkpoint.pt`` and ``policy.pt``)."""
    torch_threads: int = 2
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
        out["critic_hidden"] = list(self.critic_hidden)
        out["eval_opponents"] = list(self.eval_opponents)
        out["opponents"] = dict(self.opponents)
        return out

    @property
    def steps_per_update(self) -> int:
        return self.num_envs * self.rollout_steps


def with_win_bonus(rewards: Any, win_bonus: float) -> Any:
    """The reward trained on: the env's reward plus ``win_bonus`` for the hand's winner and
    minus it for the loser (a drawn hand stays 0). Why: points alone teach a policy to win
    fewer, bigger hands; the bonus makes hands won count too. Still zero-sum."""
    return rewards + win_bonus * np.sign(rewards) if win_bonus else rewards


def _fail(name: str, value: Any, allowed: str) -> NoReturn:
    raise ValueError(f"training config field {name!r} = {value!r}: {allowed}")


def _validate(c: PPOConfig) -> None:
    positive = ("num_envs", "rollout_steps", "rollout_workers", "total_updates", "update_epochs", "minibatch_size", "pool_size",
                "snapshot_every", "checkpoint_every", "torch_threads", "eval_hands", "card_hidden",
                "imitation_samples", "imitation_epochs")
    for name in positive:
        value = getattr(c, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            _fail(name, value, "must be a positive integer")
    if isinstance(c.eval_every, bool) or not isinstance(c.eval_every, int) or c.eval_every < 0:
        _fail("eval_every", c.eval_every, "must be an integer >= 0 (0: no evaluation)")
    if c.eval_hands % 2:
        _fail("eval_hands", c.eval_hands, "must be even (each deal is played twice, seats swapped)")
    if c.imitation_teacher not in (None, "simple", "heuristic"):
        _fail("imitation_teacher", c.imitation_teacher, "choose simple, heuristic or null (no warm start)")
    if c.init_policy is not None:
        if not isinstance(c.init_policy, str) or not c.init_policy:
            _fail("init_policy", c.init_policy, "must be the path of a policy file or checkpoint, or null")
        if c.imitation_teacher is not None:
            _fail("init_policy", c.init_policy, f"a run starts from a policy or from imitation, not both "
                  f"(imitation_teacher is {c.imitation_teacher!r}; set it to null)")
    for name in ("lr", "clip_coef", "max_grad_norm", "imitation_lr"):
        if not float(getattr(c, name)) > 0:
            _fail(name, getattr(c, name), "must be > 0")
    for name in ("gamma", "gae_lambda"):
        if not 0.0 <= float(getattr(c, name)) <= 1.0:
            _fail(name, getattr(c, name), "must lie in [0, 1]")
    for name in ("ent_coef", "vf_coef", "win_bonus"):
        if float(getattr(c, name)) < 0:
            _fail(name, getattr(c, name), "must be >= 0")
    if c.target_kl is not None and not c.target_kl > 0:
        _fail("target_kl", c.target_kl, "must be > 0 or null")
    if c.backend not in BACKENDS:
        _fail("backend", c.backend, f"choose {' or '.join(BACKENDS)}")
    if c.rollout_workers > c.num_envs:
        _fail("rollout_workers", c.rollout_workers, f"must be at most num_envs ({c.num_envs}): each worker plays "
              "its share of the games")
    if c.ray_address is not None and (not isinstance(c.ray_address, str) or not c.ray_address):
        _fail("ray_address", c.ray_address, "must be a Ray address (e.g. ray://head:10001 or auto) or null")
    if c.heuristic_knock not in ("turn", "estimate"):
        _fail("heuristic_knock", c.heuristic_knock, "choose turn or estimate")
    if c.reward not in ("points", "scaled", "win_loss"):
        _fail("reward", c.reward, "choose points, scaled or win_loss")
    for name in ("hidden", "critic_hidden"):
        widths = getattr(c, name)
        if not widths or any(isinstance(h, bool) or not isinstance(h, int) or h < 1 for h in widths):
            _fail(name, widths, "must be a non-empty list of positive layer widths")
    if c.critic not in CRITICS:
        _fail("critic", c.critic, f"choose {' or '.join(CRITICS)}")
    if isinstance(c.critic_warmup, bool) or not isinstance(c.critic_warmup, int) or not 0 <= c.critic_warmup < c.total_updates:
        _fail("critic_warmup", c.critic_warmup, f"must be an integer >= 0 and below total_updates ({c.total_updates})")
    if c.critic_warmup and c.critic != "oracle":
        _fail("critic_warmup", c.critic_warmup, "needs critic: oracle (the shared value head's loss would move the "
              "policy's trunk too)")
    load_rules(c.rules)  # raises a clear error for an unknown preset or file
    unknown = sorted(set(c.opponents) - set(OPPONENT_KINDS))
    if unknown:
        _fail("opponents", dict(c.opponents), f"unknown kind(s) {unknown}; kinds: {', '.join(OPPONENT_KINDS)}")
    weights = [float(w) for w in c.opponents.values()]
    if any(w < 0 for w in weights) or sum(weights) <= 0:
        _fail("opponents", dict(c.opponents), "weights must be >= 0 with a positive sum")
    if not c.eval_opponents or any(o not in ("random", "simple", "heuristic") for o in c.eval_opponents):
        _fail("eval_opponents", c.eval_opponents, "choose among random, simple, heuristic")
    if not c.name or any(ch in c.name for ch in "/\\") or "__" in c.name:
        _fail("name", c.name, "must be non-empty, without slashes or '__' (run folders are NAME__SEED__TIME)")


_FIELDS = {f.name: f for f in dataclasses.fields(PPOConfig)}
_FLOATS = {name for name, hint in typing.get_type_hints(PPOConfig).items() if hint in (float, Optional[float])}


def _coerce(name: str, value: Any) -> Any:
    """A YAML or command-line value converted to the field's type."""
    default = _FIELDS[name].default if _FIELDS[name].default is not dataclasses.MISSING else None
    if isinstance(value, str) and name not in ("name", "rules", "reward", "runs_dir", "imitation_teacher", "init_policy",
                                               "critic", "backend", "ray_address"):
        value = parse_value(value, name)
    if name in ("hidden", "critic_hidden", "eval_opponents"):
        if isinstance(value, (int, str)):
            value = [value]
        if not isinstance(value, (list, tuple)):
            _fail(name, value, "must be a list")
        return tuple(value)
    if name == "opponents":
        if not isinstance(value, Mapping):
            _fail(name, value, f"must be a mapping of kind -> weight; kinds: {', '.join(OPPONENT_KINDS)}")
        return {kind: _number(f"opponents.{kind}", weight) for kind, weight in value.items()}
    if value is None and name in ("target_kl", "imitation_teacher", "init_policy", "ray_address"):
        return None
    if name in ("imitation_teacher", "init_policy", "ray_address") and value in ("null", "none", ""):
        return None
    if name in _FLOATS:
        return None if value is None else _number(name, value)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            _fail(name, value, "must be true or false")
    elif isinstance(default, int) and (isinstance(value, bool) or not isinstance(value, int)):
        _fail(name, value, "must be an integer")
    return value


def _number(name: str, value: Any) -> float:
    """A float field's value: a number, or text that reads as one. Why the text: YAML 1.1
    reads ``1e-4`` (no dot) as a string, and command-line overrides arrive as text."""
    number = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            pass
    if number is None or not math.isfinite(number):
        _fail(name, value, "must be a finite number, e.g. 0.0003 or 3e-4")
    return number


def make_config(values: Mapping[str, Any]) -> PPOConfig:
    """A config from a mapping (YAML's), refusing unknown fields."""
    unknown = sorted(set(values) - set(_FIELDS))
    if unknown:
        raise ValueError(f"unknown training config field(s) {unknown}; fields: {', '.join(_FIELDS)}")
    return PPOConfig(**{k: _coerce(k, v) for k, v in values.items()})


def load_config(path: Optional[Union[str, Path]] = None, overrides: Optional[Mapping[str, Any]] = None) -> PPOConfig:
    """The config in YAML file ``path`` (defaults if None) with ``overrides`` applied.

    Override keys are field names; ``opponents.KIND`` sets one opponent weight.
    """
    values: dict[str, Any] = {}
    if path is not None:
        values.update(read_mapping(path, "training config", "fields"))
    for key, value in (overrides or {}).items():
        if key.startswith("opponents."):
            kind = key.split(".", 1)[1]
            weights = dict(values.get("opponents", PPOConfig().opponents))
            weights[kind] = parse_value(value, key) if isinstance(value, str) else value
            values["opponents"] = weights
        else:
            values[key] = value
    return make_config(values)
