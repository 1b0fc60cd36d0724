"""Games' own training adapters (``rummy_env.train.adapter``), each named by its game's
``training_module``: what a game trains with where the generic adapter does not fit (its
own network, a vector engine). Each module here knows one game; the rest of
``rummy_env.train`` knows none (tests/test_layers.py)."""
