"""A UCT tree over a propnet whose iterations run in compiled code.

Why: a search tree in Python spends 20-50 µs of interpreter per node visit, so on a
fast network it runs a small fraction of the playouts the network can play (issue:
MCTS at 1-2% of the raw playout rate). Here the tree lives in preallocated arrays and
:func:`~ggpkit.search.propnet.kernels.iterate` runs batches of whole
iterations (selection by UCB, expansion, a playout or a batch of 64-lane playouts,
the backup and MCTS-solver proofs) with the interpreter entered once per batch.

The tree's memory, its reuse between moves and its search loop are the generic
:class:`~ggpkit.search.tree.array_tree.ArrayTree`; this module adds the network.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ggpkit.reasoning.propnet.build import Propnet
from ggpkit.reasoning.propnet.incremental import net_arrays, prepare, with_latches, work_arrays
from ggpkit.reasoning.propnet.latches import Latches, goal_latches
from ggpkit.search.propnet import kernels as sk
from ggpkit.search.puzzles.breadth_first import BreadthFirstSearch, ShortestLine
from ggpkit.search.puzzles.depth_first import DepthFirstSolver, SolverResult
from ggpkit.search.puzzles.fill_slots import FillPlan
from ggpkit.search.puzzles.nested import NestedResult, NestedSearch
from ggpkit.search.tree import kernels as tk
from ggpkit.search.tree.array_tree import MAX_DEPTH, ArrayTree

LINE_LENGTH = 100_000
"""Moves a one-role game's best line can hold (the playouts' step limit)."""

SOLVER_MEMORY = 256 << 20
"""Bytes of the depth-first solver's table (a slot: the state's bits and 25 more)."""

SHORTEST_MEMORY = 64 << 20
"""Bytes of the breadth-first search's table (a slot: the state's bits and 33 more)."""

MAST_MOVES = 100_000
"""Moves of one playout MAST credits at its end (the rest of a longer playout is not)."""


class PropnetTreeSearch(ArrayTree):
    """UCT with solver backups over one network; see the module docstring."""

    def __init__(
        self, net: Propnet, max_nodes: int | None = None, memory: int | None = None
    ) -> None:
        nroles, nb = len(net.roles), len(net.base)
        super().__init__(nroles, nb, np.uint8, net.move_start, max_nodes, memory)
        self.net = net
        self._arrays = net_arrays(net)
        self.latches: Latches | None = None
        """The network's latches where some force a goal (None: none, too big to look
        for, or not looked for yet): a state they decide is a leaf of the decided value."""
        self._latches_looked = False
        """Whether the first search that reads latches has looked for them."""
        self._work = work_arrays(net)
        self._val = np.zeros(net.size, dtype=np.uint8)
        self._val[1] = 1
        self._val64 = np.zeros(net.size, dtype=np.uint64)
        self._path_n = np.zeros(MAX_DEPTH, dtype=np.int64)
        self._path_e = np.zeros(MAX_DEPTH, dtype=np.int64)
        self._line = np.zeros(LINE_LENGTH, dtype=np.int64)
        self._best_line = np.zeros(LINE_LENGTH, dtype=np.int64)
        self._mast = np.zeros((int(net.move_start[-1]), 2), dtype=np.float64)
        """MAST's reward sum and count per legal literal, kept for the whole match."""
        self._no_mast = np.zeros((0, 2), dtype=np.float64)
        self._played = np.zeros(MAST_MOVES, dtype=np.int64)
        self._seen = np.full(int(net.move_start[-1]), -1, dtype=np.int64)
        """GRAVE's scratch: each legal literal's last position in an iteration (-1: none)."""
        self._decisive = np.zeros(int(net.move_start[-1]), dtype=np.uint8)
        """The moves that ended a playout at their role's best goal (flagged by the
        batched playouts, kept for the whole match): what greedy playouts and the wins
        in one at new nodes try."""
        self._prepared = False
        self._nested: NestedSearch | None = None
        self._solver: DepthFirstSolver | None = None
        self._solver_work: tuple[object, ...] | None = None
        """The solver's view of the work arrays: with every latch the network has, where
        it has some (the tree reads latches only where one alone forces a goal)."""
        self._solver_latched = False
        self._shortest: BreadthFirstSearch | None = None

    def nested(self, bits: npt.NDArray[np.uint8], seconds: float, seed: int) -> NestedResult:
        """A nested Monte Carlo search of a one-role game from ``bits`` for ``seconds``
        (:mod:`~ggpkit.search.puzzles.nested`), on this tree's propagation state."""
        self._prepare(bits)
        if self._nested is None:
            nmoves = int(self.net.move_start[1] - self.net.move_start[0])
            self._nested = NestedSearch(self._arrays, len(self.net.base), nmoves, LINE_LENGTH - 1)
        return self._nested.search(bits, seconds, seed, self._work, self._val)

    def solve(
        self,
        bits: npt.NDArray[np.uint8],
        seconds: float,
        latches: bool = True,
        ordered: bool = False,
        floor: int = -1,
        plan: FillPlan | None = None,
        budget: int | None = None,
        in_order: bool = False,
    ) -> SolverResult:
        """A depth-first search of a one-role game from ``bits`` for about ``seconds``
        (:mod:`~ggpkit.search.puzzles.depth_first`; its table is kept for the match). With
        ``latches`` it values a state that its latched facts decide at once: it looks
        for the network's latches at its first call and takes them all, not only where
        one alone forces a goal as the tree does (it stops checking where the checks
        settle nothing). ``ordered``: moves best first by the goal they lead to, then
        fewest onward moves first;
        ``floor`` >= 0: role 0's goal never rises, and a state at that goal is valued so
        at once; ``plan``: a fill puzzle's slots (searched one at a time); ``budget``:
        new states a call of the search may make (None: as many as about 50 ms take);
        ``in_order``: the moves commute, and each set of them is tried in one order."""
        self._prepare(bits)
        if self._solver_work is None:
            found = goal_latches(self.net, alone=False) if latches else None
            self._solver_latched = found is not None
            self._solver_work = self._work
            if found is not None:
                self._solver_work = with_latches(self._work, self.net, found)
        if self._solver is None:
            net = self.net
            nmoves = int(net.move_start[1] - net.move_start[0])
            self._solver = DepthFirstSolver(
                self._arrays, len(net.base), nmoves, self.top_goal(), SOLVER_MEMORY
            )
        work, latched = self._solver_work, self._solver_latched
        return self._solver.search(
            bits, seconds, work, self._val, budget, latched, ordered, floor, plan, in_order
        )

    def shortest(
        self,
        bits: npt.NDArray[np.uint8],
        seconds: float,
        budget: int | None = None,
        counter: npt.NDArray[np.uint8] | None = None,
    ) -> ShortestLine:
        """A breadth-first search of a one-role game from ``bits`` for about ``seconds``
        for its shortest line to role 0's top goal
        (:mod:`~ggpkit.search.puzzles.breadth_first`; kept for the match while the
        match follows the line found, or the search is over); ``budget``: expansions a
        call of the search may make (None: as many as about 50 ms take); ``counter``
        (taken at the first call): flags on the base facts of a step counter, which
        the search leaves out of the states' key."""
        self._prepare(bits)
        if self._shortest is None:
            net = self.net
            nmoves = int(net.move_start[1] - net.move_start[0])
            self._shortest = BreadthFirstSearch(
                self._arrays, len(net.base), nmoves, self.top_goal(), SHORTEST_MEMORY, counter
            )
        return self._shortest.search(bits, seconds, self._work, self._val, budget)

    def top_goal(self) -> float:
        """Role 0's highest goal in the network (0..1)."""
        net = self.net
        return int(net.goal_values[net.goal_start[0] : net.goal_start[1]].max(initial=0)) / 100

    def _prepare(self, bits: npt.NDArray[np.generic]) -> None:
        """Make the propagation state consistent, once (any state will do)."""
        if not self._prepared:
            prepare(self._arrays, self._work, bits, self._val)
            self._prepared = True

    def _iterate(
        self,
        n: int,
        c: float,
        leaf: int,
        rng: np.random.Generator,
        max_steps: int,
        mast: bool,
        grave: int,
        paths: int,
    ) -> tuple[int, int, float]:
        if self._tree[20][2] != 0.0 and not self._latches_looked:
            self._look_for_latches()
        if self.batched(paths, mast, grave):
            return self._run_paths(n, c, paths, leaf, rng, max_steps)
        return self._run(n, c, leaf, rng, max_steps, mast, grave)

    def _look_for_latches(self) -> None:
        """Find the latches once, at the first search that reads them (the analysis
        costs up to about a second on the biggest networks: not for searches without)."""
        self._latches_looked = True
        self.latches = goal_latches(self.net)
        if self.latches is not None:
            self._work = with_latches(self._work, self.net, self.latches)

    def _set_root(self, bits: npt.NDArray[np.generic]) -> None:
        super()._set_root(bits)
        self._prepare(bits)

    def _run(
        self,
        n: int,
        c: float,
        leaf: int,
        rng: np.random.Generator,
        max_steps: int,
        mast: bool,
        grave: int,
    ) -> tuple[int, int, float]:
        code, ran, played = sk.iterate(
            self._arrays, self._work, self._val, self._val64, self._tree, self._sizes,
            self._root, n, c, leaf, np.uint64(rng.integers(0, 2**63)), max_steps,
            self._path_n, self._path_e, self._reward, self._line, self._best_line, self._best,
            self._mast if mast else self._no_mast, self._played, float(grave), self._seen,
        )  # fmt: skip
        return int(code), int(ran), float(played)

    def _run_paths(
        self, n: int, c: float, paths: int, per_path: int, rng: np.random.Generator, max_steps: int
    ) -> tuple[int, int, float]:
        code, ran, played = sk.iterate_paths(
            self._arrays, self._work, self._val, self._val64, self._tree, self._sizes,
            self._root, n, c, max(1, per_path), np.uint64(rng.integers(0, 2**63)), max_steps,
            self._queue(paths), self._reward, self.goal_weight, tk.MAX_JOINT_MOVES, self.material,
            self.material_base, self._decisive, self.greedy, self.wins,
        )  # fmt: skip
        return int(code), int(ran), float(played)
