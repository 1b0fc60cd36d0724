"""Gin Rummy for two players: rules and presets (``rules``), the pure hand (``game``), its
showdown scoring (``scoring``), matches (``match``), observations (``encoding``), text for
people (``text``), the PettingZoo env (``env``, public as ``rummy_env.gin_rummy_v0``), the
vector engine (``vector``) and its entry in the game registry (``interface``). Its
Gymnasium views, which seat agents as opponents, are ``rummy_env.gym.gin``."""
