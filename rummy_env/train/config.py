"""Training-run settings for every game: one frozen dataclass, loaded from YAML, overridable field by field.

``rummy train --game basic --config configs/ppo_basic.yaml --lr 1e-4 --opponents.heuristic 0.2``
starts from the game's own defaults (``rummy_env/train/data/<game>.yaml``, package data:
the values that suit that game, e.g. Basic Rummy's table sizes and opponents; a game
without a file gets the dataclass defaults below), then reads the file, then applies
each command-line override (any field; one opponent weight by ``opponents.NAME``, one
table size by ``players.N``). Unknown fields and bad values get an error naming the field
and what is allowed, before anything runs: a typo must not silently train with a default.

What differs by game is checked by the game's training adapter (``rummy_env.train.adapter``):
the opponent kinds it can seat, the table sizes, the fields only its rollout source reads.
"""

from __future__ import annotations

import dataclasses
import math
import typing
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, NoReturn, Optional, Union


from rummy_env.core.game import DEFAULT_GAME, get_game
from rummy_env.core.yaml_files import parse_value, read_mapping
from rummy_env.train.rewards import REWARDS

# Value baselines (``critic``): the policy network's own value head, or an oracle critic
# that also reads the cards the player cannot see (training only; games whose adapter has one).
CRITICS = ("shared", "oracle")
# Where the rollouts run (``backend``): this process, or Ray actors (``train.ray_rollouts``).
BACKENDS = ("local", "ray")
# Where the hands of a game trained by hands are played (``rollouts``): its vector engine where it can, or either.
ROLLOUTS = ("auto", "engine", "hands")
GAME_DEFAULTS = resources.files(__package__) / "data"  # <game>.yaml: each game's own defaults


