"""The native trees' search loop in compiled code, over a game's own kernels.

Why one compiled loop: a batch of the tree (paths descend, their new children are made
and stored, their leaves played out and backed up) called seven compiled functions
from Python, and each call cost 1.4-3.4 µs only to hand numba its tuples of arrays.
Where a path costs about 7 µs and four paths share a batch (see
:mod:`ggpkit.agents.mcts.batch_split`), that was most of the time.

:func:`run_batches` takes the game's ``children`` and ``playouts`` kernels (see
:class:`~ggpkit.search.native.tree.NativeTreeKernels`) as arguments. Numba caches a
function given other compiled functions only when it is called from compiled code, so
each game wraps it in a function of its own module that passes its kernels (called
from Python, the loop would be compiled again in every process).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpkit.reasoning.jit import rand_below
from ggpkit.search.tree import kernels as tk


@njit(cache=True, nogil=True)
def run_batches(  # type: ignore[no-untyped-def]
    tree, sizes, root, c, rng, per_path, q, limit, reward, move_start, variant, masks, base,
    weight, children, playouts,
):  # fmt: skip
    """Batches of paths from ``root`` until ``limit`` paths ran or the root is proven:
    (stop code, paths run, playouts played).

    Each path's leaf gets ``per_path`` playouts. ``weight`` > 0 with ``masks`` (one
    row per role): a new leaf is worth that share of the material heuristic's goals
    (:func:`tk.material_goals`), the rest of its playouts.
    """
    by_pieces = weight > 0.0 and masks.shape[0] > 0
    w = 1.0  # a path is one visit (see tree_kernels.backup_leaves)
    done = 0
    played = 0.0
    while done < limit and tree[7][root] == 0:
        rng, ran, nq = tk.descend_batch(tree, sizes, root, c, rng, w, q, limit - done, reward)
        done += ran
        m = tk.queue_joints(tree, q, nq)
        if m > 0:
            children(q[4], q[10][:m], q[6], q[7], q[8], q[9], variant)
            if by_pieces:
                tk.material_goals(q, m, masks, base)
            code = tk.attach_children(tree, sizes, q, m, move_start, reward, w, by_pieces, False)
            if code != tk.STOP_DONE:
                return code, done, played
        k = tk.gather_leaves(q, nq)
        if k > 0:
            q[5][:k] = 0
            rng, seed = rand_below(rng, np.uint64(1) << np.uint64(62))
            playouts(q[4][:k], per_path, seed, q[5], variant)
            tk.backup_leaves(tree, q, k, per_path, reward, weight if by_pieces else 0.0)
            played += k * per_path
    stop = tk.STOP_PROVEN if tree[7][root] != 0 else tk.STOP_DONE
    return stop, done, played
