"""Knock decisions labelled by playing both choices out: a fine-tune of a trained policy
where PPO's own signal is weakest.

Why: whether to knock now or play on is the costliest choice of a hand and a rare one
(about one decision in twenty), and PPO's credit for it is a single noisy hand result.
Searching agents win much of their edge there (docs/findings/search.md). Here each of the
student's knock decisions is answered directly: the position is copied into a rollout
engine and played out both ways, the student's best knock (the showdown is then fixed)
against the student's best other move, played on ``stocks`` times with the stock
reshuffled, both seats moved by the vectorised ``heuristic``: the student's seat by its
turn rule (a stand-in for the student), the other seat by ``opponent_knock``'s rule, the
rule of the opponent the student's games are played against (``turn``, the default, or
``estimate``, the scripted ``heuristic``'s default knock estimate: against that opponent a
late knock is often undercut, and only labels made against it can show so). The value of a result is
its points plus ``win_bonus`` for winning the hand (minus for losing), from the
student's side; ``delta`` is the knock's value minus the mean of playing on. The label
is the better of the two moves; the fit weighs each label by ``|delta|``, so close
calls count little and clear ones much.

The rollouts start from the true deal (the opponent's real hand, the stock's real cards,
in their real order for the first of the ``stocks`` playings and reshuffled for the
others): the labels use hidden information, as an oracle critic does, but only
in training; the network that learns from them still reads the player's observation and
nothing else, and learns what is best on average over what it cannot see. The noise
left in a label is mostly the opponent's hand, which the reshuffles do not vary.

Only decisions where a knock is legal are asked (and some other move: not the knock that
must follow a take at the wall under ``wall_knock``); positions where Big Gin is legal are
left out altogether (it is always right, and the student's move there is not a label to
keep). A share ``anchor`` of the student's other decisions is kept with the student's
own move as the label: the network's card head scores discards and knocks alike, and a
fit on knock decisions alone would move the rest of the policy (``train.distill`` found
the same).

``collect`` plays the student (greedy) against the vectorised heuristic in chunks of
``chunk_hands`` hands; each chunk is written whole (``chunk-INDEX.npz``) the moment it
is done and a rerun skips the chunks already there, so a long collection can be stopped
and continued without losing or repeating work (one collection at a time per folder).
``labels.json`` records the settings and the policy file's hash; a collection with other
settings, or a fit of another policy, is refused. ``fit`` holds out every tenth chunk,
fits the rest for up to ``epochs`` epochs and keeps the epoch with the best held-out
gain (value per knock decision over always playing on), so too many epochs cannot
overfit the result (the gain reported for the kept epoch is the one it was chosen on,
so slightly optimistic: measure the result by play). ``rummy knock-labels`` does both.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

import numpy as np

from rummy_env.agents.gin.heuristic import KNOCK_RULES
from rummy_env.agents.gin.heuristic_vector import heuristic_actions
from rummy_env.gin.game import BIG_GIN, KNOCK, NUM_ACTIONS
from rummy_env.gin.vector import VectorGinRummy
from rummy_env.train.label_files import MANIFEST, open_folder, run_jobs, write_npz

if TYPE_CHECKING:
    from rummy_env.agents.gin.network import PolicyNet

LABELS_FORMAT = "rummy-env-knock-labels-v1"
FIELDS = ("obs", "mask", "label", "student", "delta", "knock", "other")
HELD_OUT_EVERY = 10  # chunks whose index % 10 == 9 are held out of the fit
_CHUNK_FILE = re.compile(r"chunk-(\d+)\.npz")
_NEG = -1e30


def _file_hash(path: Union[str, Path]) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _best(logp: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Per row, the most probable action among ``allowed`` (rows with none give -1)."""
    scores = np.where(allowed, logp, _NEG)
    best = scores.argmax(1)
    return np.where(allowed.any(1), best, -1)


def _values(points: np.ndarray, winner: np.ndarray, seats: np.ndarray, win_bonus: float) -> np.ndarray:
    """Hand results for the players in ``seats``: their points plus ``win_bonus`` if they
    won the hand, minus it if the other player did (nothing for a draw or a tie)."""
    won = np.where(winner == seats, 1.0, np.where(winner == 1 - seats, -1.0, 0.0))
    return points.astype(np.float64) + win_bonus * won