@dataclass(frozen=True)
class PPOConfig:
    """Every setting of a training run, for any game (``configs/ppo.yaml`` shows Gin Rummy's)."""

    game: str = DEFAULT_GAME
    """The game trained (``gin``, ``basic``, ``romme``, or any registered game): its own
    defaults (``rummy_env/train/data/*.yaml``) fill the fields a config leaves out."""
    name: str = "ppo"
    """Run name: the run folder is ``runs_dir/NAME__SEED__TIME`` (no slashes, no ``__``)."""
    seed: int = 0
    """Seeds the deals, the network's initial weights and every random generator of the run."""
    rules: Optional[str] = None
    """Rules preset or YAML path of the game the hands are played under (null: the game's default preset)."""
    players: Optional[Mapping[int, float]] = None
    """Table sizes a training hand is dealt for: one (``3``), a list (``[2, 4]``, evenly) or weights
    (``{2: 1, 4: 2}``); null: the game's smallest table. Evaluations play each of them."""
    reward: str = "scaled"
    """The hand's reward: ``points``, ``scaled`` (points / 100) or ``win_loss`` (+1, -1, 0)."""
    win_bonus: float = 0.0
    """Added to the winner's reward of a hand, taken from the loser's (``with_win_bonus``)."""

    # rollout
    num_envs: int = 512
    """Games played at once on a vector engine (Gin Rummy's ``VectorGinRummy``)."""
    rollout_steps: int = 32
    """Vector steps per update on a vector engine (each moves every game once)."""
    hands_per_update: int = 256
    """Hands played to the end for each update by every game but Gin Rummy (whose ``num_envs``
    games play on): on the game's vector engine or in-process, as ``rollouts`` says."""
    rollouts: str = "auto"
    """Where those hands are played: ``engine`` (the game's vector engine, one network forward a
    step over every hand a network is to move in: ``train.engine_rollouts``), ``hands`` (in this
    process, hand by hand: ``train.hands``) or ``auto`` (the engine wherever the game has a
    compiled one in use, every scripted opponent an array version and the network's input one
    the engine gives, else in-process).
    Gin Rummy's rollouts are its vector engine's whatever this says."""
    total_updates: int = 1000
    """PPO updates of the run."""
    backend: str = "local"
    """Where the rollouts are played: ``local`` (in this process) or ``ray`` (Ray actors, on a
    cluster at ``ray_address`` or a Ray instance on this machine; ``train.ray_rollouts``)."""
    rollout_workers: int = 1
    """Rollout workers an update's games are split over (each its own deals and draws;
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
    """Width of the per-card head (the Gin and Basic Rummy networks; others have none)."""
    advice: bool = False
    """Also feed the heuristic's evaluation of the position (Gin Rummy: ``rummy_env.agents.gin.heuristic_features``)."""
    scored_moves: str = "choices"
    """The moves Rommé's network scores: ``choices`` (the draws, the discards and the heuristic's
    move) or ``all`` (every legal move, by its type and card). Other games' networks score every
    move: ``choices``."""
    critic: str = "shared"
    """The value baseline: ``shared`` (the policy network's value head) or ``oracle`` (a separate
    network that also sees the cards the player cannot, training only; Gin Rummy's ``train.critic``)."""
    critic_hidden: tuple[int, ...] = (256, 256)
    """Layer widths of the oracle critic."""
    critic_warmup: int = 0
    """First updates in which only the value learns (a fresh critic on a trained policy)."""

    # self-play
    opponents: Mapping[str, float] = field(default_factory=lambda: {"random": 0.8, "pool": 0.2})
    """Weights of the opponent kinds a hand is given: ``self`` (the learner in every seat),
    ``pool`` (a past snapshot in every other seat) or one of the game's agents (e.g.
    ``heuristic``, ``random``; every other seat plays it)."""
    heuristic_knock: str = "turn"
    """Gin Rummy's vector ``heuristic`` opponent's knock rule: ``turn`` (``heuristic:knock=turn``, fast)
    or ``estimate`` (the ``heuristic`` agent's default; a few milliseconds a decision)."""
    init_policy: Optional[str] = None
    """Start from the weights of a policy file or checkpoint (same network shape); null: fresh weights."""
    imitation_teacher: Optional[str] = None
    """Warm start: imitate this agent of the game (e.g. ``heuristic``) before PPO, the network's
    value fitted to the results (``train.imitation``); null: none."""
    imitation_discards: str = "teacher"
    """Where the teacher throws another card than the heuristic would, the warm start imitates
    the ``teacher``'s discard or the heuristic's (``advice``: a network told the heuristic's move,
    Rommé's; those overrulings were found not to carry to new deals, docs/findings/romme-ppo.md)."""
    imitation_file: Optional[str] = None
    """Warm start from recorded moves instead of a teacher's hands: a file written by
    ``rummy export --view flat`` from a tournament of this game and rules played in hands
    (docs/traces.md), its agents' moves imitated; null: none."""
    imitation_samples: int = 150_000
    """Moves of the teacher collected (or the first moves of ``imitation_file`` read) for the
    warm start (0: no warm start)."""
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
    """Hands of each evaluation per opponent and table size, over duplicate deals: each deal
    played once with the learner in every seat (a multiple of every table size)."""
    eval_opponents: tuple[str, ...] = ("random",)
    """The game's agents the evaluations play against (greedy learner, the same deals every time)."""
    checkpoint_every: int = 25
    """Updates between checkpoints (``checkpoint.pt`` and ``policy.pt``)."""
    torch_threads: int = 2
    """CPU threads torch may use."""
    runs_dir: str = "runs"
    """Parent folder of the run folders."""
    progress: bool = True
    """Show a progress bar."""

    def __post_init__(self) -> None:
        if self.players is None and self.game in _games():  # the game's smallest table, written out (reloads equal)
            object.__setattr__(self, "players", self.table_sizes)
        _validate(self)

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        for name in ("hidden", "critic_hidden", "eval_opponents"):
            out[name] = list(getattr(self, name))
        out["opponents"] = dict(self.opponents)
        out["players"] = {int(k): float(v) for k, v in self.table_sizes.items()}
        return out

    @property
    def table_sizes(self) -> dict[int, float]:
        """``players`` with null read as the game's smallest table."""
        return dict(self.players) if self.players is not None else {get_game(self.game).min_players: 1.0}

    @property
    def steps_per_update(self) -> int:
        """Env steps of one update on a vector engine (``num_envs`` x ``rollout_steps``)."""
        return self.num_envs * self.rollout_steps


def _games() -> list[str]:
    from rummy_env.core.game import games

    return games()


def _fail(name: str, value: Any, allowed: str) -> NoReturn:
    raise ValueError(f"training config field {name!r} = {value!r}: {allowed}")


