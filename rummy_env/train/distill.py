"""Distilling a search agent into the policy network: a search teacher labels the moves
of the network's own games, and the network is fitted to those labels (DAgger).

Why: PPO from the heuristic's play stays level with the heuristic (docs/findings/ppo.md), while ``mcts``, a one-step search over the heuristic, beats it by about 4
points a hand at a second a move. A network that plays the search's moves would carry
that strength at the network's speed. This is the imitation step of expert iteration
(Anthony et al., 2017) with DAgger's data (Ross et al., 2011): the student plays its own
moves, so the positions labelled are the ones the student reaches, and at each of its
decisions the teacher is asked what it would play in the student's place, from the
student's own observation and info (the teacher sees no more than the student).

``collect`` plays hands of the student against an opponent in parallel and writes one
file per hand (``hand-SEED.npz``: the network's inputs, the legal masks, the teacher's
and the student's moves and the student's result of the hand), each written whole the
moment its hand ends; a rerun skips the hands already there, so a long collection can
be stopped and continued without losing or repeating work. The folder's ``labels.json``
says how its labels were made (student, teacher, opponent, rules, win bonus, input
size, which decisions); a collection with other settings is refused rather than mixed
in. ``fit`` then trains the student's network on them (``train.imitation.pretrain``:
cross-entropy on the teacher's moves, the value on the results as the ``scaled``
reward: points / 100 plus the win bonus, as in training). ``rummy distill`` does both.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable, Optional, Union

import numpy as np

from rummy_env import agents
from rummy_env.agents.arena import play_hand
from rummy_env.agents.base import Agent
from rummy_env.agents.gin.ppo import PPOAgent
from rummy_env.gin.game import BIG_GIN, KNOCK, NUM_ACTIONS
from rummy_env.train.rewards import with_win_bonus
from rummy_env.train.label_files import MANIFEST, open_folder, run_jobs, write_npz

LABEL_FIELDS = ("obs", "mask", "act", "student", "ret")
DECISIONS = ("all", "knock")  # whom the teacher labels: every real decision, or those where a knock is legal
LABELS_FORMAT = "rummy-env-labels-v1"
_HAND_FILE = re.compile(r"hand-(-?\d+)\.npz")


class _Labeller(Agent):
    """Plays the student's moves; records the teacher's answer at each real decision. With
    ``only_knocks`` the teacher is asked only where a knock or Big Gin is legal, and the
    other decisions are labelled with the student's own move: an anchor that keeps the
    fit from changing the rest of the policy (a fit on knock decisions alone wrecked it:
    the card head that scores knocks also scores every discard)."""

    game = "gin"

    def __init__(self, student: PPOAgent, teacher: Agent, only_knocks: bool = False) -> None:
        super().__init__(None)
        self.student, self.teacher, self.only_knocks = student, teacher, only_knocks
        self.rows: list[tuple[np.ndarray, np.ndarray, int, int]] = []

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        action = self.student.act(observation, info)
        mask = observation["action_mask"].astype(bool)
        if mask.sum() > 1:
            asked = not self.only_knocks or mask[KNOCK : BIG_GIN + 1].any()
            if asked:
                label = self.teacher.act(observation, info)
            else:  # counted all the same: the teacher's random draws follow its decision index
                self.teacher.next_decision()
                label = action
            self.rows.append((self.student.inputs(observation, info), mask, int(label), action))
        return action


def label_hand(job: tuple[str, str, str, str, int, float, str, str]) -> int:
    """One hand of the student against the opponent, its decisions labelled by the teacher.
    ``job``: (student, teacher, opponent specs, rules, seed, win_bonus, folder, decisions);
    the student sits in seat ``seed % 2``. Writes ``hand-SEED.npz`` in the folder; returns
    the seed."""
    student_spec, teacher_spec, opponent_spec, rules, seed, win_bonus, folder, decisions = job
    student = agents.make(student_spec, seed=seed)
    if not isinstance(student, PPOAgent):
        raise ValueError(f"the student must be a ppo agent (its network is what is trained), got {student_spec!r}")
    spy = _Labeller(student, agents.make(teacher_spec, seed=seed), only_knocks=decisions == "knock")
    seat = seed % 2
    opponent = agents.make(opponent_spec, seed=seed + 1_000_003)
    result = play_hand([spy, opponent] if seat == 0 else [opponent, spy], rules=rules, seed=seed)
    ret = float(with_win_bonus(np.float32(result.rewards[seat] / 100), win_bonus))
    size = student.net.obs_size
    data = {
        "obs": np.array([r[0] for r in spy.rows], dtype=np.float32).reshape(-1, size),
        "mask": np.array([r[1] for r in spy.rows], dtype=bool).reshape(-1, NUM_ACTIONS),
        "act": np.array([r[2] for r in spy.rows], dtype=np.int64),
        "student": np.array([r[3] for r in spy.rows], dtype=np.int64),
        "ret": np.full(len(spy.rows), ret, dtype=np.float32),
    }
    write_npz(Path(folder) / f"hand-{seed}.npz", data)
    return seed


def _manifest(student: str, teacher: str, opponent: str, rules: str, win_bonus: float, obs_size: int,
              decisions: str) -> dict[str, Any]:
    return {"format": LABELS_FORMAT, "student": student, "teacher": teacher, "opponent": opponent, "rules": rules,
            "win_bonus": float(win_bonus), "obs_size": int(obs_size), "decisions": decisions}


def _hand_files(folder: Path) -> list[tuple[int, Path]]:
    """The label files of ``folder`` as (seed, path), in seed order (temporary files of an
    interrupted write are not label files)."""
    found = [(_HAND_FILE.fullmatch(p.name), p) for p in folder.glob("hand-*.npz")]
    return sorted((int(m.group(1)), p) for m, p in found if m)


def collect(student: str, teacher: str, opponent: str, hands: int, folder: Union[str, Path], rules: str = "classic",
            seed: int = 0, win_bonus: float = 0.1, workers: int = 1, decisions: str = "all",
            progress: Optional[Callable[[int, int], None]] = None) -> int:
    """Label the hands ``seed .. seed + hands - 1`` not yet in ``folder``; returns how many
    were played now. ``decisions``: ``all`` (the teacher labels every decision with more
    than one legal move) or ``knock`` (the teacher labels those where a knock is legal,
    the rarest and costliest choice, and the student's own moves label the others).
    ``progress(done, total)`` after each hand."""
    if decisions not in DECISIONS:
        raise ValueError(f"decisions must be one of {', '.join(DECISIONS)}, got {decisions!r}")
    if hands < 1:
        raise ValueError(f"hands must be >= 1, got {hands}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    learner = agents.make(student)  # a bad spec fails here, before any work
    for spec in (teacher, opponent):
        agents.make(spec)
    if not isinstance(learner, PPOAgent):
        raise ValueError(f"the student must be a ppo agent (its network is what is trained), got {student!r}")
    folder = Path(folder)
    manifest = _manifest(student, teacher, opponent, rules, win_bonus, learner.net.obs_size, decisions)
    open_folder(folder, manifest, folder.is_dir() and bool(_hand_files(folder)), "label")
    todo = [s for s in range(seed, seed + hands) if not (folder / f"hand-{s}.npz").is_file()]
    jobs = [(student, teacher, opponent, rules, s, win_bonus, str(folder), decisions) for s in todo]
    done = hands - len(todo)
    for _ in run_jobs(label_hand, jobs, workers):
        done += 1
        if progress is not None:
            progress(done, hands)
    return len(todo)


def load(folder: Union[str, Path]) -> dict[str, np.ndarray]:
    """Every hand's labels in ``folder`` (in seed order), as one dataset for ``fit``."""
    return _load_files(Path(folder), _hand_files(Path(folder)))


def load_split(folder: Union[str, Path], holdout: float) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The labels of ``folder`` as (fit, held out): the last ``holdout`` share of its hands
    (by seed, at least one) held out whole, so that no hand lends decisions to both and
    the held-out agreement measures what the fit learned, not what it memorised."""
    if not 0 < holdout < 1:
        raise ValueError(f"holdout must be a share between 0 and 1 (e.g. 0.1), got {holdout}")
    folder = Path(folder)
    files = _hand_files(folder)
    if len(files) < 2:
        raise ValueError(f"holding hands out needs at least 2 labelled hands in {str(folder)!r}, found {len(files)}")
    kept = min(len(files) - 1, max(1, round(len(files) * holdout)))
    return _load_files(folder, files[:-kept]), _load_files(folder, files[-kept:])


def heldout(policy: Union[str, Path], data: dict[str, np.ndarray], batch_size: int = 4096) -> dict[str, float]:
    """How often the network in ``policy`` plays the teacher's move on labels it was not
    fitted to: over all of them (``agreement``), where the teacher kept the labelling
    student's move (``kept``) and where it played another (``changed``, NaN if none).
    A fit that learned the teacher raises ``changed`` without lowering ``kept``."""
    from rummy_env.agents.gin.network import load_policy

    net, _ = load_policy(policy)
    hit = _moves(net, data, batch_size)[0] == data["act"]
    changed = data["act"] != data["student"]
    return {"labels": float(len(hit)), "agreement": float(hit.mean()),
            "kept": float(hit[~changed].mean()) if (~changed).any() else float("nan"),
            "changed": float(hit[changed].mean()) if changed.any() else float("nan"),
            "changed_labels": float(changed.sum())}


def _load_files(folder: Path, files: list[tuple[int, Path]]) -> dict[str, np.ndarray]:
    if not files:
        raise FileNotFoundError(f"no labelled hands (hand-SEED.npz) in {str(folder)!r}")
    size = json.loads((folder / MANIFEST).read_text())["obs_size"] if (folder / MANIFEST).is_file() else None
    parts: dict[str, list[np.ndarray]] = {k: [] for k in LABEL_FIELDS}
    for _, f in files:
        try:
            with np.load(f) as data:
                for k in LABEL_FIELDS:
                    parts[k].append(data[k])
        except Exception as exc:
            raise ValueError(f"{str(f)!r} is not a readable label file ({type(exc).__name__}: {exc}); "
                             "delete it and collect again") from None
        size = parts["obs"][-1].shape[1] if size is None else size
        if parts["obs"][-1].shape[1] != size:
            raise ValueError(f"{str(f)!r} holds inputs of size {parts['obs'][-1].shape[1]}, the folder's others {size}")
    return {k: np.concatenate(v) for k, v in parts.items()}


def _moves(net: Any, data: dict[str, np.ndarray], batch_size: int) -> tuple[np.ndarray, np.ndarray]:
    """``net``'s most probable move at each labelled decision, and the log-probability it
    gives the label, without training."""
    import torch

    best, logp_label = [], []
    net.eval()
    with torch.no_grad():
        for start in range(0, len(data["act"]), batch_size):
            part = slice(start, start + batch_size)
            logp, _ = net(torch.from_numpy(data["obs"][part]), torch.from_numpy(data["mask"][part]))
            best.append(logp.argmax(1))
            logp_label.append(logp.gather(1, torch.from_numpy(data["act"][part])[:, None])[:, 0])
    return torch.cat(best).numpy(), torch.cat(logp_label).double().numpy()


def agreement(net: Any, data: dict[str, np.ndarray], batch_size: int = 4096) -> tuple[float, float]:
    """(share of moves where ``net``'s most probable move is the label, mean cross-entropy
    of the labels), without training."""
    best, logp_label = _moves(net, data, batch_size)
    return float(np.mean(best == data["act"])), float(-logp_label.mean())


def fit(policy: Union[str, Path], data: dict[str, np.ndarray], out: Union[str, Path], epochs: int = 3,
        lr: float = 3e-4, batch_size: int = 512, seed: int = 0) -> dict[str, float]:
    """Train the network in policy file ``policy`` on the teacher's labels; write the result
    to ``out`` (a policy file, usable as ``ppo:OUT``). Returns ``agreement`` (the share of
    labelled moves where the network's most probable move is the teacher's) and
    ``policy_loss`` (the labels' mean cross-entropy) after the fit, the same with
    ``_before`` before it, and ``value_loss`` (the fit's last epoch)."""
    if epochs < 1:
        raise ValueError(f"epochs must be >= 1, got {epochs}")
    if not lr > 0:
        raise ValueError(f"lr must be > 0, got {lr}")
    import torch

    from rummy_env.train.imitation import pretrain
    from rummy_env.agents.gin.network import load_policy, save_policy

    net, meta = load_policy(policy)
    if data["obs"].shape[1] != net.obs_size:
        raise ValueError(f"the labels hold inputs of size {data['obs'].shape[1]}; the network in {str(policy)!r} "
                         f"reads {net.obs_size} (labels made with another network?)")
    before = agreement(net, data)
    stats = pretrain(net, data, epochs, lr, batch_size, torch.Generator().manual_seed(seed))
    after = agreement(net, data)
    save_policy(net, out, meta.get("rules") or "classic",
                {"distilled_from": str(policy), "labels": int(len(data["act"])), "epochs": epochs, "lr": lr})
    return {"agreement": after[0], "policy_loss": after[1], "agreement_before": before[0],
            "policy_loss_before": before[1], "value_loss": stats["value_loss"]}