def reshuffle_stocks(env: VectorGinRummy, rows: np.ndarray, rng: np.random.Generator) -> None:
    """Put the cards left in the stock of games ``rows`` of ``env`` in a new random order
    (the rest of each deck, dealt or drawn cards, stays as it is)."""
    for g in np.asarray(rows, dtype=np.intp).tolist():
        start = int(env.stock_next[g])
        env.decks[g, start:] = rng.permutation(env.decks[g, start:])


def play_on(env: VectorGinRummy, rows: np.ndarray, others: np.ndarray, seats: np.ndarray, stocks: int,
            win_bonus: float, rng: np.random.Generator, opponent_knock: str = "turn") -> np.ndarray:
    """The mean value, for the player in ``seats``, of playing ``others`` (one move per
    game ``rows`` of ``env``) and then the heuristic for both seats to the end of the
    hand (the other seat with the knock rule ``opponent_knock``), over ``stocks`` orders of
    the stock (the first keeps the real order)."""
    k = rows.size
    sim = VectorGinRummy(k * stocks, env.rules, encoding=None, reward="points")
    sim.copy_games(env, np.repeat(rows, stocks), np.arange(k * stocks))
    reshuffle_stocks(sim, np.flatnonzero(np.arange(k * stocks) % stocks), rng)
    seat = np.repeat(seats, stocks)
    value = np.zeros(k * stocks)
    live = np.ones(k * stocks, dtype=bool)
    first = np.repeat(others, stocks).astype(np.int64)
    r = sim.step(first)
    while True:
        done = live & r.terminated
        value[done] = _values(r.rewards[done, seat[done]], r.winner[done], seat[done], win_bonus)
        live &= ~r.terminated
        if not live.any():
            break
        actions = np.zeros(k * stocks, dtype=np.int64)
        if opponent_knock == "turn":
            moving = np.flatnonzero(live)
            actions[moving] = heuristic_actions(sim, moving, rng)
        else:
            mover = sim.current.astype(np.int64)
            for rows_of, knock in ((np.flatnonzero(live & (mover == seat)), "turn"),
                                   (np.flatnonzero(live & (mover != seat)), opponent_knock)):
                if rows_of.size:
                    actions[rows_of] = heuristic_actions(sim, rows_of, rng, knock=knock)
        r = sim.step(actions, active=live)
    return value.reshape(k, stocks).mean(1)


def knock_values(env: VectorGinRummy, rows: np.ndarray, knocks: np.ndarray, seats: np.ndarray,
                 win_bonus: float) -> np.ndarray:
    """The value, for the player in ``seats``, of knocking with ``knocks`` in games
    ``rows`` (the showdown follows at once: no chance left)."""
    sim = VectorGinRummy(rows.size, env.rules, encoding=None, reward="points")
    sim.copy_games(env, rows, np.arange(rows.size))
    r = sim.step(knocks.astype(np.int64))
    if not r.terminated.all():
        raise ValueError("knocks must be knock actions (KNOCK + card), legal in their games")
    return _values(r.rewards[np.arange(rows.size), seats], r.winner, seats, win_bonus)


_DTYPES = {"obs": np.float32, "mask": bool, "label": np.int64, "student": np.int64, "delta": np.float32,
           "knock": np.int64, "other": np.int64}


