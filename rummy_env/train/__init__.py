"""Training agents for every game: masked PPO with self-play (``ppo``, the one trainer of
``rummy train --game GAME``), its config and each game's defaults (``config``, ``data/``),
what it needs of a game (``adapter``; a game's own in ``games``: Gin Rummy's vector engine
and network, Basic Rummy's network), the hands every other game is played on: on its
vector engine where every seat has an array version (``engine_rollouts``), else in this
process (``hands``), rollout workers in this process or on Ray (``workers``, ``ray_rollouts``),
evaluations on duplicate deals (``evaluation``), the imitation warm start (``imitation``),
the learning rate's decay (``lr_schedule``) and learning-curve plots (``curves``). Gin
Rummy's vector worker and what it runs (``rollout``, ``opponents``, the oracle ``critic``,
the pool as one stacked network ``policy_stack``) and its fine-tunes (``distill``: a
search agent's moves; ``knock_labels``: knock decisions played out both ways;
``label_files``: their resumable folders; ``expert_iteration``) are Gin's own. Needs torch
(the ``train`` extra); the env does not."""
