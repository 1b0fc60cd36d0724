"""Peer benchmark: OpenSpiel's C++ ``gin_rummy`` game driven from Python.

Why: the env-throughput comparison point for our game engine.  A random agent
(seeded numpy rng) picks a legal action at every decision and reads
``state.observation_tensor(player)`` for the player to move, as an RL loop would.
Chance nodes (deals, draws from stock) are sampled and applied but are not
counted as steps.  Games restart until ``--seconds`` or ``--steps`` is reached.
Run with ``.peers/venv/bin/python`` (see ``benchmarks/setup_peers.sh``).
"""
import argparse, json, time

import numpy as np
import pyspiel


def sample_chance(outcomes, r):
    """Inverse-CDF pick from [(action, prob)]; ~4x cheaper than rng.choice(p=...)."""
    acc = 0.0
    for action, prob in outcomes:
        acc += prob
        if r < acc:
            return action
    return outcomes[-1][0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--steps", type=int, help="stop after N decisions instead")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()

    rng = np.random.default_rng(a.seed)
    game = pyspiel.load_game("gin_rummy")
    limit = a.steps if a.steps else float("inf")
    deadline = float("inf") if a.steps else a.seconds
    steps = games = 0
    t0 = time.perf_counter()
    while steps < limit and time.perf_counter() - t0 < deadline:
        state = game.new_initial_state()
        games += 1
        while not state.is_terminal() and steps < limit:
            if state.is_chance_node():
                state.apply_action(sample_chance(state.chance_outcomes(), rng.random()))
                continue
            player = state.current_player()
            state.observation_tensor(player)
            legal = state.legal_actions(player)
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
            if time.perf_counter() - t0 >= deadline:
                break
    dt = time.perf_counter() - t0
    print(json.dumps({"peer": "open_spiel", "what": "env_steps", "steps": steps,
                      "games": games, "seconds": round(dt, 3),
                      "steps_per_s": round(steps / dt)}))


if __name__ == "__main__":
    main()
