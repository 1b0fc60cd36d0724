"""Gin Rummy agents, registered on import: ``random``, ``simple`` (the EAAI-2021 baseline),
``heuristic`` (scripted, with array versions for training and search), ``mcts`` (search
over determinised information sets, with the opponent model of ``belief``) and ``ppo``
(a trained network; torch is imported only when one is made); ``human`` is the terminal
player of ``rummy play``."""

from rummy_env.agents.gin.heuristic import HeuristicAgent
from rummy_env.agents.gin.human import HumanAgent
from rummy_env.agents.gin.mcts import MCTSAgent
from rummy_env.agents.gin.ppo import PPOAgent
from rummy_env.agents.gin.random_agent import RandomAgent
from rummy_env.agents.gin.simple import SimpleAgent
from rummy_env.agents.registry import register, register_human

register("random", RandomAgent)
register("simple", SimpleAgent)
register("heuristic", HeuristicAgent)
register("mcts", MCTSAgent)
register("ppo", PPOAgent)
register_human("gin", HumanAgent)

__all__ = ["HeuristicAgent", "HumanAgent", "MCTSAgent", "PPOAgent", "RandomAgent", "SimpleAgent"]
