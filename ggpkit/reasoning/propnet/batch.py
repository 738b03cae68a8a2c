"""Many matches of one propnet game stepped at once in compiled code (a vector environment's core).

:class:`PropnetStepper` keeps ``count`` matches, 64 to a machine word per node (one bit
per match, as the 64-lane playout kernel does), and advances all of them by one joint
move per :meth:`~PropnetStepper.step` call, inside one numba call. A match that ends
(terminal, or ``max_steps`` joint moves played) is restarted at once from the initial
state; its final goals are reported with the step that ended it.

The caller chooses the moves: ``actions[i, r]`` is the index of role ``r``'s move in
``Propnet.moves[r]``, or -1 for "its only legal move" (the ``noop`` of turn-taking
games). Everything comes back as arrays the caller may read until the next step:
the base-proposition bits of every match, the legal mask of every role's moves, which
matches ended, and their goals.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from ggpkit.reasoning.base import BatchStep, ReasonerError
from ggpkit.reasoning.propnet.build import Propnet
from ggpkit.reasoning.propnet.kernels import ERR_GOAL, ERR_NO_LEGAL, eval_phase64, lit64

ERR_ILLEGAL, ERR_NOT_ONLY = 10, 11


@njit(cache=True, nogil=True)
def _load_init(init, base_nodes, lanes, val):  # type: ignore[no-untyped-def]
    """Set the base propositions of the lanes in ``lanes`` to the initial state."""
    for i in range(base_nodes.shape[0]):
        x = base_nodes[i]
        if init[i]:
            val[x] |= lanes
        else:
            val[x] &= ~lanes


@njit(cache=True, nogil=True)
def _choose(v, w, n, actions, legal_lits, does_nodes, move_start):  # type: ignore[no-untyped-def]
    """Set the ``does`` inputs of word ``w`` from ``actions``; an error code or 0."""
    one = np.uint64(1)
    for k in range(does_nodes.shape[0]):
        v[does_nodes[k]] = 0
    for lane in range(64):
        m = w * 64 + lane
        if m >= n:
            break
        bit = one << np.uint64(lane)
        for r in range(move_start.shape[0] - 1):
            a = actions[m, r]
            if a < 0:
                found = -1
                for k in range(move_start[r], move_start[r + 1]):
                    if lit64(legal_lits[k], v) & bit:
                        if found >= 0:
                            return ERR_NOT_ONLY
                        found = k
                if found < 0:
                    return ERR_NO_LEGAL
                v[does_nodes[found]] |= bit
            else:
                k = move_start[r] + a
                if k >= move_start[r + 1] or not lit64(legal_lits[k], v) & bit:
                    return ERR_ILLEGAL
                v[does_nodes[k]] |= bit
    return 0


@njit(cache=True, nogil=True)
def _report(v, w, n, base_nodes, legal_lits, bits, legal):  # type: ignore[no-untyped-def]
    """Copy word ``w``'s base bits and legal masks into the per-match output rows."""
    one = np.uint64(1)
    for lane in range(64):
        m = w * 64 + lane
        if m >= n:
            break
        bit = one << np.uint64(lane)
        for i in range(base_nodes.shape[0]):
            bits[m, i] = 1 if v[base_nodes[i]] & bit else 0
        for k in range(legal_lits.shape[0]):
            legal[m, k] = 1 if lit64(legal_lits[k], v) & bit else 0


@njit(cache=True, nogil=True)
def _keep_final(v, w, n, lanes, base_nodes, final):  # type: ignore[no-untyped-def]
    """Copy the base bits of the lanes in ``lanes`` (about to restart) into ``final``."""
    one = np.uint64(1)
    for lane in range(64):
        m = w * 64 + lane
        if m < n and lanes & (one << np.uint64(lane)):
            for i in range(base_nodes.shape[0]):
                final[m, i] = 1 if v[base_nodes[i]] & (one << np.uint64(lane)) else 0


@njit(cache=True, nogil=True)
def _finish(v, w, n, ended, goal_lits, goal_values, goal_start, done, goals):  # type: ignore[no-untyped-def]
    """Record the goals of the lanes in ``ended``; an error code or 0."""
    one = np.uint64(1)
    for lane in range(64):
        m = w * 64 + lane
        if m >= n:
            break
        bit = one << np.uint64(lane)
        if not ended & bit:
            continue
        done[m] = 1
        for r in range(goal_start.shape[0] - 1):
            found = 0
            for k in range(goal_start[r], goal_start[r + 1]):
                if lit64(goal_lits[k], v) & bit:
                    found += 1
                    goals[m, r] = goal_values[k]
            if found != 1:
                return ERR_GOAL
    return 0


