"""A compiled UCT tree's memory and search loop, for any way of stepping states.

Why a base class: the propnet's tree (:mod:`ggpkit.search.propnet.tree`) and the
native games' trees (:mod:`ggpkit.search.native.tree`) keep the same arrays (see
:mod:`ggpkit.search.tree.kernels`), reuse them from move to move the same way and
read the same root statistics; they differ only in how a batch of iterations steps
and plays out states (:meth:`ArrayTree._iterate`).

One tree is one searcher with its own memory: it is not shared between threads.
The tree is kept between searches: a new search from a state the tree holds (found by
its hash) continues from that node, else the tree starts again.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ggpkit.reasoning.base import ReasonerError
from ggpkit.search.contract import SimultaneousMovesError
from ggpkit.search.options import SearchLimit, SearchOptions
from ggpkit.search.tree import kernels as tk

MAX_DEPTH = 4096
"""Longest path from the root the tree descends; deeper states are leaves."""

EDGES_PER_NODE = 32
"""Edge slots per node slot. Expanded nodes of knightThrough have 40 edges each, and
the slots are only reserved: the memory of the ones never used is never touched."""

MEMORY_SHARE = 8
"""A tree reserves at most this fraction (1/8) of the machine's memory ..."""

MAX_MEMORY = 2 << 30
"""... and at most 2 GiB. Reserved memory costs nothing until used, and a fast search
makes nodes by the hundred thousand a move: a smaller tree filled within one move and
was thrown away at the next."""

CGROUP_LIMITS = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")
"""Where a container's memory limit is read (cgroup v2, then v1; "max" is no limit)."""

BATCH_SECONDS = 0.01
"""Each compiled call runs about this long, so the clock is read that often."""

MAX_STEPS = 100_000
"""Most steps of one playout: a longer one is broken rules (ReasonerError)."""


@dataclass(frozen=True, slots=True)
class RootReport:
    """What one search found at its root, for the role that chooses there."""

    mover: int
    """Index of the role with the choice (any role when nobody has one; at a
    simultaneous root, the role asked for)."""
    moves: tuple[int, ...]
    """The mover's legal moves, as indices into that role's moves."""
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


