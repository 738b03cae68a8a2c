"""The compiled MCTS tree of native games: their own states in the generic array tree.

Why: in Python, a tree over a native game runs a small fraction of the iterations
its game's kernels could play out in the same time. Here the tree is
:class:`~ggpkit.search.tree.array_tree.ArrayTree` (the propnet's tree, with selection,
virtual losses, solver proofs, compaction) and the game supplies three batch kernels
(:class:`NativeTreeKernels`) over its states written as rows of uint64 words:

1. the tree's paths descend, in compiled code (:func:`tree_kernels.descend_batch`);
2. the game makes the children the paths need (``children``) and they are stored;
3. the game plays out the paths' leaves (``playouts``) and the paths are backed up.

The whole loop is compiled (:mod:`~ggpkit.search.native.kernels`): the interpreter
is entered once per call of about 10 ms. Games of several roles, turn-taking only; MAST
and GRAVE are the propnet tree's (asked for here, the agent searches in Python).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ggpkit.gdl.terms import Func, Term
from ggpkit.search.contract import CannotSearchError, TreeReport
from ggpkit.search.options import SearchLimit, SearchOptions
from ggpkit.search.tree import kernels as tk
from ggpkit.search.tree.array_tree import ArrayTree


@dataclass(frozen=True, slots=True)
class NativeTreeKernels:
    """What a native game gives its compiled tree.

    Rows are the states as ``words`` uint64 each; role r's moves are the indices
    ``move_start[r]`` to ``move_start[r + 1] - 1`` (a role without a choice has one,
    its noop). The kernels are compiled (numba) functions over a batch, each also given
    the game's ``variant`` flag last (captures allowed, a barrel board):

    - ``describe(rows, idx, legal, term, goal)``: for each ``j``, state ``rows[idx[j]]``'s
      legal moves as flags in ``legal[j]``, whether it is terminal in ``term[j]`` and,
      if so, each role's goal (0..100) in ``goal[j]``;
    - ``children(rows, idx, joint, legal, term, goal)``: first turn ``rows[idx[j]]`` into
      its child by the joint move ``joint[j]`` (move indices), then describe it;
    - ``playouts(rows, count, seed, sums) -> joint moves played``: ``count`` random
      playouts from each row, each role's goals summed into ``sums[j]``;
    - ``batches``: the tree's search loop over these two,
      :func:`~ggpkit.search.native.kernels.run_batches` called with them by a
      compiled function of the game's module (so that numba caches it).
    """

    words: int
    move_start: tuple[int, ...]
    row: Callable[[Any], npt.NDArray[np.uint64]]
    """A state of the game as its row."""
    move_term: Callable[[int, int], Term]
    """(role index, move index within the role) -> the move's term."""
    describe: Any = field(compare=False)
    children: Any = field(compare=False)
    playouts: Any = field(compare=False)
    batches: Any = field(compare=False)
    variant: bool = False
    fact_bit: Callable[[Term], tuple[int, int] | None] | None = field(default=None, compare=False)
    """A fact -> its (word, bit) in the rows, or None where no one bit holds it; without
    it the tree cannot count pieces (the material heuristic)."""


@dataclass(frozen=True, slots=True)
class BoardBits:
    """A ``fact_bit`` for boards kept as one bit per square: the fact
    ``(relation x y piece)`` is bit ``(y - 1) * width + x - 1`` of the piece's row word."""

    relation: str
    words: tuple[tuple[str, int], ...]
    """(piece, its row word) pairs."""
    width: int
    height: int

    def __call__(self, fact: Term) -> tuple[int, int] | None:
        if not isinstance(fact, Func) or fact.name != self.relation or len(fact.args) != 3:
            return None
        x, y, piece = (str(a) for a in fact.args)
        word = dict(self.words).get(piece)
        if word is None or not (x.isdigit() and y.isdigit()):
            return None
        if not (1 <= int(x) <= self.width and 1 <= int(y) <= self.height):
            return None
        return word, (int(y) - 1) * self.width + int(x) - 1


