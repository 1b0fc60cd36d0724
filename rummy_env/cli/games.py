"""``rummy deadwood``, ``rummy rules`` and ``rummy play``: one hand solved, rule options
printed, and a person at the terminal against agents, for any registered game."""

from __future__ import annotations

import argparse

import numpy as np
import yaml

from rummy_env.core import melds
from rummy_env.core.cards import card_count, card_str, format_hand, parse_hand, with_suit_symbols
from rummy_env.core.game import games, get_game
from rummy_env.eval.config import DEFAULT_GAME


def register(sub: argparse._SubParsersAction) -> None:
    dw = sub.add_parser("deadwood", help="arrange one hand exactly (the Gin Rummy solver), e.g. rummy deadwood AC 2C 3C 7D 7H 7S KD")
    dw.add_argument("cards", nargs="+", help="cards such as AC 10H TD 7s")
    dw.add_argument("--rules", default="classic", help="Gin Rummy rules preset or YAML path (aces, card values)")
    dw.set_defaults(func=_deadwood)

    rl = sub.add_parser("rules", help="print a game's rule options as YAML, e.g. rummy rules eaai")
    rl.add_argument("spec", nargs="?", default=None, help="preset name or YAML path (default: the game's default)")
    rl.add_argument("--game", default=DEFAULT_GAME, help=f"one of {', '.join(games())} (default {DEFAULT_GAME})")
    rl.set_defaults(func=_rules)

    play = sub.add_parser("play", help="play in the terminal against agents, e.g. rummy play --opponent hard")
    play.add_argument("--game", default=DEFAULT_GAME, help=f"one of {', '.join(games())} (default {DEFAULT_GAME})")
    play.add_argument("--players", type=int, default=None, help="players at the table, you included (default: the "
                      "game's least, 2)")
    play.add_argument("--opponent", nargs="+", default=None,
                      help="an agent spec for each other seat (one spec fills every seat); Gin Rummy: a level (easy, "
                           "medium, hard, expert) or random, simple, heuristic, mcts[:simulations=N], ppo[:PATH] "
                           "(default: the game's medium level, else its last agent that needs no extra)")
    play.add_argument("--rules", default=None, help="preset or YAML path (default: the game's default preset)")
    play.add_argument("--match", action="store_true", help="play a match to the target score instead of one hand")
    play.add_argument("--seat", type=int, default=None, help="your seat, 0.. (default: random)")
    play.add_argument("--seed", type=_seed, default=None, help="a whole number >= 0: the same deals and agents' "
                      "choices again (default: random)")
    play.set_defaults(func=_play)


def _seed(text: str) -> int:
    """A ``--seed`` value: a whole number >= 0 (the generators take no other)."""
    if not text.strip().isdecimal():
        raise argparse.ArgumentTypeError(f"must be a whole number >= 0, got {text!r}")
    return int(text)


def _deadwood(args: argparse.Namespace) -> int:
    rules = get_game("gin").load_rules(args.rules)
    opts = {"aces_high": rules.aces_high, "five_under_ten": rules.five_under_ten}
    hand = parse_hand(" ".join(args.cards))
    arrangement = melds.best_arrangement(hand, **opts)
    print(f"hand: {format_hand(hand)}  ({card_count(hand.bit_count())})")
    for m in arrangement.melds:
        print(f"  {m.kind:4} {format_hand(m.cards)}")
    print(f"deadwood: {arrangement.deadwood} ({format_hand(arrangement.deadwood_cards) or 'none'})")
    if hand.bit_count() == 11:
        after = melds.discard_deadwood(hand, **opts)
        print("deadwood left by each discard:", ", ".join(f"{card_str(c)} {after[c]}" for c in range(52) if after[c] >= 0))
    return 0


def _rules(args: argparse.Namespace) -> int:
    print(yaml.safe_dump(get_game(args.game).load_rules(args.spec).to_dict(), sort_keys=False), end="")
    return 0


def _play(args: argparse.Namespace) -> int:
    from rummy_env import agents
    from rummy_env.agents.human import QuitGame

    game = get_game(args.game)
    n = game.check_num_players(game.min_players if args.players is None else args.players)
    specs = args.opponent or [agents.default_opponent(game.name)]
    if len(specs) not in (1, n - 1):
        raise ValueError(f"give one --opponent spec for every seat, or one for all: {n - 1} other seats, got {len(specs)}")
    specs = specs * (n - 1) if len(specs) == 1 else specs
    seat = args.seat if args.seat is not None else int(np.random.default_rng(args.seed).integers(n))
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be 0..{n - 1}, got {seat}")
    opponents = [agents.make(spec, seed=None if args.seed is None else args.seed + k, game=game.name)
                 for k, spec in enumerate(specs)]
    players = opponents[:seat] + [agents.human_player(game.name)] + opponents[seat:]
    rules = game.load_rules(args.rules)
    env = game.raw_env(num_players=n, rules=rules, episode="match" if args.match else "hand")
    env.reset(seed=args.seed)
    names = ["you" if s == seat else ("the opponent" if n == 2 else f"player_{s}") for s in range(n)]
    short = ["you" if s == seat else ("opponent" if n == 2 else f"player_{s}") for s in range(n)]
    against = ", ".join(specs) if len(set(specs)) > 1 else repr(specs[0])
    print(f"you are player_{seat}, playing {game.title} against {against} under {args.rules or game.default_preset!r} "
          f"rules ({'a match' if args.match else 'one hand'})")
    try:
        for name in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if env.possible_agents.index(name) == seat:
                for result in info.get("hand_results", []):
                    print("\n" + with_suit_symbols(game.explain(result, names)))
                if args.match and "match_points" in info:
                    print(f"match points: {_you_first(short, seat, info['match_points'])}")
                if "match_result" in info:
                    print(f"match over: final scores {_you_first(short, seat, env.match.result().scores)}")
            if term or trunc:
                env.step(None)
                continue
            who = env.possible_agents.index(name)
            action = players[who].act(obs, info)
            if who != seat:
                print(with_suit_symbols(f"{short[who]} {game.describe_move(action, rules)}"))
            env.step(action)
    except (QuitGame, EOFError):
        print("\ngame abandoned")
    return 0


def _you_first(names: list[str], seat: int, values) -> str:
    """``you 12, opponent 30``: the person's value first, then the others' by seat."""
    order = [seat] + [s for s in range(len(names)) if s != seat]
    return ", ".join(f"{names[s]} {values[s]}" for s in order)