def label_chunk(job: tuple[str, str, str, int, int, int, int, float, float, str, str]) -> int:
    """Play one chunk of hands and write ``chunk-INDEX.npz`` in the folder. ``job``:
    (policy file, its sha256, rules, seed, chunk index, hands, stocks, win_bonus, anchor,
    folder, opponent_knock)."""
    import torch

    from rummy_env.agents.gin.network import load_policy, vector_inputs

    policy, digest, rules, seed, index, hands, stocks, win_bonus, anchor, folder, opponent_knock = job
    if _file_hash(policy) != digest:
        raise ValueError(f"the policy file {policy!r} changed during the collection; collect into a new folder")
    net, _ = load_policy(policy)
    rng = np.random.default_rng([seed, index])
    env = VectorGinRummy(hands, rules, encoding="flat", reward="points", seed=int(rng.integers(2**63)))
    r = env.reset()
    student_seat = rng.integers(0, 2, size=hands)
    live = np.ones(hands, dtype=bool)
    parts: dict[str, list[np.ndarray]] = {k: [] for k in FIELDS}
    while live.any():
        player = env.current.astype(np.int64)
        mask = r.action_mask.astype(bool)
        actions = np.zeros(hands, dtype=np.int64)
        mine = np.flatnonzero(live & (player == student_seat))
        theirs = np.flatnonzero(live & (player != student_seat))
        if theirs.size:
            actions[theirs] = heuristic_actions(env, theirs, rng, knock=opponent_knock)
        if mine.size:
            inputs = vector_inputs(r.observation, env, mine, net.advice)[mine]
            m = mask[mine]
            with torch.no_grad():
                logp = net(torch.from_numpy(inputs), torch.from_numpy(m))[0].numpy()
            chosen = logp.argmax(1)
            actions[mine] = chosen
            knock_legal = m[:, KNOCK:BIG_GIN].any(1) & ~m[:, BIG_GIN]
            # a choice to make: not after a take at the wall (wall_knock), where only knocks are legal
            ask = np.flatnonzero(knock_legal & m[:, :KNOCK].any(1))
            if ask.size:
                knock_allowed = np.zeros_like(m[ask])
                knock_allowed[:, KNOCK:BIG_GIN] = m[ask, KNOCK:BIG_GIN]
                knock = _best(logp[ask], knock_allowed)
                other = _best(logp[ask], m[ask] & ~knock_allowed)
                rows = mine[ask]
                seats = student_seat[rows]
                delta = knock_values(env, rows, knock, seats, win_bonus) - play_on(
                    env, rows, other, seats, stocks, win_bonus, rng, opponent_knock)
                parts["obs"].append(inputs[ask])
                parts["mask"].append(m[ask])
                parts["label"].append(np.where(delta > 0, knock, other))
                parts["student"].append(chosen[ask])
                parts["delta"].append(delta.astype(np.float32))
                parts["knock"].append(knock)
                parts["other"].append(other)
            keep = np.flatnonzero(~knock_legal & ~m[:, BIG_GIN] & (m.sum(1) > 1) & (rng.random(mine.size) < anchor))
            if keep.size:
                parts["obs"].append(inputs[keep])
                parts["mask"].append(m[keep])
                parts["label"].append(chosen[keep])
                parts["student"].append(chosen[keep])
                parts["delta"].append(np.full(keep.size, np.nan, dtype=np.float32))
                parts["knock"].append(np.full(keep.size, -1))
                parts["other"].append(np.full(keep.size, -1))
        r = env.step(actions, active=live)
        live &= ~r.terminated
    empty = {"obs": (0, net.obs_size), "mask": (0, NUM_ACTIONS)}
    data = {k: np.concatenate(v).astype(_DTYPES[k]) if v else np.zeros(empty.get(k, (0,)), dtype=_DTYPES[k])
            for k, v in parts.items()}
    write_npz(Path(folder) / f"chunk-{index}.npz", data)
    return index


def _chunk_files(folder: Path) -> list[tuple[int, Path]]:
    found = [(_CHUNK_FILE.fullmatch(p.name), p) for p in folder.glob("chunk-*.npz")]
    return sorted((int(m.group(1)), p) for m, p in found if m)


