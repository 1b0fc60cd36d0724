"""rummy_env: exact, fast Gin Rummy environments for reinforcement-learning research.

Layers (each uses only the ones above it): ``cards`` (ids, masks, text), ``melds`` (the
exact batch meld solver), ``rules`` (options and presets), ``game`` (one hand, the single
source of truth for the rules), ``match`` (hands added up to a target), ``encoding``
(observations from information sets) and ``gin_rummy_v0`` (the PettingZoo AEC env).
Importing this package is light: it never imports torch.
"""

__version__ = "0.1.0"
