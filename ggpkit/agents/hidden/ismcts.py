"""Single-observer Information Set MCTS (Cowling, Powley and Whitehouse 2012).

One tree over the searcher's own information sets, rather than one tree a sampled state
(which is HyperPlay's, and which values knowing what it cannot know). Each iteration
*determinises*: it draws a state from the bag (:mod:`~ggpkit.agents.hidden.bag`) by
weight and plays down the tree in it. A node is what the role knows: it is keyed by
the role's own move and the percepts that followed, from the node above, so two states
the role cannot tell apart share a node. At a node the role picks among its moves legal
in the determinisation by UCB, counting a move's *availability* (how often it was legal
when the node was visited) in place of the parent's visits, as the paper does. A new
node ends the descent; a random playout scores it, and every role's goal is backed up.

Nature plays uniformly at random. With ``opponents=0`` so does every opponent. With
``opponents=1`` (the default) an opponent learns to play from what *it* can know: where
its view of the searcher's histories can be rebuilt and states of its own information
set drawn (:mod:`~ggpkit.agents.hidden.eyes`, within :data:`EYE_SHARE` of the time),
every other iteration is its own, from one of those states, in a tree of its own
information sets (multiple-observer ISMCTS's trees); in the searcher's iterations it
plays the move it learned best there. An opponent whose states could not be drawn
chooses by UCB on statistics kept at the searcher's node (decoupled, as
simultaneous-move UCT does), and so knows what the searcher knows.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Hashable
from typing import Any

from ggpkit.agents.base import Limit, Thoughts
from ggpkit.agents.hidden.common import BagSearcher, playout_rewards, queries_end_at
from ggpkit.agents.hidden.eyes import opponent_states, opponent_views
from ggpkit.games.api import Game, QueryTimeLimitError
from ggpkit.gdl.terms import Term

DEFAULT_C = 0.7
"""The UCB constant for rewards in 0..1."""
EYE_SHARE = 0.2
"""Most of a search's time spent drawing states from the opponents' information sets."""

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


def learned_choice(stats: Stats, legal: list[Term], rng: random.Random) -> Term:
    """The move of ``legal`` tried most at a node of another role's tree (without
    counting it as tried again), or one at random where none was."""
    tried = [m for m in legal if m in stats and stats[m][0] > 0]
    if not tried:
        return rng.choice(legal)
    return max(tried, key=lambda m: (stats[m][0], stats[m][1]))


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
        self.eyeless: set[int] = set()
        """Opponents (role indexes) whose states could not be drawn at a move of this
        match: not tried again in it (on Battleships, rebuilding nature's setup from a
        history alone takes the time)."""

    def start(self, game: Game[Any], role: str) -> None:
        """A new match: an empty bag, every opponent's states worth trying."""
        super().start(game, role)
        self.eyeless = set()

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
        eyes = self._eyes(game, me, deadline)
        trees = {me: root, **{i: _Node(len(game.roles)) for i in eyes}}
        opponents = list(eyes)
        allowed = set(moves)
        iterations = 0
        self.pace.begin()
        with queries_end_at(deadline):
            while iterations < budget and self.pace.another(deadline):
                began = time.perf_counter()
                learner = (
                    opponents[iterations // 2 % len(opponents)] if eyes and iterations % 2 else me
                )
                if learner == me:
                    state = self.rng.choices(states, cum_weights=cumulative)[0]
                else:
                    state = self.rng.choice(eyes[learner])
                try:
                    self._iterate(game, state, learner, trees, allowed if learner == me else None)
                except QueryTimeLimitError:
                    break  # cut short at the deadline: nothing of it was backed up
                iterations += 1
                self.pace.took(time.perf_counter() - began)
        self.last_playouts = iterations
        if iterations == 0:  # no time for one iteration: any move its view allows
            return self.rng.choice(moves)
        stats = root.stats[me]
        return max(moves, key=lambda m: (stats[m][0], stats[m][1]) if m in stats else (-1, 0))

    def _eyes(self, game: Game[Any], me: int, deadline: float) -> dict[int, list[Hashable]]:
        """States of each opponent's information sets (see the module doc), by role
        index; opponents left out where none were drawn in time."""
        view = self.view
        if not self.opponents or view is None:
            return {}
        chance = game.info.chance_role
        wanted = [i for i, other in enumerate(game.roles)
                  if i != me and other != chance and i not in self.eyeless]  # fmt: skip
        if not wanted:
            return {}
        until = time.perf_counter() + EYE_SHARE * max(deadline - time.perf_counter(), 0)
        views = opponent_views(game, self.bag.histories(), view, until)
        eyes: dict[int, list[Hashable]] = {}
        for index in wanted:
            drawn = opponent_states(game, views[game.roles[index]], self.rng, until)
            if drawn:
                eyes[index] = drawn
            else:
                self.eyeless.add(index)
        return eyes

    def _iterate(
        self,
        game: Game[Any],
        state: Hashable,
        learner: int,
        trees: dict[int, _Node],
        allowed: set[Term] | None,
    ) -> None:
        """One determinised pass for ``learner``, whose tree grows and learns: descend,
        add a node, play out, back up. Roles with trees of their own follow them."""
        path: list[tuple[_Node, list[Term]]] = []
        nodes: dict[int, _Node | None] = dict(trees)
        while not game.is_terminal(state):
            legal = game.all_legal_moves(state)
            node = nodes[learner]
            assert node is not None
            if allowed is not None and node is trees[learner]:
                legal[learner] = [m for m in legal[learner] if m in allowed] or legal[learner]
            joint = [self._choose(game, i, ms, learner, nodes) for i, ms in enumerate(legal)]
            seen = game._percepts(state, joint)
            state = game._next(state, joint)
            path.append((node, joint))
            if self._descend(game, nodes, learner, joint, seen):
                break
        rewards = playout_rewards(game, state, self.rng)
        for visited, joint in path:
            for i, move in enumerate(joint):
                entry = visited.stats[i].get(move)
                if entry is not None:
                    entry[0] += 1
                    entry[1] += rewards[i]

    def _choose(
        self, game: Game[Any], i: int, legal: list[Term], learner: int,
        nodes: dict[int, _Node | None],
    ) -> Term:  # fmt: skip
        """Role ``i``'s move: the learner's by UCB at its node; a role with a tree of its
        own by what it learned there (at random off it); nature at random; another
        opponent by UCB at the learner's node (or at random, ``opponents=0``)."""
        if i == learner or (i not in nodes and self.opponents
                            and game.roles[i] != game.info.chance_role):  # fmt: skip
            at = nodes[learner]
            assert at is not None
            return ucb_choice(at.stats[i], legal, self.c, self.rng)
        own = nodes.get(i)
        if own is None:
            return self.rng.choice(legal)
        return learned_choice(own.stats[i], legal, self.rng)

    @staticmethod
    def _descend(
        game: Game[Any], nodes: dict[int, _Node | None], learner: int, joint: list[Term],
        seen: dict[str, frozenset[Term]],
    ) -> bool:  # fmt: skip
        """Every tree's node moved to the child of the step's own move and percepts;
        the learner's child added where missing (True: the descent ends there)."""
        added = False
        for i, node in nodes.items():
            if node is None:
                continue
            key = (joint[i], seen[game.roles[i]])
            child = node.children.get(key)
            if child is None and i == learner:
                child = node.children[key] = _Node(len(game.roles))
                added = True
            nodes[i] = child
        return added


def _running_sum(values: Any) -> list[float]:
    total, out = 0.0, []
    for value in values:
        total += value
        out.append(total)
    return out
