"""The hybrid player: ggpkit's MCTS, its root judged with a learned network's values
(``hybrid:model=PATH``).

The default MCTS (its compiled tree, its solver) searches the move's time, but a margin
for one network call. Then each root move of the role that the search visited at least
:data:`MIN_VISIT_SHARE` as often as its most visited one, and did not prove worse than
another, is worth ``1 - weight`` of its MCTS mean and ``weight`` of the network's value
of the state it leads to (a terminal state is worth its goal); the best is played. A
move the search barely tried is not chosen on the network's word alone: its mean rests
on a handful of playouts, and a network trained briefly errs most where the search
did not look. What the search proved stands: a proven win is played, and where every
move is proven the search's choice is. Where the search ran in Python (no compiled
tree), its move is played: the Python tree keeps no report to mix.

In a simultaneous step the value of a move is the network's mean over the other roles'
replies (all of them, or :data:`MOST_REPLIES` drawn at random).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Hashable, Sequence
from typing import Any

from ggpkit.agents.base import Agent, Limit, Thoughts
from ggpkit.agents.learned.agent import load_network
from ggpkit.agents.mcts.agent import MCTSAgent
from ggpkit.agents.mcts.choice import TOP, candidates
from ggpkit.games.api import Game
from ggpkit.gdl.terms import Term
from ggpkit.search.contract import TreeReport

DEFAULT_LIMIT = Limit(time=1.0)
"""Used when neither the spec nor the caller limits the search."""
NETWORK_MARGIN = 0.03
"""Seconds of a move's time kept from the search for the network's call."""
MIN_VISIT_SHARE = 0.1
"""A move is mixed only where the search visited it this share of its most visited move's visits."""
MOST_REPLIES = 16
"""Replies of the other roles a simultaneous step's move is valued over, at most."""


class HybridAgent(Agent):
    """MCTS whose root moves are judged partly by a learned network's values."""

    name = "hybrid"

    def __init__(
        self,
        model: str | None = None,
        limit: Limit | None = None,
        seed: int | None = None,
        weight: float = 0.5,
    ) -> None:
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"weight must be between 0 and 1, not {weight}")
        self.model_path = model
        self.limit = limit or Limit()
        self.weight = weight
        self.rng = random.Random(seed)
        self.search = MCTSAgent(seed=self.rng.randrange(2**63))
        self.network: Any = None
        self._thoughts: dict[str, Thoughts] = {}

    def start(self, game: Game[Any], role: str) -> None:
        """Load the model for ``game`` (its first call compiles here) and start the search."""
        self.network = load_network(self.model_path, game)
        self.search.start(game, role)

    def stop(self) -> None:
        """The match is over: the search lets go of its tree."""
        self.search.stop()

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        """The search's move, or the root move the mix of its means and the network's
        values rates best (see the module docstring)."""
        if self.network is None:
            self.start(game, role)
        bound = self.limit.stricter(limit)
        if bound.time is None and bound.playouts is None:
            bound = DEFAULT_LIMIT
        if bound.time is not None:
            bound = Limit(time=max(bound.time - NETWORK_MARGIN, 0.0), playouts=bound.playouts)
        chosen = self.search.select(game, state, role, bound)
        report = self.search.report
        self._thoughts[role] = self.search.thoughts(role) or Thoughts(None)
        if report is None or report.mover != role or len(report.moves) < 2:
            return chosen
        mixed = self.mixed_choice(game, state, role, report)
        return chosen if mixed is None else mixed

    def mixed_choice(
        self, game: Game[Any], state: Hashable, role: str, report: TreeReport
    ) -> Term | None:
        """The move the mix rates best, or None where the search's choice must stand."""
        exact = report.exact
        if any(v is not None and v >= TOP for v in exact):
            return None  # a proven win
        open_moves = candidates(exact)
        most = max(report.visits[i] for i in open_moves)
        mixed = [i for i in open_moves if report.visits[i] >= MIN_VISIT_SHARE * most]
        if len(mixed) < 2:
            return None
        values = self.values(game, state, role, [report.moves[i] for i in mixed])
        w = self.weight
        score = {i: (1 - w) * report.means[i] + w * v for i, v in zip(mixed, values, strict=True)}
        best = max(mixed, key=lambda i: (score[i], report.visits[i]))
        return report.moves[best]

    def values(
        self, game: Game[Any], state: Hashable, role: str, moves: Sequence[Term]
    ) -> list[float]:
        """The network's value (0..1) for ``role`` of each move's next state, a terminal
        one by its goal; one network call for all of them."""
        r = game.role_index(role)
        lo, hi = game.info.goal_range
        span = max(hi - lo, 1)
        nexts: list[list[Hashable]] = [
            [game.next_state(state, joint) for joint in self._joints(game, state, r, m)]
            for m in moves
        ]
        open_states = [s for group in nexts for s in group if not game.is_terminal(s)]
        shares = self.network.evaluate(open_states)[0] if open_states else []
        judged = iter(float(row[r]) for row in shares)
        values = []
        for group in nexts:
            worth = [
                (game.goals(s)[role] - lo) / span if game.is_terminal(s) else next(judged)
                for s in group
            ]
            values.append(sum(worth) / len(worth))
        return values

    def _joints(self, game: Game[Any], state: Hashable, r: int, move: Term) -> list[list[Term]]:
        """Joint moves with ``move`` for role ``r``: every reply of the others, or a draw of
        :data:`MOST_REPLIES` of them."""
        options = [
            [move] if k == r else game.legal_moves(state, role) for k, role in enumerate(game.roles)
        ]
        count = 1
        for o in options:
            count *= len(o)
        if count <= MOST_REPLIES:
            return [list(j) for j in itertools.product(*options)]
        return [[self.rng.choice(o) for o in options] for _ in range(MOST_REPLIES)]

    def thoughts(self, role: str) -> Thoughts | None:
        """The search's thoughts for the role (its value and its most visited moves)."""
        return self._thoughts.get(role)
