"""Agents: legal play under every preset, no peeking, the simple agent's specification,
the registry and the human player's input handling."""

import dataclasses
import re
import subprocess
import sys

import numpy as np
import pytest

from rummy_env import agents
from rummy_env.agents.arena import play_hand, play_match
from rummy_env.core.game import games
from rummy_env.agents.gin.heuristic import HeuristicAgent, knock_points
from rummy_env.agents.gin.human import HumanAgent
from rummy_env.agents.human import choose
from rummy_env.gin.text import explain
from rummy_env.agents.gin.mcts import ROUND
from rummy_env.agents.gin.ppo import SHIPPED
from rummy_env import gin_rummy_v0
from rummy_env.core.cards import parse_card, parse_hand
from rummy_env.core.game import get_game
from rummy_env.gin.game import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, GinRummyState, Phase, action_name
from rummy_env.gin.rules import load_rules
from rummy_env.gin.scoring import OUTCOMES
from conftest import play_checking_no_peeking
from gin_hands import P0, P1, P1B, redeal_hidden, state_after

PRESETS = ["classic", "eaai", "openspiel"]
BASE_PPO = f"ppo:path={SHIPPED.parent / 'ppo_gin_base.pt'}"  # another network than the default
FAST = {"random": 60, "simple": 60, "heuristic": 40, "mcts:simulations=12": 3, "mcts:time=0.05": 2,
        "mcts:simulations=12,rollout=net,prior=2,base=net": 2, "ppo": 30, "ppo:greedy=false": 10}


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("spec", sorted(FAST))
def test_agents_play_whole_hands_without_illegal_moves(spec, preset):
    # The raw env raises on any illegal move, so finishing the hands is the test.
    outcomes = set()
    for seed in range(FAST[spec]):
        a, b = agents.make(spec, seed=seed), agents.make("simple", seed=seed + 1)
        result = play_hand([a, b] if seed % 2 else [b, a], preset, seed=seed)
        outcomes.add(result.outcome)
    assert outcomes


@pytest.mark.parametrize("preset", ["classic", "eaai"])  # openspiel plays single hands (target_score 0)
@pytest.mark.parametrize("spec", ["random", "simple", "heuristic", "mcts:simulations=12", "ppo"])
def test_every_agent_plays_a_match_to_the_end(spec, preset):
    result = play_match([agents.make(spec, seed=1), agents.make("heuristic", seed=2)], preset, seed=0)
    assert max(result.hand_points) >= 100 and result.winner in (0, 1)
    assert (result.grand_total != result.hand_points) == (preset == "classic")  # eaai: no game or line bonus


@pytest.mark.parametrize("preset", PRESETS)
def test_the_default_search_plays_a_whole_hand(preset):
    # mcts (the expert level) at its default 1,000 playouts a move, about 0.2 s a move
    result = play_hand([agents.make("expert", seed=3), agents.make("heuristic", seed=4)], preset, seed=5)
    assert result.outcome in ("knock", "gin", "big_gin", "undercut", "tie", "draw")


@pytest.mark.parametrize("preset,episode", [("classic", "hand"), ("eaai", "match"), ("openspiel", "hand")])
@pytest.mark.parametrize("spec", ["random", "simple", "heuristic", "mcts:simulations=12,candidates=1,confidence=0",
                                  "mcts:simulations=16,rollout=greedy",
                                  "mcts:simulations=12,candidates=1,confidence=0,rollout=net,prior=2,base=net", "ppo", "ppo:greedy=false", BASE_PPO])
def test_no_agent_peeks_at_hidden_cards(spec, preset, episode):
    """Same seed, same information set, different hidden cards: the same action. In a
    match the info also carries the match score and the earlier showdowns."""
    rng = np.random.default_rng(0)
    env = gin_rummy_v0.raw_env(rules=preset, episode=episode)
    search = spec.startswith("mcts")
    games = 1 if episode == "match" else (4 if search else 25) if preset == "classic" else (2 if search else 8)
    checked = scored = 0
    for game in range(games):
        done = play_checking_no_peeking(env, spec, game, redeal_hidden, rng, (60 if search else 400) - checked)
        checked, scored = checked + done[0], scored + done[1]
        if checked >= (60 if search else 400):
            break
    assert checked > 20 and (scored > 0) == (episode == "match")  # a match's later hands were checked too


