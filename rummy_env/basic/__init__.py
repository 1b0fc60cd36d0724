"""Basic Rummy for 2 to 4 players: rules and presets (``rules``), the pure hand (``game``),
matches (``match``), observations (``encoding``), text for people (``text``), the
PettingZoo env (``env``, public as ``rummy_env.basic_rummy_v0``) and its entry in the game
registry (``interface``)."""
