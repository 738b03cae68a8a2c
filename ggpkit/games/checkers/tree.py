"""Pawn checkers in the native compiled tree (:mod:`ggpkit.search.native.tree`).

A state is the row (black, red, black captures, red captures, step, control). A move
of the side with control is its landing square, whether it jumps and its direction
``d`` (:func:`kernels.advance`), index ``4 * square + 2 * jump + d``: the source square
is one step back (two for a jump). Index 256 is the noop of the side without control.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import numpy.typing as npt
from numba import njit

from ggpkit.games.checkers import kernels as k
from ggpkit.games.checkers import tree_kernels as tree_k
from ggpkit.games.checkers.tree_kernels import MOVE_START, NOOP_INDEX
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


def state_row(state: tuple[int, ...]) -> npt.NDArray[np.uint64]:
    """The row of a position (black, red, black captures, red captures, step, control)."""
    return np.array(state, dtype=np.uint64)


def move_term(wrap: bool, role: int, index: int) -> Term:
    """The term of move ``index`` of role ``role`` (see the module docstring)."""
    if index == NOOP_INDEX:
        return Const("noop")
    square, rest = divmod(index, 4)
    jump, d = divmod(rest, 2)
    source = np.uint64(1) << np.uint64(square)
    for _ in range(1 + jump):
        source = k.retreat(source, role, d, wrap)
    frm = int(source).bit_length() - 1
    return func(
        "jump" if jump else "move", frm % 8 + 1, frm // 8 + 1, square % 8 + 1, square // 8 + 1
    )


fact_bit = BoardBits("location", (("blackPawn", 0), ("redPawn", 1)), 8, 8)
"""A pawn's fact ``(location x y blackPawn|redPawn)`` -> its (row word, bit)."""


def _kernels(barrel: bool) -> NativeTreeKernels:
    return NativeTreeKernels(
        6, MOVE_START, state_row, partial(move_term, barrel), tree_k.describe, tree_k.children,
        tree_k.playouts, batches, barrel, fact_bit,
    )  # fmt: skip


PLAIN = _kernels(False)
"""Pawn checkers on the plain board."""
BARREL = _kernels(True)
"""Pawn checkers on the barrel (rows wrap)."""
