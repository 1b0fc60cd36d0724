"""Rommé for 2 to 6 players, two decks and jokers. So far: rules and presets (``rules``),
physical cards and kind counts (``cards``) and the exact meld solver (``melds``, with
optional compiled kernels in ``melds_jit``). The pure game, env and agents build on these;
the game is not in the game registry yet."""
