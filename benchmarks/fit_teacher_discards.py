"""Can a network learn where a teacher overrules Rommé's heuristic at the discard? An
offline check on the teacher's moves a Rommé run kept (``RUN/imitation/teacher-*.npz``,
written by ``rummy train`` with ``imitation_teacher``), with batches held out.

Rommé's network reads the heuristic's move as advice (``rummy_env.agents.romme.network``)
and can only gain where it plays another move, and play it well. In the search's moves
(``configs/romme_search.yaml``) three in four of those overrulings are discards. This
script keeps the decisions where the advice and the teacher's move are both discards,
fits two scorers of the 53 discard kinds on the first batches, and measures them on the
batches held out (whose deals no fit saw):

- ``flat``: an MLP over the flat encoding and the advised kind (as the shipped
  network's trunk reads them), 53 logits, plus a learned bonus on the advised one;
- ``per-card``: one small MLP applied to each kind, reading that kind's entries in the
  card slices (hand, pile, table, each seat's known cards and discards, lay-off targets
  ...), the same entries of its neighbours (same suit, one and two ranks away; same rank,
  other suits), whether it is the advice, and a summary of the scalars: a rule learned
  once for all 53 kinds, as Basic Rummy's discard head learns it.

For each it prints, every few epochs, on the held-out decisions: how often its choice
is the teacher's (against ``advice`` = always the heuristic's), how often it leaves the
advice, and how many of those departures are the teacher's move. A scorer that has
learned where to overrule departs often and is right when it does; one that has not
either follows the advice or departs wrongly.

    python benchmarks/fit_teacher_discards.py RUN_DIR [--held-out 11] [--epochs 30]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import machine  # noqa: E402

import torch  # noqa: E402
from torch import nn  # noqa: E402

from rummy_env.romme import layout as L  # noqa: E402
from rummy_env.romme.cards import NUM_KINDS  # noqa: E402
from rummy_env.romme.game import DISCARD  # noqa: E402

OWN = range(L.SLOT_0)  # the card slices before the table's slots (hand .. taken)
NEIGHBOURS = (L.HAND, L.TABLE, L.DISCARD_PILE, L.LAYOFF_TARGETS, *range(L.KNOWN_REL1, L.KNOWN_REL1 + 5),
              *range(L.DISCARDED_REL1, L.DISCARDED_REL1 + 5))


def discard_decisions(files: list[Path]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(observations, teacher's kinds, advised kinds, discard masks) of the decisions where
    the advice and the teacher's move are both discards."""
    parts: list[list[np.ndarray]] = [[], [], [], []]
    for f in files:
        with np.load(f) as d:
            advice, act = d["obs"][:, -1].astype(np.int64), d["act"]
            keep = (advice >= DISCARD) & (advice < DISCARD + NUM_KINDS) & (act >= DISCARD) & (act < DISCARD + NUM_KINDS)
            for part, x in zip(parts, (d["obs"][keep, :L.FLAT_SIZE], act[keep] - DISCARD, advice[keep] - DISCARD,
                                       d["mask"][keep, DISCARD:DISCARD + NUM_KINDS])):
                part.append(x)
    obs, teacher, advice, mask = (np.concatenate(p) for p in parts)
    return obs, teacher, advice, mask.astype(bool)


def per_card_features(obs: np.ndarray, advice: np.ndarray) -> np.ndarray:
    """(n, 53, F): each kind's entries in the card slices, its neighbours' (module
    docstring), whether it is advised, its rank; the joker's scalars for kind 52."""
    n = obs.shape[0]
    cards = obs[:, :L.SCALARS_AT].reshape(n, L.NUM_CARD_SLICES, 52)
    scalars = obs[:, L.SCALARS_AT:]
    grid = cards[:, list(NEIGHBOURS)].reshape(n, len(NEIGHBOURS), 4, 13)  # (suit, rank)
    padded = np.pad(grid, ((0, 0), (0, 0), (0, 0), (2, 2)))
    near = [padded[..., 2 + d:15 + d] for d in (-2, -1, 1, 2)] + [grid.sum(2, keepdims=True) - grid]
    per = np.concatenate([cards[:, list(OWN)]] + [x.reshape(n, len(NEIGHBOURS), 52) for x in near], 1)
    joker = np.zeros((n, per.shape[1], 1), np.float32)
    for i, s in enumerate(OWN):
        if L.JOKER_SCALAR[s] >= 0:
            joker[:, i, 0] = scalars[:, L.JOKER_SCALAR[s]]
    per = np.concatenate([per, joker], 2).transpose(0, 2, 1)
    extra = np.zeros((n, NUM_KINDS, 3), np.float32)
    extra[np.arange(n), advice, 0] = 1.0
    extra[:, :52, 1] = (np.arange(52) % 13) / 12.0
    extra[:, 52, 2] = 1.0
    return np.concatenate([per, extra], 2).astype(np.float32)


