"""train: masked PPO with self-play on the vector engine (``ppo``), its config (``config``),
network (``model``), opponents (``opponents``), imitation warm start (``imitation``) and
learning-curve plots (``curves``). Needs torch (the ``train`` extra); the env does not."""
