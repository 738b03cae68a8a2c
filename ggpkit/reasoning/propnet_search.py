"""A UCT tree over a propnet whose iterations run in compiled code.

Why: a search tree in Python spends 20-50 µs of interpreter per node visit, so on a
fast network it runs a small fraction of the playouts the network can play (issue:
MCTS at 1-2% of the raw playout rate). Here the tree lives in preallocated arrays and
:func:`~ggpkit.reasoning.propnet_search_kernels.iterate` runs batches of whole
iterations (selection by UCB, expansion, a playout or a batch of 64-lane playouts,
the backup and MCTS-solver proofs) with the interpreter entered once per batch.

One :class:`PropnetTreeSearch` is one searcher with its own tree and scratch memory:
it is not shared between threads (each agent makes its own). The tree is kept
between searches: a new search from a state found among the last root's children or
grandchildren continues from that node, else the tree starts again.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ggpkit.reasoning import propnet_search_kernels as sk
from ggpkit.reasoning.base import ReasonerError
from ggpkit.reasoning.propnet import Propnet

MAX_DEPTH = 4096
"""Longest path from the root the tree descends; deeper states are leaves."""

LINE_LENGTH = 100_000
"""Moves a one-role game's best line can hold (the playouts' step limit)."""

MAST_MOVES = 100_000
"""Moves of one playout MAST credits at its end (the rest of a longer playout is not)."""

EDGES_PER_NODE = 32
"""Edge slots per node slot. Expanded nodes of knightThrough have 40 edges each, and
the slots are only reserved: the memory of the ones never used is never touched."""

MEMORY_SHARE = 8
"""A tree reserves at most this fraction (1/8) of the machine's memory ..."""

MAX_MEMORY = 2 << 30
"""... and at most 2 GiB. Reserved memory costs nothing until used, and a search of
1.5 s on connectFour makes about 220,000 nodes: a tree of 200,000 filled within one move
and was thrown away at the next."""

BATCH_SECONDS = 0.01
"""Each compiled call runs about this long, so the clock is read that often."""


class SimultaneousMovesError(ReasonerError):
    """The tree met a state where two roles choose: this search handles turn-taking only."""


@dataclass(frozen=True, slots=True)
class RootReport:
    """What one search found at its root, for the role that chooses there."""

    mover: int
    """Index of the role with the choice (any role when nobody has one)."""
    moves: tuple[int, ...]
    """The mover's legal moves, as indices into the network's moves of that role."""
    visits: tuple[float, ...]
    means: tuple[float, ...]
    """Mean reward of the mover (0..1) after each move."""
    exact: tuple[float | None, ...]
    """The mover's proven value after each move, where proven."""
    proven: tuple[float, ...] | None
    """Every role's proven value of the root, if proven."""
    iterations: int
    playouts: float
    best_line: tuple[int, ...]
    """One-role games: the best line found from the root (move indices)."""
    best_value: float


