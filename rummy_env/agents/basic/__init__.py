"""Basic Rummy agents: ``rummy-random`` and ``rummy-heuristic`` (``agents``)."""
