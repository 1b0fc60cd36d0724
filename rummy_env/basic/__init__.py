"""Basic Rummy for 2 to 4 players: rules and presets (``rules``), the pure hand and match
(``game``), observations (``encoding``) and the PettingZoo env (``env``, public as
``rummy_env.rummy_v0``)."""
