"""HyperPlay: flat Monte Carlo in each sampled state, move values averaged over the bag.

Schofield, Cerexhe and Thielscher (AAAI 2012) play a game of imperfect information as
several games of perfect information: each hypothesis of the bag
(:mod:`~ggpkit.agents.hidden.bag`) is searched as if it were the true state, and a move's
values are averaged over the hypotheses, each weighted by how likely it is. Here each
state is searched by flat Monte Carlo: the role's move, the other roles' (nature's and
the opponents') uniformly random, then a random playout scored by the role's goal.

The states are visited in turn, every candidate move once in each, so every state gets
its share of playouts whatever its weight; the weights enter the averages. Its known
weakness, which the paper names: it values information it would never gather (each
hypothesis is searched as though its state were known), so it never pays to look.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Hashable
from typing import Any

from ggpkit.agents.base import Limit, Thoughts
from ggpkit.agents.hidden.common import BagSearcher, goal_of, queries_end_at, random_joint
from ggpkit.games.api import Game, QueryTimeLimitError
from ggpkit.gdl.terms import Term


class HyperPlayAgent(BagSearcher):
    """HyperPlay over a bag of ``bag`` histories, flat Monte Carlo in each state."""

    name = "hyperplay"

    def __init__(
        self,
        limit: Limit | None = None,
        seed: int | None = None,
        bag: int = 16,
        use_percepts: bool = True,
    ) -> None:
        super().__init__(limit, seed, bag, use_percepts)
        self._thoughts: Thoughts | None = None

    def thoughts(self, role: str) -> Thoughts | None:
        """The chosen move's value and the best moves' shares of the (weighted) playouts."""
        return self._thoughts

    def search(
        self,
        game: Game[Any],
        belief: dict[Hashable, float],
        role: str,
        moves: list[Term],
        bounds: tuple[float, float],
    ) -> Term:
        deadline, budget = bounds
        states = [(s, w, game.legal_moves(s, role)) for s, w in belief.items()]
        states = [(s, w, legal) for s, w, legal in states if legal]
        total = {m: 0.0 for m in moves}
        weight = {m: 0.0 for m in moves}
        playouts = 0
        index = 0
        self.pace.begin()
        with queries_end_at(deadline), contextlib.suppress(QueryTimeLimitError):
            while playouts < budget and self.pace.another(deadline):
                state, share, legal = states[index % len(states)]
                index += 1
                for move in moves:
                    if not self.pace.another(deadline):
                        break
                    if move not in legal:
                        continue
                    began = time.perf_counter()
                    joint = random_joint(game, state, role, move, self.rng)
                    value = goal_of(game, game.next_state(state, joint), role, self.rng)
                    total[move] += share * value  # a playout cut short at the deadline adds nothing
                    weight[move] += share
                    playouts += 1
                    self.pace.took(time.perf_counter() - began)
        self.last_playouts = playouts
        if playouts == 0:  # no time for one playout: any move its view allows
            self._thoughts = None
            return self.rng.choice(moves)
        values = {m: total[m] / weight[m] if weight[m] > 0 else -1.0 for m in moves}
        best = max(moves, key=lambda m: values[m])
        ranked = sorted(moves, key=lambda m: -values[m])[:3]
        spent = sum(weight.values()) or 1.0
        self._thoughts = Thoughts(100 * values[best], tuple((m, weight[m] / spent) for m in ranked))
        return best