def collect(policy: Union[str, Path], hands: int, folder: Union[str, Path], rules: str = "classic", seed: int = 0,
            stocks: int = 8, win_bonus: float = 25.0, anchor: float = 0.05, chunk_hands: int = 2000,
            workers: int = 1, progress: Optional[Callable[[int, int], None]] = None,
            opponent_knock: str = "turn") -> int:
    """Label the knock decisions of ``hands`` hands (rounded up to whole chunks; the total
    the folder should hold, not hands to add) of the policy in file ``policy`` against
    the heuristic with knock rule ``opponent_knock`` (``turn`` or ``estimate``), into
    ``folder``; chunks already there are kept. Returns how many
    chunks were played now. ``progress(done, total)``, in chunks: once at the start,
    then after each chunk."""
    from rummy_env.agents.gin.network import load_policy

    for name, value, low in (("hands", hands, 1), ("stocks", stocks, 1), ("chunk_hands", chunk_hands, 1),
                             ("workers", workers, 1)):
        if not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    if not 0 <= anchor <= 1:
        raise ValueError(f"anchor must be a share in [0, 1], got {anchor!r}")
    if opponent_knock not in KNOCK_RULES:
        raise ValueError(f"opponent_knock must be one of {', '.join(KNOCK_RULES)}, got {opponent_knock!r}")
    if not win_bonus >= 0:
        raise ValueError(f"win_bonus must be >= 0 (points), got {win_bonus!r}")
    if not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    net, meta = load_policy(policy)  # a bad file fails here, before any work
    trained_for = meta.get("rules") or "classic"
    if trained_for != rules:
        raise ValueError(f"the policy in {str(policy)!r} was trained for rules {trained_for!r}, not {rules!r}")
    folder = Path(folder)
    manifest = {"format": LABELS_FORMAT, "policy": str(policy), "policy_sha256": _file_hash(policy), "rules": rules,
                "seed": int(seed), "stocks": int(stocks), "win_bonus": float(win_bonus), "anchor": float(anchor),
                "chunk_hands": int(chunk_hands), "obs_size": int(net.obs_size), "opponent": "heuristic",
                "opponent_knock": opponent_knock}
    # the same contents under another path is the same policy
    open_folder(folder, manifest, folder.is_dir() and bool(_chunk_files(folder)), "chunk", ignore=("policy",))
    chunks = -(-hands // chunk_hands)
    todo = [i for i in range(chunks) if not (folder / f"chunk-{i}.npz").is_file()]
    jobs = [(str(policy), manifest["policy_sha256"], rules, int(seed), i, int(chunk_hands), int(stocks),
             float(win_bonus), float(anchor), str(folder), opponent_knock) for i in todo]
    done = chunks - len(todo)
    if progress is not None:
        progress(done, chunks)  # the chunks already there
    for _ in run_jobs(label_chunk, jobs, workers):
        done += 1
        if progress is not None:
            progress(done, chunks)
    return len(todo)


def _manifest_of(folder: Path) -> dict[str, Any]:
    try:
        made = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError) as exc:
        raise ValueError(f"{str(folder)!r} has no readable labels.json saying how its labels were made "
                         f"({type(exc).__name__}: {exc}); collect into a new folder") from None
    if made.get("format") != LABELS_FORMAT:
        raise ValueError(f"{str(folder)!r} holds labels of format {made.get('format')!r}, not {LABELS_FORMAT!r}")
    return made


