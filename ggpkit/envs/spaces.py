"""Gymnasium spaces for an :class:`~ggpkit.games.encoding.Encoding`: one place, so that the
PettingZoo and Gymnasium environments describe a game's observations identically."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from ggpkit.envs.views import ViewEncoding
from ggpkit.games.encoding import Encoding


def observation_space(encoding: Encoding, role_index: int) -> spaces.Dict:
    """``observation`` (board planes or the base vector), ``extra`` with planes, and
    ``action_mask`` over the role's actions; every entry is 0/1 ``int8``."""
    shape = (len(encoding.base),) if encoding.planes is None else encoding.planes.shape
    entries: dict[str, spaces.Space[Any]] = {"observation": spaces.Box(0, 1, shape, dtype=np.int8)}
    if encoding.planes is not None and len(encoding.extra):
        entries["extra"] = spaces.Box(0, 1, (len(encoding.extra),), dtype=np.int8)
    entries["action_mask"] = spaces.Box(0, 1, (len(encoding.moves[role_index]),), dtype=np.int8)
    return spaces.Dict(entries)


def action_space(encoding: Encoding, role_index: int) -> spaces.Discrete:
    """One action per possible move of the role."""
    return spaces.Discrete(len(encoding.moves[role_index]))


def view_space(view: ViewEncoding, actions: int) -> spaces.Dict:
    """A seat of a game of imperfect information: ``observation`` its view's information
    state (:mod:`ggpkit.envs.views`) and ``action_mask`` over its actions; 0/1 ``int8``."""
    return spaces.Dict(
        {
            "observation": spaces.Box(0, 1, (view.information_size,), dtype=np.int8),
            "action_mask": spaces.Box(0, 1, (actions,), dtype=np.int8),
        }
    )
