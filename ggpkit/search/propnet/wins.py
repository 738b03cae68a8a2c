"""Wins in one at new tree nodes, 64 states at a time (decisive moves).

Why: an MCTS-solver proves a node only from children it has made, one path at a
time, so a position where the mover can win at once stays a guess until the path
that makes the winning child comes by, and a move that lets the opponent win at
once looks as good as its playouts say. Teytaud and Teytaud ("On the huge benefit
of decisive moves in Monte-Carlo tree search algorithms", 2010) check every new
node for a winning move instead: such a node is won for its mover when it is made,
and its parent's solver sees the threat a ply earlier.

Trying every move would cost a network step per legal move at every new node. Only
the moves flagged as decisive are tried: those that have ended a playout at their
role's best goal (:func:`~ggpkit.reasoning.propnet.kernels.playouts64_from` flags
them), so in breakthrough the moves onto the last row, in connect four every drop.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpkit.reasoning.jit import njit_no_refcounts
from ggpkit.reasoning.propnet.kernels import ctz, lit64, trial_ends

TOP_GOAL = 100
"""The goal a move must reach to prove its node: a value nothing beats."""


@njit_no_refcounts
def wins_in_one(  # type: ignore[no-untyped-def]
    kind, in_start, inputs, order, blocks, phases, base_nodes, next_lits, does_nodes,
    move_start, terminal_lit, goal_lits, goal_values, goal_start,
    states, rows, legal, term, flagged, val, scratch, win_move, win_state, win_goal,
):  # fmt: skip
    """For each state ``states[rows[j]]`` that is not terminal (``term[j]``) and where
    one role alone has a choice (``legal[j]``), a move of ``flagged`` (legal-literal
    indices) legal there that ends the game at :data:`TOP_GOAL` for that role:
    ``win_move[j]`` (-1: none), the state it leads to in ``win_state[j]`` and every
    role's goal there in ``win_goal[j]``. ``scratch`` is :func:`scratch_arrays`'.

    Round ``t`` tries every state's ``t``-th candidate at once: the moves go into the
    lanes' move inputs, the next state into their base words (saved and put back),
    and the terminal and goal phases are read there.
    """
    cand, ncand, chooser, saved, tmp = scratch
    nb = base_nodes.shape[0]
    for lo in range(0, rows.shape[0], 64):
        hi = min(rows.shape[0], lo + 64)
        for i in range(val.shape[0]):
            val[i] = 0
        val[1] = ~np.uint64(0)
        most = 0
        for j in range(lo, hi):
            win_move[j] = -1
            lane_most = _load_lane(
                j - lo, states[rows[j]], legal[j], term[j], flagged, base_nodes, does_nodes,
                move_start, val, cand, ncand, chooser,
            )  # fmt: skip
            most = max(most, lane_most)
        won = np.uint64(0)
        for t in range(most):
            lanes = _try_round(t, hi - lo, won, cand, ncand, does_nodes, val)
            if lanes == 0:
                break
            ended = trial_ends(
                kind, in_start, inputs, order, blocks, phases, base_nodes, next_lits,
                terminal_lit, lanes, tmp, saved, val,
            )  # fmt: skip
            if ended != 0:
                won |= _record_wins(
                    lo, t, ended, cand, chooser, base_nodes, goal_lits, goal_values, goal_start,
                    val, win_move, win_state, win_goal,
                )  # fmt: skip
            for i in range(nb):
                val[base_nodes[i]] = saved[i]
            _clear_round(t, lanes, cand, does_nodes, val)


@njit_no_refcounts
def _load_lane(  # type: ignore[no-untyped-def]
    lane, bits, legal, ended, flagged, base_nodes, does_nodes, move_start, val, cand, ncand,
    chooser,
):  # fmt: skip
    """Put state ``bits`` into ``lane`` and, where one role alone chooses, the other
    roles' one moves into its move inputs and the chooser's flagged legal moves into
    ``cand[lane]``: how many there are."""
    bit = np.uint64(1) << np.uint64(lane)
    for i in range(base_nodes.shape[0]):
        if bits[i]:
            val[base_nodes[i]] |= bit
    ncand[lane] = 0
    if ended:
        return 0
    r = _sole_chooser(legal, move_start)
    if r < 0:
        return 0
    chooser[lane] = r
    for s in range(move_start.shape[0] - 1):
        if s != r:
            for k in range(move_start[s], move_start[s + 1]):
                if legal[k]:
                    val[does_nodes[k]] |= bit
    for i in range(flagged.shape[0]):
        k = flagged[i]
        if move_start[r] <= k < move_start[r + 1] and legal[k]:
            cand[lane, ncand[lane]] = k
            ncand[lane] += 1
    return ncand[lane]


@njit_no_refcounts
def _sole_chooser(legal, move_start):  # type: ignore[no-untyped-def]
    """The one role with several legal moves, or -1 (none, several, or one with none)."""
    chooser = -1
    for r in range(move_start.shape[0] - 1):
        n = 0
        for k in range(move_start[r], move_start[r + 1]):
            n += legal[k]
        if n == 0:
            return -1
        if n > 1:
            if chooser >= 0:
                return -1
            chooser = r
    return chooser


@njit_no_refcounts
def _try_round(t, width, won, cand, ncand, does_nodes, val):  # type: ignore[no-untyped-def]
    """Set the ``t``-th candidate's move in every lane that has one and no win yet."""
    lanes = np.uint64(0)
    for lane in range(width):
        bit = np.uint64(1) << np.uint64(lane)
        if ncand[lane] > t and not won & bit:
            val[does_nodes[cand[lane, t]]] |= bit
            lanes |= bit
    return lanes