def load(folder: Union[str, Path]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The labels in ``folder`` as (fit, held out): every tenth chunk is held out."""
    folder = Path(folder)
    files = _chunk_files(folder)
    if not files:
        raise FileNotFoundError(f"no labelled chunks (chunk-INDEX.npz) in {str(folder)!r}")
    size = _manifest_of(folder)["obs_size"]
    split: tuple[dict[str, list[np.ndarray]], dict[str, list[np.ndarray]]] = ({k: [] for k in FIELDS},
                                                                             {k: [] for k in FIELDS})
    for index, f in files:
        try:
            with np.load(f) as data:
                part = {k: data[k] for k in FIELDS}
        except Exception as exc:
            raise ValueError(f"{str(f)!r} is not a readable label file ({type(exc).__name__}: {exc}); "
                             "delete it and collect again") from None
        if part["obs"].shape[1] != size:
            raise ValueError(f"{str(f)!r} holds inputs of size {part['obs'].shape[1]}, labels.json says {size}")
        side = split[1] if index % HELD_OUT_EVERY == HELD_OUT_EVERY - 1 else split[0]
        for k in FIELDS:
            side[k].append(part[k])
    fit_part, held = ({k: np.concatenate(v) for k, v in side.items()} if side["obs"] else None for side in split)
    if fit_part is None:
        raise ValueError(f"{str(folder)!r} holds only held-out chunks; collect at least one more chunk")
    if held is None:
        held = {k: v[:0] for k, v in fit_part.items()}
    return fit_part, held


def gain(net: "PolicyNet", data: dict[str, np.ndarray], batch_size: int = 4096) -> dict[str, float]:
    """How ``net`` plays the labelled decisions, without training: ``gain``, the mean
    value (points and win bonus) per knock decision over always playing on: ``delta``
    where its most probable move is a knock, 0 where not (``delta`` was measured for the
    student's best knock and best discard; another knock card or discard is taken to be
    worth the same); ``knock_rate``; ``anchor_agreement``, the share of the other
    decisions where it plays the student's move."""
    import torch

    moves = np.zeros(len(data["label"]), dtype=np.int64)
    net.eval()
    with torch.no_grad():
        for start in range(0, len(moves), batch_size):
            part = slice(start, start + batch_size)
            logp, _ = net(torch.from_numpy(data["obs"][part]), torch.from_numpy(data["mask"][part]))
            moves[part] = logp.argmax(1).numpy()
    asked = ~np.isnan(data["delta"])
    knocks = (moves[asked] >= KNOCK) & (moves[asked] < BIG_GIN)
    anchors = ~asked
    return {"gain": float(np.where(knocks, data["delta"][asked], 0.0).mean()) if asked.any() else float("nan"),
            "knock_rate": float(knocks.mean()) if asked.any() else float("nan"),
            "anchor_agreement": float((moves[anchors] == data["label"][anchors]).mean()) if anchors.any()
            else float("nan")}


def fit(policy: Union[str, Path], folder: Union[str, Path], out: Union[str, Path], epochs: int = 6, lr: float = 3e-4,
        batch_size: int = 512, anchor_weight: float = 1.0, seed: int = 0,
        progress: Optional[Callable[[int, dict[str, float]], None]] = None) -> dict[str, Any]:
    """Fit the network in ``policy`` to the labels in ``folder`` and write the epoch with
    the best held-out gain to ``out`` (a policy file, ``ppo:OUT``); with no held-out
    chunk, the last epoch. Knock labels weigh ``|delta|`` over its mean, the student's
    own moves ``anchor_weight``. Returns the held-out figures before the fit
    (``before``), after each epoch (``epochs``), and which epoch was kept (``kept``, 0:
    none beat the policy as it was, which is then written unchanged)."""
    if not isinstance(epochs, (int, np.integer)) or epochs < 1:
        raise ValueError(f"epochs must be an integer >= 1, got {epochs!r}")
    if not lr > 0:
        raise ValueError(f"lr must be > 0, got {lr!r}")
    if not anchor_weight >= 0:
        raise ValueError(f"anchor_weight must be >= 0, got {anchor_weight!r}")
    import torch

    from rummy_env.agents.gin.network import load_policy, save_policy

    made = _manifest_of(Path(folder))
    if made.get("policy_sha256") != _file_hash(policy):
        raise ValueError(f"the labels in {str(folder)!r} were made with the policy {made.get('policy')!r}, whose "
                         f"contents differ from {str(policy)!r}; fit the policy that played the labelled games")
    net, meta = load_policy(policy)
    train_part, held = load(folder)
    if train_part["obs"].shape[1] != net.obs_size:
        raise ValueError(f"the labels hold inputs of size {train_part['obs'].shape[1]}; the network in "
                         f"{str(policy)!r} reads {net.obs_size} (labels made with another network?)")
    held_out = int((~np.isnan(held["delta"])).sum())
    check = held if held_out else train_part  # no held-out knock decision: report on the fit's own, keep the last
    asked = ~np.isnan(train_part["delta"])
    if not asked.any():
        raise ValueError(f"{str(folder)!r} holds no knock decisions to fit")
    size = np.abs(train_part["delta"][asked])
    weight = np.where(asked, np.abs(np.nan_to_num(train_part["delta"])) / max(size.mean(), 1e-9), anchor_weight)
    scale = float(weight.mean()) or 1.0  # one constant for every batch: each label keeps its own weight
    obs, mask = torch.from_numpy(train_part["obs"]), torch.from_numpy(train_part["mask"])
    label, w = torch.from_numpy(train_part["label"]), torch.from_numpy(weight.astype(np.float32))
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    before = gain(net, check)
    best, best_state, kept = before["gain"], {k: v.clone() for k, v in net.state_dict().items()}, 0
    history = []
    for epoch in range(1, epochs + 1):
        net.train()
        order = torch.randperm(len(label), generator=generator)
        for start in range(0, len(label), batch_size):
            idx = order[start : start + batch_size]
            logp, _ = net(obs[idx], mask[idx])
            loss = -(w[idx] * logp.gather(1, label[idx, None]).squeeze(1)).sum() / (len(idx) * scale)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        figures = gain(net, check)
        history.append(figures)
        if progress is not None:
            progress(epoch, figures)
        if figures["gain"] > best or (not held_out and epoch == epochs):
            best, best_state, kept = figures["gain"], {k: v.clone() for k, v in net.state_dict().items()}, epoch
    net.load_state_dict(best_state)
    save_policy(net, out, meta.get("rules") or "classic",
                {"knock_labels_from": str(policy), "labels": str(folder), "label_settings": made,
                 "decisions": int(asked.sum()), "epochs": epochs, "kept_epoch": kept, "lr": lr,
                 "anchor_weight": anchor_weight, "gain_measured_on": "held-out chunks" if held_out else "fitted labels",
                 "gain_before": before["gain"], "gain": best})
    return {"before": before, "epochs": history, "kept": kept, "held_out": held_out,
            "decisions": int(asked.sum()), "anchors": int((~asked).sum())}
