"""Rommé for 2 to 6 players, two decks and jokers: rules and presets (``rules``),
physical cards and kind counts (``cards``), the exact meld solver (``melds``, with
optional compiled kernels in ``melds_jit``), the pure hand (``game``), observations
(``encoding``), text for people (``text``), the PettingZoo env (``env``, public as
``rummy_env.romme_v0``) and its entry in the game registry (``interface``)."""
