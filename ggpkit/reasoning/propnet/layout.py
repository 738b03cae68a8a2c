"""Node numbering that lets the scalar kernels read legal and next literals by words.

A scalar playout counts a role's legal moves and compares the next state with the
state at every ply: one literal at a time, that was most of a ply (breakthrough: 155
legal and 130 next literals; sudokuGrade1: 450 legal). Node values are bytes of 0 or
1, so where a group of literals reads consecutive nodes from a multiple of
:data:`WORD`, a kernel reads eight of them as one uint64 (their sum is one
multiplication away, see :func:`~ggpkit.reasoning.propnet.kernels.ones`).

:func:`lay_out` renumbers a network so: each literal of each group gets a node of
its own that holds its value, in order (its own gate where that is an unnegated gate
no other literal holds, else a new one-input AND); each group starts on a word
boundary, with unread input nodes as padding; the node count is a whole number of
words. The constants keep nodes 0 and 1.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ggpkit.reasoning.propnet.graph import KIND_INPUT, TRUE_NODE
from ggpkit.reasoning.propnet.kernels import KIND_AND

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]

WORD = 8
"""Node values read at once by the scalar kernels (bytes in a uint64)."""


def lay_out(
    kind: I32, in_start: I32, inputs: I32, groups: Sequence[Sequence[int]]
) -> tuple[I32, I32, I32, I64, list[list[int]]]:
    """The network renumbered so that each group's literals read a run of nodes.

    Returns ``kind, in_start, inputs`` renumbered, the map from old node to new (for
    the nodes the caller still names: inputs, goals, terminal) and each group's new
    literals (``2 * node``, consecutive, the first a multiple of ``2 * WORD``).
    """
    identity_inputs, runs = _claim_runs(kind, groups)
    added = len(identity_inputs)
    kind = np.concatenate([kind, np.full(added, KIND_AND, dtype=np.int32)])
    lengths = np.concatenate([np.diff(in_start), np.ones(added, dtype=np.int32)])
    inputs = np.concatenate([inputs, np.asarray(identity_inputs, dtype=np.int32)])
    in_start = np.zeros(len(kind) + 1, dtype=np.int32)
    np.cumsum(lengths, out=in_start[1:])
    order = _word_order(len(kind), runs)
    new = np.empty(len(order), dtype=np.int64)
    new[order] = np.arange(len(order))
    kind, in_start, inputs = _permuted(kind, in_start, inputs, order, new)
    return kind, in_start, inputs, new, [[2 * int(new[n]) for n in run] for run in runs]


def _claim_runs(kind: I32, groups: Sequence[Sequence[int]]) -> tuple[list[int], list[list[int]]]:
    """Each literal's node (old numbering): its own, or a one-input AND appended after
    the ``len(kind)`` nodes. Returns the appended gates' inputs, and the runs."""
    claimed = {0, TRUE_NODE}
    identity_inputs: list[int] = []
    runs = []
    for lits in groups:
        run = []
        for x in lits:
            n = int(x) >> 1
            if x & 1 or kind[n] == KIND_INPUT or n in claimed:
                n = len(kind) + len(identity_inputs)
                identity_inputs.append(int(x))
            claimed.add(n)
            run.append(n)
        runs.append(run)
    return identity_inputs, runs


def _word_order(size: int, runs: list[list[int]]) -> I64:
    """New position -> old node: the constants, the nodes of no run in their order, then
    each run from a word boundary; padding (numbered from ``size`` on, read by nothing)
    to whole words. The runs go last, where evaluation order mostly reaches them."""
    apart = np.ones(size, dtype=bool)
    apart[:2] = False
    for run in runs:
        apart[run] = False
    parts = [np.array([0, TRUE_NODE], dtype=np.int64), np.flatnonzero(apart)]
    length, extra = 2 + len(parts[1]), size
    for run in [*runs, []]:
        pad = -length % WORD
        parts += [np.arange(extra, extra + pad, dtype=np.int64), np.asarray(run, dtype=np.int64)]
        length, extra = length + pad + len(run), extra + pad
    return np.concatenate(parts)


def _permuted(kind: I32, in_start: I32, inputs: I32, order: I64, new: I64) -> tuple[I32, I32, I32]:
    """The network with node ``order[p]`` at position ``p`` (nodes past ``len(kind)``:
    padding inputs), each input literal renamed through ``new``."""
    size = len(kind)
    real = order < size
    kind_out = np.full(len(order), KIND_INPUT, dtype=np.int32)
    kind_out[real] = kind[order[real]]
    lengths = np.zeros(len(order), dtype=np.int64)
    lengths[real] = np.diff(in_start)[order[real]]
    start_out = np.zeros(len(order) + 1, dtype=np.int32)
    np.cumsum(lengths, out=start_out[1:])
    firsts = np.zeros(len(order), dtype=np.int64)
    firsts[real] = in_start[order[real]]
    # For each output slot, the old index of its input: its row's first plus its offset.
    offsets = np.arange(int(start_out[-1]), dtype=np.int64) - np.repeat(start_out[:-1], lengths)
    old = inputs[np.repeat(firsts, lengths) + offsets]
    inputs_out = (2 * new[old >> 1] | (old & 1)).astype(np.int32)
    return kind_out, start_out, inputs_out


def check_layout(groups: Sequence[I32], size: int) -> None:
    """Raise ValueError unless each group of literals is a run as :func:`lay_out` lays
    them and ``size`` nodes are whole words (the scalar kernels read them by words: on
    another layout they would read other nodes' values, so such a network is refused)."""
    for lits in groups:
        first = int(lits[0]) >> 1 if len(lits) else 0
        runs = np.array_equal(lits, np.arange(2 * first, 2 * (first + len(lits)), 2))
        if first % WORD or not runs:
            raise ValueError("a propnet's literals are not laid out in runs of words")
    if size % WORD:
        raise ValueError("a propnet's node count is not a whole number of words")


def legal_runs(legal_lits: I32, move_start: I32) -> list[I32]:
    """Each role's legal literals (``move_start`` splits them)."""
    starts = move_start.tolist()
    return [legal_lits[starts[r] : starts[r + 1]] for r in range(len(starts) - 1)]
