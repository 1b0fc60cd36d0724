"""What every game shares: cards, meld tables and the exact batch meld solver, rule-file
loading, the PettingZoo AEC base, text-to-image rendering, and the game interface with
its registry (``rummy_env.core.game``). Nothing here knows a particular game."""
