"""The learned player: PUCT guided by a trained policy-and-value network (``az:model=PATH``).

The model is read in :meth:`AZAgent.start` (JAX is imported there, not before: the spec
is listed, parsed and built everywhere agents are, with or without the ``learn`` extra),
and refused with a :class:`~ggpkit.agents.learned.model_file.ModelError` on a game it
was not trained on. Each move searches until its limit (``time`` or ``playouts``, the
stricter of the spec's and the caller's), keeping the subtree of the moves played.
"""

from __future__ import annotations

import random
import time
from collections.abc import Hashable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ggpkit.agents.base import Agent, AgentError, Limit, Thoughts
from ggpkit.games.api import Game
from ggpkit.gdl.terms import Term

if TYPE_CHECKING:
    from ggpkit.agents.learned.puct import Tree

DEFAULT_LIMIT = Limit(time=1.0)
"""Used when neither the spec nor the caller limits the search."""
MARGIN = 0.05
"""Seconds kept back from a move's time for the last network call and the answer."""


def load_network(model_path: str | None, game: Game[Any]) -> Any:
    """The network of the model at ``model_path`` for ``game``, its first call made (JAX
    compiles it there); AgentError where there is no model or no learn extra, ModelError
    where the model is not ``game``'s."""
    if model_path is None:
        raise AgentError("this agent needs a model: model=PATH (made by `ggpkit train`)")
    try:
        from ggpkit.agents.learned.model_file import load_model
    except ImportError as e:
        raise AgentError(
            f"a model needs the learn extra (pip install ggpkit[learn]): {e}"
        ) from None
    from ggpkit.games.encoding import Encoding

    network = load_model(Path(model_path)).network(Encoding(game))
    network.evaluate([game.initial_state()])
    return network


class AZAgent(Agent):
    """PUCT search with a learned network's priors and values (AlphaZero's player)."""

    name = "az"

    def __init__(
        self, model: str | None = None, limit: Limit | None = None, seed: int | None = None
    ) -> None:
        self.model_path = model
        self.limit = limit or Limit()
        self.rng = random.Random(seed)
        self._network: Any = None
        self._tree: Tree | None = None
        self._thoughts: dict[str, Thoughts] = {}

    def start(self, game: Game[Any], role: str) -> None:
        """Load the model for ``game``; its first network call compiles here, off the clock."""
        self._network = load_network(self.model_path, game)
        self._tree = None

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        """The most visited root move of ``role`` after a search within the limit."""
        from ggpkit.agents.learned.puct import search

        if self._network is None:
            self.start(game, role)
        tree = self._root(game, state)
        bound = self.limit.stricter(limit)
        if bound.time is None and bound.playouts is None:
            bound = DEFAULT_LIMIT
        deadline = None if bound.time is None else time.monotonic() + bound.time - MARGIN
        search([tree], bound.playouts, deadline)
        r = game.role_index(role)
        chosen = tree.choose(r, 0.0)
        self._remember(tree, role, r)
        return tree.root.moves[r][chosen]

    def _root(self, game: Game[Any], state: Hashable) -> Tree:
        """The tree at ``state``: the kept subtree where a played line leads there."""
        from ggpkit.agents.learned.puct import PUCTOptions, Tree

        old = self._tree
        if old is not None:
            near = [old.root, *old.root.children.values()]
            near += [g for c in near[1:] for g in c.children.values()]  # the opponents' reply
            for node in near:
                if node.state == state and not node.pending:
                    old.root = node
                    old.simulations = 0
                    return old
        self._tree = Tree(game, self._network, state, PUCTOptions(), self.rng)
        return self._tree

    def _remember(self, tree: Tree, role: str, r: int) -> None:
        visits = tree.root_visits(r)
        total = max(float(visits.sum()), 1.0)
        prior = tree.root.priors[r]
        ranked = sorted(range(len(visits)), key=lambda i: (-visits[i], -prior[i]))[:5]
        mean = tree.root.mean(r)
        best = ranked[0]
        lo, hi = tree.game.info.goal_range
        self._thoughts[role] = Thoughts(
            value=lo + (hi - lo) * float(mean[best]),
            moves=tuple((tree.root.moves[r][i], float(visits[i]) / total) for i in ranked),
        )

    def stop(self) -> None:
        """Drop the tree (the model stays loaded for the next match)."""
        self._tree = None

    def thoughts(self, role: str) -> Thoughts | None:
        """The root's value for the role and its most visited moves."""
        return self._thoughts.get(role)
