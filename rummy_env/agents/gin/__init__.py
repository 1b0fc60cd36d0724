"""Gin Rummy agents: ``simple`` (the EAAI-2021 baseline), ``heuristic`` (scripted, with
array versions for training and search), ``mcts`` (search over determinised information
sets, with the opponent model of ``belief``), ``ppo`` (a trained network) and the
terminal player ``human``."""