# every Gin agent (cheap settings for the search), under the openspiel rules: the wall, the
# card taken thrown back, the cap on upcard draws; the number of whole hands each plays
OPENSPIEL_AGENTS = {"random": 200, "simple": 200, "heuristic": 60, "heuristic:knock=turn": 100,
                    "mcts:simulations=8,candidates=1": 6, "mcts:simulations=8,rollout=greedy": 6, "ppo": 40,
                    "ppo:greedy=false": 20, "openspiel-simple": 150, "search:simulations=8": 2}


def test_the_openspiel_agent_list_names_every_gin_agent():
    assert {spec.split(":")[0] for spec in OPENSPIEL_AGENTS} == set(agents.available("gin", levels=False, required=False))


def wall_positions(n: int, rules="openspiel") -> list[GinRummyState]:
    """Hands played to the wall (nobody knocks; the discard leaving the least deadwood, the
    top discard taken now and then), n of them where the discard may be taken to knock."""
    from rummy_env.core import melds

    rng = np.random.default_rng(8)
    out: list[GinRummyState] = []
    while len(out) < n:
        s = GinRummyState.new_hand(rules, seed=int(rng.integers(1 << 30)), dealer=int(rng.integers(2)))
        while not s.is_over and not (s.at_wall and s.phase == Phase.DRAW):
            legal = s.legal_actions()
            if s.phase != Phase.DISCARD:
                action = TAKE_DISCARD if TAKE_DISCARD in legal and rng.random() < 0.3 else legal[0 if legal[0] != 1 else -1]
            else:
                after = melds.discard_deadwood(s.hands[s.current_player])
                action = min((a for a in legal if a < KNOCK), key=lambda a: (after[a - DISCARD], a))
            s.step(action)
        if not s.is_over and TAKE_DISCARD in s.legal_actions():
            out.append(s)
    return out


@pytest.mark.parametrize("spec", sorted(OPENSPIEL_AGENTS))
def test_every_agent_plays_legal_moves_under_openspiels_rules(spec):
    """Whole hands of the agent against itself under ``openspiel`` and under it with Gin
    only (hands run to the wall), and positions at the wall where the discard may be
    taken to knock (then the knock after the take): the raw env raises on any illegal
    move, so finishing the hands is the test, and every move at the wall is legal."""
    if spec.startswith("openspiel"):
        pytest.importorskip("pyspiel")
    if spec.startswith("ppo"):
        pytest.importorskip("torch")
    from rummy_env.agents.arena import decisions

    walls = 0
    for game in range(OPENSPIEL_AGENTS[spec]):
        env = gin_rummy_v0.raw_env(rules="openspiel" if game % 2 else {"preset": "openspiel", "knock_limit": 0})
        env.reset(seed=game)
        players = [agents.make(spec, seed=game), agents.make(spec, seed=game + 1000)]
        for seat, obs, info in decisions(env):
            walls += bool(info["information_set"].phase == Phase.DRAW and obs["action_mask"][PASS])
            env.step(players[seat].act(obs, info))
    assert walls > 0 or spec.startswith(("mcts", "search")), walls  # (a search plays a few hands only)
    takes = 0
    for s in wall_positions(6 if spec.startswith(("mcts", "search")) else 30):
        assert s.legal_actions() == [TAKE_DISCARD, PASS]
        action = act(spec, s, seed=len(s.history))
        takes += action == TAKE_DISCARD
        s.step(action)  # raises if illegal
        if not s.is_over:  # took it: only knocks are legal now
            knock = act(spec, s, seed=len(s.history))
            assert KNOCK <= knock < BIG_GIN and s.is_legal(knock), knock
    assert takes > 0 or spec.startswith(("ppo", "mcts", "heuristic")), takes



def act(spec: str, s: GinRummyState, seed: int = 0) -> int:
    info = {"information_set": s.information_set(s.current_player), "rules": s.rules}
    return agents.make(spec, seed=seed).act({"action_mask": s.legal_mask()}, info)


