"""A warm start for PPO, for every game: imitate a scripted teacher before learning by reinforcement.

From scratch, PPO spends its first millions of steps learning what any scripted player
knows (discard the card that leaves the least deadwood, knock when you may). Imitation
copies the teacher's moves instead: the game's training adapter collects teacher-vs-teacher
hands (``TrainingAdapter.imitation_data``: Gin Rummy's on its vector engine, the others'
in-process and kept in the run's folder as they end: ``rummy_env.train.teacher_moves``),
recording for every move the mover's input, legal mask, the teacher's action and the
mover's result of the hand; ``pretrain`` fits the policy to the actions (cross-entropy
over legal moves) and the value to the results, so PPO then starts from the teacher's
strength with a value function that already fits it. Enabled by ``imitation_teacher`` in
the training config. A teacher may play moves the network never chooses (Rommé's network
leaves building a meld to the heuristic's planner): those decisions are left out of the
policy's fit, counted as ``unplayable``, and still fit the value.

Or the moves come from a file (``imitation_file``): decisions exported from a
tournament's records by ``rummy export --view flat`` (``rummy_env.eval.export``), e.g. a
strong but slow agent's, or a person's, imitated as a teacher's. ``file_moves`` reads
them, refusing (one line naming the file, line and field) a file of another game, other
rules, another view, a match's decisions or a table size the run does not play: the
network would learn positions it never meets, or inputs it does not read.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from rummy_env.train.rewards import hand_reward


def file_moves(config: Any, adapter: Any) -> dict[str, np.ndarray]:
    """The warm start's data from ``config.imitation_file`` (the first ``imitation_samples``
    decisions): each line's observation, legal mask, chosen move and the seat's hand reward
    (as ``reward`` and ``win_bonus`` say, the value's target). The lines must be of this
    run's game and rules, in the view the network reads (``adapter.engine_encoding``:
    ``flat``), of single hands, at a table size of ``players``."""
    from rummy_env.core.traces import read_decisions

    game, path = adapter.game, config.imitation_file
    rules = game.load_rules(config.rules)
    view = adapter.engine_encoding
    size = int(np.prod(game.encoding(view).shape(rules)))
    sizes = sorted(config.table_sizes)
    obs, mask, act, ret = [], [], [], []
    for number, line in read_decisions(path):
        where = f"imitation_file {path} line {number}"
        if line["game"] != game.name:
            raise ValueError(f"{where}: a decision of {line['game']!r}, but this run trains {game.name!r}; export a "
                             f"tournament of {game.title}")
        try:
            theirs = game.load_rules(line["rules"]).to_dict()
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{where}: its rules are not {game.title}'s ({exc})") from None
        differ = [name for name, value in rules.to_dict().items() if theirs[name] != value]
        if differ:
            raise ValueError(f"{where}: played under other rules than this run's {config.rules or game.default_preset!r} "
                             f"({', '.join(f'{n}: {theirs[n]!r} there, {getattr(rules, n)!r} here' for n in differ)})")
        if line["view"] != view:
            raise ValueError(f"{where}: view {line['view']!r}, but the network reads the {view!r} observation; "
                             f"export with --view {view}")
        if line["mode"] != "hands":
            raise ValueError(f"{where}: a decision of a match (its observation holds the match points), but the "
                             "trainer plays single hands; export a tournament played in hands")
        if line["num_players"] not in sizes:
            raise ValueError(f"{where}: a decision at a table of {line['num_players']}, but this run plays tables of "
                             f"{', '.join(map(str, sizes))} (players)")
        legal = [move["id"] for move in line["legal"]]
        if len(line["observation"]) != size or line["action"]["id"] not in legal or \
                not all(0 <= a < game.num_actions for a in legal):
            raise ValueError(f"{where}: an observation that is not {size} numbers, or a move outside the legal ones")
        obs.append(line["observation"])
        row = np.zeros(game.num_actions, dtype=bool)
        row[legal] = True
        mask.append(row)
        act.append(line["action"]["id"])
        ret.append(float(hand_reward(line["reward"], config.reward, config.win_bonus)))
        if len(act) >= config.imitation_samples:
            break
    if not act:
        raise ValueError(f"imitation_file {path} holds no decisions")
    return {"obs": np.array(obs, dtype=np.float32), "mask": np.array(mask, dtype=bool),
            "act": np.array(act, dtype=np.int64), "ret": np.array(ret, dtype=np.float32)}


UNPLAYABLE = -1e6  # a log-probability below this: the network never plays that move (its logit is masked out)


def pretrain(net: torch.nn.Module, data: dict[str, np.ndarray], epochs: int, lr: float, batch_size: int,
             generator: torch.Generator) -> dict[str, float]:
    """Fit ``net`` to the teacher's moves and results (any network ``net(obs, mask) ->
    (log-probabilities, values)`` over its ``num_actions``); returns the last epoch's losses,
    the share of moves where the policy's most probable action is the teacher's, and the
    share of the teacher's moves the network cannot play (left out of the policy's loss)."""
    obs = torch.from_numpy(data["obs"])
    mask = torch.from_numpy(data["mask"])
    act = torch.from_numpy(data["act"])
    ret = torch.from_numpy(data["ret"])
    if mask.shape[1] != net.num_actions or not bool(mask[torch.arange(len(act)), act].all()):
        raise ValueError("imitation data holds actions outside their legal masks")
    net.eval()
    with torch.no_grad():  # which moves the network can play depends on its input, not its weights
        playable = torch.cat([net(obs[i : i + 4096], mask[i : i + 4096])[0].gather(1, act[i : i + 4096, None])[:, 0]
                              > UNPLAYABLE for i in range(0, len(act), 4096)])
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    net.train()
    stats: dict[str, float] = {}
    for _ in range(epochs):
        order = torch.randperm(len(act), generator=generator)
        totals = {"policy_loss": 0.0, "value_loss": 0.0, "agreement": 0.0}
        for start in range(0, len(act), batch_size):
            idx = order[start : start + batch_size]
            logp, value = net(obs[idx], mask[idx])
            keep = playable[idx]
            chosen = logp.gather(1, act[idx, None])[:, 0]
            policy_loss = -torch.where(keep, chosen, torch.zeros_like(chosen)).sum() / max(1, int(keep.sum()))
            value_loss = 0.5 * ((value - ret[idx]) ** 2).mean()
            optimizer.zero_grad()
            (policy_loss + value_loss).backward()
            optimizer.step()
            with torch.no_grad():
                totals["policy_loss"] += float(policy_loss) * len(idx)
                totals["value_loss"] += float(value_loss) * len(idx)
                totals["agreement"] += float((logp.argmax(1) == act[idx]).float().sum())
        stats = {k: v / len(act) for k, v in totals.items()}
        stats["unplayable"] = 1.0 - float(playable.float().mean())
    net.eval()
    return stats
