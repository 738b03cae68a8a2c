"""Latches: base facts that, once true (or once false), stay so for the rest of the game.

Why: a latched fact can settle a game's result long before the rules say it is over.
Where a role's goal is forced by facts that can no longer change (a captured flag, a
point scored for good), the outcome is known, and a search that sees it can count the
state as proven at once instead of playing it out (Sancho, the 2014 champion, finds
such latches while metagaming).

How: three-valued evaluation of the network. Each node gets a lower bound ("surely
true") and an upper bound ("possibly true"); a base fact assumed true (or false) is
fixed, every other base fact and every move is unknown. If the fact's ``next``
literal then comes out surely true (surely false), no state and no moves can undo it:
a positive (negative) latch. The same evaluation tells which goal literals the
assumption forces true or false. 64 assumptions run at once, one per bit
(:func:`eval_bounds64`); cyclic components (positive recursion only) are iterated
to their least fixpoint for each bound, which bounds every world's own fixpoint.

Everything found is sound, not complete: a fact that latches only together with
another, or only because ``legal`` forbids the move that would undo it, is missed,
never claimed. Decided goals assume well-formed rules (one goal per role at the end).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numba import njit

from ggpkit.reasoning.propnet.build import FALSE, KIND_AND, TRUE, Propnet

U64 = npt.NDArray[np.uint64]
ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


@dataclass(frozen=True, slots=True)
class Latches:
    """What each latch forces, over a network's base facts and goal literals.

    ``positive[i]`` (``negative[i]``): base fact ``i`` once true (false) stays so.
    ``forces_true[v, i, g]`` / ``forces_false[v, i, g]``: where fact ``i`` latches at
    ``v`` (1: a positive latch, 0: a negative one) and has that value, goal literal
    ``g`` (an index into ``Propnet.goal_lits``) is surely true / surely false in every
    later state, the final one included; rows of facts that do not latch at ``v`` are
    all False.
    """

    positive: npt.NDArray[np.bool_]
    negative: npt.NDArray[np.bool_]
    forces_true: npt.NDArray[np.bool_]
    forces_false: npt.NDArray[np.bool_]

    @property
    def goal_latches(self) -> int:
        """How many latches force some goal literal either way."""
        return int((self.forces_true | self.forces_false).any(axis=2).sum())


MAX_GATE_PASSES = 400_000_000
"""Most gate inputs the latch analysis reads (both bounds, for every 64 base facts
assumed true and again false), sized to about a second of analysis; every corpus
network tried stays well under it. Bigger networks go without (it is an aid, not a need)."""


def goal_latches(net: Propnet, alone: bool = True) -> Latches | None:
    """``net``'s latches where some latch forces a goal literal, else None (also where
    the network is too big to analyse within :data:`MAX_GATE_PASSES`); with ``alone``
    False, wherever it has latches at all (several may settle a goal together: a
    search that gives up the checks where they settle nothing can afford to try).

    Why this gate: the per-state check costs every new node of a search, and where no
    single latch bounds a goal, the latches of a state seldom settle one together
    (on the corpus's random lines only sudokuGrade1, withConviction and
    nonogram_10x10_1 do; connectFour's 96 latches never settle anything before its
    end, and its search would pay for the check on every node).
    """
    passes = 2 * -(-len(net.base) // 64) * 2
    if passes * len(net.inputs) > MAX_GATE_PASSES:
        return None
    latches = find_latches(net)
    if alone:
        return latches if latches.goal_latches > 0 else None
    return latches if latches.positive.any() or latches.negative.any() else None


def find_latches(net: Propnet) -> Latches:
    """The single-fact latches of ``net`` that three-valued evaluation proves, and the
    goal literals each one forces (moves are taken as unconstrained by ``legal``, and
    unknowns are not split into cases: some real latches are missed, none claimed)."""
    nb, ng = len(net.base), len(net.goal_lits)
    positive = np.zeros(nb, dtype=np.bool_)
    negative = np.zeros(nb, dtype=np.bool_)
    forces_true = np.zeros((2, nb, ng), dtype=np.bool_)
    forces_false = np.zeros((2, nb, ng), dtype=np.bool_)
    for value, latched in ((1, positive), (0, negative)):
        for first in range(0, nb, 64):
            facts = np.arange(first, min(first + 64, nb))
            lo, hi = _assume(net, facts, value)
            bits = np.uint64(1) << np.arange(len(facts), dtype=np.uint64)
            nxt_lo, nxt_hi = _read(net.next_lits[facts], lo, hi)
            held = (nxt_lo & bits) != 0 if value else (nxt_hi & bits) == 0
            latched[facts] = held
            for g, lit in enumerate(net.goal_lits):
                g_lo, g_hi = _read(np.asarray([lit]), lo, hi)
                forces_true[value, facts, g] = held & ((g_lo[0] & bits) != 0)
                forces_false[value, facts, g] = held & ((g_hi[0] & bits) == 0)
    return Latches(positive, negative, forces_true, forces_false)


def _assume(net: Propnet, facts: npt.NDArray[np.int64], value: int) -> tuple[U64, U64]:
    """Bounds of every node with fact ``facts[j]`` fixed to ``value`` in bit ``j``."""
    lo = np.zeros(net.size, dtype=np.uint64)
    hi = np.full(net.size, ONES, dtype=np.uint64)
    lo[TRUE] = ONES
    hi[FALSE] = 0
    for j, i in enumerate(facts):
        bit = np.uint64(1) << np.uint64(j)
        node = net.base_nodes[i]
        if value:
            lo[node] |= bit
        else:
            hi[node] &= ~bit
    for phase in range(3):  # legal and terminal, next (moves unknown), goals
        b0, b1 = net.phases[2 * phase], net.phases[2 * phase + 1]
        eval_bounds64(net.kind, net.in_start, net.inputs, net.order, net.blocks, b0, b1, lo, hi)
    return lo, hi


def decided_goals(
    net: Propnet, latches: Latches, states: npt.NDArray[np.uint8]
) -> npt.NDArray[np.int64]:
    """Each state's goals as its latched facts force them: ``out[j, r]`` is role ``r``'s
    goal at the end of every game through ``states[j]`` (a row of base bits), or -1
    where more than one value can still be reached. A goal literal surely true is the
    goal (well-formed rules give a role one goal at the end); else one that alone may
    be true is."""
    out = np.full((len(states), len(net.roles)), -1, dtype=np.int64)
    lo = np.zeros(net.size, dtype=np.uint64)
    hi = np.zeros(net.size, dtype=np.uint64)
    rows = np.arange(len(states), dtype=np.int64)
    latched_goals64(
        net.kind, net.in_start, net.inputs, net.order, net.blocks, net.phases, net.base_nodes,
        net.goal_lits, net.goal_values, net.goal_start, latches.positive, latches.negative,
        states, rows, lo, hi, out,
    )  # fmt: skip
    return out


def _read(lits: npt.NDArray[np.int32], lo: U64, hi: U64) -> tuple[U64, U64]:
    """The bounds of literals (a negated literal swaps and inverts its node's bounds)."""
    nodes, neg = lits >> 1, (lits & 1).astype(bool)
    return np.where(neg, ~hi[nodes], lo[nodes]), np.where(neg, ~lo[nodes], hi[nodes])


@njit(cache=True, nogil=True)
def eval_bounds64(kind, in_start, inputs, order, blocks, b0, b1, lo, hi):  # type: ignore[no-untyped-def]
    """Three-valued evaluation of blocks ``b0 .. b1`` in 64 lanes: ``lo`` holds the
    lanes where a node is surely true, ``hi`` those where it may be. A cyclic block
    starts from false in both bounds and is iterated to its least fixpoint."""
    for b in range(b0, b1):
        s0 = blocks[b, 0]
        e0 = blocks[b, 1]
        cyclic = blocks[b, 2] != 0
        if cyclic:
            for k in range(s0, e0):
                lo[order[k]] = 0
                hi[order[k]] = 0
        changed = True
        while changed:
            changed = False
            for k in range(s0, e0):
                n = order[k]
                is_and = kind[n] == KIND_AND
                acc_lo = ONES if is_and else np.uint64(0)
                acc_hi = acc_lo
                for j in range(in_start[n], in_start[n + 1]):
                    x = inputs[j]
                    if x & 1:
                        w_lo = ~hi[x >> 1]
                        w_hi = ~lo[x >> 1]
                    else:
                        w_lo = lo[x >> 1]
                        w_hi = hi[x >> 1]
                    if is_and:
                        acc_lo &= w_lo
                        acc_hi &= w_hi
                    else:
                        acc_lo |= w_lo
                        acc_hi |= w_hi
                if acc_lo != lo[n] or acc_hi != hi[n]:
                    lo[n] = acc_lo
                    hi[n] = acc_hi
                    changed = cyclic


@njit(cache=True, nogil=True)
def latched_goals64(  # type: ignore[no-untyped-def]
    kind, in_start, inputs, order, blocks, phases, base_nodes, goal_lits, goal_values,
    goal_start, positive, negative, states, rows, lo, hi, out,
):  # fmt: skip
    """:func:`decided_goals` for ``states[rows[j]]``, 64 rows at a time, into ``out[j]``
    (-1 for a role whose goal is not decided)."""
    nb = base_nodes.shape[0]
    nroles = goal_start.shape[0] - 1
    one = np.uint64(1)
    for first in range(0, rows.shape[0], 64):
        last = min(rows.shape[0], first + 64)
        lo[:] = 0
        hi[:] = ONES
        lo[1] = ONES
        hi[0] = 0
        for i in range(nb):
            node = base_nodes[i]
            for j in range(first, last):
                bit = one << np.uint64(j - first)
                if states[rows[j], i]:
                    if positive[i]:
                        lo[node] |= bit
                elif negative[i]:
                    hi[node] &= ~bit
        eval_bounds64(kind, in_start, inputs, order, blocks, phases[0], phases[1], lo, hi)
        eval_bounds64(kind, in_start, inputs, order, blocks, phases[4], phases[5], lo, hi)
        for j in range(first, last):
            lane = np.uint64(j - first)
            for r in range(nroles):
                out[j, r] = _decided_goal(goal_lits, goal_values, goal_start, r, lo, hi, lane)


@njit(cache=True, nogil=True, inline="always")
def _decided_goal(goal_lits, goal_values, goal_start, r, lo, hi, lane):  # type: ignore[no-untyped-def]
    """Role ``r``'s goal in lane ``lane``: the one goal literal that is surely true, else
    the one that may be, else -1 (two surely true: broken rules, not decided here)."""
    one = np.uint64(1)
    sure = 0
    sure_value = -1
    maybe = 0
    maybe_value = -1
    for k in range(goal_start[r], goal_start[r + 1]):
        x = goal_lits[k]
        w_lo = ~hi[x >> 1] if x & 1 else lo[x >> 1]
        w_hi = ~lo[x >> 1] if x & 1 else hi[x >> 1]
        if (w_lo >> lane) & one:
            sure += 1
            sure_value = goal_values[k]
        if (w_hi >> lane) & one:
            maybe += 1
            maybe_value = goal_values[k]
    if sure == 1:
        return sure_value
    if sure == 0 and maybe == 1:
        return maybe_value
    return -1


def top_goal_blockers(net: Propnet, role: int = 0) -> npt.NDArray[np.int8] | None:
    """Per base fact of ``net``, the value that alone rules out ``role``'s top goal in
    the state where it holds: 1 (the fact true), 0 (false) or -1 (neither), by the
    same three-valued evaluation as :func:`find_latches` (sound: a blocker is never
    claimed wrongly, some are missed). None where the network is too big to analyse
    within :data:`MAX_GATE_PASSES`, or the role has no goal.

    Why: a blank cell of a sudoku rules out its win by itself (the goal asks that no
    cell be blank), so every winning line must fill it; a solver may then branch on
    the moves that fill one such cell at a time (see
    :mod:`~ggpkit.search.puzzles.fill_slots`)."""
    passes = 2 * -(-len(net.base) // 64)
    first, last = int(net.goal_start[role]), int(net.goal_start[role + 1])
    if passes * len(net.inputs) > MAX_GATE_PASSES or first == last:
        return None
    values = net.goal_values[first:last]
    top = net.goal_lits[first:last][values == values.max()]
    nb = len(net.base)
    blockers = np.full(nb, -1, dtype=np.int8)
    for value in (0, 1):
        for start in range(0, nb, 64):
            facts = np.arange(start, min(start + 64, nb))
            lo, hi = _assume(net, facts, value)
            bits = np.uint64(1) << np.arange(len(facts), dtype=np.uint64)
            ruled_out = np.full(len(facts), True)
            for literal in top:
                _, top_hi = _read(np.asarray([literal]), lo, hi)
                ruled_out &= (top_hi[0] & bits) == 0
            blockers[facts[ruled_out]] = value
    return blockers