def test_simple_takes_a_face_up_card_only_when_it_melds():
    assert act("simple", state_after(P0, P1, "4C", "TC")) == TAKE_DISCARD  # 2C 3C 4C
    assert act("simple", state_after(P0, P1, "TD", "TC")) == PASS
    s = state_after(P0, P1, "TD", "TC", [PASS, PASS])
    assert act("simple", s) == DRAW_STOCK  # must draw from the stock after both passed
    s = state_after(P0, P1, "TD", "QC", [PASS, PASS, DRAW_STOCK, DISCARD + parse_card("KD")])
    assert act("simple", s) == DRAW_STOCK  # KD melds nothing in player_1's hand
    s = state_after(P0, P1, "TD", "QC", [PASS, PASS, DRAW_STOCK, DISCARD + parse_card("9C")])
    assert act("simple", s) == TAKE_DISCARD  # 9C makes 9C 9D 9H with player_1's nines


def test_simple_discards_among_the_least_deadwood_never_the_taken_card():
    # After taking 4C: 2C 3C 4C melds; the least deadwood comes from discarding KD or JS
    # or QH (all 10). 4C itself may not go.
    s = state_after(P0, P1, "4C", "TC", [TAKE_DISCARD])
    seen = {act("simple", s, seed) for seed in range(40)}
    assert seen == {DISCARD + parse_card(c) for c in ("KD", "QH", "JS")}


def test_simple_knocks_as_soon_as_it_may_and_declares_big_gin():
    # player_0 draws 5S: 2C 3C 4C, 4S 5S 6S, 7H 8H 9H, and KD QS: either leaves 10, the limit.
    s = state_after("2C 3C 4C 4S 6S 7H 8H 9H KD QS", P1B, "TD", "5S", [PASS, PASS, DRAW_STOCK])
    assert act("simple", s) in (KNOCK + parse_card("KD"), KNOCK + parse_card("QS"))
    # deadwood 9 after the discard: knock (limit 10)
    s = state_after("2C 3C 4C 4S 6S 7H 8H 9H 9D QS", P1B, "TD", "5S", [PASS, PASS, DRAW_STOCK])
    assert act("simple", s) == KNOCK + parse_card("QS")
    # all 11 cards melded (2C-4C, 4S-6S, 7H-JH): Big Gin
    s = state_after("2C 3C 4C 4S 6S 7H 8H 9H TH JH", P1B, "TD", "5S", [PASS, PASS, DRAW_STOCK])
    assert BIG_GIN in s.legal_actions() and act("simple", s) == BIG_GIN


