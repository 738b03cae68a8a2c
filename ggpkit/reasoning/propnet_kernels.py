"""Numba kernels that evaluate a compiled propnet (see ``propnet.py`` for the arrays).

Node values live in one ``uint8`` array ``val``; a literal ``l`` reads
``val[l >> 1] ^ (l & 1)``. Whole random playouts run inside :func:`playouts`, so
the interpreter is entered once per batch, not once per move. The random numbers
come from xorshift64*, seeded per batch, so a batch is reproducible.
"""

from __future__ import annotations

import numpy as np
from numba import njit

KIND_AND, KIND_OR = 1, 2

ERR_NONE, ERR_NO_LEGAL, ERR_GOAL, ERR_TOO_LONG = 0, 1, 2, 3


@njit(cache=True, nogil=True, inline="always")
def _gate(n, kind, in_start, inputs, val):  # type: ignore[no-untyped-def]
    s = in_start[n]
    e = in_start[n + 1]
    if kind[n] == KIND_AND:
        for k in range(s, e):
            x = inputs[k]
            if (val[x >> 1] ^ (x & 1)) == 0:
                return 0
        return 1
    for k in range(s, e):
        x = inputs[k]
        if (val[x >> 1] ^ (x & 1)) != 0:
            return 1
    return 0


@njit(cache=True, nogil=True)
def eval_phase(kind, in_start, inputs, order, blocks, b0, b1, val):  # type: ignore[no-untyped-def]
    """Evaluate blocks ``b0 .. b1``: acyclic runs once, cyclic ones to their least fixpoint."""
    for b in range(b0, b1):
        s = blocks[b, 0]
        e = blocks[b, 1]
        if blocks[b, 2] == 0:
            for k in range(s, e):
                n = order[k]
                val[n] = _gate(n, kind, in_start, inputs, val)
        else:
            for k in range(s, e):
                val[order[k]] = 0
            changed = True
            while changed:
                changed = False
                for k in range(s, e):
                    n = order[k]
                    v = _gate(n, kind, in_start, inputs, val)
                    if v != val[n]:
                        val[n] = v
                        changed = True


@njit(cache=True, nogil=True)
def set_state(bits, base_nodes, val):  # type: ignore[no-untyped-def]
    """Load a state (one byte per base proposition) into the node values."""
    for i in range(base_nodes.shape[0]):
        val[base_nodes[i]] = bits[i]


@njit(cache=True, nogil=True)
def advance(base_nodes, next_lits, tmp, val):  # type: ignore[no-untyped-def]
    """Copy the ``next`` values into the base propositions (through ``tmp``)."""
    nb = base_nodes.shape[0]
    for i in range(nb):
        x = next_lits[i]
        tmp[i] = val[x >> 1] ^ (x & 1)
    for i in range(nb):
        val[base_nodes[i]] = tmp[i]


@njit(cache=True, nogil=True)
def playouts(  # type: ignore[no-untyped-def]
    kind,
    in_start,
    inputs,
    order,
    blocks,
    phases,
    base_nodes,
    next_lits,
    legal_lits,
    does_nodes,
    move_start,
    terminal_lit,
    goal_lits,
    goal_values,
    goal_start,
    start_bits,
    count,
    seed,
    max_steps,
    val,
):
    """Run ``count`` random playouts from ``start_bits``.

    Returns ``(playouts done, joint moves, goal sums per role, error code)``; on an
    error the batch stops at the faulty playout (which is not counted).
    """
    nroles = move_start.shape[0] - 1
    nb = base_nodes.shape[0]
    tmp = np.zeros(nb, dtype=np.uint8)
    sums = np.zeros(nroles, dtype=np.int64)
    chosen = np.zeros(nroles, dtype=np.int64)
    for r in range(nroles):
        chosen[r] = -1
    for k in range(does_nodes.shape[0]):
        val[does_nodes[k]] = 0
    rng = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(0x2545F4914F6CDD1D)
    if rng == 0:
        rng = np.uint64(88172645463325252)
    moves = 0
    for p in range(count):
        set_state(start_bits, base_nodes, val)
        steps = 0
        while True:
            eval_phase(kind, in_start, inputs, order, blocks, phases[0], phases[1], val)
            if (val[terminal_lit >> 1] ^ (terminal_lit & 1)) != 0:
                break
            if steps >= max_steps:
                return p, moves, sums, ERR_TOO_LONG
            for r in range(nroles):
                if chosen[r] >= 0:
                    val[does_nodes[chosen[r]]] = 0
                s = move_start[r]
                e = move_start[r + 1]
                n = 0
                for k in range(s, e):
                    x = legal_lits[k]
                    n += val[x >> 1] ^ (x & 1)
                if n == 0:
                    return p, moves, sums, ERR_NO_LEGAL
                rng ^= rng >> np.uint64(12)
                rng ^= rng << np.uint64(25)
                rng ^= rng >> np.uint64(27)
                pick = ((rng * np.uint64(2685821657736338717)) >> np.uint64(33)) % np.uint64(n)
                j = np.int64(pick)
                for k in range(s, e):
                    x = legal_lits[k]
                    if (val[x >> 1] ^ (x & 1)) != 0:
                        if j == 0:
                            chosen[r] = k
                            val[does_nodes[k]] = 1
                            break
                        j -= 1
            eval_phase(kind, in_start, inputs, order, blocks, phases[2], phases[3], val)
            advance(base_nodes, next_lits, tmp, val)
            steps += 1
        eval_phase(kind, in_start, inputs, order, blocks, phases[4], phases[5], val)
        for r in range(nroles):
            found = 0
            value = 0
            for k in range(goal_start[r], goal_start[r + 1]):
                x = goal_lits[k]
                if (val[x >> 1] ^ (x & 1)) != 0:
                    found += 1
                    value = goal_values[k]
            if found != 1:
                for k in range(does_nodes.shape[0]):
                    val[does_nodes[k]] = 0
                return p, moves, sums, ERR_GOAL
            sums[r] += value
        moves += steps
    for r in range(nroles):
        if chosen[r] >= 0:
            val[does_nodes[chosen[r]]] = 0
    return count, moves, sums, ERR_NONE
