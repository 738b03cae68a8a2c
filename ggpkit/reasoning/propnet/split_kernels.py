"""Random playouts on a split propnet (:mod:`ggpkit.reasoning.propnet.split`).

Each copy keeps its own node values and counts (``net``, ``work``, ``val`` as the
search kernels lay them out); a state is loaded into the copy its sentinel picks,
pushing only the base facts changed since that copy last loaded, so in a game where
the turn alternates each copy catches up on two plies at a time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpkit.reasoning.jit import njit_no_refcounts, rand_below, seed_stream
from ggpkit.reasoning.propnet.incremental import goal_points, prepare, settle_goals
from ggpkit.reasoning.propnet.kernels import (
    ERR_GOAL,
    ERR_NO_LEGAL,
    ERR_NONE,
    ERR_TOO_LONG,
    drain,
    note,
    nth_one,
    ones,
    propagate,
    push,
)

_PLAYED, _ENDED, _STUCK = 0, 1, 2
ERR_UNTIED = 4
"""A state broke a tie the copies were built on: play it on the full network."""


@njit(cache=True, nogil=True, inline="always")
def _ply(  # type: ignore[no-untyped-def]
    kind, in_start, inputs, fan_start, fanout, scc, scc_start, scc_nodes, base_nodes,
    next_lits, legal_lits, does_nodes, move_start, terminal_lit,
    cnt, pend, stack, old, ks, chosen, val, val_words, rng, state, state_words, dirty, due,
    other_dirty,
):  # fmt: skip
    """Bring this copy up to ``state``, then play one random joint move on it into ``state``.

    Returns (``_PLAYED``, ``_ENDED`` at a terminal state or ``_STUCK`` when a role has
    no legal move; rng). The moves are drawn as the scalar kernel draws them. Arrays,
    not the tuples the search kernels pass: a tuple handed to a call counts a reference
    to each of its arrays, at every ply.

    The copy loads only the base facts changed since it last loaded (``dirty``, noted
    for both copies when a ply changes ``state``), faster than comparing every base
    fact on each of the four split games. The copy's legal and next literals are runs
    of nodes from a word boundary (:mod:`~ggpkit.reasoning.propnet.layout`): a role's
    legal moves are counted, and the next state compared with ``state``, eight values
    at a time. The copies keep no log of changed next literals (``None``: :func:`push`
    skips the noting; merely compiled in, it slowed the kernel).
    """
    sp = 0
    m = drain(dirty, due)
    for j in range(m):
        x = base_nodes[due[j]]
        if val[x] != state[due[j]]:
            val[x] = state[due[j]]
            sp = push(x, -1, val, fan_start, fanout, scc, cnt, pend, stack, sp, None)
    sp = propagate(kind, in_start, inputs, val, fan_start, fanout, scc, scc_start,
                    scc_nodes, cnt, pend, stack, sp, old, None)  # fmt: skip
    if (val[terminal_lit >> 1] ^ (terminal_lit & 1)) != 0:
        return _ENDED, rng
    for r in range(move_start.shape[0] - 1):
        s = move_start[r]
        if s == move_start[r + 1]:
            return _STUCK, rng
        first = legal_lits[s] >> 1  # the role's run of legal nodes, from a word boundary
        w0 = first >> 3
        w1 = (first + move_start[r + 1] - s + 7) >> 3
        nl = 0
        for w in range(w0, w1):
            nl += ones(val_words[w])
        if nl == 0:
            return _STUCK, rng
        rng, j = rand_below(rng, nl)
        ks[r] = s + nth_one(val_words, w0, j) - first
    for r in range(ks.shape[0]):
        if chosen[r] != ks[r]:
            if chosen[r] >= 0:
                x = does_nodes[chosen[r]]
                val[x] = 0
                sp = push(x, -1, val, fan_start, fanout, scc, cnt, pend, stack, sp, None)
            x = does_nodes[ks[r]]
            val[x] = 1
            sp = push(x, -1, val, fan_start, fanout, scc, cnt, pend, stack, sp, None)
            chosen[r] = ks[r]
    sp = propagate(kind, in_start, inputs, val, fan_start, fanout, scc, scc_start,
                    scc_nodes, cnt, pend, stack, sp, old, None)  # fmt: skip
    at = next_lits[0] >> 4 if next_lits.shape[0] else 0  # the run of next nodes: its word
    for w in range(state_words.shape[0]):
        if val_words[at + w] != state_words[w]:
            for i in range(8 * w, 8 * w + 8):
                v = val[8 * at + i]
                if v != state[i]:
                    state[i] = v
                    note(i, dirty)
                    note(i, other_dirty)
    return _PLAYED, rng


@njit(cache=True, nogil=True)
def _add_goals(net, val, sums):  # type: ignore[no-untyped-def]
    """Add each role's goal in ``val``'s state to ``sums``; False unless each has one."""
    settle_goals(net, val)
    for r in range(sums.shape[0]):
        points = goal_points(net, val, r)
        if points < 0:
            return False
        sums[r] += points
    return True


@njit(cache=True, nogil=True)
def split_playouts(  # type: ignore[no-untyped-def]
    net0, work0, val0, net1, work1, val1, ready, tied, tied_value, start_bits, count, seed,
    max_steps, sums,
):  # fmt: skip
    """``count`` random playouts from ``start_bits`` on the two copies (``net1`` holds the
    sentinel true): (playouts done, joint moves, error code), goal sums added to
    ``sums``. Playout ``j`` draws from stream ``j`` of ``seed``, as on the full network.

    ``tied`` are the base facts the copies fixed (the sentinel first), with their
    values in copy 1 (``tied_value``; copy 0 has the opposite): a state where one
    differs stops the batch with :data:`ERR_UNTIED`. The copies keep their values
    between calls (``ready[0]`` once they are consistent), so a call pays only for
    the base facts that differ from the last.
    """
    if ready[0] == 0:
        prepare(net0, work0, start_bits, val0)
        prepare(net1, work1, start_bits, val1)
        ready[0] = 1
    nb = start_bits.shape[0]
    state = np.zeros((nb + 7) & ~7, dtype=np.uint8)  # whole words, as the next run reads
    state[:nb] = start_bits
    return _play(
        net0, work0, val0, val0.view(np.uint64), net1, work1, val1, val1.view(np.uint64),
        tied, tied_value, start_bits, state, state.view(np.uint64), count, seed, max_steps,
        sums,
    )  # fmt: skip


@njit_no_refcounts
def _play(  # type: ignore[no-untyped-def]
    net0, work0, val0, val_words0, net1, work1, val1, val_words1, tied, tied_value,
    start_bits, state, state_words, count, seed, max_steps, sums,
):  # fmt: skip
    """:func:`split_playouts`' loop, compiled without reference counts (it allocates
    nothing, see :mod:`~ggpkit.reasoning.jit`). With them, numba kept the
    counts of the 28 arrays each inlined :func:`_ply` takes, and their atomic
    increments and decrements were a quarter of the time.
    """
    kind0, in_start0, inputs0, base_nodes0, next_lits0 = net0[0], net0[1], net0[2], net0[6], net0[7]
    legal_lits0, does_nodes0, move_start0, terminal0 = net0[8], net0[9], net0[10], net0[11]
    fan_start0, fanout0, scc0, scc_start0, scc_nodes0 = (
        net0[15], net0[16], net0[17], net0[18], net0[19],
    )  # fmt: skip
    cnt0, pend0, stack0, old0, ks0, chosen0 = (
        work0[0], work0[1], work0[2], work0[3], work0[4], work0[5],
    )  # fmt: skip
    dirty0, due0 = work0[12], work0[13]
    kind1, in_start1, inputs1, base_nodes1, next_lits1 = net1[0], net1[1], net1[2], net1[6], net1[7]
    legal_lits1, does_nodes1, move_start1, terminal1 = net1[8], net1[9], net1[10], net1[11]
    fan_start1, fanout1, scc1, scc_start1, scc_nodes1 = (
        net1[15], net1[16], net1[17], net1[18], net1[19],
    )  # fmt: skip
    cnt1, pend1, stack1, old1, ks1, chosen1 = (
        work1[0], work1[1], work1[2], work1[3], work1[4], work1[5],
    )  # fmt: skip
    dirty1, due1 = work1[12], work1[13]
    nb = start_bits.shape[0]
    for i in range(nb):  # the copies may hold another call's state
        note(i, dirty0)
        note(i, dirty1)
    moves = 0
    side = 0
    for p in range(count):
        rng = seed_stream(seed, p)
        for i in range(nb):
            if state[i] != start_bits[i]:
                state[i] = start_bits[i]
                note(i, dirty0)
                note(i, dirty1)
        steps = 0
        while True:
            side = state[tied[0]]
            for t in range(1, tied.shape[0]):
                if state[tied[t]] != (tied_value[t] if side else 1 - tied_value[t]):
                    return p, moves, ERR_UNTIED
            if side:
                code, rng = _ply(
                    kind1, in_start1, inputs1, fan_start1, fanout1, scc1, scc_start1,
                    scc_nodes1, base_nodes1, next_lits1, legal_lits1, does_nodes1, move_start1,
                    terminal1, cnt1, pend1, stack1, old1, ks1, chosen1, val1, val_words1,
                    rng, state, state_words, dirty1, due1, dirty0,
                )  # fmt: skip
            else:
                code, rng = _ply(
                    kind0, in_start0, inputs0, fan_start0, fanout0, scc0, scc_start0,
                    scc_nodes0, base_nodes0, next_lits0, legal_lits0, does_nodes0, move_start0,
                    terminal0, cnt0, pend0, stack0, old0, ks0, chosen0, val0, val_words0,
                    rng, state, state_words, dirty0, due0, dirty1,
                )  # fmt: skip
            if code == _ENDED:
                break
            if code == _STUCK:
                return p, moves, ERR_NO_LEGAL
            if steps >= max_steps:
                return p, moves, ERR_TOO_LONG
            steps += 1
        ok = _add_goals(net1, val1, sums) if side else _add_goals(net0, val0, sums)
        if not ok:
            return p, moves, ERR_GOAL
        moves += steps
    return count, moves, ERR_NONE
