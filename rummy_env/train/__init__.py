"""Training Gin Rummy agents: masked PPO with self-play on the vector engine (``ppo``), its
config (``config``), opponents (``opponents``), the oracle critic (``critic``), imitation
warm start (``imitation``), the opponent pool as one stacked network (``policy_stack``),
fine-tunes (``distill``: a search agent's moves; ``knock_labels``: knock decisions played
out both ways; ``label_files``: their resumable folders), the learning rate's decay and
how a resumed run continues it (``lr_schedule``) and learning-curve plots (``curves``). The network itself is the ``ppo`` agent's (``rummy_env.agents.gin.network``).
Needs torch (the ``train`` extra); the env does not."""
