"""Gin Rummy agents, registered on import for game ``gin``: ``random``, ``simple`` (the EAAI-2021 baseline),
``heuristic`` (scripted, with array versions for training and search), ``mcts`` (search
over determinised information sets, with the opponent model of ``belief``) and ``ppo``
(a trained network; torch is imported only when one is made), ``openspiel-simple``
(OpenSpiel's baseline bot; needs open_spiel); ``human`` is the terminal
player of ``rummy play``; the levels ``easy`` < ``medium`` < ``hard`` < ``expert``."""

from rummy_env.agents.gin.heuristic import HeuristicAgent
from rummy_env.agents.gin.human import HumanAgent
from rummy_env.agents.gin.mcts import MCTSAgent
from rummy_env.agents.gin.openspiel_simple import OpenSpielSimpleAgent
from rummy_env.agents.gin.ppo import PPOAgent
from rummy_env.agents.gin.random_agent import RandomAgent
from rummy_env.agents.gin.simple import SimpleAgent
from rummy_env.agents.human import register_human
from rummy_env.agents.registry import register, register_level

register("random", RandomAgent)
register("simple", SimpleAgent)
register("heuristic", HeuristicAgent)
register("mcts", MCTSAgent)
register("ppo", PPOAgent)
register("openspiel-simple", OpenSpielSimpleAgent)  # needs open_spiel (the openspiel extra)
register_human("gin", HumanAgent)
for level, spec in (("easy", "random"), ("medium", "simple"), ("hard", "heuristic"), ("expert", "mcts")):
    register_level("gin", level, spec)  # each beats the one below: docs/agents.md

__all__ = ["HeuristicAgent", "HumanAgent", "MCTSAgent", "OpenSpielSimpleAgent", "PPOAgent", "RandomAgent", "SimpleAgent"]
