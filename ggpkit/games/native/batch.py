"""What the native engines' batch steppers share: output arrays in the twin's vocabulary,
the shape and legality checks of a step, and its errors.

A native stepper (``<game>/batch.py``) keeps its matches as the engine's own numbers and
implements three compiled steps: restart every match, check a step's actions (before
any match moves), and advance every match by one joint move, restarting those that end.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
import numpy.typing as npt

from ggpkit.games.api import GameError, Propositions
from ggpkit.reasoning.base import BatchStep

ERR_ILLEGAL, ERR_NOT_ONLY = 1, 2

_ERRORS = {
    ERR_ILLEGAL: "an action is not legal in its match (or not a move of its role)",
    ERR_NOT_ONLY: "action -1 (the only legal move) given to a role with a choice",
}


class NativeStepper(ABC):
    """``count`` matches on a native engine (a :class:`~ggpkit.games.api.BatchStepper`)."""

    def __init__(self, props: Propositions, count: int, max_steps: int) -> None:
        if count < 1 or max_steps < 1:
            raise GameError("a batch needs at least one match and one step")
        self.count = count
        self.max_steps = max_steps
        self.roles = len(props.moves)
        base, moves = len(props.base), sum(len(ms) for ms in props.moves)
        self._steps = np.zeros(count, dtype=np.int64)
        self._out = BatchStep(
            np.zeros((count, base), dtype=np.uint8),
            np.zeros((count, moves), dtype=np.uint8),
            np.zeros(count, dtype=np.uint8),
            np.zeros(count, dtype=np.uint8),
            np.zeros((count, self.roles), dtype=np.int32),
            np.zeros((count, base), dtype=np.uint8),
        )

    def reset(self) -> BatchStep:
        """Every match at the initial position."""
        self._steps[:] = 0
        self._restart_all()
        for array in (self._out.ended, self._out.cut, self._out.goals):
            array[:] = 0
        return self._out

    def step(self, actions: npt.NDArray[np.int32]) -> BatchStep:
        """One joint move in every match: ``actions[i, r]`` a move number of role ``r``, or -1."""
        if actions.shape != (self.count, self.roles):
            raise GameError(f"actions must have shape {(self.count, self.roles)}")
        chosen = actions.astype(np.int64)
        err = int(self._check(chosen))
        if err:
            raise GameError(_ERRORS[err])
        self._advance(chosen)
        return self._out

    @abstractmethod
    def _restart_all(self) -> None:
        """Every match at the initial position, with its bits and legal mask written."""

    @abstractmethod
    def _check(self, actions: npt.NDArray[np.int64]) -> int:
        """0 when every match's actions are legal, else ERR_ILLEGAL or ERR_NOT_ONLY."""

    @abstractmethod
    def _advance(self, actions: npt.NDArray[np.int64]) -> None:
        """One joint move in every match (actions already checked), as the module says."""
