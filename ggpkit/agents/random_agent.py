"""The random agent: a uniformly random legal move, the baseline every other agent must beat."""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any

from ggpkit.agents.base import Agent, Limit
from ggpkit.games.api import Game, GameOverError
from ggpkit.gdl.terms import Term


class RandomAgent(Agent):
    """Plays a uniformly random legal move; ``seed`` makes a whole match reproducible."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        """Any legal move of ``role``, each with the same chance (the limit is never needed)."""
        moves = game.legal_moves(state, role)
        if not moves:
            raise GameOverError(f"{role} has no legal move: the game is over")
        return self.rng.choice(moves)
