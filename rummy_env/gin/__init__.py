"""Gin Rummy for two players: rules and presets (``rules``), the pure hand (``game``), its
showdown scoring (``scoring``), matches (``match``), observations (``encoding``), the
PettingZoo env (``env``, public as ``rummy_env.gin_rummy_v0``), the vector engine
(``vector``) and the Gymnasium views (``gym_env``)."""
