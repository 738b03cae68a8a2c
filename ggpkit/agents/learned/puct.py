"""PUCT search (AlphaZero's selection) over the game API, leaves evaluated in batches.

Each node keeps, per role, the visits and summed goal shares of that role's legal moves;
at a node every role with a choice picks its own move by PUCT from its own statistics
(decoupled, as the MCTS agent does at simultaneous nodes), so one tree serves
turn-taking and simultaneous games alike, any number of roles. Values are goal shares
in [0, 1] per role (see :mod:`~ggpkit.agents.learned.network`).

Batches: :func:`search` descends every tree it is given several times before asking the
network, each descent adding a *virtual loss* (a visit that brings no value yet) along
its path, so the next descent tends elsewhere; all leaves of all trees then go to the
network in one call. A search of one tree (the agent) batches by virtual loss, self-play
also by running many games' trees together.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ggpkit.games.api import Game
from ggpkit.games.encoding import Encoding
from ggpkit.gdl.terms import Term

FloatArray = npt.NDArray[np.float64]


class Evaluator(Protocol):
    """What a search asks for its leaves: per state, every role's goal share and logits."""

    encoding: Encoding

    def evaluate(
        self, states: Sequence[Hashable]
    ) -> tuple[npt.NDArray[np.float32], list[npt.NDArray[np.float32]]]: ...


@dataclass(frozen=True, slots=True)
class PUCTOptions:
    """How the tree searches."""

    c: float = 1.25
    """Weight of the prior against the mean share (PUCT's ``c``)."""
    batch: int = 8
    """Leaves collected per tree, by virtual loss, before one network call."""
    noise: float = 0.0
    """Share of Dirichlet noise mixed into the root's priors (self-play explores so)."""
    alpha: float = 0.3
    """The noise's Dirichlet concentration."""
    jitter: float = 0.05
    """At a simultaneous node, the scale of the independent noise (Gumbel) added to each
    role's PUCT scores. Without it selection locks: in a symmetric game both roles choose
    alike on identical statistics, so each meets only its own twin move and never learns
    what another move wins against the others' choice (the prisoner's dilemma then ends
    in cooperation)."""


class Node:
    """A state in the tree: its moves, priors and per-role statistics once evaluated."""

    __slots__ = ("children", "moves", "pending", "priors", "state", "totals", "value", "visits")

    def __init__(self, state: Hashable) -> None:
        self.state = state
        self.value: FloatArray | None = None
        """Per role: the network's share here, or the goals' at the end (None: unevaluated)."""
        self.moves: list[list[Term]] = []
        self.priors: list[FloatArray] = []
        self.visits: list[FloatArray] = []
        self.totals: list[FloatArray] = []
        self.children: dict[tuple[int, ...], Node] = {}
        self.pending = False

    @property
    def expanded(self) -> bool:
        return self.value is not None

    def mean(self, role: int) -> FloatArray:
        """Role's mean share per move; an unvisited move counts as this node's value."""
        assert self.value is not None
        v = self.visits[role]
        fallback = self.value[role]
        return np.where(v > 0, self.totals[role] / np.maximum(v, 1), fallback)


@dataclass(slots=True)
class Path:
    """One descent: the (node, joint move) pairs passed and the leaf reached."""

    steps: list[tuple[Node, tuple[int, ...]]]
    leaf: Node