class PropnetTreeSearch:
    """UCT with solver backups over one network; see the module docstring."""

    def __init__(
        self, net: Propnet, max_nodes: int | None = None, memory: int | None = None
    ) -> None:
        self.net = net
        self.nroles = len(net.roles)
        nb = len(net.base)
        per_node = nb + 64 + 16 * self.nroles + EDGES_PER_NODE * (40 + 8 * self.nroles)
        most = (memory if memory is not None else memory_budget()) // per_node
        self.capacity = max(1000, most if max_nodes is None else min(max_nodes, most))
        self._newid = np.zeros(self.capacity, dtype=np.int64)
        self._order = np.zeros(self.capacity, dtype=np.int64)
        self._arrays = _net_arrays(net)
        self._work = _work_arrays(net)
        self._val = np.zeros(net.size, dtype=np.uint8)
        self._val[1] = 1
        self._val64 = np.zeros(net.size, dtype=np.uint64)
        self._tree = _tree_arrays(self.capacity, nb, self.nroles)
        self._sizes = np.zeros(2, dtype=np.int64)
        self._root = -1
        self._path_n = np.zeros(MAX_DEPTH, dtype=np.int64)
        self._path_e = np.zeros(MAX_DEPTH, dtype=np.int64)
        self._reward = np.zeros(self.nroles, dtype=np.float64)
        self._line = np.zeros(LINE_LENGTH, dtype=np.int64)
        self._best_line = np.zeros(LINE_LENGTH, dtype=np.int64)
        self._best = np.zeros(2, dtype=np.float64)
        self._mast = np.zeros((int(net.move_start[-1]), 2), dtype=np.float64)
        """MAST's reward sum and count per legal literal, kept for the whole match."""
        self._no_mast = np.zeros((0, 2), dtype=np.float64)
        self._played = np.zeros(MAST_MOVES, dtype=np.int64)
        self._seen = np.full(int(net.move_start[-1]), -1, dtype=np.int64)
        """GRAVE's scratch: each legal literal's last position in an iteration (-1: none)."""
        self._prepared = False
        self._paths: tuple[npt.NDArray[np.generic], ...] | None = None

    def search(
        self,
        bits: npt.NDArray[np.uint8],
        seconds: float | None,
        iterations: int | None,
        c: float,
        leaf: int,
        seed: int,
        max_steps: int = 100_000,
        mast: bool = False,
        grave: int = 0,
        paths: int = 1,
    ) -> RootReport:
        """Search from the state ``bits`` (one byte per base proposition) within the limits.

        ``mast``: playouts choose moves by MAST (one playout per leaf) instead of at random.
        ``grave`` > 0: select by GRAVE, a node's all-moves-as-first statistics used from
        that many visits on (a leaf batch adds one playout whose moves are kept).
        ``paths`` > 1 (games of several roles, without MAST or GRAVE): that many paths
        descend before their leaves are played out together, ``leaf`` playouts each.
        At least one limit must be given. Raises :class:`SimultaneousMovesError` when a
        state with two choosing roles is met, ReasonerError on broken rules.
        """
        if seconds is None and iterations is None:
            raise ValueError("give a time or an iteration limit")
        started = time.perf_counter()
        deadline = np.inf if seconds is None else started + seconds
        self._set_root(bits)
        budget = np.inf if iterations is None else iterations
        rng = np.random.default_rng(seed)
        done = 0
        playouts = 0.0
        batch = 1  # the first call is one iteration: on chess_200 one 64-lane batch takes ~3 s
        while done < budget and time.perf_counter() < deadline:
            n = int(min(batch, budget - done))
            t0 = time.perf_counter()
            if paths > 1 and self.nroles > 1 and not mast and grave == 0:
                code, ran, played = self._run_paths(n, c, paths, leaf, rng, max_steps)
            else:
                code, ran, played = self._run(n, c, leaf, rng, max_steps, mast, grave)
            done += int(ran)
            playouts += float(played)
            if code == sk.STOP_PROVEN:
                break
            _raise_for(code)
            took = time.perf_counter() - t0
            if took < BATCH_SECONDS / 2:
                batch *= 2
            elif took > BATCH_SECONDS * 2 and batch > 1:
                batch //= 2
        return self._report(done, playouts)

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
            self._queue(paths), self._reward,
        )  # fmt: skip
        return int(code), int(ran), float(played)

    def _queue(self, paths: int) -> tuple[npt.NDArray[np.generic], ...]:
        """The scratch of :func:`~propnet_search_kernels.iterate_paths` for ``paths`` paths."""
        if self._paths is None or len(self._paths[2]) != paths:
            nb, nroles, nlegal = len(self.net.base), self.nroles, max(1, len(self.net.legal_lits))
            self._paths = (
                np.zeros((paths, MAX_DEPTH), dtype=np.int64),  # 0 nodes of each path
                np.zeros((paths, MAX_DEPTH), dtype=np.int64),  # 1 edges of each path
                np.zeros(paths, dtype=np.int64),  # 2 depth of each path
                np.zeros(paths, dtype=np.int64),  # 3 leaf node of each path
                np.zeros((paths, nb), dtype=np.uint8),  # 4 leaf states
                np.zeros((paths, nroles), dtype=np.int64),  # 5 goal sums
                np.zeros((paths, nroles), dtype=np.int64),  # 6 joint moves to new children
                np.zeros((paths, nlegal), dtype=np.uint8),  # 7 their legal literals
                np.zeros(paths, dtype=np.uint8),  # 8 whether they are terminal
                np.zeros((paths, nroles), dtype=np.int64),  # 9 their goals
                np.zeros(paths, dtype=np.int64),  # 10 rows of the batch
            )
        return self._paths

    def _set_root(self, bits: npt.NDArray[np.uint8]) -> None:
        """Continue from the node of ``bits`` near the last root, else start a new tree.

        When half the node or edge slots are used, only the new root's subtree is kept,
        however big: it is all the search knows about the position (a subtree that
        fills the tree stops its growth, not its statistics).
        """
        found = self._near_root(bits)
        if found is None:
            self._sizes[:] = 0
            found = int(sk.new_node(bits, self._tree, self._sizes))
        moved = found != self._root
        if moved:
            self._best[:] = (-1.0, 0)
        if self._half_full():
            sk.compact(self._tree, self._sizes, found, self._newid, self._order)
            found = 0
        if not self._prepared:
            sk.prepare(self._arrays, self._work, bits, self._val)
            self._prepared = True
        self._root = found

    def _half_full(self) -> bool:
        return bool(self._sizes[0] > self.capacity // 2 or self._sizes[1] > len(self._tree[9]) // 2)

    def _near_root(self, bits: npt.NDArray[np.uint8]) -> int | None:
        if self._root < 0:
            return None
        frontier = [self._root]
        for _ in range(3):
            for node in frontier:
                if np.array_equal(self._tree[0][node], bits):
                    return node
            frontier = [c for node in frontier for c in self._children(node)]
        return None

    def _children(self, node: int) -> list[int]:
        first, nedge, echild = self._tree[1], self._tree[2], self._tree[9]
        if nedge[node] <= 0:
            return []
        kids = echild[first[node] : first[node] + nedge[node]]
        return [int(k) for k in kids if k >= 0]

    def _report(self, iterations: int, playouts: float) -> RootReport:
        t = self._tree
        root = self._root
        mover = int(t[3][root]) if t[2][root] > 0 else 0
        a, n = int(t[1][root]), max(0, int(t[2][root]))
        start = int(self.net.move_start[mover])
        moves = tuple(int(k) - start for k in t[10][a : a + n])
        visits = tuple(float(v) for v in t[11][a : a + n])
        means = tuple(
            float(t[12][e, mover] / t[11][e]) if t[11][e] > 0 else 0.0 for e in range(a, a + n)
        )
        exact = tuple(
            float(t[8][ch, mover]) if ch >= 0 and t[7][ch] else None for ch in t[9][a : a + n]
        )
        proven = tuple(float(v) for v in t[8][root]) if t[7][root] else None
        length = int(self._best[1])
        start0 = int(self.net.move_start[0])
        line = tuple(int(k) - start0 for k in self._best_line[:length])
        return RootReport(
            mover, moves, visits, means, exact, proven, iterations, playouts, line,
            float(self._best[0]),
        )  # fmt: skip


def memory_budget() -> int:
    """Bytes one tree may reserve on this machine (see :data:`MEMORY_SHARE`)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # not a POSIX system
        total = 4 << 30
    return max(64 << 20, min(MAX_MEMORY, total // MEMORY_SHARE))


def warm_up() -> None:
    """Compile (or load) the tree's compaction, which a search meets only late in a match."""
    tree = _tree_arrays(4, 1, 1)
    sizes = np.array([1, 0], dtype=np.int64)
    scratch = np.zeros(4, dtype=np.int64)
    sk.compact(tree, sizes, 0, scratch, scratch.copy())


def _raise_for(code: int) -> None:
    if code == sk.STOP_SIMULTANEOUS:
        raise SimultaneousMovesError("two roles choose in one state of this game")
    if code == sk.STOP_NO_LEGAL:
        raise ReasonerError("a role has no legal move in a non-terminal state")
    if code == sk.STOP_GOAL:
        raise ReasonerError("a terminal state does not give exactly one goal value per role")
    if code == sk.STOP_TOO_LONG:
        raise ReasonerError("a random playout did not end within the step limit")


def _net_arrays(net: Propnet) -> tuple[object, ...]:
    return (
        net.kind, net.in_start, net.inputs, net.order, net.blocks, net.phases, net.base_nodes,
        net.next_lits, net.legal_lits, net.does_nodes, net.move_start, net.terminal_lit,
        net.goal_lits, net.goal_values, net.goal_start, net.fan_start, net.fanout, net.level,
        net.scc, net.scc_start, net.scc_nodes, net.needed,
    )  # fmt: skip


def _work_arrays(net: Propnet) -> tuple[object, ...]:
    """The differential propagation's scratch, laid out as the kernels index it."""
    n = net.size
    levels = net.level[net.needed] if len(net.needed) else np.zeros(0, dtype=np.int32)
    nlevels = int(levels.max()) + 1 if len(levels) else 1
    bucket_start = np.zeros(nlevels + 1, dtype=np.int32)
    np.add.at(bucket_start, levels + 1, 1)
    bucket_start = np.cumsum(bucket_start).astype(np.int32)
    sizes = np.diff(net.scc_start) if len(net.scc_start) > 1 else np.ones(1, dtype=np.int32)
    nroles = len(net.roles)
    return (
        np.zeros(n, dtype=np.int32),  # 0 count of true inputs
        np.zeros(n, dtype=np.uint8),  # 1 pending
        np.zeros(max(1, len(net.needed)), dtype=np.int32),  # 2 bucket
        bucket_start,  # 3
        np.zeros(nlevels, dtype=np.int32),  # 4 bucket_len
        np.array([1 << 30, -1], dtype=np.int64),  # 5 lohi
        np.zeros(max(1, int(sizes.max())), dtype=np.uint8),  # 6 old
        np.zeros(nroles, dtype=np.int64),  # 7 ks
        np.full(nroles, -1, dtype=np.int64),  # 8 chosen
        np.zeros(max(1, len(net.legal_lits)), dtype=np.uint8),  # 9 legal flags
        np.zeros(len(net.base), dtype=np.uint8),  # 10 tmp
        np.zeros(2 * nroles, dtype=np.int32),  # 11 does nodes to change
        np.zeros(2 * nroles, dtype=np.uint8),  # 12 their new values
        np.zeros(nroles, dtype=np.int64),  # 13 goals of a state expanded
    )


def _tree_arrays(capacity: int, nb: int, nroles: int) -> tuple[npt.NDArray[np.generic], ...]:
    edges = capacity * EDGES_PER_NODE
    return (
        np.zeros((capacity, nb), dtype=np.uint8),  # 0 bits
        np.zeros(capacity, dtype=np.int64),  # 1 first edge
        np.full(capacity, -1, dtype=np.int64),  # 2 edges (-1: not expanded)
        np.zeros(capacity, dtype=np.int64),  # 3 mover
        np.zeros((capacity, nroles), dtype=np.int64),  # 4 fixed moves
        np.zeros(capacity, dtype=np.uint8),  # 5 terminal
        np.zeros(capacity, dtype=np.float64),  # 6 visits
        np.zeros(capacity, dtype=np.uint8),  # 7 proven
        np.zeros((capacity, nroles), dtype=np.float64),  # 8 value
        np.zeros(edges, dtype=np.int64),  # 9 child
        np.zeros(edges, dtype=np.int64),  # 10 move
        np.zeros(edges, dtype=np.float64),  # 11 count
        np.zeros((edges, nroles), dtype=np.float64),  # 12 reward sums
        np.zeros(edges, dtype=np.float64),  # 13 all-moves-as-first count (GRAVE)
        np.zeros(edges, dtype=np.float64),  # 14 its sum of the mover's rewards
    )
