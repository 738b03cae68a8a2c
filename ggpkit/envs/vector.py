"""Many matches of one game stepped at once in compiled code: ``VectorEnv(GAME, num_envs)``.

All arrays, no Python loop over matches: each :meth:`VectorEnv.step` is one compiled
call (:meth:`~ggpkit.games.api.Game.batch_stepper`: GDL games on their propnet,
native games on their own bitboards), which plays one joint move in every match and
restarts the matches that end (auto-reset).

* ``actions``: ``(num_envs, roles)`` ints, the index of each role's move in
  ``propositions().moves[role]`` (the PettingZoo action), or -1 for a role's only legal
  move (the ``noop`` of the role not on turn);
* observations: ``(num_envs, base)`` 0/1 ``int8`` over ``propositions().base`` (the
  base-fact vector of :mod:`ggpkit.games.encoding`); after a match ends this is already
  the next match's first state;
* ``masks``: one ``(num_envs, moves of role)`` 0/1 array per role;
* rewards ``(num_envs, roles)``: the scaled goals where a match ended, else 0;
  ``terminated`` / ``truncated`` ``(num_envs,)`` booleans (truncated after
  ``max_steps`` joint moves); ``final_observations``: where a match ended or was cut,
  its last state before the restart (Gymnasium's ``final_obs``).

The arrays returned are fresh copies, safe to keep.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ggpkit.envs.session import DEFAULT_MAX_STEPS
from ggpkit.games.api import BatchStepper, Game, GameError
from ggpkit.games.encoding import Encoding, as_game
from ggpkit.reasoning.base import BatchStep


class VectorStep(NamedTuple):
    """What :meth:`VectorEnv.step` returns (see the module docstring)."""

    observations: npt.NDArray[np.int8]
    rewards: npt.NDArray[np.float32]
    terminated: npt.NDArray[np.bool_]
    truncated: npt.NDArray[np.bool_]
    masks: tuple[npt.NDArray[np.int8], ...]
    final_observations: npt.NDArray[np.int8]


class VectorEnv:
    """``num_envs`` matches of one game, stepped together (see the module docstring)."""

    def __init__(
        self, game: str | Path | Game[Any], num_envs: int, max_steps: int | None = None
    ) -> None:
        self.game = as_game(game)
        if num_envs < 1:
            raise GameError(f"num_envs must be at least 1, got {num_envs}")
        self.num_envs = num_envs
        self.encoding = Encoding(self.game)
        self.max_steps = max_steps or self.game.info.max_length or DEFAULT_MAX_STEPS
        self.roles = self.game.roles
        self._stepper: BatchStepper = self.game.batch_stepper(num_envs, self.max_steps)
        sizes = [len(moves) for moves in self.encoding.moves]
        self._splits = np.cumsum(sizes)[:-1]

    def reset(self) -> tuple[npt.NDArray[np.int8], tuple[npt.NDArray[np.int8], ...]]:
        """Every match at its initial state: (observations, masks)."""
        out = self._stepper.reset()
        return out.bits.astype(np.int8), self._masks(out)

    def step(self, actions: npt.ArrayLike) -> VectorStep:
        """One joint move in every match (see the module docstring for ``actions``)."""
        chosen = np.asarray(actions, dtype=np.int32)
        if chosen.shape != (self.num_envs, len(self.roles)):
            raise GameError(
                f"actions must have shape ({self.num_envs}, {len(self.roles)}), got {chosen.shape}"
            )
        if (chosen < -1).any():
            raise GameError("an action is a move number, or -1 for a role's only legal move")
        out = self._stepper.step(chosen)
        rewards = np.where(out.ended[:, None] == 1, self.encoding.scale(out.goals), 0.0)
        return VectorStep(
            out.bits.astype(np.int8),
            rewards.astype(np.float32),
            out.ended.astype(np.bool_),
            out.cut.astype(np.bool_),
            self._masks(out),
            out.final.astype(np.int8),
        )

    def _masks(self, out: BatchStep) -> tuple[npt.NDArray[np.int8], ...]:
        legal = out.legal.astype(np.int8)
        return tuple(np.split(legal, self._splits, axis=1))


def random_actions(
    masks: tuple[npt.NDArray[np.int8], ...], rng: np.random.Generator
) -> npt.NDArray[np.int32]:
    """A uniformly random legal action per match and role, all at once (no Python loop)."""
    columns = []
    for mask in masks:
        scores = rng.random(mask.shape) * mask  # legal moves score in (0, 1), the others 0
        columns.append(np.argmax(scores, axis=1))
    return np.stack(columns, axis=1).astype(np.int32)