class NativeTree(ArrayTree):
    """The array tree over a native game's rows (see the module docstring)."""

    def __init__(self, kernels: NativeTreeKernels, nroles: int, max_nodes: int | None) -> None:
        move_start = np.array(kernels.move_start, dtype=np.int64)
        super().__init__(nroles, kernels.words, np.uint64, move_start, max_nodes)
        self.kernels = kernels

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
        if mast or grave:
            raise CannotSearchError("a native game's tree has neither MAST nor GRAVE")
        tree, root = self._tree, self._root
        q = self._queue(max(1, paths))
        if tree[2][root] < 0 and tree[7][root] == 0:
            code = self._expand_root(q)
            if code != tk.STOP_DONE:
                return code, 0, 0.0
        k = self.kernels  # the kernels give goals only in terminal states: the goal
        # weight is the material heuristic's, where the kernels can count pieces
        code, done, played = k.batches(
            tree, self._sizes, root, c, np.uint64(rng.integers(1, 2**63)), max(1, leaf), q, n,
            self._reward, self.move_start, k.variant, self.material, self.material_base,
            self.goal_weight,
        )  # fmt: skip
        return int(code), int(done), float(played)

    def _expand_root(self, q: tuple[npt.NDArray[Any], ...]) -> int:
        q[4][0, :] = self._tree[0][self._root]
        q[10][0] = 0
        self.kernels.describe(q[4], q[10][:1], q[7], q[8], q[9], self.kernels.variant)
        return int(
            tk.expand_from(
                self._root,
                q[7][0],
                q[8][0],
                q[9][0],
                self.move_start,
                self._tree,
                self._sizes,
                tk.MAX_JOINT_MOVES,
            )
        )


class NativeTreeSearch:
    """One agent's compiled tree over a native game (a :class:`TreeSearch`)."""

    def __init__(
        self, name: str, roles: tuple[str, ...], kernels: NativeTreeKernels, max_nodes: int | None
    ) -> None:
        self.name = name
        self.roles = roles
        self.kernels = kernels
        self.tree = NativeTree(kernels, len(roles), max_nodes)

    def search(
        self, state: Hashable, limit: SearchLimit, options: SearchOptions, role: str | None = None
    ) -> TreeReport:
        """See :class:`~ggpkit.search.contract.TreeSearch` (the kernels give goals only
        in terminal states: ``goals`` weighs the material heuristic, where the kernels can
        count pieces, and changes nothing otherwise; ``greedy``, ``wins``, ``latches``,
        ``mobility``, ``nested``, ``dfs``, ``ordered``, ``monotone`` and ``fill`` change
        nothing: a native game's playouts and expansions are what its kernels make them)."""
        row = self._row(state)
        index = -1 if role is None else self.roles.index(role)
        try:
            found = self.tree.search(row, limit, options, index, self._masks(options.pieces))
        except CannotSearchError as e:
            raise CannotSearchError(f"{self.name}: {e}") from None
        term = self.kernels.move_term
        return TreeReport(
            mover=self.roles[found.mover],
            moves=tuple(term(found.mover, i) for i in found.moves),
            visits=found.visits,
            means=found.means,
            exact=found.exact,
            proven=None
            if found.proven is None
            else dict(zip(self.roles, found.proven, strict=True)),
            iterations=found.iterations,
            playouts=found.playouts,
            best_line=(),
            best_value=found.best_value,
        )

    def _masks(self, material: tuple[frozenset[Term], ...]) -> npt.NDArray[np.uint64]:
        """Per role, its pieces as bits of the rows (no rows where the kernels cannot
        place a fact, or none is given)."""
        fact_bit = self.kernels.fact_bit
        if fact_bit is None:
            return np.zeros((0, self.kernels.words), np.uint64)
        masks = np.zeros((len(material), self.kernels.words), np.uint64)
        for r, pieces in enumerate(material):
            for fact in pieces:
                place = fact_bit(fact)
                if place is not None:
                    masks[r, place[0]] |= np.uint64(1) << np.uint64(place[1])
        return masks

    def _row(self, state: Hashable) -> npt.NDArray[np.uint64]:
        """The state's row; a CannotSearchError for anything that is not a state of this game (the
        kernels read exactly ``words`` items a row, unchecked)."""
        try:
            row = self.kernels.row(state)
        except (TypeError, ValueError, OverflowError):
            row = None
        if row is None or row.shape != (self.kernels.words,):
            raise CannotSearchError(f"{self.name}: not a state of this game: {state!r}")
        return row


@dataclass(frozen=True, slots=True)
class NativeTrees:
    """The ``tree_search`` a native game declares: each call makes a new tree."""

    name: str
    roles: tuple[str, ...]
    kernels: NativeTreeKernels

    def __call__(self, max_nodes: int | None = None) -> NativeTreeSearch:
        return NativeTreeSearch(self.name, self.roles, self.kernels, max_nodes)
