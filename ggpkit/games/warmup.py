"""Warming a game up: its compiled kernels loaded before anyone waits on them.

Native games compile (or load from numba's cache) each kernel on its first call,
which takes from a fraction of a second to several seconds. A server that will
answer requests about a game calls :func:`warm_up` at start-up, so that the first
person to move does not pay for it.
"""

from __future__ import annotations

import random
from typing import Any

from ggpkit.games.api import Game


def warm_up(game: Game[Any], max_steps: int = 300, seed: int = 0) -> None:
    """Play one random line through the public API: every per-state call runs once."""
    rng = random.Random(seed)
    state = game.initial_state()
    game.facts(state)
    for _ in range(max_steps):
        if game.is_terminal(state):
            game.goals(state)
            return
        joint = [rng.choice(game.legal_moves(state, role)) for role in game.roles]
        state = game.next_state(state, joint)
        game.facts(state)