def test_heuristic_knocks_when_the_estimated_points_of_a_knock_are_enough():
    # player_0 drew 5S: 2C-4C, 4S-6S, 7H-9H, 9D and QS; knocking with QS keeps 9 deadwood
    s = state_after("2C 3C 4C 4S 6S 7H 8H 9H 9D QS", P1B, "TD", "5S", [PASS, PASS, DRAW_STOCK])
    info, legal, kept = s.information_set(0), set(s.legal_actions()), s.hands[0] & ~(1 << parse_card("QS"))
    junk = parse_hand(P1B)  # 53 deadwood, nothing to lay off: the knock scores 53 - 9 = 44
    melded = parse_hand("AD 2D 3D 5H 5D 5C TC JC QC AS")  # 1 deadwood: undercut, -(9 - 1 + 25)
    level = parse_hand("AD 2D 3D 5H 5D 5C TC JC QC 9S")  # 9 deadwood, equal
    hands = np.array([junk, melded, level], dtype=np.uint64)
    np.testing.assert_array_equal(knock_points(kept, hands, s.rules), [44, -33, -25])
    np.testing.assert_array_equal(knock_points(kept, hands, load_rules("openspiel")), [44, -33, 0])  # no undercut on a tie

    def decide(opponent: int, **options) -> int:  # the opponent's whole hand known: the estimate is exact
        known = dataclasses.replace(info, opponent_known=opponent)
        return HeuristicAgent(seed=0, **options).choose(known, s.rules, legal)

    assert decide(junk) == KNOCK + parse_card("QS")
    assert DISCARD <= decide(melded) < KNOCK  # plays on rather than be undercut
    assert DISCARD <= decide(junk, knock_value=45) < KNOCK  # 44 points are not enough
    assert decide(melded, knock="turn") == KNOCK + parse_card("QS")  # the turn rule knocks on turn 1 regardless
    # sampled hands: nothing known of a fresh hand (the model is then uniform, about 50
    # deadwood): knock; nine of the opponent's melded cards known, the tenth sampled from
    # the unseen cards (at most 10 deadwood against 9): undercut too likely, play on
    assert decide(0) == KNOCK + parse_card("QS")
    nine = melded & ~(1 << parse_card("AS"))
    assert DISCARD <= decide(nine) < KNOCK
    # a knock worth 1 point (10 deadwood against 9) is not worth giving up the hand for,
    # unless a discard now ends the hand drawn (two cards left in the stock)
    close = parse_hand("AD 2D 3D 5H 5D 5C TC JC QC KS")
    assert DISCARD <= decide(close) < KNOCK
    last = dataclasses.replace(info, opponent_known=close, stock_size=2)
    assert HeuristicAgent(seed=0).choose(last, s.rules, legal) == KNOCK + parse_card("QS")
    for spec, message in [("heuristic:knock=later", "knock must be one of estimate, turn"),
                          ("heuristic:knock_worlds=0", "knock_worlds must be >= 1"),
                          ("heuristic:late_turn=3", "late_turn and late_knock_max belong to the turn rule: add knock=turn"),
                          ("heuristic:knock=turn,knock_value=5", "knock_value and knock_worlds set the knock estimate")]:
        with pytest.raises(ValueError, match=message):
            agents.make(spec)


def test_registry_specs_levels_and_errors():
    assert isinstance(agents.make("heuristic"), agents.HeuristicAgent)
    m = agents.make("mcts:simulations=5,candidates=2")
    assert (m.simulations, m.candidates) == (5, 2)
    for game in games():  # every game has levels from easy up, in order, each one of its own agents
        assert len(agents.levels(game)) >= 3 and list(agents.levels(game)) == list(agents.LEVEL_NAMES[:len(agents.levels(game))])
        for level, spec in agents.levels(game).items():
            made = agents.make(level, game=game)
            assert type(made) is type(agents.make(spec, game=game)) and made.game == game
    with pytest.raises(ValueError, match="unknown agent 'grandmaster' for Gin Rummy; available: .*heuristic"):
        agents.make("grandmaster")
    with pytest.raises(ValueError, match="has no option.*'depth'.*its options: seed, simulations"):
        agents.make("mcts:depth=3")
    with pytest.raises(ValueError, match="key=value"):
        agents.make("mcts:400")
    with pytest.raises(ValueError, match="simulations must be >= 1"):
        agents.make("mcts:simulations=0")


def test_option_values_of_the_wrong_kind_are_refused_before_play():
    for spec, message in [
        ("mcts:simulations=abc", "agent 'mcts' option simulations='abc' must be a whole number"),
        ("mcts:candidates=2.5", "option candidates=2.5 must be a whole number"),
        ("mcts:time=fast", "option time='fast' must be a number"),
        ("heuristic:take_margin=", "option take_margin='' must be a number"),
        ("simple:seed=x", "option seed='x' must be a whole number"),
        ("ppo:greedy=1", "option greedy=1 must be true or false"),
        ("hard:simulations=5", "agent 'hard' \\(the Gin Rummy level for 'heuristic'\\) has no option"),
        ("heuristic:knock=turn,late_turn=-3", "late_turn must be >= 0"),
        ("heuristic:danger_weight=-1", "danger_weight must be >= 0"),
        ("basic/heuristic:partial_weight=-1", "partial_weight must be >= 0"),
    ]:
        with pytest.raises(ValueError, match=message):
            agents.make(spec)
    # whole numbers are fine where a number is asked, and stay numbers of the option's kind
    m, h = agents.make("mcts:time=1,win_bonus=4"), agents.make("heuristic:take_margin=2")
    assert (m.time, m.win_bonus, h.take_margin) == (1.0, 4.0, 2.0) and isinstance(h.take_margin, float)
    # a path that reads as a number stays the path as typed
    for path in ("123", "1e3", "007"):
        with pytest.raises(FileNotFoundError, match=f"'.*/{path}' not found"):
            agents.make(f"ppo:path={path}")