def _validate(c: PPOConfig) -> None:
    try:
        game = get_game(c.game)
    except ValueError as exc:
        _fail("game", c.game, str(exc))
    positive = ("num_envs", "rollout_steps", "hands_per_update", "rollout_workers", "total_updates", "update_epochs",
                "minibatch_size", "pool_size", "snapshot_every", "checkpoint_every", "torch_threads", "eval_hands",
                "card_hidden", "imitation_epochs")
    for name in positive:
        value = getattr(c, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            _fail(name, value, "must be a positive integer")
    for name in ("eval_every", "imitation_samples"):
        value = getattr(c, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            _fail(name, value, "must be an integer >= 0 (0: none)")
    sizes = c.table_sizes
    if not sizes or any(isinstance(k, bool) or not isinstance(k, int) or not game.min_players <= k <= game.max_players
                        for k in sizes):
        _fail("players", c.players, f"keys must be table sizes of {game.title}: {game.players_text}")
    bad = [n for n in sizes if c.eval_hands % n]
    if bad:
        _fail("eval_hands", c.eval_hands, f"must be a multiple of every table size in players ({sorted(sizes)}): "
              "each deal is played once with the learner in every seat")
    if c.init_policy is not None:
        if not isinstance(c.init_policy, str) or not c.init_policy:
            _fail("init_policy", c.init_policy, "must be the path of a policy file or checkpoint, or null")
        for name in ("imitation_teacher", "imitation_file"):
            if getattr(c, name) is not None and c.imitation_samples:
                _fail("init_policy", c.init_policy, f"a run starts from a policy or from imitation, not both "
                      f"({name} is {getattr(c, name)!r}; set it to null)")
    if c.imitation_file is not None:
        if not isinstance(c.imitation_file, str) or not c.imitation_file:
            _fail("imitation_file", c.imitation_file, "must be the path of a file written by rummy export --view flat, or null")
        if c.imitation_teacher is not None:
            _fail("imitation_file", c.imitation_file, f"a warm start imitates a teacher or a file, not both "
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
    for label, weights in (("players", sizes), ("opponents", c.opponents)):
        values = [float(w) for w in weights.values()]
        if any(w < 0 for w in values) or sum(values) <= 0:
            _fail(label, dict(weights), "weights must be >= 0 with a positive sum")
    if c.target_kl is not None and not c.target_kl > 0:
        _fail("target_kl", c.target_kl, "must be > 0 or null")
    if c.rollouts not in ROLLOUTS:
        _fail("rollouts", c.rollouts, f"choose {', '.join(ROLLOUTS)}")
    if c.backend not in BACKENDS:
        _fail("backend", c.backend, f"choose {' or '.join(BACKENDS)}")
    if c.ray_address is not None and (not isinstance(c.ray_address, str) or not c.ray_address):
        _fail("ray_address", c.ray_address, "must be a Ray address (e.g. ray://head:10001 or auto) or null")
    if c.heuristic_knock not in ("turn", "estimate"):
        _fail("heuristic_knock", c.heuristic_knock, "choose turn or estimate")
    if c.scored_moves not in ("choices", "all"):
        _fail("scored_moves", c.scored_moves, "choose choices or all")
    if c.imitation_discards not in ("teacher", "advice"):
        _fail("imitation_discards", c.imitation_discards, "choose teacher or advice")
    if c.reward not in REWARDS:
        _fail("reward", c.reward, f"choose {', '.join(REWARDS)}")
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
    if not c.eval_opponents or any(not isinstance(o, str) or not o for o in c.eval_opponents):
        _fail("eval_opponents", c.eval_opponents, f"must be a list of {game.title} agents, e.g. [random]")
    if not c.name or any(ch in c.name for ch in "/\\") or "__" in c.name:
        _fail("name", c.name, "must be non-empty, without slashes or '__' (run folders are NAME__SEED__TIME)")
    try:
        game.load_rules(c.rules)
    except (ValueError, OSError, TypeError) as exc:
        _fail("rules", c.rules, str(exc))
    from rummy_env.train.adapter import adapter_for  # the game's own checks: its kinds, sizes and fields

    adapter_for(game).check(c, _fail)


_FIELDS = {f.name: f for f in dataclasses.fields(PPOConfig)}
_FLOATS = {name for name, hint in typing.get_type_hints(PPOConfig).items() if hint in (float, Optional[float])}
_TEXT = ("game", "name", "rules", "reward", "runs_dir", "imitation_teacher", "imitation_file", "init_policy", "critic",
         "backend", "ray_address", "heuristic_knock", "rollouts", "scored_moves", "imitation_discards")
_NULLABLE = ("rules", "players", "target_kl", "imitation_teacher", "imitation_file", "init_policy", "ray_address")


def _coerce(name: str, value: Any) -> Any:
    """A YAML or command-line value converted to the field's type."""
    default = _FIELDS[name].default if _FIELDS[name].default is not dataclasses.MISSING else None
    if isinstance(value, str) and name not in _TEXT:
        value = parse_value(value, name)
    if name in _NULLABLE and (value is None or (isinstance(value, str) and value.lower() in ("null", "none", ""))):
        return None
    if name in ("hidden", "critic_hidden", "eval_opponents"):
        if isinstance(value, (int, str)):
            value = [value]
        if not isinstance(value, (list, tuple)):
            _fail(name, value, "must be a list")
        return tuple(value)
    if name == "opponents":
        if not isinstance(value, Mapping):
            _fail(name, value, "must be a mapping of kind -> weight, e.g. {heuristic: 0.8, pool: 0.2}")
        return {str(kind): _number(f"opponents.{kind}", weight) for kind, weight in value.items()}
    if name == "players":
        if isinstance(value, int) and not isinstance(value, bool):
            value = {value: 1.0}  # one table size
        elif isinstance(value, (list, tuple)):
            value = {n: 1.0 for n in value}  # table sizes, evenly
        if not isinstance(value, Mapping):
            _fail(name, value, "must be a table size (3), a list of them ([2, 4]) or a mapping of table size -> "
                  "weight ({2: 1, 4: 2})")
        return {_table_size(k): _number(f"players.{k}", w) for k, w in value.items()}
    if name in _FLOATS:
        return None if value is None else _number(name, value)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            _fail(name, value, "must be true or false")
    elif isinstance(default, int) and (isinstance(value, bool) or not isinstance(value, int)):
        _fail(name, value, "must be an integer")
    elif name in _TEXT and not isinstance(value, str):
        _fail(name, value, "must be text")
    return value


def _default(name: str) -> Any:
    f = _FIELDS[name]
    return f.default_factory() if f.default is dataclasses.MISSING else f.default  # type: ignore[misc]


def _table_size(key: Any) -> int:
    try:
        return int(key)
    except (TypeError, ValueError):
        _fail("players", key, "keys must be table sizes (whole numbers)")


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


def game_defaults(game: str) -> dict[str, Any]:
    """The game's own defaults (``rummy_env/train/data/*.yaml``); {} for a game without a file."""
    name = get_game(game).name
    source = GAME_DEFAULTS / f"{name}.yaml"
    if not source.is_file():
        return {}
    with resources.as_file(source) as path:
        return read_mapping(path, f"{name} training defaults", "fields")


def make_config(values: Mapping[str, Any]) -> PPOConfig:
    """A config from a mapping (YAML's), refusing unknown fields; the fields it leaves out
    take the game's defaults (``game_defaults``), then the dataclass's."""
    unknown = sorted(set(values) - set(_FIELDS))
    if unknown:
        raise ValueError(f"unknown training config field(s) {unknown}; fields: {', '.join(_FIELDS)}")
    game = _coerce("game", values.get("game", DEFAULT_GAME))
    try:
        defaults = game_defaults(game)
    except ValueError as exc:
        _fail("game", game, str(exc))
    merged = {**defaults, **values, "game": game}
    return PPOConfig(**{k: _coerce(k, v) for k, v in merged.items()})


def load_config(path: Optional[Union[str, Path]] = None, overrides: Optional[Mapping[str, Any]] = None) -> PPOConfig:
    """The config in YAML file ``path`` (the game's defaults if None) with ``overrides`` applied.

    Override keys are field names; ``opponents.KIND`` sets one opponent weight and
    ``players.N`` one table size's weight.
    """
    values: dict[str, Any] = {}
    if path is not None:
        values.update(read_mapping(path, "training config", "fields"))
    overrides = dict(overrides or {})
    if "game" in overrides:
        values["game"] = overrides.pop("game")
    game = _coerce("game", values.get("game", DEFAULT_GAME))
    try:
        base = {**game_defaults(game), **values}
    except ValueError as exc:
        _fail("game", game, str(exc))
    for key, value in overrides.items():
        head, dot, sub = key.partition(".")
        if dot and head in ("opponents", "players"):
            current = base.get(head)  # the file's, the game's or an earlier override's (a list or size too)
            weights = dict(_coerce(head, current) if current is not None else _default(head) or {})
            weights[_table_size(sub) if head == "players" else sub] = parse_value(value, key) if isinstance(value, str) else value
            values[head] = base[head] = weights
        else:
            values[key] = base[key] = value
    return make_config(values)