class ArrayTree:
    """The arrays of a tree whose states are rows of ``row_width`` items of ``row_dtype``.

    ``move_start``: role r's moves are ``move_start[r]`` to ``move_start[r + 1] - 1``.
    """

    def __init__(
        self,
        nroles: int,
        row_width: int,
        row_dtype: type[np.generic],
        move_start: npt.NDArray[np.integer[Any]],
        max_nodes: int | None = None,
        memory: int | None = None,
    ) -> None:
        self.nroles = nroles
        self.row_width = row_width
        self.row_dtype = row_dtype
        self.move_start = move_start
        row_bytes = row_width * np.dtype(row_dtype).itemsize
        per_node = row_bytes + 96 + 24 * nroles + EDGES_PER_NODE * (40 + 8 * nroles)
        most = (memory if memory is not None else memory_budget()) // per_node
        self.capacity = max(1000, most if max_nodes is None else min(max_nodes, most))
        self._newid = np.zeros(self.capacity, dtype=np.int64)
        self._order = np.zeros(self.capacity, dtype=np.int64)
        self._tree = tree_arrays(self.capacity, row_width, nroles, row_dtype)
        self._sizes = np.zeros(3, dtype=np.int64)
        self._root = -1
        self._reward = np.zeros(nroles, dtype=np.float64)
        self._best = np.zeros(2, dtype=np.float64)
        self._best_line = np.zeros(0, dtype=np.int64)
        self._paths: tuple[npt.NDArray[np.generic], ...] | None = None
        self.goal_weight = 0.0
        """The goal heuristic's share of a leaf's value in the current search."""
        self.material = np.zeros((0, row_width), dtype=row_dtype)
        """Per role, the row items (bits) that are its pieces: where given, a leaf's
        heuristic goals come from the pieces (:func:`tk.material_goals`), not from its
        state's goals."""
        self.material_base = np.zeros(0, dtype=np.float64)
        """Each role's pieces at the root of the current search."""
        self.greedy = False
        """The current search's batched playouts are greedy (a tree may ignore it)."""
        self.wins = False
        """The current search's batched paths prove a new node where its mover wins in
        one (a tree may ignore it)."""

    def search(
        self,
        bits: npt.NDArray[np.generic],
        limit: SearchLimit,
        options: SearchOptions,
        role: int = -1,
        material: npt.NDArray[np.generic] | None = None,
    ) -> RootReport:
        """Search from the state row ``bits`` within ``limit`` as ``options`` say (see
        :class:`~ggpkit.search.contract.TreeSearch`; a tree ignores what it cannot do).

        ``material`` (one mask row per role, see :attr:`material`) puts the pieces'
        verdict (:func:`tk.material_goals`) in place of the state's goals, ``mobility``
        the roles' shares of their moves (:func:`tk.mobility_goals`); ``minimax``
        mixes backed-up heuristic values into selection (see :func:`tk._minimax_path`),
        ``blunders`` takes back the visits of paths that end in a proven loss (see
        :func:`tk._avoided_loss`), ``latches`` makes leaves of the nodes their latched
        facts settle (see :mod:`~ggpkit.reasoning.propnet.latches`). Where several roles
        choose at once, batched paths search with decoupled statistics (each role its
        own edges; at most ``MAX_JOINT_MOVES`` joint moves a state) and the report at
        such a root is ``role``'s (the first choosing role's when -1). At least one
        limit must be given. Raises :class:`SimultaneousMovesError` when a state with
        two choosing roles is met without batched paths (MAST, GRAVE, one path) or with
        too many joint moves, ReasonerError on broken rules.
        """
        if limit.time is None and limit.iterations is None:
            raise ValueError("give a time or an iteration limit")
        started = time.perf_counter()
        deadline = np.inf if limit.time is None else started + limit.time
        self._set_root(bits)
        self._configure(options, material)
        self.material_base = tk.material_counts(bits, self.material)
        budget = np.inf if limit.iterations is None else limit.iterations
        rng = np.random.default_rng(options.seed)
        mast, grave, paths = options.mast, options.grave, options.path_count()
        batched = self.batched(paths, mast, grave)
        c = options.exploration(batched)
        done = 0
        playouts = 0.0
        # A call runs at least one whole batch of paths: a batch costs one 64-lane pass
        # however few paths share it (quarto: 30 iterations a second one path a call).
        unit = paths if batched else 1
        batch = 1
        per_iteration = 0.0  # seconds, as the last call ran
        while done < budget:
            n = int(min(max(batch, unit), budget - done))
            t0 = time.perf_counter()
            if t0 + per_iteration * n > deadline or t0 >= deadline:
                break  # a compiled call cannot be stopped: do not start one that would overrun
            code, ran, played = self._iterate(
                n, c, options.leaf, rng, MAX_STEPS, mast, grave, paths
            )
            done += int(ran)
            playouts += float(played)
            if code == tk.STOP_PROVEN:
                break
            _raise_for(code)
            took = time.perf_counter() - t0
            per_iteration = took / n
            if took < BATCH_SECONDS / 2:
                batch *= 2
            elif took > BATCH_SECONDS * 2 and batch > 1:
                batch //= 2
        return self._report(done, playouts, role)

    def _configure(self, options: SearchOptions, material: npt.NDArray[np.generic] | None) -> None:
        """Set what the compiled calls of this search read besides their arguments."""
        goals = options.goal_share()
        self.goal_weight = goals
        self.greedy = options.greedy
        self.wins = options.wins
        self._tree[20][0] = options.minimax if goals > 0.0 else 0.0
        self._tree[20][1] = float(options.blunders)
        self._tree[20][2] = float(options.latches)
        self._tree[20][3] = float(options.mobility > 0.0)
        if material is not None:
            self.material = material.astype(self._tree[0].dtype)

    def batched(self, paths: int, mast: bool, grave: int) -> bool:
        """Whether iterations run as batches of ``paths`` paths (see :meth:`search`)."""
        return paths > 1 and self.nroles > 1 and not mast and grave == 0

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
        """Run ``n`` iterations from the root: (stop code, iterations run, playouts)."""
        raise NotImplementedError

    def _queue(self, paths: int) -> tuple[npt.NDArray[np.generic], ...]:
        """The scratch of a batch of ``paths`` paths (see :mod:`tree_kernels`)."""
        if self._paths is None or len(self._paths[2]) != paths:
            nroles, nmoves = self.nroles, max(1, int(self.move_start[-1]))
            self._paths = (
                np.zeros((paths, MAX_DEPTH), dtype=np.int64),  # 0 nodes of each path
                np.zeros((paths, MAX_DEPTH), dtype=np.int64),  # 1 edges of each path
                np.zeros(paths, dtype=np.int64),  # 2 depth of each path
                np.zeros(paths, dtype=np.int64),  # 3 leaf node of each path
                np.zeros((paths, self.row_width), dtype=self.row_dtype),  # 4 leaf states
                np.zeros((paths, nroles), dtype=np.int64),  # 5 goal sums
                np.zeros((paths, nroles), dtype=np.int64),  # 6 joint moves to new children
                np.zeros((paths, nmoves), dtype=np.uint8),  # 7 their legal moves
                np.zeros(paths, dtype=np.uint8),  # 8 whether they are terminal
                np.zeros((paths, nroles), dtype=np.int64),  # 9 their goals
                np.zeros(paths, dtype=np.int64),  # 10 rows of the batch
                np.full(paths, -1, dtype=np.int64),  # 11 a new child's move that wins at once
                np.zeros((paths, self.row_width), dtype=self.row_dtype),  # 12 its end state
                np.zeros((paths, nroles), dtype=np.int64),  # 13 the goals there
            )
        return self._paths

    def _set_root(self, bits: npt.NDArray[np.generic]) -> None:
        """Continue from the node of ``bits`` if the tree has one, else start a new tree.

        When half the node or edge slots are used, only the new root's subtree is kept,
        however big: it is all the search knows about the position (a subtree that
        fills the tree stops its growth, not its statistics).
        """
        found = int(tk.find_node(bits, self._tree)) if self._root >= 0 else -1
        if found >= 0 and self._tree[2][found] == 0:  # a leaf its latches decided
            found = -1  # (the game goes on there: a move is still to be chosen)
        if found < 0:
            tk.clear(self._tree, self._sizes)
            found = int(tk.new_node(bits, self._tree, self._sizes))
        moved = found != self._root
        if moved:
            self._best[:] = (-1.0, 0)
        if self._half_full():
            tk.compact(self._tree, self._sizes, found, self._newid, self._order)
            found = 0
        self._root = found

    def _half_full(self) -> bool:
        return bool(self._sizes[0] > self.capacity // 2 or self._sizes[1] > len(self._tree[9]) // 2)

    def _report(self, iterations: int, playouts: float, role: int) -> RootReport:
        t = self._tree
        root = self._root
        mover = int(t[3][root]) if t[2][root] > 0 else 0
        a, n = int(t[1][root]), max(0, int(t[2][root]))
        if mover == tk.SIMULTANEOUS:
            mover, a, n = self._own_edges(role)
        start = int(self.move_start[mover])
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
        start0 = int(self.move_start[0])
        line = tuple(int(k) - start0 for k in self._best_line[:length])
        return RootReport(
            mover, moves, visits, means, exact, proven, iterations, playouts, line,
            float(self._best[0]),
        )  # fmt: skip

    def _own_edges(self, role: int) -> tuple[int, int, int]:
        """At a simultaneous root: (role, its first edge, its number of edges) for ``role``
        (no edges where it has no choice), or for the first choosing role when ``role`` < 0."""
        t, root = self._tree, self._root
        a = int(t[1][root])
        for r in range(self.nroles):
            n = -int(t[4][root, r])
            if n > 0 and role in (r, -1):
                return r, a, n
            a += max(0, n)
        return role, a, 0


def memory_budget() -> int:
    """Bytes one tree may reserve on this machine (see :data:`MEMORY_SHARE`)."""
    return max(64 << 20, min(MAX_MEMORY, machine_memory() // MEMORY_SHARE))


def machine_memory() -> int:
    """The memory this process may use: the machine's, or its container's if smaller."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # not a POSIX system
        total = 4 << 30
    for limit_file in CGROUP_LIMITS:
        try:
            text = Path(limit_file).read_text().strip()
        except OSError:
            continue
        if text.isdigit():
            total = min(total, int(text))
    return total


def warm_up() -> None:
    """Compile (or load) the tree's compaction, which a search meets only late in a match."""
    tree = tree_arrays(4, 1, 1, np.uint8)
    sizes = np.array([1, 0, 0], dtype=np.int64)
    scratch = np.zeros(4, dtype=np.int64)
    tk.compact(tree, sizes, 0, scratch, scratch.copy())


def _raise_for(code: int) -> None:
    if code == tk.STOP_SIMULTANEOUS:
        raise SimultaneousMovesError("two roles choose in one state of this game")
    if code == tk.STOP_NO_LEGAL:
        raise ReasonerError("a role has no legal move in a non-terminal state")
    if code == tk.STOP_GOAL:
        raise ReasonerError("a terminal state does not give exactly one goal value per role")
    if code == tk.STOP_TOO_LONG:
        raise ReasonerError("a random playout did not end within the step limit")


def tree_arrays(
    capacity: int, row_width: int, nroles: int, row_dtype: type[np.generic]
) -> tuple[npt.NDArray[np.generic], ...]:
    """A tree's arrays, laid out as :mod:`tree_kernels` indexes them."""
    edges = capacity * EDGES_PER_NODE
    slots = 1 << (2 * capacity - 1).bit_length()  # a power of two, at least twice the nodes
    return (
        np.zeros((capacity, row_width), dtype=row_dtype),  # 0 state rows
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
        np.full(slots, -1, dtype=np.int64),  # 15 table: node by state
        np.zeros(capacity, dtype=np.uint64),  # 16 state hash
        np.zeros(capacity, dtype=np.int64),  # 17 mark: last path through the node
        np.full((capacity, nroles), -1.0, dtype=np.float64),  # 18 goals in it (-1: none)
        np.full((capacity, nroles), -1.0, dtype=np.float64),  # 19 their minimax (-1: none)
        np.zeros(4, dtype=np.float64),  # 20 settings: minimax share, blunders, latches, mobility
    )
