"""Playing a PettingZoo AEC episode in a test: the loop every env test writes, once."""

from typing import Any, Iterator, Optional


def decisions(env: Any, returns: Optional[dict[str, float]] = None) -> Iterator[tuple[str, Any, dict[str, Any]]]:
    """The decisions of the episode of ``env`` (reset already): yields ``(agent,
    observation, info)`` for each agent to move, which the caller answers with
    ``env.step(action)``; an agent whose episode is over is stepped out here
    (``env.step(None)``). ``returns``: a dict by agent that every reward is added to, the
    finished agents' included."""
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if returns is not None:
            returns[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        yield agent, obs, info
