"""The compiled MCTS tree of GDL games on the propnet, behind the game contract.

A GDL game on the propnet declares ``capabilities.tree_search``; the MCTS agent then
runs its whole search in :class:`~ggpkit.search.propnet.tree.PropnetTreeSearch`
and only reads the root's statistics back. This module turns the game's states into
the network's bits and the network's move indices back into terms.
"""

from __future__ import annotations

import random
import time
from collections.abc import Hashable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ggpkit.gdl.terms import Term
from ggpkit.search.contract import CannotSearchError, TreeReport
from ggpkit.search.options import SearchLimit, SearchOptions
from ggpkit.search.propnet.tree import PropnetTreeSearch
from ggpkit.search.puzzles.commuting import moves_commute
from ggpkit.search.puzzles.fill_slots import FillPlan, find_plan
from ggpkit.search.puzzles.goal_monotony import never_rises, rises_every_move
from ggpkit.search.puzzles.step_counter import step_counter
from ggpkit.search.puzzles.toggles import Toggles, find_toggles, toggle_line

if TYPE_CHECKING:
    from ggpkit.reasoning.propnet.reasoner import PropnetReasoner

NESTED_SEED = 0x5EED_0F_4E57
"""Mixed into the nested search's seed, so that its random stream is not the tree's."""
MONOTONY_SEED = 0x60A1
"""Seed of the random matches that look for a goal that never rises (the same finding
for the same rules)."""
COMMUTE_SEED = 0xC033
"""Seed of the random matches that look for moves that commute (the same finding for
the same rules)."""
COUNTER_SEED = 0xC0DE
"""Seed of the random matches that look for a step counter (the same finding for the
same rules)."""
TOGGLE_SEED = 0x7066
"""Seed of the random matches that look for moves that flip fixed facts (the same
finding for the same rules)."""
FILL_SEED = 0xF111
"""Seed of the random matches that look for a fill puzzle (the same finding for the
same rules)."""
TREE_LEAST = 1 / 50
"""The least share of a one-role move that the tree searches, after the solver: its
proofs and the root's statistics choose the move while the solver has no answer."""


@dataclass(frozen=True, slots=True)
class Shape:
    """What the puzzle searches know of a one-role game's shape, found by random
    matches: its fill plan (None: no fill puzzle, or not looked for), whether the
    depth-first solver tries each set of moves in one order (moves that commute, and
    no plan, whose slot order that would cut), and whether it tries each state's moves
    best first (``SearchOptions.ordered``)."""

    plan: FillPlan | None
    in_order: bool
    ordered: bool