def test_agents_are_reproducible_with_a_seed():
    a = [play_hand([agents.make("heuristic", seed=s), agents.make("random", seed=s)], seed=9) for s in (1, 1)]
    assert a[0] == a[1]


def test_human_input_is_parsed_or_answered_with_a_clear_message():
    legal = [DISCARD + parse_card("7D"), KNOCK + parse_card("7D"), DISCARD + parse_card("KS")]
    names, keys = [action_name(a) for a in legal], get_game("gin").shortcuts

    def typed(text):
        return choose(text, legal, names, keys)

    assert typed("x 7d") == DISCARD + parse_card("7D")
    assert typed("k 7D") == KNOCK + parse_card("7D")
    assert typed("2") == DISCARD + parse_card("KS")
    for text, message in [("", "nothing typed: type a number or x CARD"), ("7", "no move \\[7\\]"),
                          ("x 1Z", "cannot read the card '1Z'"),
                          ("k KS", "knock KS is not allowed now; allowed: knock 7D$"), ("hello", "cannot read"),
                          ("d", "d \\(draw stock\\) is not allowed now"), ("x", "'discard' fits 2 moves")]:
        with pytest.raises(ValueError, match=message):
            typed(text)


def test_human_view_shows_melds_deadwood_and_moves():
    s = state_after("2C 3C 4C 4S 6S 7H 8H 9H 9D QS", P1B, "TD", "5S", [PASS, PASS, DRAW_STOCK])
    lines = []
    typed = iter(["nonsense", "0"])
    human = HumanAgent(read=lambda prompt: next(typed), write=lines.append)
    info = {"information_set": s.information_set(0), "rules": s.rules}
    assert human.act({"action_mask": s.legal_mask()}, info) == s.legal_actions()[0]
    text = "\n".join(lines)
    assert "deadwood 19" in text and "cannot read 'nonsense'" in text and "[0] discard" in text
    assert "7\u2665 8\u2665 9\u2665" in text