class Tree:
    """One search tree over a game, rooted at a state."""

    def __init__(
        self,
        game: Game[Any],
        network: Evaluator,
        state: Hashable,
        options: PUCTOptions,
        rng: random.Random,
    ) -> None:
        self.game = game
        self.network = network
        self.options = options
        self.rng = rng
        self.root = Node(state)
        self.simulations = 0
        """Descents backed up since the root was set."""
        self._noised = False
        self._jitter = np.random.default_rng(rng.getrandbits(64))

    # ---- descent ----------------------------------------------------------------------

    def collect(self, count: int) -> list[Path]:
        """Up to ``count`` leaves for the network, each with a virtual loss along its path;
        descents that end in a terminal state are backed up at once."""
        found: list[Path] = []
        if not self.root.expanded:
            if not self.root.pending:
                self.root.pending = True
                found.append(Path([], self.root))
            return found
        self._add_noise()
        for _ in range(count):
            path = self._descend()
            if path is None:
                break
            if path.leaf.expanded:  # a terminal state: its value is known
                self._backup(path, path.leaf.value)
                continue
            path.leaf.pending = True
            found.append(path)
        return found

    def _descend(self) -> Path | None:
        node = self.root
        steps: list[tuple[Node, tuple[int, ...]]] = []
        while node.expanded and node.moves:
            choosers = sum(len(ms) > 1 for ms in node.moves)
            joint = tuple(self._select(node, r, choosers > 1) for r in range(len(node.moves)))
            steps.append((node, joint))
            for r, i in enumerate(joint):
                node.visits[r][i] += 1  # the virtual loss: a visit with no value yet
            child = node.children.get(joint)
            if child is None:
                child = self._child(node, joint)
            node = child
        if node.pending:  # another descent of this batch waits on it: undo ours
            self._undo(steps)
            return None
        return Path(steps, node)

    def _select(self, node: Node, role: int, simultaneous: bool) -> int:
        visits = node.visits[role]
        if len(visits) == 1:
            return 0
        total = float(visits.sum())
        score = node.mean(role) + self.options.c * node.priors[role] * (
            math.sqrt(max(total, 1.0)) / (1.0 + visits)
        )
        if simultaneous:
            score = score + self.options.jitter * self._jitter.gumbel(size=len(score))
        return int(np.argmax(score))

    def _child(self, node: Node, joint: tuple[int, ...]) -> Node:
        moves = [node.moves[r][i] for r, i in enumerate(joint)]
        child = Node(self.game._next(node.state, moves))
        if self.game.is_terminal(child.state):
            goals = self.game.goals(child.state)
            child.value = self._shares([goals[r] for r in self.game.roles])
        node.children[joint] = child
        return child

    def _shares(self, goals: Sequence[int]) -> FloatArray:
        lo, hi = self.game.info.goal_range
        span = max(hi - lo, 1)
        return np.clip((np.asarray(goals, dtype=np.float64) - lo) / span, 0.0, 1.0)

    def _undo(self, steps: list[tuple[Node, tuple[int, ...]]]) -> None:
        for node, joint in steps:
            for r, i in enumerate(joint):
                node.visits[r][i] -= 1

    def _backup(self, path: Path, value: FloatArray | None) -> None:
        assert value is not None
        for node, joint in path.steps:
            for r, i in enumerate(joint):
                node.totals[r][i] += value[r]
        self.simulations += 1

    # ---- evaluation -------------------------------------------------------------------

    def apply(self, path: Path, shares: npt.ArrayLike, logits: Sequence[npt.ArrayLike]) -> None:
        """The network's answer for a leaf: expand it, back its shares up the path."""
        leaf = path.leaf
        leaf.pending = False
        leaf.value = np.asarray(shares, dtype=np.float64)
        leaf.moves = self.game.all_legal_moves(leaf.state)
        encoding = self.network.encoding
        for r, moves in enumerate(leaf.moves):
            index = np.fromiter((encoding.action(r, m) for m in moves), dtype=np.intp)
            raw = np.asarray(logits[r], dtype=np.float64)[index]
            prior = np.exp(raw - raw.max())
            leaf.priors.append(prior / prior.sum())
            leaf.visits.append(np.zeros(len(moves)))
            leaf.totals.append(np.zeros(len(moves)))
        self._backup(path, leaf.value)

    def _add_noise(self) -> None:
        """Dirichlet noise on the root's priors, once per root (self-play's exploration)."""
        if self._noised or self.options.noise <= 0:
            return
        self._noised = True
        eps = self.options.noise
        for r, prior in enumerate(self.root.priors):
            if len(prior) > 1:
                gammas = [self.rng.gammavariate(self.options.alpha, 1.0) for _ in prior]
                noise = np.asarray(gammas) / max(sum(gammas), 1e-12)
                self.root.priors[r] = (1 - eps) * prior + eps * noise

    # ---- results ----------------------------------------------------------------------

    def root_visits(self, role: int) -> FloatArray:
        """The role's visits per legal move at the root (in ``root.moves[role]`` order)."""
        return self.root.visits[role].copy()

    def choose(self, role: int, temperature: float) -> int:
        """A root move of the role: the most visited (0), or drawn by visits ** (1/t)."""
        visits = self.root.visits[role]
        if len(visits) == 1:
            return 0
        if temperature <= 0 or visits.sum() <= 0:
            best = np.flatnonzero(visits == visits.max())
            return int(best[np.argmax(self.root.priors[role][best])])
        weights = visits ** (1.0 / temperature)
        return self.rng.choices(range(len(visits)), weights=list(weights))[0]

    def advance(self, joint: tuple[int, ...]) -> None:
        """Move the root to the child of a played joint move, keeping its subtree."""
        child = self.root.children.get(joint)
        if child is None or child.pending:
            moves = [self.root.moves[r][i] for r, i in enumerate(joint)]
            child = Node(self.game._next(self.root.state, moves))
        self.root = child
        self.simulations = 0
        self._noised = False


def search(trees: Sequence[Tree], simulations: int | None, deadline: float | None = None) -> None:
    """Search every tree until each has ``simulations`` (None: no bound) or the clock
    passes ``deadline`` (a ``time.monotonic`` instant; None: none); at least until every
    root is evaluated. Leaves go to each tree's network in one batch per network."""
    while True:
        live = [
            t for t in trees
            if not t.root.expanded or simulations is None or t.simulations < simulations
        ]  # fmt: skip
        if not live or (deadline is not None and time.monotonic() >= deadline and _rooted(trees)):
            return
        batches: dict[int, tuple[Evaluator, list[tuple[Tree, Path]]]] = {}
        for tree in live:
            room = tree.options.batch
            if simulations is not None:
                room = min(room, simulations - tree.simulations)
            for path in tree.collect(max(room, 1)):
                key = id(tree.network)
                batches.setdefault(key, (tree.network, []))[1].append((tree, path))
        for network, work in batches.values():
            shares, logits = network.evaluate([path.leaf.state for _, path in work])
            for k, (tree, path) in enumerate(work):
                tree.apply(path, shares[k], [role_logits[k] for role_logits in logits])


def _rooted(trees: Sequence[Tree]) -> bool:
    return all(t.root.expanded for t in trees)