class PropnetTree:
    """One agent's compiled tree over a propnet game (a :class:`TreeSearch`)."""

    def __init__(self, name: str, reasoner: PropnetReasoner, max_nodes: int | None) -> None:
        self.name = name
        self.reasoner = reasoner
        self.tree = PropnetTreeSearch(reasoner.net, max_nodes)
        self._material: tuple[tuple[frozenset[Term], ...], npt.NDArray[np.uint8]] | None = None
        self._floor_points: int | None = None
        """Role 0's least goal where its goal never rises, -1 where it may (None: not
        looked for yet)."""
        self._plan: FillPlan | None = None
        self._plan_looked = False
        self._commuting: bool | None = None
        self._rises: bool | None = None
        self._toggle_moves: Toggles | None = None
        self._toggles_looked = False
        self._counter_flags: npt.NDArray[np.uint8] | None = None
        self._counter_looked = False

    def search(
        self, state: Hashable, limit: SearchLimit, options: SearchOptions, role: str | None = None
    ) -> TreeReport:
        """See :class:`~ggpkit.search.contract.TreeSearch`."""
        if not isinstance(state, bytes):
            raise CannotSearchError(f"{self.name}: not a state of this game: {state!r}")
        bits = self.reasoner.bits(state)
        net = self.reasoner.net
        roles = net.roles
        index = -1 if role is None else roles.index(role)
        lines: list[tuple[float, tuple[int, ...]]] = []
        fill = -1
        try:
            if len(roles) == 1 and limit.time is not None and limit.time > 0:
                seconds, lines, fill = self._puzzle_lines(state, bits, limit.time, options)
                limit = replace(limit, time=seconds)
            elif len(roles) == 1:  # a search by iterations: load the puzzle searches
                self._load_puzzle_searches(bits, options)
            found = self.tree.search(bits, limit, options, index, self._masks(options.pieces))
        except CannotSearchError as e:
            raise CannotSearchError(f"{self.name}: {e}") from None
        best_value, best_line = max([(found.best_value, found.best_line), *lines], key=_value)
        return TreeReport(
            mover=roles[found.mover],
            moves=tuple(net.moves[found.mover][i] for i in found.moves),
            visits=found.visits,
            means=found.means,
            exact=found.exact,
            proven=None if found.proven is None else dict(zip(roles, found.proven, strict=True)),
            iterations=found.iterations,
            playouts=found.playouts,
            best_line=tuple(net.moves[0][i] for i in best_line),
            best_value=best_value,
            fill=None if fill < 0 or best_value >= self.tree.top_goal() else net.moves[0][fill],
            greedy=options.greedy,
        )

    def _load_puzzle_searches(self, bits: npt.NDArray[np.uint8], options: SearchOptions) -> None:
        """Compile (or load) the kernels of the puzzle searches asked for, and find the
        solver's latches and (with ``monotone``) whether the goal never rises, with
        searches of no time: the agent's start does this, so that no move pays for it."""
        if options.toggles:
            self._toggles()
        shape = self._shape(options)
        if options.bfs > 0 and shape.plan is None:
            self.tree.shortest(bits, 0.0, counter=self._counter())
        if options.dfs > 0:
            floor = self._floor() if options.monotone else -1
            self.tree.solve(
                bits, 0.0, options.latches, shape.ordered, floor, shape.plan,
                in_order=shape.in_order,
            )  # fmt: skip
        if options.nested > 0:
            self.tree.nested(bits, 0.0, options.seed)

    def _puzzle_lines(
        self, state: bytes, bits: npt.NDArray[np.uint8], seconds: float, options: SearchOptions
    ) -> tuple[float, list[tuple[float, tuple[int, ...]]], int]:
        """The lines (value, role 0's move indices) from ``state`` that the toggle solver
        finds (``options.toggles``: at once, where the moves flip fixed facts) and the
        breadth-first search, the depth-first solver and the nested search find in their
        shares (``options.bfs``, ``options.dfs``, ``options.nested``) of ``seconds``, the
        seconds left for the tree, and the move index of the fill a fill puzzle's solver
        is under (-1: none; see ``SolverResult.fill``). An unfinished solver's line (the
        best it has seen) worth nothing is left out: it may be merely the first the
        search went down, and played it would overrule the tree, whose proofs steer clear
        of lost positions. The tree gets what is left of the seconds, at least
        :data:`TREE_LEAST` of them (a twentieth once the solver knows the state's value,
        or the toggles or the breadth-first search have a line to the top: the shortest,
        which beats any other in a puzzle that pays for short lines and ties in one that
        does not)."""
        floor = self._floor() if options.monotone and options.dfs > 0 else -1
        start = int(self.reasoner.net.move_start[0])
        end = time.perf_counter() + seconds
        lines, fill = [], -1
        if options.toggles and (toggles := self._toggles()) is not None:
            pressed = toggle_line(self.reasoner, toggles, state)
            if pressed is not None:
                lines.append(pressed)
                if pressed[0] >= self.tree.top_goal():  # the top goal, in the fewest moves
                    return seconds / 20, lines, -1
        shape = self._shape(options)
        if options.bfs > 0 and shape.plan is None:
            share = min(options.bfs, 1 - TREE_LEAST)
            shortest = self.tree.shortest(bits, share * seconds, counter=self._counter())
            if shortest.line and (shortest.value > 0 or shortest.exact):
                lines.append((shortest.value, tuple(k - start for k in shortest.line)))
                if shortest.exact:  # the top goal's shortest line, or the best there is
                    return seconds / 20, lines, -1
        if options.dfs > 0:
            left = (end - time.perf_counter()) / seconds
            share = max(0.0, min(options.dfs, left - TREE_LEAST))
            solved = self.tree.solve(
                bits, share * seconds, options.latches, shape.ordered, floor, shape.plan,
                in_order=shape.in_order,
            )  # fmt: skip
            if solved.value > 0 or solved.exact:  # (a nought line: maybe the first it met)
                lines.append((solved.value, tuple(k - start for k in solved.line)))
            if solved.exact and solved.line:
                return seconds / 20, lines, -1
            fill = solved.fill - start if solved.fill >= 0 else -1
        if options.nested > 0:
            left = end - time.perf_counter()
            seed = options.seed ^ NESTED_SEED
            found = self.tree.nested(bits, min(left, options.nested * seconds), seed)
            lines.append((found.value, tuple(k - start for k in found.line)))
        return max(TREE_LEAST * seconds, end - time.perf_counter()), lines, fill

    def _floor(self) -> int:
        """Role 0's least goal where random matches never saw its goal rise, else -1
        (found once per tree: see :func:`~ggpkit.search.puzzles.goal_monotony.never_rises`)."""
        if self._floor_points is None:
            net = self.reasoner.net
            least = int(net.goal_values[net.goal_start[0] : net.goal_start[1]].min(initial=0))
            falls = never_rises(self.reasoner, random.Random(MONOTONY_SEED))
            self._floor_points = least if falls else -1
        return self._floor_points

    def _shape(self, options: SearchOptions) -> Shape:
        """What the puzzle searches asked for by ``options`` know of the game's shape."""
        plan = self._fill_plan() if options.fill and options.dfs + options.bfs > 0 else None
        in_order = options.dfs > 0 and options.commute and plan is None and self._commutes()
        ordered = options.ordered
        if ordered is None:
            ordered = options.dfs > 0 and plan is None and not in_order and self._counts_moves()
        return Shape(plan, in_order, ordered)

    def _commutes(self) -> bool:
        """Whether random matches show role 0's moves to commute (found once per tree:
        see :func:`~ggpkit.search.puzzles.commuting.moves_commute`)."""
        if self._commuting is None:
            self._commuting = moves_commute(self.reasoner, random.Random(COMMUTE_SEED))
        return self._commuting

    def _counts_moves(self) -> bool:
        """Whether random matches show role 0's goal to count its moves (found once per
        tree: see :func:`~ggpkit.search.puzzles.goal_monotony.rises_every_move`)."""
        if self._rises is None:
            self._rises = rises_every_move(self.reasoner, random.Random(MONOTONY_SEED))
        return self._rises

    def _toggles(self) -> Toggles | None:
        """Role 0's toggles where random matches show every move to flip fixed facts,
        else None (found once per tree: see
        :func:`~ggpkit.search.puzzles.toggles.find_toggles`)."""
        if not self._toggles_looked:
            self._toggles_looked = True
            counter = self._counter()
            self._toggle_moves = find_toggles(self.reasoner, random.Random(TOGGLE_SEED), counter)
        return self._toggle_moves

    def _counter(self) -> npt.NDArray[np.uint8] | None:
        """Flags on the base facts of role 0's step counters where random matches show
        some, else None (found once per tree: see
        :func:`~ggpkit.search.puzzles.step_counter.step_counter`)."""
        if not self._counter_looked:
            self._counter_looked = True
            self._counter_flags = step_counter(self.reasoner, random.Random(COUNTER_SEED))
        return self._counter_flags

    def _fill_plan(self) -> FillPlan | None:
        """Role 0's fill plan where random matches show a fill puzzle, else None (found
        once per tree: see :func:`~ggpkit.search.puzzles.fill_slots.find_plan`)."""
        if not self._plan_looked:
            self._plan_looked = True
            self._plan = find_plan(self.reasoner, random.Random(FILL_SEED))
        return self._plan

    def _masks(self, material: tuple[frozenset[Term], ...]) -> npt.NDArray[np.uint8]:
        """Per role, its pieces as flags over the network's state bits (kept per match)."""
        if self._material is None or self._material[0] != material:
            base = self.reasoner.net.base
            rows = [[1 if fact in pieces else 0 for fact in base] for pieces in material]
            masks = np.array(rows, dtype=np.uint8).reshape(len(material), len(base))
            self._material = (material, masks)
        return self._material[1]


def _value(line: tuple[float, tuple[int, ...]]) -> float:
    return line[0]


@dataclass(frozen=True, slots=True)
class PropnetTrees:
    """The ``tree_search`` a propnet game declares: each call makes a new tree.

    A value, not a closure, so two loads of one game declare equal capabilities: the
    network it searches takes no part in equality.
    """

    name: str
    reasoner: PropnetReasoner = field(compare=False)

    def __call__(self, max_nodes: int | None = None) -> PropnetTree:
        return PropnetTree(self.name, self.reasoner, max_nodes)