def test_rummy_play_in_the_terminal():
    moves = "\n".join(["q"])
    out = subprocess.run(
        [sys.executable, "-m", "rummy_env.cli", "play", "--opponent", "easy", "--seed", "1", "--seat", "0"],
        input=moves, capture_output=True, text=True, timeout=60,
    )
    assert out.returncode == 0 and "your hand:" in out.stdout and "game abandoned" in out.stdout
    # a whole hand played by typing the first legal move every time
    out = subprocess.run(
        [sys.executable, "-m", "rummy_env.cli", "play", "--opponent", "simple", "--seed", "2", "--seat", "1"],
        input="0\n" * 400, capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0
    # the hand ends in a showdown explained in words with its sum, or in a draw
    assert re.search(r"(scores?|points?) .*= \d+|the hand is a draw", out.stdout), out.stdout[-2000:]
    # every card on the screen written one way: the hand, the moves, the opponent's moves, the showdown
    assert "\u2665" in out.stdout and not re.search(r"\b[A2-9TJQK][CDHS]\b", out.stdout), out.stdout[-2000:]
    assert "match points" not in out.stdout  # one hand, no match score
    # a match: scores after each hand, then the final scores (Gin: the grand totals)
    out = subprocess.run(
        [sys.executable, "-m", "rummy_env.cli", "play", "--opponent", "simple", "--seed", "2", "--seat", "1", "--match"],
        input="0\n" * 4000, capture_output=True, text=True, timeout=300,
    )
    assert out.returncode == 0 and "match over: final scores you" in out.stdout
    assert out.stdout.count("match points: you") >= 2
    # a Basic Rummy agent is refused before the game starts, naming the Gin agents
    out = subprocess.run([sys.executable, "-m", "rummy_env.cli", "play", "--opponent", "basic/heuristic"],
                         input="", capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "is for Basic Rummy, not Gin Rummy" in out.stderr
    assert "your hand" not in out.stdout


def _showdown(non_dealer: str, dealer: str, last: int, rules: str = "classic") -> dict:
    s = GinRummyState.from_hands(non_dealer, dealer, "TD", "5S", rules=rules)
    for a in (PASS, PASS, DRAW_STOCK, last):
        s.step(a)
    return s.result.to_dict()


def test_the_showdown_is_explained_with_its_sum():
    # player_0 draws 5S to 2C-4C, 4S-6S, 7H-9H plus two cards; the dealer P1B melds nothing:
    # 9C KC AD 3D 5D 7D JD AH 5H 2S = 9+10+1+3+5+7+10+1+5+2 = 53 deadwood
    knock = explain(_showdown("2C 3C 4C 4S 6S 7H 8H 9H 9D QS", P1B, KNOCK + parse_card("QS")), you=0)
    assert "you knocked:" in knock and "deadwood 9D = 9" in knock
    assert knock.endswith("knock: you score 53 - 9 = 44 (deadwood difference)")
    # the dealer holds AD-3D, 5C 5D 5H, TC-QC and AS: 1 deadwood undercuts 9 (bonus 25)
    undercut = explain(_showdown("2C 3C 4C 4S 6S 7H 8H 9H 9D QS", "AD 2D 3D 5H 5D 5C TC JC QC AS",
                                 KNOCK + parse_card("QS")), you=1)
    assert undercut.endswith("undercut: you score 9 - 1 + undercut bonus 25 = 33")
    gin = explain(_showdown("2C 3C 4C 4S 6S 7H 8H 9H TH KD", P1B, KNOCK + parse_card("KD")), you=0)
    assert "you went gin:" in gin and gin.endswith("gin: you score 53 (the other hand's deadwood) + gin bonus 25 = 78")
    big = explain(_showdown("2C 3C 4C 4S 6S 7H 8H 9H TH JH", P1B, BIG_GIN), names=("north", "south"))
    assert "north declared Big Gin:" in big and big.endswith("north scores 53 (the other hand's deadwood) + big gin bonus 31 = 84")
    # equal deadwood (9D against 9S): an undercut under classic, no points under openspiel
    tie = ("2C 3C 4C 4S 6S 7H 8H 9H 9D QS", "AD 2D 3D 5H 5D 5C TC JC QC 9S", KNOCK + parse_card("QS"))
    assert explain(_showdown(*tie), you=1).endswith("undercut: you score 9 - 9 + undercut bonus 25 = 25")
    assert explain(_showdown(*tie, rules="openspiel"), you=1).endswith("equal deadwood, no undercut under these rules: no points")


def test_mcts_plays_the_heuristic_move_unless_the_search_is_confident():
    # An unreachable confidence never overrides the heuristic: the very same hands.
    for seed in range(3):
        ref = play_hand([agents.make("heuristic:knock=turn", seed=seed), agents.make("simple", seed=seed + 1)], seed=seed)
        got = play_hand([agents.make("mcts:simulations=8,confidence=1e9", seed=seed), agents.make("simple", seed=seed + 1)], seed=seed)
        assert got == ref


class _Scripted(agents.MCTSAgent):
    """Search with made-up move values (mean per move plus noise) to test the decision rule."""

    def __init__(self, means, noise, seed=0, **kw):
        super().__init__(seed=seed, **kw)
        self.means, self.noise, self.played = means, noise, {}
        self.noise_rng = np.random.default_rng(seed)

    def _sample(self, infoset, rules, n):
        return [None] * n

    def _values(self, worlds, moves, me):
        for move in moves:
            self.played[move] = self.played.get(move, 0) + len(worlds)
        mean = np.array([self.means[move] for move in moves])
        return mean + self.noise * self.noise_rng.standard_normal((len(worlds), len(moves)))


def _search(means, noise, **kw):
    s = state_after(P0, P1, "5C", "", [PASS, PASS, DRAW_STOCK])
    agent = _Scripted(means, noise, **kw)
    moves = list(means)
    return agent._search(s.information_set(s.current_player), s.rules, moves), agent


def test_mcts_search_deviates_only_when_clearly_better_and_drops_clear_losers():
    a, b, c = DISCARD + parse_card("KD"), DISCARD + parse_card("QH"), DISCARD + parse_card("JS")
    # b is better by 3 points, far beyond the noise: played instead of the heuristic's a
    move, agent = _search({a: 0.0, b: 3.0, c: -20.0}, noise=1.0, simulations=300)
    assert move == b and agent.deviations == 1
    # c is 20 points worse: dropped after the first round, so it is played far less than a
    assert agent.played[c] == ROUND < agent.played[a]
    # noise alone: the confidence rule keeps the heuristic's move nearly always, a bare
    # argmax would not
    def deviations(confidence: float) -> int:
        return sum(_search({a: 0.0, b: 0.0, c: 0.0}, noise=10.0, simulations=60, confidence=confidence, seed=k)[0] != a
                   for k in range(40))
    assert deviations(2.0) <= 8 and deviations(0.0) >= 20
    # every alternative clearly worse: the search stops early
    move, agent = _search({a: 5.0, b: -5.0, c: -5.0}, noise=1.0, simulations=3000)
    assert move == a and agent.played[a] == ROUND


def test_mcts_win_bonus_adds_to_won_playouts_and_takes_from_lost_ones():
    s = state_after(P0, P1, "5C", "", [PASS, PASS, DRAW_STOCK])
    info, me = s.information_set(s.current_player), s.current_player
    assert agents.make("mcts").win_bonus == 10
    plain, bonus = agents.make("mcts:win_bonus=0", seed=3), agents.make("mcts:win_bonus=7", seed=3)
    worlds = plain._sample(info, s.rules, 12)
    moves = plain._moves(set(np.flatnonzero(s.legal_mask()).tolist()), info, s.rules, plain.guide.choose(
        info, s.rules, set(np.flatnonzero(s.legal_mask()).tolist())))
    bonus.rng = np.random.default_rng(99)
    plain.rng = np.random.default_rng(99)  # the same rollouts for both
    base, shaped = plain._values(worlds, moves, me), bonus._values(worlds, moves, me)
    np.testing.assert_allclose(shaped, base + 7 * np.sign(base))
    assert (base != 0).any()


def test_mcts_options_are_checked():
    for spec, message in [("mcts:rollout=minimax", "rollout must be one of heuristic, greedy, heuristic-estimate, net"),
                          ("mcts:prior=-1", "prior must be >= 0"), ("mcts:base=ppo", "base must be one of heuristic, net"),
                          ("mcts:net=x.pt", "net='x.pt' is only read with rollout=net, prior > 0 or base=net"),
                          ("mcts:rollout=net,net=missing.pt", "net='missing.pt': no such policy file"),
                          ("mcts:confidence=-1", "confidence must be >= 0"), ("mcts:time=0", "time must be a number of seconds > 0"),
                          ("mcts:time=inf", "option time=inf must be a finite number"),
                          ("mcts:time=nan", "option time=nan must be a finite number"),
                          ("mcts:weighted=no", "option weighted='no' must be true or false"),
                          ("mcts:win_bonus=-2", "win_bonus must be >= 0 points")]:
        with pytest.raises(ValueError, match=message):
            agents.make(spec)
    m = agents.make("mcts:rollout=greedy,weighted=false")
    assert (m.rollout, m.weighted) == ("greedy", False)


def test_mcts_rollouts_can_play_the_heuristic_with_its_knock_estimate(monkeypatch):
    from rummy_env.agents.gin import mcts

    knocks = []
    real = mcts.heuristic_actions

    def spy(*args, **kwargs):
        knocks.append(kwargs["knock"])
        return real(*args, **kwargs)

    monkeypatch.setattr(mcts, "heuristic_actions", spy)
    for spec, rule in (("mcts:simulations=16,rollout=heuristic-estimate", "estimate"), ("mcts:simulations=16", "turn")):
        knocks.clear()
        result = play_hand([agents.make(spec, seed=2), agents.make("heuristic", seed=3)], "classic", seed=11)
        assert result.outcome in OUTCOMES and knocks and set(knocks) == {rule}


def test_mcts_can_play_a_network_in_its_rollouts_and_try_its_moves(monkeypatch):
    """``rollout=net``: every playout move is the network's (greedy) for both seats, none the
    heuristic's; ``prior=K``: the network's K most probable moves are among the candidates;
    ``base=net``: the network's move is the one kept unless another is clearly better."""
    from rummy_env.agents.gin import mcts

    played, searched = [], []
    real_policy, real_search = mcts.PPOPolicy, mcts.MCTSAgent._search

    def policy(nets, greedy):
        def call(env, rows, keys, decisions):
            moves = real_policy(nets, greedy)(env, rows, keys, decisions)
            assert env.action_mask()[rows, moves].all()  # legal for the player to move in each playout
            played.append((nets, greedy, rows.size))
            return moves
        return call

    def search(self, infoset, rules, moves):
        searched.append((self, moves))
        return real_search(self, infoset, rules, moves)

    monkeypatch.setattr(mcts, "PPOPolicy", policy)
    monkeypatch.setattr(mcts.MCTSAgent, "_search", search)
    monkeypatch.setattr(mcts, "heuristic_actions", lambda *a, **k: pytest.fail("the heuristic played a rollout"))
    agent = agents.make(f"mcts:simulations=24,rollout=net,prior=2,base=net,net={SHIPPED.parent / 'ppo_gin_base.pt'}",
                        seed=4)
    assert agent.network is not None and agent.network.path.name == "ppo_gin_base.pt"
    result = play_hand([agent, agents.make("heuristic", seed=5)], "classic", seed=12)
    assert result.outcome in OUTCOMES and played and searched
    assert all(nets is agent.network.nets and greedy for nets, greedy, _ in played)
    env = gin_rummy_v0.raw_env(rules="classic")  # the candidates at a first decision, from the player's own view
    env.reset(seed=12)
    obs, _, _, _, info = env.last()
    ranked = agent._ranked_by_network(obs, info, np.flatnonzero(obs["action_mask"]))
    probe = agents.make("ppo:path=" + str(SHIPPED.parent / "ppo_gin_base.pt"))
    assert ranked[0] == probe.act(obs, info)  # the network's most probable move, as the ppo agent plays it
    searched.clear()
    agent.act(obs, info)
    assert searched and searched[0][1][0] == ranked[0] and set(ranked[:2]) <= set(searched[0][1])


def test_a_generic_agent_serves_every_game_that_has_none_of_its_own(monkeypatch):
    """``register_generic`` makes one factory available to every game; a game's own agent
    of that name is made for that game instead (and names stay unique per game)."""
    from rummy_env.agents import registry

    monkeypatch.setattr(registry, "_GENERIC", dict(registry._GENERIC))

    class Anywhere(agents.Agent):
        game = None

        def __init__(self, game: str, seed=None, depth: int = 1) -> None:
            super().__init__(seed)
            self.game, self.depth = game, depth

        def act(self, observation, info):
            return int(np.flatnonzero(observation["action_mask"])[0])

    agents.register_generic("anywhere", Anywhere)
    made = agents.make("anywhere:depth=3", game="romme")
    assert isinstance(made, Anywhere) and (made.game, made.depth) == ("romme", 3)
    assert "anywhere" in agents.available("basic") and agents.resolve("anywhere", "gin").generic
    with pytest.raises(ValueError, match="has no option.*'game'"):
        agents.make("anywhere:game=gin", game="romme")  # the game comes from the context, not an option
    agents.register_generic("heuristic", Anywhere)  # every registered game has its own heuristic
    assert all(type(agents.make("heuristic", game=g)) is not Anywhere for g in games())
    with pytest.raises(ValueError, match="'anywhere' is taken"):
        agents.register_generic("anywhere", Anywhere)
    with pytest.raises(ValueError, match="'hard' is taken"):
        agents.register_generic("hard", Anywhere)
