"""The policy-and-value network over a game's planes and action space (JAX and Flax).

One network serves every role: its input is the state as :mod:`ggpkit.games.encoding`
lays it out (board planes, then the facts off the board; or the base-fact vector of a
game without a board), its outputs are one logit per action of every role (the roles'
action spaces one after another) and, per role, the logit of its goal share (the goal
scaled from the declared goal range to [0, 1]). Shares rather than a zero-sum value
because a game may have any number of roles and any goals: each role's search then
maximises its own share, turn-taking or simultaneous.

Needs the ``learn`` extra; nothing below the agent imports this module until a model
is loaded, so ggpkit runs without JAX.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import numpy.typing as npt

from ggpkit.games.encoding import Encoding

FloatArray = npt.NDArray[np.float32]
Params = dict[str, Any]

BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
"""Batch sizes the network is compiled for: a batch is padded to the next one, so that a
search compiles a handful of shapes instead of one per batch size."""


@dataclass(frozen=True, slots=True)
class NetConfig:
    """The network's shape: what the game gives (planes, extra, actions) and its size."""

    planes: tuple[int, int, int] | None
    """``(kinds, rows, cols)`` of the board planes, or None for the base-fact vector."""
    inputs: int
    """Length of the flat input: the planes' cells and the extra facts, or the base facts."""
    actions: tuple[int, ...]
    """Each role's number of actions (``propositions().moves[role]``)."""
    channels: int = 32
    blocks: int = 2
    hidden: int = 64

    @staticmethod
    def for_encoding(encoding: Encoding, **size: int) -> NetConfig:
        """The config of a game's encoding, with the network's size (``channels``, ...)."""
        actions = tuple(len(m) for m in encoding.moves)
        if encoding.planes is None:
            return NetConfig(None, len(encoding.base), actions, **size)
        cells = int(np.prod(encoding.planes.shape))
        return NetConfig(encoding.planes.shape, cells + len(encoding.extra), actions, **size)

    def to_json(self) -> dict[str, Any]:
        """Plain data, for the model file."""
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> NetConfig:
        """The config a model file holds."""
        planes = data["planes"]
        return NetConfig(
            planes=None if planes is None else (int(planes[0]), int(planes[1]), int(planes[2])),
            inputs=int(data["inputs"]),
            actions=tuple(int(a) for a in data["actions"]),
            channels=int(data["channels"]),
            blocks=int(data["blocks"]),
            hidden=int(data["hidden"]),
        )


class PolicyValueNet(nn.Module):
    """Convolutions over the board planes (where the game has a board), then a small
    dense trunk with a policy head (every role's actions) and a value head (per role)."""

    config: NetConfig

    @nn.compact
    def __call__(self, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        cfg = self.config
        h = x
        if cfg.planes is not None:
            kinds, rows, cols = cfg.planes
            cells = kinds * rows * cols
            board = x[:, :cells].reshape(-1, kinds, rows, cols).transpose(0, 2, 3, 1)
            b = nn.relu(nn.Conv(cfg.channels, (3, 3))(board))
            for _ in range(cfg.blocks):
                b = nn.relu(
                    b + nn.Conv(cfg.channels, (3, 3))(nn.relu(nn.Conv(cfg.channels, (3, 3))(b)))
                )
            h = jnp.concatenate([b.reshape(b.shape[0], -1), x[:, cells:]], axis=1)
        h = nn.relu(nn.Dense(cfg.hidden)(h))
        h = nn.relu(nn.Dense(cfg.hidden)(h))
        logits = nn.Dense(sum(cfg.actions))(h)
        values = nn.Dense(len(cfg.actions))(h)
        return logits, values


_APPLY: dict[NetConfig, Any] = {}
"""One compiled forward pass per config, shared by every network of the process (each
agent of an arena loads its own parameters; compiling once per agent would cost more
than its moves)."""


def forward(config: NetConfig) -> Any:
    """The jitted ``(params, x) -> (logits, shares)`` of a config."""
    if config not in _APPLY:
        net = PolicyValueNet(config)

        def apply(params: Params, x: jax.Array) -> tuple[jax.Array, jax.Array]:
            logits, values = net.apply(params, x)  # flax types apply's result loosely
            return logits, jax.nn.sigmoid(jnp.asarray(values))

        _APPLY[config] = jax.jit(apply)
    return _APPLY[config]


_INIT: dict[NetConfig, Any] = {}


def init_params(config: NetConfig, seed: int) -> Params:
    """Fresh parameters for a config."""
    # One compiled call, kept: run eagerly, each layer's initialiser compiles apart (seconds).
    if config not in _INIT:
        _INIT[config] = jax.jit(PolicyValueNet(config).init)
    x = jnp.zeros((1, config.inputs), dtype=jnp.float32)
    params: Params = dict(_INIT[config](jax.random.PRNGKey(seed), x))
    return params


class Network:
    """A config with its parameters: states in, per-role action logits and goal shares out."""

    def __init__(self, encoding: Encoding, config: NetConfig, params: Params) -> None:
        self.encoding = encoding
        self.config = config
        self.params = params
        self._apply = forward(config)
        self._splits = np.cumsum(config.actions)[:-1]

    def features(self, state: Hashable) -> npt.NDArray[np.int8]:
        """A state as the network's flat 0/1 input."""
        obs = self.encoding.observation(state)
        parts = [obs["observation"].reshape(-1)]
        if "extra" in obs:
            parts.append(obs["extra"])
        return np.concatenate(parts)

    def evaluate(self, states: Sequence[Hashable]) -> tuple[FloatArray, list[FloatArray]]:
        """Per state: every role's goal share (0..1) and every role's action logits."""
        return self.evaluate_features(np.stack([self.features(s) for s in states]))

    def evaluate_features(self, x: npt.NDArray[Any]) -> tuple[FloatArray, list[FloatArray]]:
        """As :meth:`evaluate`, from features already computed (``(batch, inputs)``)."""
        n = len(x)
        size = next((b for b in BUCKETS if b >= n), n)
        padded = np.zeros((size, self.config.inputs), dtype=np.float32)
        padded[:n] = x
        logits, values = self._apply(self.params, padded)
        shares = np.asarray(values, dtype=np.float32)[:n]
        per_role = np.split(np.asarray(logits, dtype=np.float32)[:n], self._splits, axis=1)
        return shares, per_role
