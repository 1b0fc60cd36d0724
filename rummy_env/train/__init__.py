"""train: masked PPO with self-play on the vector engine (``ppo``), its config (``config``),
network (``model``), opponents (``opponents``), imitation warm start (``imitation``), fine-tunes
(``distill``: a search agent's moves; ``knock_labels``: knock decisions played out both ways;
``label_files``: their resumable folders) and
learning-curve plots (``curves``). Needs torch (the ``train`` extra); the env does not."""
