"""Peer benchmark: OpenSpiel's C++ gin-rummy deadwood solver, called from Python.

Why: we compare our min-deadwood solver against OpenSpiel's
``GinRummyUtils.min_deadwood`` (pybind11 -> C++).  Run with the open_spiel venv
made by ``benchmarks/setup_peers.sh`` (``.peers/venv/bin/python``).

Card ids.  Ours: ``suit*13 + rank`` (rank 0=ace..12=king; suits clubs 0,
diamonds 1, hearts 2, spades 3).  OpenSpiel: ``suit*13 + rank`` with suit order
"scdh" (spades 0, clubs 1, diamonds 2, hearts 3), so ``opsp = ours + 13 mod 52``.
Deadwood does not depend on suit names; we convert anyway so ``--dump`` is exact.

11-card hands: OpenSpiel takes the meld group with the largest melded value
(first one found on ties), then drops the highest-rank unmelded card.  That is a
heuristic: on some hands it is above the true best-discard minimum
(min over the 11 discards of the 10-card deadwood).  ``--dump`` records both.
"""
import argparse, json, time

import numpy as np
import pyspiel


def to_opsp(card):
    return (card + 13) % 52


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cards", type=int, choices=(10, 11), default=10)
    ap.add_argument("--dump", help="write hands (our ids) and OpenSpiel's answers as JSON")
    a = ap.parse_args()

    rng = np.random.default_rng(a.seed)
    ours = np.argsort(rng.random((a.hands, 52)), axis=1)[:, : a.cards]
    hands = to_opsp(ours).tolist()  # plain lists of ints: what the binding gets
    md = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10).min_deadwood

    t0 = time.perf_counter()
    answers = [md(h) for h in hands]
    dt = time.perf_counter() - t0

    print(json.dumps({"peer": "open_spiel", "what": "min_deadwood", "cards": a.cards,
                      "hands": a.hands, "seconds": round(dt, 4),
                      "hands_per_s": round(a.hands / dt)}))
    if a.dump:
        out = {"peer": "open_spiel", "version": pyspiel.__version__,
               "seed": a.seed, "cards": a.cards,
               "card_ids": "ours: suit*13+rank, rank 0=A..12=K, suits c,d,h,s = 0..3",
               "hands": ours.tolist(), "min_deadwood": answers}
        if a.cards == 11:  # exact best-discard value, from OpenSpiel's (exact) 10-card answer
            out["best_discard_min_deadwood"] = [
                min(md(h[:i] + h[i + 1:]) for i in range(11)) for h in hands]
        with open(a.dump, "w") as f:
            json.dump(out, f)


if __name__ == "__main__":
    main()
