"""``random``: a uniformly random legal action. The floor every other agent must beat.

The pick is the ``floor(u * k)``-th of the k legal actions (in id order), ``u`` the
counter-based draw of the agent's key and decision index (``rummy_env.agents.draws``), so
its array policy (``rummy_env.agents.random_policy.RandomPolicy``) picks the same."""

from __future__ import annotations

from rummy_env.agents.random_policy import RandomAgentBase


class RandomAgent(RandomAgentBase):
    game = "gin"
    needs_information = False
