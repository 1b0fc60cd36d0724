"""What every game shares: cards, meld tables and the exact batch meld solver, rule-file
loading, the PettingZoo AEC base, text-to-image rendering, the game interface with
its registry (``rummy_env.core.game``), and the field descriptions of settings dataclasses
(``field_docs``, for ``--help`` and the docs' config tables), reading YAML files with errors that
name the place (``yaml_files``) and the one atomic write of files (``files``). Nothing here knows
a particular game."""
