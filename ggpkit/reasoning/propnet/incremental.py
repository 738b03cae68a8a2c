"""One state of a propnet stepped by differential propagation: load, step, read goals.

The network keeps one state in its node values (``val``); loading a state pushes only
the base propositions that differ, and a step pushes only the ``does`` nodes that
change, so a step costs what it changes, not a pass over the network. The compiled
tree (:mod:`ggpkit.search.propnet`), the split playouts and the puzzle searches step
states this way.

Arrays, by name: ``net`` is the tuple of network arrays (:func:`net_arrays`); ``work``
the propagation's scratch (:func:`work_arrays`), with the latches in entries 14 to 17
where a search uses them (:func:`with_latches`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpkit.reasoning.propnet.build import Propnet
from ggpkit.reasoning.propnet.kernels import (
    eval_phase,
    propagate,
    push,
    set_state,
    true_inputs_over,
    watch_log,
)
from ggpkit.reasoning.propnet.latches import Latches


def net_arrays(net: Propnet) -> tuple[object, ...]:
    return (
        net.kind, net.in_start, net.inputs, net.order, net.blocks, net.phases, net.base_nodes,
        net.next_lits, net.legal_lits, net.does_nodes, net.move_start, net.terminal_lit,
        net.goal_lits, net.goal_values, net.goal_start, net.fan_start, net.fanout, net.scc,
        net.scc_start, net.scc_nodes, net.needed,
    )  # fmt: skip


def work_arrays(net: Propnet) -> tuple[object, ...]:
    """The differential propagation's scratch, laid out as the kernels index it, with
    no latches (entries 14 to 17 empty: see :func:`with_latches`)."""
    n = net.size
    none = np.zeros(0, dtype=np.bool_)
    sizes = np.diff(net.scc_start) if len(net.scc_start) > 1 else np.ones(1, dtype=np.int32)
    nroles = len(net.roles)
    return (
        np.zeros(n, dtype=np.int32),  # 0 count of true inputs
        np.zeros(n, dtype=np.uint8),  # 1 pending
        np.zeros(max(1, len(net.needed)), dtype=np.int32),  # 2 stack of gates to settle
        np.zeros(max(1, int(sizes.max())), dtype=np.uint8),  # 3 old
        np.zeros(nroles, dtype=np.int64),  # 4 ks
        np.full(nroles, -1, dtype=np.int64),  # 5 chosen
        np.zeros(max(1, len(net.legal_lits)), dtype=np.uint8),  # 6 legal flags
        np.zeros(len(net.base), dtype=np.uint8),  # 7 tmp
        np.zeros(2 * nroles, dtype=np.int32),  # 8 does nodes to change
        np.zeros(2 * nroles, dtype=np.uint8),  # 9 their new values
        np.zeros(nroles, dtype=np.int64),  # 10 goals of a state expanded
        watch_log(len(net.base)),  # 11 base facts whose next literal changed (scalar playouts)
        watch_log(len(net.base)),  # 12 base facts changed since this split copy last loaded
        np.zeros(len(net.base), dtype=np.int32),  # 13 indices drained from 12
        none,  # 14 the facts that once true stay true
        none,  # 15 those that once false stay false
        np.zeros(0, dtype=np.uint64),  # 16 lower bounds (latched_goals64)
        np.zeros(0, dtype=np.uint64),  # 17 upper bounds
        np.zeros((64, nroles), dtype=np.int64),  # 18 goals the latches decide
        np.zeros((1, len(net.base)), dtype=np.uint8),  # 19 a state to decide
        np.zeros(1, dtype=np.int64),  # 20 its row
    )


def with_latches(work: tuple[object, ...], net: Propnet, latches: Latches) -> tuple[object, ...]:
    """``work`` with ``latches`` and their scratch in entries 14 to 17 (the other
    entries are the same arrays: the propagation's state in them is kept)."""
    bounds = (np.zeros(net.size, dtype=np.uint64), np.zeros(net.size, dtype=np.uint64))
    return (*work[:14], latches.positive, latches.negative, *bounds, *work[18:])


@njit(cache=True, nogil=True)
def prepare(net, work, bits, val):  # type: ignore[no-untyped-def]
    """Make every gate's count of true inputs consistent with state ``bits`` in ``val``."""
    kind, in_start, inputs, order, blocks, phases = net[0], net[1], net[2], net[3], net[4], net[5]
    base_nodes, does_nodes, needed = net[6], net[9], net[20]
    cnt = work[0]
    set_state(bits, base_nodes, val)
    for k in range(does_nodes.shape[0]):
        val[does_nodes[k]] = 0
    for p in range(3):
        eval_phase(kind, in_start, inputs, order, blocks, phases[2 * p], phases[2 * p + 1], val)
    for i in range(needed.shape[0]):
        g = needed[i]
        cnt[g] = true_inputs_over(g, kind, in_start, inputs, val)
    chosen = work[5]
    for r in range(chosen.shape[0]):
        chosen[r] = -1


@njit(cache=True, nogil=True)
def _assign(xs, values, net, work, val):  # type: ignore[no-untyped-def]
    """Give node ``xs[i]`` value ``values[i]`` for every i, then settle the network.

    The arrays are unpacked into locals once: indexing the tuples inside the loop
    would count references to every array at each step (a few hundred ns each).
    The tree reads every next literal at a step, so it keeps no log of the changed
    ones (``None``: :func:`push` skips the network's watch entries).
    """
    kind, in_start, inputs = net[0], net[1], net[2]
    fan_start, fanout, scc, scc_start, scc_nodes = net[15], net[16], net[17], net[18], net[19]
    cnt, pend, stack, old = work[0], work[1], work[2], work[3]
    sp = 0
    for i in range(xs.shape[0]):
        x = xs[i]
        if val[x] != values[i]:
            val[x] = values[i]
            sp = push(x, -1, val, fan_start, fanout, scc, cnt, pend, stack, sp, None)
    propagate(kind, in_start, inputs, val, fan_start, fanout, scc, scc_start, scc_nodes,
               cnt, pend, stack, sp, old, None)  # fmt: skip


@njit(cache=True, nogil=True)
def load(bits, net, work, val):  # type: ignore[no-untyped-def]
    """Make ``val`` hold state ``bits`` (pushing only the base propositions that differ)."""
    _assign(net[6], bits, net, work, val)


@njit(cache=True, nogil=True)
def step(ks, out, net, work, val):  # type: ignore[no-untyped-def]
    """Play the joint move ``ks`` (legal-literal indices per role) from ``val``'s state.

    The next state's bits go to ``out`` and ``val`` then holds that state.
    """
    does_nodes, next_lits = net[9], net[7]
    chosen, does_x, does_v = work[5], work[8], work[9]
    n = 0
    for r in range(ks.shape[0]):
        if chosen[r] != ks[r]:
            if chosen[r] >= 0:
                does_x[n] = does_nodes[chosen[r]]
                does_v[n] = 0
                n += 1
            does_x[n] = does_nodes[ks[r]]
            does_v[n] = 1
            n += 1
            chosen[r] = ks[r]
    _assign(does_x[:n], does_v[:n], net, work, val)
    for i in range(next_lits.shape[0]):
        x = next_lits[i]
        out[i] = val[x >> 1] ^ (x & 1)
    _assign(net[6], out, net, work, val)


@njit(cache=True, nogil=True, inline="always")
def lit(x, val):  # type: ignore[no-untyped-def]
    return val[x >> 1] ^ (x & 1)


@njit(cache=True, nogil=True)
def settle_goals(net, val):  # type: ignore[no-untyped-def]
    """Evaluate the goals' gates for ``val``'s state.

    Differential propagation keeps only what legal, terminal and next depend on (see
    :func:`~ggpkit.reasoning.propnet.graph.incremental`): counting reversi's discs at
    every step of a playout doubled its cost, for goals read once at the end.
    """
    eval_phase(net[0], net[1], net[2], net[3], net[4], net[5][4], net[5][5], val)


@njit(cache=True, nogil=True)
def goals(net, val, out):  # type: ignore[no-untyped-def]
    """Each role's goal / 100 into ``out``; False unless every role has exactly one."""
    settle_goals(net, val)
    for r in range(out.shape[0]):
        points = goal_points(net, val, r)
        if points < 0:
            return False
        out[r] = points / 100.0
    return True


@njit(cache=True, nogil=True, inline="always")
def goal_points(net, val, r):  # type: ignore[no-untyped-def]
    """Role ``r``'s goal in ``val``'s state, or -1 unless exactly one holds."""
    goal_lits, goal_values, goal_start = net[12], net[13], net[14]
    found = 0
    points = -1
    for k in range(goal_start[r], goal_start[r + 1]):
        if lit(goal_lits[k], val) != 0:
            found += 1
            points = goal_values[k]
    return points if found == 1 else -1