@njit_no_refcounts
def _clear_round(t, lanes, cand, does_nodes, val):  # type: ignore[no-untyped-def]
    """Take round ``t``'s moves out of the move inputs of ``lanes``."""
    one = np.uint64(1)
    w = lanes
    while w != 0:
        lane = ctz(w)
        w &= w - one
        val[does_nodes[cand[lane, t]]] &= ~(one << np.uint64(lane))


@njit_no_refcounts
def _record_wins(  # type: ignore[no-untyped-def]
    lo, t, ended, cand, chooser, base_nodes, goal_lits, goal_values, goal_start, val, win_move,
    win_state, win_goal,
):  # fmt: skip
    """Of the lanes whose trial ended the game, record those where the chooser's goal is
    :data:`TOP_GOAL` (and every role has exactly one goal): the lanes recorded."""
    one = np.uint64(1)
    nroles = goal_start.shape[0] - 1
    won = np.uint64(0)
    w = ended
    while w != 0:
        lane = ctz(w)
        w &= w - one
        bit = one << np.uint64(lane)
        j = lo + lane
        every = True
        for r in range(nroles):
            found = 0
            for k in range(goal_start[r], goal_start[r + 1]):
                if lit64(goal_lits[k], val) & bit:
                    found += 1
                    win_goal[j, r] = goal_values[k]
            every = every and found == 1
        if not every or win_goal[j, chooser[lane]] != TOP_GOAL:
            continue
        win_move[j] = cand[lane, t]
        for i in range(base_nodes.shape[0]):
            win_state[j, i] = (val[base_nodes[i]] >> np.uint64(lane)) & one
        won |= bit
    return won


@njit(cache=True, nogil=True)
def scratch_arrays(flagged_most, nbase):  # type: ignore[no-untyped-def]
    """:func:`wins_in_one`'s scratch: each lane's candidates (at most ``flagged_most``)
    and their count, its chooser, and two rows of base words."""
    return (
        np.zeros((64, max(1, flagged_most)), dtype=np.int64),
        np.zeros(64, dtype=np.int64),
        np.zeros(64, dtype=np.int64),
        np.zeros(nbase, dtype=np.uint64),
        np.zeros(nbase, dtype=np.uint64),
    )
