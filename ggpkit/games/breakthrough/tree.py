"""Breakthrough-holes in the native compiled tree (:mod:`ggpkit.search.native.tree`).

A state is the row (white, black, control). A move of the side with control is its
destination cell and its kind (0 straight, 1 towards x-1, 2 towards x+1), index
``3 * cell + kind``: each gives exactly one source cell (:func:`kernels.source_of`).
Index 108 is the noop of the side without control.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from ggpkit.games.breakthrough import tree_kernels as tree_k
from ggpkit.games.breakthrough.tree_kernels import MOVE_START, NOOP_INDEX
from ggpkit.gdl.terms import Const, Term, func
from ggpkit.search.native import kernels as ntk
from ggpkit.search.native.tree import BoardBits, NativeTreeKernels


@njit(cache=True, nogil=True)
def batches(  # type: ignore[no-untyped-def]
    tree, sizes, root, c, rng, per_path, q, limit, reward, move_start, variant, masks, base,
    weight,
):  # fmt: skip
    """The tree's batches over this game (see :mod:`~ggpkit.search.native.kernels`)."""
    return ntk.run_batches(
        tree, sizes, root, c, rng, per_path, q, limit, reward, move_start, variant, masks,
        base, weight, tree_k.children, tree_k.playouts,
    )  # fmt: skip


def state_row(state: tuple[int, int, int]) -> npt.NDArray[np.uint64]:
    """The row of a position (white, black, control)."""
    return np.array(state, dtype=np.uint64)


def move_term(role: int, index: int) -> Term:
    """The term of move ``index`` of role ``role`` (see the module docstring)."""
    if index == NOOP_INDEX:
        return Const("noop")
    cell, kind = divmod(index, 3)
    x2, y2 = cell % 6 + 1, cell // 6 + 1
    dy = 1 if role == 0 else -1
    dx = (0, -1, 1)[kind]
    return func("move", x2 - dx, y2 - dy, x2, y2)


fact_bit = BoardBits("cell", (("white", 0), ("black", 1)), 6, 6)
"""A pawn's fact ``(cell x y white|black)`` -> its (row word, bit)."""


def _kernels(capture: bool) -> NativeTreeKernels:
    return NativeTreeKernels(
        3, MOVE_START, state_row, move_term, tree_k.describe, tree_k.children, tree_k.playouts,
        batches, capture, fact_bit,
    )  # fmt: skip


PLAIN = _kernels(False)
"""Breakthrough-holes without captures."""
CAPTURE = _kernels(True)
"""Breakthrough-holes with diagonal captures (the public breakthroughSmallHoles)."""