class Flat(nn.Module):
    def __init__(self, hidden: int = 256) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(L.FLAT_SIZE + NUM_KINDS, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                 nn.ReLU(), nn.Linear(hidden, NUM_KINDS))
        self.bonus = nn.Parameter(torch.tensor(3.0))

    def forward(self, x: dict[str, torch.Tensor]) -> torch.Tensor:
        advised = nn.functional.one_hot(x["advice"], NUM_KINDS).float()
        return self.net(torch.cat([x["obs"], advised], 1)) + self.bonus * advised


class PerCard(nn.Module):
    def __init__(self, features: int, hidden: int = 64) -> None:
        super().__init__()
        self.context = nn.Sequential(nn.Linear(L.FLAT_SIZE - L.SCALARS_AT, hidden), nn.ReLU())
        self.card = nn.Sequential(nn.Linear(features + hidden, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                  nn.Linear(hidden, 1))
        self.bonus = nn.Parameter(torch.tensor(3.0))

    def forward(self, x: dict[str, torch.Tensor]) -> torch.Tensor:
        context = self.context(x["obs"][:, L.SCALARS_AT:])[:, None, :].expand(-1, NUM_KINDS, -1)
        score = self.card(torch.cat([x["cards"], context], 2)).squeeze(-1)
        return score + self.bonus * nn.functional.one_hot(x["advice"], NUM_KINDS).float()


def tensors(obs: np.ndarray, teacher: np.ndarray, advice: np.ndarray, mask: np.ndarray) -> dict[str, torch.Tensor]:
    return {"obs": torch.from_numpy(obs), "cards": torch.from_numpy(per_card_features(obs, advice)),
            "advice": torch.from_numpy(advice), "teacher": torch.from_numpy(teacher), "mask": torch.from_numpy(mask)}


def scores(net: nn.Module, x: dict[str, torch.Tensor]) -> str:
    with torch.no_grad():
        choice = net(x).masked_fill(~x["mask"], -1e9).argmax(1)
    teacher, advice = x["teacher"], x["advice"]
    agree = (choice == teacher).float().mean().item()
    departs = choice != advice
    right = (departs & (choice == teacher)).sum().item()
    return (f"agrees {100 * agree:5.1f}%  departs from the advice {100 * departs.float().mean().item():4.1f}%, "
            f"the teacher's move in {right}/{int(departs.sum())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a Rommé run folder holding imitation/teacher-*.npz")
    parser.add_argument("--held-out", type=int, default=11, help="the last batches, kept for measuring")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--every", type=int, default=5, help="print every this many epochs")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    files = sorted((args.run / "imitation").glob("teacher-*.npz"))
    if not 0 < args.held_out < len(files):
        sys.exit(f"{args.run / 'imitation'} holds {len(files)} teacher batches: --held-out must be 1..{len(files) - 1}")
    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    train = tensors(*discard_decisions(files[:-args.held_out]))
    test = tensors(*discard_decisions(files[-args.held_out:]))
    print(f"machine: {machine()}")
    for name, x in (("fit on", train), ("held out", test)):
        overruled = (x["teacher"] != x["advice"]).float().mean().item()
        print(f"{name}: {len(x['teacher']):,} discard decisions, the teacher overrules the advice in {100 * overruled:.1f}%")
    print(f"advice    : {scores(lambda x: nn.functional.one_hot(x['advice'], NUM_KINDS).float(), test)}")
    for name, net in (("flat", Flat()), ("per-card", PerCard(train["cards"].shape[2]))):
        opt = torch.optim.Adam(net.parameters(), 1e-3, weight_decay=1e-5)
        n = len(train["teacher"])
        for epoch in range(1, args.epochs + 1):
            for b in torch.randperm(n).split(256):
                batch = {k: v[b] for k, v in train.items()}
                loss = nn.functional.cross_entropy(net(batch).masked_fill(~batch["mask"], -1e9), batch["teacher"])
                opt.zero_grad()
                loss.backward()
                opt.step()
            if epoch % args.every == 0 or epoch == args.epochs:
                print(f"{name:9s} epoch {epoch:3d}: {scores(net, test)}")


if __name__ == "__main__":
    main()
