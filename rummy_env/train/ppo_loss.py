"""The clipped PPO objective of one minibatch, for every game's runs of ``train.ppo``: the
games differ in how they play their rollouts, not in how a batch of decisions is learned from."""

from __future__ import annotations

import numpy as np
import torch

STATS = ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction")


def explained_variance(returns: np.ndarray, values: np.ndarray) -> float:
    """How much of the returns' variance the value baseline explains (1 is all, 0 none, NaN
    when the returns do not vary): the update statistic both trainers log."""
    var = float(np.var(returns))
    return float("nan") if var == 0 else 1 - float(np.var(np.asarray(returns) - np.asarray(values))) / var


def masked_entropy(logp: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Entropy over the legal actions only (masked entries contribute exactly 0)."""
    legal = torch.where(mask, logp, torch.zeros_like(logp))  # exp of the masked -1e9 entries is
    return -(legal.exp() * legal).sum(-1)  # 30x slower than of ordinary numbers (underflow path)


def minibatch_losses(logp_all: torch.Tensor, value: torch.Tensor, mask: torch.Tensor, act: torch.Tensor,
                     old_logp: torch.Tensor, old_val: torch.Tensor, adv: torch.Tensor, ret: torch.Tensor,
                     clip_coef: float, clip_vloss: bool = True) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, dict[str, float]]:
    """The policy loss (clipped ratio, advantages normalised within the minibatch), the value
    loss (clipped around the old values when ``clip_vloss``) and the mean legal-move entropy
    of one minibatch, and its statistics (``STATS``: losses, entropy, approximate KL, share
    of clipped ratios) as floats."""
    logp = logp_all.gather(1, act[:, None]).squeeze(1)
    log_ratio = logp - old_logp
    ratio = log_ratio.exp()
    adv = (adv - adv.mean()) / (adv.std() + 1e-8) if adv.numel() > 1 else adv
    pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - clip_coef, 1 + clip_coef)).mean()
    if clip_vloss:
        v_clipped = old_val + (value - old_val).clamp(-clip_coef, clip_coef)
        v_loss = 0.5 * torch.max((value - ret) ** 2, (v_clipped - ret) ** 2).mean()
    else:
        v_loss = 0.5 * ((value - ret) ** 2).mean()
    entropy = masked_entropy(logp_all, mask).mean()
    with torch.no_grad():
        stats = {"policy_loss": float(pg_loss), "value_loss": float(v_loss), "entropy": float(entropy),
                 "approx_kl": float(((ratio - 1) - log_ratio).mean()),
                 "clip_fraction": float(((ratio - 1).abs() > clip_coef).float().mean())}
    return pg_loss, v_loss, entropy, stats
