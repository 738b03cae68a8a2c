"""The training step: the network's policy toward the search's visit shares, its value
toward the outcomes (AlphaZero's loss), by AdamW.

The policy loss is the cross-entropy of each role's visit shares against its logits
masked to the legal moves, counted only for roles that had a choice; the value loss is
the binary cross-entropy of each role's predicted goal share against the share it got.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import optax

from ggpkit.agents.learned.network import NetConfig, Params, PolicyValueNet
from ggpkit.learn.buffer import Sample

Step = Callable[[Params, Any, Sample], tuple[Params, Any, dict[str, float]]]


def optimizer(learning_rate: float, weight_decay: float) -> optax.GradientTransformation:
    """AdamW, with gradients clipped so that an early outlier batch cannot blow up."""
    return optax.chain(
        optax.clip_by_global_norm(1.0), optax.adamw(learning_rate, weight_decay=weight_decay)
    )


def _losses(
    config: NetConfig, params: Params, batch: Sample
) -> tuple[jax.Array, dict[str, jax.Array]]:
    logits, values = PolicyValueNet(config).apply(params, batch.features)
    masked = jnp.where(batch.legal > 0, logits, -1e9)
    policy = 0.0
    start = 0
    for r, size in enumerate(config.actions):
        part = jax.nn.log_softmax(masked[:, start : start + size], axis=1)
        cross = -(batch.policy[:, start : start + size] * part).sum(axis=1)
        policy = policy + (cross * batch.chose[:, r]).sum() / jnp.maximum(
            batch.chose[:, r].sum(), 1.0
        )
        start += size
    value = optax.sigmoid_binary_cross_entropy(values, batch.shares).mean()
    total = policy + value
    return total, {"policy": policy, "value": value}


@functools.cache
def make_step(
    config: NetConfig, learning_rate: float, weight_decay: float
) -> tuple[optax.GradientTransformation, Step]:
    """The optimiser and a compiled training step ``(params, opt_state, batch) -> (params,
    opt_state, losses)``; kept per settings, so that a resumed run in the same process (a
    test, a notebook) does not compile it again."""
    tx = optimizer(learning_rate, weight_decay)

    @jax.jit
    def step(params: Params, opt_state: Any, batch: Sample) -> tuple[Params, Any, Any]:
        grad_fn = jax.value_and_grad(lambda p: _losses(config, p, batch), has_aux=True)
        (_, parts), grads = grad_fn(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, parts

    def run(params: Params, opt_state: Any, batch: Sample) -> tuple[Params, Any, dict[str, float]]:
        params, opt_state, parts = step(params, opt_state, batch)
        return params, opt_state, {k: float(v) for k, v in parts.items()}

    return tx, run
