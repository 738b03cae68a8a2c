"""Single-observer Information Set MCTS (Cowling, Powley and Whitehouse 2012).

One tree over the searcher's own information sets, rather than one tree a sampled state
(which is HyperPlay's, and which values knowing what it cannot know). Each iteration
*determinises*: it draws a state from the bag (:mod:`~ggpkit.agents.hidden.bag`) by
weight and plays down the tree in it. A node is what the role knows: it is keyed by
the role's own move and the percepts that followed, from the node above, so two states
the role cannot tell apart share a node. At a node the role picks among its moves legal
in the determinisation by UCB, counting a move's *availability* (how often it was legal
when the node was visited) in place of the parent's visits, as the paper does. The other
roles play uniformly at random (nature always), or, with ``opponents=1``, each by UCB
on its own statistics kept at the same node (decoupled, as simultaneous-move UCT does):
an opponent then plays well on average over what the searcher cannot see. A new node
ends the descent; a random playout scores it, and every role's goal is backed up.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Hashable
from typing import Any

from ggpkit.agents.base import Limit, Thoughts
from ggpkit.agents.hidden.common import BagSearcher, playout_rewards
from ggpkit.games.api import Game
from ggpkit.gdl.terms import Term

DEFAULT_C = 0.7
"""The UCB constant for rewards in 0..1."""

Stats = dict[Term, list[float]]
"""A role's statistics at a node: move -> [visits, total reward, availability]."""


class _Node:
    """One information set of the searcher: statistics per role, children per (move, percepts)."""

    __slots__ = ("children", "stats")

    def __init__(self, roles: int) -> None:
        self.stats: list[Stats] = [{} for _ in range(roles)]
        self.children: dict[tuple[Term, frozenset[Term]], _Node] = {}


def ucb_choice(stats: Stats, legal: list[Term], c: float, rng: random.Random) -> Term:
    """The move of ``legal`` to try: an untried one at random, else the best by UCB with
    availability; counts each of ``legal`` as available once more."""
    untried: list[Term] = []
    for move in legal:
        entry = stats.get(move)
        if entry is None:
            entry = stats[move] = [0.0, 0.0, 0.0]
        entry[2] += 1
        if entry[0] == 0:
            untried.append(move)
    if untried:
        return rng.choice(untried)
    best, best_value = legal[0], -math.inf
    for move in legal:
        visits, total, available = stats[move]
        value = total / visits + c * math.sqrt(math.log(available) / visits)
        if value > best_value:
            best, best_value = move, value
    return best


class ISMCTSAgent(BagSearcher):
    """SO-ISMCTS over a bag of ``bag`` histories; ``c`` the UCB constant; ``opponents``
    1 for opponents choosing by their own UCB statistics, 0 for random ones."""

    name = "ismcts"

    def __init__(
        self,
        limit: Limit | None = None,
        seed: int | None = None,
        bag: int = 16,
        c: float = DEFAULT_C,
        opponents: int = 1,
        use_percepts: bool = True,
    ) -> None:
        super().__init__(limit, seed, bag, use_percepts)
        self.c = c
        self.opponents = bool(opponents)
        self.root: _Node | None = None

    def stop(self) -> None:
        """Drop the tree and the bag."""
        self.root = None
        super().stop()

    def thoughts(self, role: str) -> Thoughts | None:
        """The root's most visited moves, their shares and the best one's mean reward."""
        if self.root is None or self._role_index is None:
            return None
        stats = self.root.stats[self._role_index]
        spent = sum(e[0] for e in stats.values()) or 1.0
        ranked = sorted(stats.items(), key=lambda kv: -kv[1][0])[:3]
        if not ranked or ranked[0][1][0] == 0:
            return None
        top = ranked[0][1]
        return Thoughts(100 * top[1] / top[0], tuple((m, e[0] / spent) for m, e in ranked))

    _role_index: int | None = None

    def search(
        self,
        game: Game[Any],
        belief: dict[Hashable, float],
        role: str,
        moves: list[Term],
        bounds: tuple[float, float],
    ) -> Term:
        deadline, budget = bounds
        me = self._role_index = game.role_index(role)
        states = list(belief)
        cumulative = list(_running_sum(belief.values()))
        root = self.root = _Node(len(game.roles))
        allowed = set(moves)
        iterations = 0
        while iterations < budget and (iterations == 0 or time.perf_counter() < deadline):
            state = self.rng.choices(states, cum_weights=cumulative)[0]
            self._iterate(game, state, me, root, allowed)
            iterations += 1
        self.last_playouts = iterations
        stats = root.stats[me]
        return max(moves, key=lambda m: (stats[m][0], stats[m][1]) if m in stats else (-1, 0))

    def _iterate(
        self, game: Game[Any], state: Hashable, me: int, root: _Node, allowed: set[Term]
    ) -> None:
        """One determinised pass: descend, add a node, play out, back up."""
        chance = game.info.chance_role
        path: list[tuple[_Node, list[Term]]] = []
        node = root
        while not game.is_terminal(state):
            legal = game.all_legal_moves(state)
            if node is root:
                legal[me] = [m for m in legal[me] if m in allowed] or legal[me]
            joint = [
                ucb_choice(node.stats[i], ms, self.c, self.rng)
                if i == me or (self.opponents and game.roles[i] != chance)
                else self.rng.choice(ms)
                for i, ms in enumerate(legal)
            ]
            seen = game._percepts(state, joint)[game.roles[me]]
            state = game._next(state, joint)
            path.append((node, joint))
            key = (joint[me], seen)
            child = node.children.get(key)
            if child is None:
                node.children[key] = _Node(len(game.roles))
                break
            node = child
        rewards = playout_rewards(game, state, self.rng)
        for visited, joint in path:
            for i, move in enumerate(joint):
                entry = visited.stats[i].get(move)
                if entry is not None:
                    entry[0] += 1
                    entry[1] += rewards[i]


def _running_sum(values: Any) -> list[float]:
    total, out = 0.0, []
    for value in values:
        total += value
        out.append(total)
    return out