@njit(cache=True, nogil=True)
def step_all(  # type: ignore[no-untyped-def]
    kind, in_start, inputs, order, blocks, phases, base_nodes, next_lits, legal_lits,
    does_nodes, move_start, terminal_lit, goal_lits, goal_values, goal_start, init,
    n, max_steps, actions, val, steps, tmp, bits, legal, done, cut, goals, final,
):  # fmt: skip
    """One joint move in every match; ended matches restart. Returns an error code or 0."""
    one = np.uint64(1)
    done[:] = 0
    cut[:] = 0
    goals[:] = 0
    for w in range(val.shape[0]):  # every action checked before any match moves
        err = _choose(val[w], w, n, actions, legal_lits, does_nodes, move_start)
        if err:
            return err
    for w in range(val.shape[0]):
        v = val[w]
        eval_phase64(kind, in_start, inputs, order, blocks, phases[2], phases[3], v)
        for i in range(base_nodes.shape[0]):
            tmp[i] = lit64(next_lits[i], v)
        for i in range(base_nodes.shape[0]):
            v[base_nodes[i]] = tmp[i]
        eval_phase64(kind, in_start, inputs, order, blocks, phases[0], phases[1], v)
        ended = lit64(terminal_lit, v)
        if ended:
            eval_phase64(kind, in_start, inputs, order, blocks, phases[4], phases[5], v)
            err = _finish(v, w, n, ended, goal_lits, goal_values, goal_start, done, goals)
            if err:
                return err
        long = np.uint64(0)
        for lane in range(64):
            m = w * 64 + lane
            if m < n:
                steps[m] += 1
                bit = one << np.uint64(lane)
                if ended & bit:
                    steps[m] = 0
                elif steps[m] >= max_steps:
                    long |= bit
                    cut[m] = 1
                    steps[m] = 0
        restart = ended | long
        if restart:
            _keep_final(v, w, n, restart, base_nodes, final)
            _load_init(init, base_nodes, restart, v)
            eval_phase64(kind, in_start, inputs, order, blocks, phases[0], phases[1], v)
        _report(v, w, n, base_nodes, legal_lits, bits, legal)
    return 0


@njit(cache=True, nogil=True)
def reset_all(  # type: ignore[no-untyped-def]
    kind, in_start, inputs, order, blocks, phases, base_nodes, legal_lits, init, n,
    val, steps, bits, legal,
):  # fmt: skip
    """Every match at the initial state."""
    for w in range(val.shape[0]):
        v = val[w]
        v[:] = 0
        v[1] = ~np.uint64(0)
        _load_init(init, base_nodes, ~np.uint64(0), v)
        eval_phase64(kind, in_start, inputs, order, blocks, phases[0], phases[1], v)
        _report(v, w, n, base_nodes, legal_lits, bits, legal)
    steps[:] = 0


_ERRORS = {
    ERR_ILLEGAL: "an action is not legal in its match (or not a move of its role)",
    ERR_NOT_ONLY: "action -1 (the only legal move) given to a role with a choice",
    ERR_NO_LEGAL: "a role has no legal move in a non-terminal state",
    ERR_GOAL: "a terminal state does not give exactly one goal value per role",
}


class PropnetStepper:
    """``count`` matches of one propnet game, stepped together (see the module docstring)."""

    def __init__(self, net: Propnet, count: int, max_steps: int) -> None:
        if count < 1 or max_steps < 1:
            raise ReasonerError("a batch needs at least one match and one step")
        self.net = net
        self.count = count
        self.max_steps = max_steps
        self.move_start = net.move_start
        self._init = np.asarray(net.init, dtype=np.uint8)
        words = (count + 63) // 64
        self._val = np.zeros((words, net.size), dtype=np.uint64)
        self._steps = np.zeros(count, dtype=np.int64)
        self._tmp = np.zeros(len(net.base), dtype=np.uint64)
        self._out = BatchStep(
            np.zeros((count, len(net.base)), dtype=np.uint8),
            np.zeros((count, len(net.legal_lits)), dtype=np.uint8),
            np.zeros(count, dtype=np.uint8),
            np.zeros(count, dtype=np.uint8),
            np.zeros((count, len(net.roles)), dtype=np.int32),
            np.zeros((count, len(net.base)), dtype=np.uint8),
        )

    def reset(self) -> BatchStep:
        """Every match back at the initial state."""
        net, out = self.net, self._out
        reset_all(
            net.kind, net.in_start, net.inputs, net.order, net.blocks, net.phases,
            net.base_nodes, net.legal_lits, self._init, self.count,
            self._val, self._steps, out.bits, out.legal,
        )  # fmt: skip
        out.ended[:] = 0
        out.cut[:] = 0
        out.goals[:] = 0
        return out

    def step(self, actions: npt.NDArray[np.int32]) -> BatchStep:
        """One joint move in every match: ``actions`` is ``(count, roles)`` (see the module)."""
        net, out = self.net, self._out
        if actions.shape != (self.count, len(net.roles)):
            raise ReasonerError(f"actions must have shape {(self.count, len(net.roles))}")
        err = step_all(
            net.kind, net.in_start, net.inputs, net.order, net.blocks, net.phases,
            net.base_nodes, net.next_lits, net.legal_lits, net.does_nodes, net.move_start,
            net.terminal_lit, net.goal_lits, net.goal_values, net.goal_start, self._init,
            self.count, self.max_steps, actions.astype(np.int32, copy=False), self._val,
            self._steps, self._tmp, out.bits, out.legal, out.ended, out.cut, out.goals,
            out.final,
        )  # fmt: skip
        if err:
            raise ReasonerError(_ERRORS[int(err)])
        return out
