"""Numba kernels that evaluate a compiled propnet (see ``propnet.py`` for the arrays).

Node values live in one ``uint8`` array ``val``; a literal ``l`` reads
``val[l >> 1] ^ (l & 1)``. Whole random playouts run inside :func:`playouts`, so
the interpreter is entered once per batch, not once per move. The random numbers
come from xorshift64*, seeded per batch, so a batch is reproducible.

Two ways to evaluate. :func:`eval_phase` recomputes a whole phase in order (the
single-state queries of the reasoner use it). Playouts instead propagate only
changes (as Sancho's propnet does): each acyclic gate keeps the count of its
true inputs, a changed input adjusts its consumers' counts, and a consumer whose
count crosses between 0 and 1 is stacked to pass its own change on. Recursive
(cyclic) components are recomputed to their least fixpoint whenever one of their
inputs changed.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpkit.reasoning.jit import rand_below, seed_stream

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


@njit(cache=True, nogil=True, inline="always")
def true_inputs_over(g, kind, in_start, inputs, val):  # type: ignore[no-untyped-def]
    """Gate ``g``'s count for differential propagation: its true inputs, less all but one
    of its inputs for an AND, so that for either kind the gate is true iff the count is
    positive (:func:`push` then knows from the count alone whether the value changes).
    """
    c = 0
    for k in range(in_start[g], in_start[g + 1]):
        x = inputs[k]
        c += val[x >> 1] ^ (x & 1)
    if kind[g] == KIND_AND:
        c -= in_start[g + 1] - in_start[g] - 1
    return c


@njit(cache=True, nogil=True, inline="always")
def _least_fixpoint(nodes, s, e, kind, in_start, inputs, val):  # type: ignore[no-untyped-def]
    """Reset the cyclic gates ``nodes[s:e]`` to false and iterate them to their least
    fixpoint: exactly the GDL meaning of positive recursion."""
    for k in range(s, e):
        val[nodes[k]] = 0
    changed = True
    while changed:
        changed = False
        for k in range(s, e):
            n = nodes[k]
            v = _gate(n, kind, in_start, inputs, val)
            if v != val[n]:
                val[n] = v
                changed = True


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
            _least_fixpoint(order, s, e, kind, in_start, inputs, val)


@njit(cache=True, nogil=True)
def set_state(bits, base_nodes, val):  # type: ignore[no-untyped-def]
    """Load a state (one byte per base proposition) into the node values."""
    for i in range(base_nodes.shape[0]):
        val[base_nodes[i]] = bits[i]


_BYTES = np.uint64(0x0101010101010101)


@njit(cache=True, nogil=True, inline="always")
def ones(word):  # type: ignore[no-untyped-def]
    """How many of a word's eight node values (bytes of 0 or 1) are true: their sum,
    in the top byte of the word times 0x0101010101010101."""
    return np.int64((word * _BYTES) >> np.uint64(56))


_PACK = np.uint64(0x0102040810204080)
"""Times a word of 0/1 bytes, puts byte i's value at bit 56 + i (no carries)."""
_NTH_BIT = np.zeros(256 * 8, dtype=np.int64)
"""``_NTH_BIT[8 * mask + j]``: the position of the ``j``-th set bit of ``mask``."""
for _mask in range(256):
    for _j, _bit in enumerate(b for b in range(8) if _mask >> b & 1):
        _NTH_BIT[8 * _mask + _j] = _bit


@njit(cache=True, nogil=True, inline="always")
def nth_one(val_words, w, j):  # type: ignore[no-untyped-def]
    """The node of the ``j``-th true value (from 0) at or after word ``w``: words are
    skipped by their counts, and within the word the byte is looked up, not searched
    (a branch per byte mispredicted, and lost to the one-by-one scan)."""
    c = ones(val_words[w])
    while j >= c:
        j -= c
        w += 1
        c = ones(val_words[w])
    mask = (val_words[w] * _PACK) >> np.uint64(56)
    return 8 * w + _NTH_BIT[8 * np.int64(mask) + j]


@njit(cache=True, nogil=True)
def watch_log(size):  # type: ignore[no-untyped-def]
    """An empty log of indices ``0 .. size - 1``, each noted at most once until drained:
    ``log[0]`` entries at ``log[1:]``, then one flag per index."""
    return np.zeros(2 * size + 1, dtype=np.int32)


@njit(cache=True, nogil=True, inline="always")
def note(i, log):  # type: ignore[no-untyped-def]
    """Add index ``i`` to ``log`` (:func:`watch_log`) unless it is there already."""
    flag = 1 + ((log.shape[0] - 1) >> 1) + i
    if log[flag] == 0:
        log[flag] = 1
        log[0] += 1
        log[log[0]] = i


@njit(cache=True, nogil=True, inline="always")
def drain(log, out):  # type: ignore[no-untyped-def]
    """Move the indices noted in ``log`` to ``out`` (the log is then empty); their count."""
    m = log[0]
    half = (log.shape[0] - 1) >> 1
    for j in range(m):
        i = log[1 + j]
        out[j] = i
        log[1 + half + i] = 0
    log[0] = 0
    return m


@njit(cache=True, nogil=True, inline="always")
def push(x, skip, val, fan_start, fanout, scc, count, pend, stack, sp, changed):  # type: ignore[no-untyped-def]
    """Node ``x`` just changed value: update its consumers' counts and stack those whose
    value changes with it. Returns the new stack height.

    A consumer's value changes exactly when its count crosses between 0 and 1 (see
    :func:`true_inputs_over`), so only the count is read: when the control proposition
    flips, breakthrough's 310 legal gates all count it, but only the few whose move
    becomes legal or stops being so are stacked. A cyclic consumer (``fanout`` entry
    flagged 2, naming its component's first node) is stacked whole, unless it is the
    component ``skip`` being settled. An entry flagged 3 names a base fact whose
    ``next`` literal reads ``x``: it is noted in ``changed`` (:func:`watch_log`), so a
    step reads only those next literals, not every one. Callers that keep no such log
    pass ``None``, which numba prunes: the noting code, merely compiled into the split
    kernel's eight inlined calls, made it measurably slower.
    """
    v = val[x]
    for k in range(fan_start[x], fan_start[x + 1]):
        e = fanout[k]
        t = e >> 2
        if e & 2:
            if e & 1:
                if changed is not None:
                    note(t, changed)
                continue
            if scc[t] == skip:
                continue
        elif (v ^ (e & 1)) != 0:
            count[t] += 1
            if count[t] != 1:
                continue
        else:
            count[t] -= 1
            if count[t] != 0:
                continue
        if pend[t] == 0:
            pend[t] = 1
            stack[sp] = t
            sp += 1
    return sp


@njit(cache=True, nogil=True, inline="always")
def _propagate(  # type: ignore[no-untyped-def]
    kind, in_start, inputs, val, fan_start, fanout, scc, scc_start, scc_nodes,
    count, pend, stack, sp, old, changed,
):  # fmt: skip
    """Settle every stacked gate and what its changes reach; returns 0 (the stack's height).

    Last in, first out, with no level order: counts are sums, so any order ends with
    every gate true iff its count is positive. A gate may be settled more than once
    when its inputs change at different times, but stacking costs two stores where
    level buckets cost a dozen operations, and that is most of the work (faster than
    level order on every corpus game measured). A stacked gate is not stacked again
    (``pend``), so the stack never holds more than one entry per gate.
    """
    while sp > 0:
        sp -= 1
        t = stack[sp]
        pend[t] = 0
        sid = scc[t]
        if sid < 0:
            nv = 1 if count[t] > 0 else 0
            if nv != val[t]:
                val[t] = nv
                sp = push(t, -1, val, fan_start, fanout, scc, count, pend, stack, sp, changed)
            continue
        a = scc_start[sid]
        b = scc_start[sid + 1]
        for j in range(a, b):
            old[j - a] = val[scc_nodes[j]]
        _least_fixpoint(scc_nodes, a, b, kind, in_start, inputs, val)
        for j in range(a, b):
            m = scc_nodes[j]
            if val[m] != old[j - a]:
                sp = push(m, sid, val, fan_start, fanout, scc, count, pend, stack, sp, changed)
    return sp


@njit(cache=True, nogil=True)
def propagate(  # type: ignore[no-untyped-def]
    kind, in_start, inputs, val, fan_start, fanout, scc, scc_start, scc_nodes,
    count, pend, stack, sp, old, changed,
):  # fmt: skip
    """:func:`_propagate` as a call, for the kernels that gain nothing from inlining it.

    The scalar kernel inlines it (a small gain in its rollouts); the split copies and
    the search kernels measured no gain, and every inlined copy adds to the kernels'
    compile time (a cold ``ggpkit warmup`` grows noticeably with all inlined).
    """
    return _propagate(kind, in_start, inputs, val, fan_start, fanout, scc, scc_start,
                      scc_nodes, count, pend, stack, sp, old, changed)  # fmt: skip


@njit(cache=True, nogil=True)
def playouts(  # type: ignore[no-untyped-def]
    kind, in_start, inputs, order, blocks, phases, base_nodes, next_lits, legal_lits,
    does_nodes, move_start, terminal_lit, goal_lits, goal_values, goal_start,
    fan_start, fanout, scc, scc_start, scc_nodes, needed,
    cnt, pend, stack, old, changed, chosen, ready, start_bits, count, seed, max_steps, val,
):  # fmt: skip
    """Run ``count`` random playouts from ``start_bits`` with differential propagation.

    Returns ``(playouts done, joint moves, goal sums per role, error code)``; on an
    error the batch stops at the faulty playout (which is not counted).

    ``val`` and the propagation's arrays (counts, pending flags, stack, a cyclic
    component's old values, the log of changed next literals or ``None`` where the
    network has no watch entries, the move each role has set) are the caller's and
    outlive the call: the network is made consistent
    once (``ready[0]``) and each playout then loads its start differentially. A call
    of a few playouts (a tree's leaf) used to pay a whole evaluation first: on
    ticTacToe that was a fifth of a call of seven.
    """
    nroles = move_start.shape[0] - 1
    nb = base_nodes.shape[0]
    if ready[0] == 0:
        set_state(start_bits, base_nodes, val)
        for k in range(does_nodes.shape[0]):
            val[does_nodes[k]] = 0
        for ph in range(3):
            eval_phase(kind, in_start, inputs, order, blocks, phases[2 * ph],
                       phases[2 * ph + 1], val)  # fmt: skip
        for i in range(needed.shape[0]):
            cnt[needed[i]] = true_inputs_over(needed[i], kind, in_start, inputs, val)
        if changed is not None:
            for i in range(nb):  # evaluated with no moves: any next value may differ
                note(i, changed)
        for r in range(nroles):
            chosen[r] = -1
        ready[0] = 1
    tmp = np.zeros(nb, dtype=np.uint8)
    due = np.zeros(nb, dtype=np.int32)
    sums = np.zeros(nroles, dtype=np.int64)
    pick_k = np.zeros(nroles, dtype=np.int64)
    val_words = val.view(np.uint64)
    moves = 0
    sp = 0
    for p in range(count):
        rng = seed_stream(seed, p)
        for i in range(nb):
            x = base_nodes[i]
            if val[x] != start_bits[i]:
                val[x] = start_bits[i]
                if changed is not None:
                    note(i, changed)  # its next value may now differ from it
                sp = push(x, -1, val, fan_start, fanout, scc, cnt, pend, stack, sp, changed)
        sp = _propagate(kind, in_start, inputs, val, fan_start, fanout, scc, scc_start,
                        scc_nodes, cnt, pend, stack, sp, old, changed)  # fmt: skip
        steps = 0
        while (val[terminal_lit >> 1] ^ (terminal_lit & 1)) == 0:
            if steps >= max_steps:
                return p, moves, sums, ERR_TOO_LONG
            for r in range(nroles):  # each role's legal nodes: a run from a word boundary
                s = move_start[r]
                if s == move_start[r + 1]:
                    return p, moves, sums, ERR_NO_LEGAL
                first = legal_lits[s] >> 1
                nl = 0
                for w in range(first >> 3, (first + move_start[r + 1] - s + 7) >> 3):
                    nl += ones(val_words[w])
                if nl == 0:
                    return p, moves, sums, ERR_NO_LEGAL
                rng, j = rand_below(rng, nl)
                pick_k[r] = s + nth_one(val_words, first >> 3, j) - first
            for r in range(nroles):
                if chosen[r] != pick_k[r]:
                    if chosen[r] >= 0:
                        x = does_nodes[chosen[r]]
                        val[x] = 0
                        sp = push(x, -1, val, fan_start, fanout, scc, cnt, pend, stack, sp, changed)
                    x = does_nodes[pick_k[r]]
                    val[x] = 1
                    sp = push(x, -1, val, fan_start, fanout, scc, cnt, pend, stack, sp, changed)
                    chosen[r] = pick_k[r]
            sp = _propagate(kind, in_start, inputs, val, fan_start, fanout, scc, scc_start,
                            scc_nodes, cnt, pend, stack, sp, old, changed)  # fmt: skip
            # Only a base fact whose next literal changed since the last step can change,
            # where the network notes them in ``changed``; else every one is read.
            if changed is not None:
                m = drain(changed, due)
            else:  # filled here at each step: filled once before the loop measured slower
                m = nb
                for j in range(nb):
                    due[j] = j
            for j in range(m):
                x = next_lits[due[j]]
                tmp[j] = val[x >> 1] ^ (x & 1)
            for j in range(m):
                x = base_nodes[due[j]]
                if val[x] != tmp[j]:
                    val[x] = tmp[j]
                    sp = push(x, -1, val, fan_start, fanout, scc, cnt, pend, stack, sp, changed)
            sp = _propagate(kind, in_start, inputs, val, fan_start, fanout, scc, scc_start,
                            scc_nodes, cnt, pend, stack, sp, old, changed)  # fmt: skip
            steps += 1
        # The goals' gates are left out of differential propagation: settled once here.
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
                return p, moves, sums, ERR_GOAL
            sums[r] += value
        moves += steps
    return count, moves, sums, ERR_NONE


# ---- 64 playouts at once: one bit per playout in every node's uint64 word -------------------

_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_CTZ = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _CTZ[((1 << _i) * 0x03F79D71B4CB0A89 % (1 << 64)) >> 58] = _i


@njit(cache=True, nogil=True, inline="always")
def ctz(w):  # type: ignore[no-untyped-def]
    return _CTZ[((w & (~w + np.uint64(1))) * _DEBRUIJN) >> np.uint64(58)]


@njit(cache=True, nogil=True, inline="always")
def lit64(x, val):  # type: ignore[no-untyped-def]
    w = val[x >> 1]
    if x & 1:
        w = ~w
    return w


@njit(cache=True, nogil=True, inline="always")
def _gate64(n, kind, in_start, inputs, val):  # type: ignore[no-untyped-def]
    s = in_start[n]
    e = in_start[n + 1]
    if kind[n] == KIND_AND:
        acc = ~np.uint64(0)
        for k in range(s, e):
            acc &= lit64(inputs[k], val)
            if acc == 0:
                break
        return acc
    acc = np.uint64(0)
    for k in range(s, e):
        acc |= lit64(inputs[k], val)
    return acc


@njit(cache=True, nogil=True)
def eval_phase64(kind, in_start, inputs, order, blocks, b0, b1, val):  # type: ignore[no-untyped-def]
    """:func:`eval_phase` on 64 independent states at once (one bit each).

    The gate loop is written out here rather than through a helper: numba
    compiles this form several times faster.
    """
    ones = ~np.uint64(0)
    for b in range(b0, b1):
        s0 = blocks[b, 0]
        e0 = blocks[b, 1]
        cyclic = blocks[b, 2] != 0
        if cyclic:
            for k in range(s0, e0):
                val[order[k]] = 0
        changed = True
        while changed:
            changed = False
            for k in range(s0, e0):
                n = order[k]
                s = in_start[n]
                e = in_start[n + 1]
                if kind[n] == KIND_AND:
                    acc = ones
                    for j in range(s, e):
                        x = inputs[j]
                        w = val[x >> 1]
                        if x & 1:
                            w = ~w
                        acc &= w
                        if acc == 0:
                            break
                else:
                    acc = np.uint64(0)
                    for j in range(s, e):
                        x = inputs[j]
                        w = val[x >> 1]
                        if x & 1:
                            w = ~w
                        acc |= w
                if acc != val[n]:
                    val[n] = acc
                    changed = cyclic


@njit(cache=True, nogil=True)
def expand_states(  # type: ignore[no-untyped-def]
    kind, in_start, inputs, order, blocks, phases, base_nodes, legal_lits, move_start,
    does_nodes, terminal_lit, states, role, own, widest,
    sees_src, sees_neg, target, next_src, next_neg, capacity,
):  # fmt: skip
    """The successors of many states (one per row of ``states``, a byte per base
    proposition) under every joint move in which ``role`` plays its move number ``own``,
    kept where the role's percept literals read exactly ``target``, all in one call: 64
    joint moves at a time, one per bit lane of :func:`eval_phase64` over the state's
    phase A copied to every lane.

    Returns ``(done, counts, parents, out)``: the states expanded (fewer than all where
    ``capacity`` successors would be passed), each one's joint moves (-1: terminal; 0:
    the move not legal; more than ``widest``: counted, not expanded), and for each
    successor kept the row of its state and its bits."""
    ones = ~np.uint64(0)
    size = kind.shape[0]
    nbase = base_nodes.shape[0]
    roles = move_start.shape[0] - 1
    val = np.zeros(size, dtype=np.uint8)
    val[1] = 1
    val64 = np.zeros(size, dtype=np.uint64)
    counts = np.zeros(states.shape[0], dtype=np.int64)
    parents = np.zeros(capacity, dtype=np.int64)
    out = np.zeros((capacity, nbase), dtype=np.uint8)
    legal = np.zeros(does_nodes.shape[0], dtype=np.int64)
    nlegal = np.zeros(roles, dtype=np.int64)
    digit = np.zeros(roles, dtype=np.int64)
    joint = np.zeros(roles, dtype=np.int64)
    kept = 0
    done = 0
    for i in range(states.shape[0]):
        for b in range(nbase):
            val[base_nodes[b]] = states[i, b]
        eval_phase(kind, in_start, inputs, order, blocks, phases[0], phases[1], val)
        done = i + 1
        if (val[terminal_lit >> 1] ^ (terminal_lit & 1)) != 0:
            counts[i] = -1
            continue
        own_lit = legal_lits[move_start[role] + own]
        if (val[own_lit >> 1] ^ (own_lit & 1)) == 0:
            continue
        count = 1
        for r in range(roles):
            nlegal[r] = 0
            if r == role:
                legal[move_start[r]] = own
                nlegal[r] = 1
                continue
            for m in range(move_start[r + 1] - move_start[r]):
                x = legal_lits[move_start[r] + m]
                if (val[x >> 1] ^ (x & 1)) != 0:
                    legal[move_start[r] + nlegal[r]] = m
                    nlegal[r] += 1
            count *= nlegal[r]
        counts[i] = count
        if count == 0 or count > widest:
            continue
        if kept + count > capacity:
            done = i
            counts[i] = 0
            break
        for n in range(size):
            val64[n] = ones if val[n] != 0 else np.uint64(0)
        for r in range(roles):
            digit[r] = 0
        for first in range(0, count, 64):
            lanes = min(64, count - first)
            for lane in range(lanes):
                bit = np.uint64(1) << np.uint64(lane)
                for r in range(roles):
                    m = legal[move_start[r] + digit[r]]
                    node = does_nodes[move_start[r] + m]
                    val64[node] |= bit
                    joint[r] = node
                for r in range(roles - 1, -1, -1):  # the next joint move (mixed radix)
                    digit[r] += 1
                    if digit[r] < nlegal[r]:
                        break
                    digit[r] = 0
            eval_phase64(kind, in_start, inputs, order, blocks, phases[2], phases[3], val64)
            mask = ones if lanes == 64 else (np.uint64(1) << np.uint64(lanes)) - np.uint64(1)
            for k in range(sees_src.shape[0]):
                w = val64[sees_src[k]]
                if sees_neg[k]:
                    w = ~w
                if target[k]:
                    mask &= w
                else:
                    mask &= ~w
                if mask == 0:
                    break
            while mask != 0:
                lane = ctz(mask)
                mask &= mask - np.uint64(1)
                parents[kept] = i
                for b in range(nbase):
                    w = val64[next_src[b]]
                    if next_neg[b]:
                        w = ~w
                    out[kept, b] = (w >> np.uint64(lane)) & np.uint64(1)
                kept += 1
            for r in range(roles):
                for m in range(move_start[r + 1] - move_start[r]):
                    val64[does_nodes[move_start[r] + m]] = 0
    return done, counts, parents[:kept], out[:kept]


@njit(cache=True, nogil=True)
def playouts64(  # type: ignore[no-untyped-def]
    kind, in_start, inputs, order, blocks, phases, base_nodes, next_lits, legal_lits,
    does_nodes, move_start, terminal_lit, goal_lits, goal_values, goal_start,
    start_bits, count, seed, max_steps, val,
):  # fmt: skip
    """:func:`playouts` with 64 playouts in flight, one per bit of each node's word.

    Returns the same totals as the scalar kernel for the same seed; see
    :func:`playouts64_from`, which this runs with the one start state.
    """
    sums = np.zeros((1, move_start.shape[0] - 1), dtype=np.int64)
    done, moves, err = playouts64_from(
        kind, in_start, inputs, order, blocks, phases, base_nodes, next_lits, legal_lits,
        does_nodes, move_start, terminal_lit, goal_lits, goal_values, goal_start,
        start_bits.reshape(1, -1), count, seed, max_steps, val, sums, np.zeros(0, np.uint8),
        False,
    )  # fmt: skip
    return done, moves, sums[0].copy(), err


@njit(cache=True, nogil=True)
def _load_lanes(starts, s, mask, base_nodes, val):  # type: ignore[no-untyped-def]
    """Put start state ``starts[s]`` into the lanes of ``mask``."""
    for i in range(base_nodes.shape[0]):
        x = base_nodes[i]
        if starts[s, i]:
            val[x] |= mask
        else:
            val[x] &= ~mask


@njit(cache=True, nogil=True)
def _launch(starts, per_start, seed, launched, active, rng, steps, source, base_nodes, val):  # type: ignore[no-untyped-def]
    """Start the next playouts in the free lanes: (playouts launched, active lanes).

    Runs of lanes that share a start state are loaded with one pass over the base."""
    count = starts.shape[0] * per_start
    one = np.uint64(1)
    mask = np.uint64(0)
    s = -1
    for lane in range(64):
        if launched >= count:
            break
        bit = one << np.uint64(lane)
        if active & bit:
            continue
        start = launched // per_start
        if start != s and mask != 0:
            _load_lanes(starts, s, mask, base_nodes, val)
            mask = np.uint64(0)
        s = start
        mask |= bit
        rng[lane] = seed_stream(seed, launched)
        source[lane] = start
        steps[lane] = 0
        launched += 1
        active |= bit
    if mask != 0:
        _load_lanes(starts, s, mask, base_nodes, val)
    return launched, active


PLY_MOVE, PLY_ROLE, PLY_FIRST, PLY_TRIES, PLY_CHOICES, PLY_ROWS = 0, 1, 2, 3, 4, 5
"""Rows of the greedy playouts' record of a ply, per lane: the sole chooser's move, its
role, the index of its first move tried from this state (among its legal moves in
literal order), how many of its moves have been tried here, and how many it has."""


@njit(cache=True, nogil=True)
def playouts64_from(  # type: ignore[no-untyped-def]
    kind, in_start, inputs, order, blocks, phases, base_nodes, next_lits, legal_lits,
    does_nodes, move_start, terminal_lit, goal_lits, goal_values, goal_start,
    starts, per_start, seed, max_steps, val, sums, decisive, greedy,
):  # fmt: skip
    """``per_start`` random playouts from each row of ``starts``, 64 in flight at a time.

    Each node's word holds 64 independent states, one per bit (lane). A lane whose
    playout ends is restarted at once with the next playout, so lanes never idle while
    playouts remain. Playout ``j`` starts from ``starts[j // per_start]`` and draws from
    random stream ``j`` (the scalar kernel's stream for the same seed); its goal values
    are added to ``sums[j // per_start]``. Returns (playouts done, moves played, error).

    ``decisive`` (one flag per legal literal; empty: none kept) flags the moves that
    were a playout's last, chosen by a sole chooser, where the game ended at that
    role's best goal; the caller keeps the flags between calls. ``greedy`` (with
    flags) makes the playouts greedy, as Sancho's rollouts are: where one role alone
    chooses and some of its flagged moves are legal, they are tried
    (:func:`_take_wins`), and one that ends the game at the role's best goal is played
    instead of the random move.
    Why: uniform playouts miss a win in one as often as not, so a position with a
    winning threat looks even; a greedy playout takes the win, which is what a
    player does.
    """
    nroles = move_start.shape[0] - 1
    nb = base_nodes.shape[0]
    count = starts.shape[0] * per_start
    one = np.uint64(1)
    rng = np.zeros(64, dtype=np.uint64)
    steps = np.zeros(64, dtype=np.int64)
    source = np.zeros(64, dtype=np.int64)
    lane_moves = np.zeros((64, max(1, legal_lits.shape[0])), dtype=np.int32)
    nlegal = np.zeros(64, dtype=np.int64)
    tmp = np.zeros(nb, dtype=np.uint64)
    learning = decisive.shape[0] > 0
    greedy = greedy and learning
    best = _best_goals(goal_values, goal_start)
    ply = np.zeros((PLY_ROWS, 64), dtype=np.int64)  # each lane's choice in this ply
    last = np.zeros((PLY_ROWS, 64), dtype=np.int64)  # and in its last ply
    choosing = np.zeros(nroles, dtype=np.uint64)  # per role, the lanes where it chooses
    trial = _trial_scratch(legal_lits.shape[0] if greedy else 1, nb)
    before = np.zeros(nb if greedy else 1, dtype=np.uint64)  # base words before the last ply
    last_sole = np.uint64(0)  # lanes whose last ply had one role choosing
    retry = np.uint64(0)  # lanes back before their last ply, whose chooser tries another move
    for i in range(val.shape[0]):
        val[i] = 0
    val[1] = ~np.uint64(0)
    active = np.uint64(0)
    launched = 0
    moves = 0
    done = 0
    while launched < count or active != 0:
        if launched < count and active != ~np.uint64(0):
            launched, active = _launch(
                starts, per_start, seed, launched, active, rng, steps, source, base_nodes, val
            )
        eval_phase64(kind, in_start, inputs, order, blocks, phases[0], phases[1], val)
        term = lit64(terminal_lit, val) & active
        if term != 0:
            eval_phase64(kind, in_start, inputs, order, blocks, phases[4], phases[5], val)
            w = term
            while w != 0:
                lane = ctz(w)
                w &= w - one
                bit = one << np.uint64(lane)
                for r in range(nroles):
                    found = 0
                    value = 0
                    for k in range(goal_start[r], goal_start[r + 1]):
                        if lit64(goal_lits[k], val) & bit:
                            found += 1
                            value = goal_values[k]
                    if found != 1:
                        return done, moves, ERR_GOAL
                    sums[source[lane], r] += value
                    learned = last_sole & bit and last[PLY_ROLE, lane] == r and value == best[r]
                    if learning and learned:
                        decisive[last[PLY_MOVE, lane]] = 1
                moves += steps[lane]
                done += 1
                active &= ~bit
                last_sole &= ~bit
            if launched < count:
                continue  # refill the finished lanes before anyone moves
            if active == 0:
                break
        for k in range(does_nodes.shape[0]):
            val[does_nodes[k]] = 0
        some = np.uint64(0)  # lanes where some role chooses
        twice = np.uint64(0)  # lanes where two roles do
        for r in range(nroles):
            s0 = move_start[r]
            e0 = move_start[r + 1]
            for lane in range(64):
                nlegal[lane] = 0
            for k in range(s0, e0):
                w = lit64(legal_lits[k], val) & active
                while w != 0:
                    lane = ctz(w)
                    w &= w - one
                    lane_moves[lane, nlegal[lane]] = k
                    nlegal[lane] += 1
            w = active
            chose = np.uint64(0)
            while w != 0:
                lane = ctz(w)
                w &= w - one
                if nlegal[lane] == 0:
                    return done, moves, ERR_NO_LEGAL
                if steps[lane] >= max_steps:
                    return done, moves, ERR_TOO_LONG
                rng[lane], j = rand_below(rng[lane], nlegal[lane])
                bit = one << np.uint64(lane)
                if nlegal[lane] > 1:
                    chose |= bit
                    if greedy:
                        j = _choose(lane, j, r, nlegal[lane], retry & bit, lane_moves, ply, last)
                    elif learning:
                        ply[PLY_MOVE, lane] = lane_moves[lane, j]
                        ply[PLY_ROLE, lane] = r
                val[does_nodes[lane_moves[lane, j]]] |= bit
            choosing[r] = chose
            twice |= some & chose
            some |= chose
        sole = some & ~twice
        retry = np.uint64(0)
        if greedy and sole != 0:
            won = _take_wins(
                kind, in_start, inputs, order, blocks, phases, base_nodes, next_lits,
                legal_lits, does_nodes, move_start, terminal_lit, goal_lits, goal_values,
                goal_start, decisive, best, sole, ply, choosing, trial, tmp, val,
            )  # fmt: skip
            retry = _takebacks(won & last_sole, ply, last)
        eval_phase64(kind, in_start, inputs, order, blocks, phases[2], phases[3], val)
        for i in range(nb):
            tmp[i] = lit64(next_lits[i], val)
        if greedy:
            _end_greedy_ply(active, retry, tmp, before, base_nodes, val, steps)
            last_sole = _remember(active & ~retry, sole, last_sole, ply, last)
            continue
        if learning:
            last_sole = _remember(active, sole, last_sole, ply, last)
        for i in range(nb):
            x = base_nodes[i]
            val[x] = (val[x] & ~active) | (tmp[i] & active)
        w = active
        while w != 0:
            lane = ctz(w)
            w &= w - one
            steps[lane] += 1
    return done, moves, ERR_NONE


@njit(cache=True, nogil=True)
def _choose(lane, j, r, nlegal, retrying, lane_moves, ply, last):  # type: ignore[no-untyped-def]
    """Role ``r`` chooses in ``lane``: the random move ``j``, or where the lane took its
    last ply back, the move after the ones tried there. Recorded in ``ply``."""
    if retrying:
        first = last[PLY_FIRST, lane]
        tries = last[PLY_TRIES, lane] + 1
        j = (first + tries - 1) % nlegal
    else:
        first = j
        tries = 1
    ply[PLY_MOVE, lane] = lane_moves[lane, j]
    ply[PLY_ROLE, lane] = r
    ply[PLY_FIRST, lane] = first
    ply[PLY_TRIES, lane] = tries
    ply[PLY_CHOICES, lane] = nlegal
    return j


@njit(cache=True, nogil=True)
def _takebacks(won, ply, last):  # type: ignore[no-untyped-def]
    """Of the lanes where this ply's chooser can win at once, those whose last ply another
    role chose with moves left untried: they go back and try the next one (Sancho's
    greedy rollouts: a move that gives the opponent a win in one is played only when
    every move does)."""
    one = np.uint64(1)
    back = np.uint64(0)
    w = won
    while w != 0:
        lane = ctz(w)
        w &= w - one
        if (
            last[PLY_ROLE, lane] != ply[PLY_ROLE, lane]
            and last[PLY_TRIES, lane] < last[PLY_CHOICES, lane]
        ):
            back |= one << np.uint64(lane)
    return back


@njit(cache=True, nogil=True)
def _end_greedy_ply(active, retry, tmp, before, base_nodes, val, steps):  # type: ignore[no-untyped-def]
    """The next state (``tmp``) into the moving lanes, the state before the last ply back
    into the ``retry`` lanes (a ply less played); ``before`` keeps each lane's state
    before its last ply."""
    one = np.uint64(1)
    moving = active & ~retry
    for i in range(base_nodes.shape[0]):
        x = base_nodes[i]
        now = val[x]
        old = before[i]
        before[i] = (old & retry) | (now & ~retry)
        val[x] = (now & ~active) | (tmp[i] & moving) | (old & retry)
    w = active
    while w != 0:
        lane = ctz(w)
        w &= w - one
        steps[lane] += -1 if retry & (one << np.uint64(lane)) else 1


@njit(cache=True, nogil=True)
def _remember(moving, sole, last_sole, ply, last):  # type: ignore[no-untyped-def]
    """After a ply, its record becomes the moving lanes' last: the new ``last_sole``."""
    one = np.uint64(1)
    w = moving & sole
    while w != 0:
        lane = ctz(w)
        w &= w - one
        for row in range(PLY_ROWS):
            last[row, lane] = ply[row, lane]
    return (last_sole & ~moving) | (sole & moving)


@njit(cache=True, nogil=True)
def _best_goals(goal_values, goal_start):  # type: ignore[no-untyped-def]
    """Each role's highest goal value (what a decisive move must reach)."""
    nroles = goal_start.shape[0] - 1
    best = np.full(nroles, -1, dtype=np.int64)
    for r in range(nroles):
        for k in range(goal_start[r], goal_start[r + 1]):
            best[r] = max(best[r], goal_values[k])
    return best


@njit(cache=True, nogil=True)
def _trial_scratch(width, nb):  # type: ignore[no-untyped-def]
    """:func:`_take_wins`'s arrays: each lane's candidates and how many, the winning
    move found per lane, and the base words a trial saves."""
    return (
        np.zeros((64, max(1, width)), dtype=np.int64),
        np.zeros(64, dtype=np.int64),
        np.zeros(64, dtype=np.int64),
        np.zeros(nb, dtype=np.uint64),
    )


@njit(cache=True, nogil=True)
def _flagged_moves(legal_lits, move_start, decisive, sole, choosing, cand, ncand, val):  # type: ignore[no-untyped-def]
    """Each lane's legal flagged moves of its sole chooser into ``cand``: the most any has."""
    one = np.uint64(1)
    most = 0
    for lane in range(64):
        ncand[lane] = 0
    for r in range(move_start.shape[0] - 1):
        lanes = choosing[r] & sole
        if lanes == 0:
            continue
        for k in range(move_start[r], move_start[r + 1]):
            if decisive[k] == 0:
                continue
            w = lit64(legal_lits[k], val) & lanes
            while w != 0:
                lane = ctz(w)
                w &= w - one
                cand[lane, ncand[lane]] = k
                ncand[lane] += 1
                most = max(most, ncand[lane])
    return most


@njit(cache=True, nogil=True)
def _swap_moves(lanes, old, new, does_nodes, val):  # type: ignore[no-untyped-def]
    """In each lane of ``lanes``, replace move ``old[lane]`` by ``new[lane]`` (column 0)."""
    one = np.uint64(1)
    w = lanes
    while w != 0:
        lane = ctz(w)
        w &= w - one
        bit = one << np.uint64(lane)
        val[does_nodes[old[lane]]] &= ~bit
        val[does_nodes[new[lane]]] |= bit


@njit(cache=True, nogil=True)
def _take_wins(  # type: ignore[no-untyped-def]
    kind, in_start, inputs, order, blocks, phases, base_nodes, next_lits, legal_lits,
    does_nodes, move_start, terminal_lit, goal_lits, goal_values, goal_start, decisive,
    best, sole, ply, choosing, trial, tmp, val,
):  # fmt: skip
    """Where a lane's sole chooser has flagged legal moves, try them (round ``t`` tries
    every lane's ``t``-th at once) and play the first that ends the game at the role's
    best goal instead of the move in ``ply``: the lanes that found one.

    A trial plays the move into the base words of its lanes, evaluates terminal and
    goals there, and puts the words back; the state's own phase is evaluated again at
    the end, as the move's ply reads it.
    """
    cand, ncand, win, saved = trial
    picked, chooser = ply[PLY_MOVE], ply[PLY_ROLE]
    one = np.uint64(1)
    nb = base_nodes.shape[0]
    most = _flagged_moves(legal_lits, move_start, decisive, sole, choosing, cand, ncand, val)
    if most == 0:
        return np.uint64(0)
    won = np.uint64(0)
    for t in range(most):
        lanes = np.uint64(0)
        w = sole & ~won
        while w != 0:
            lane = ctz(w)
            w &= w - one
            if ncand[lane] > t:
                lanes |= one << np.uint64(lane)
                win[lane] = cand[lane, t]
        if lanes == 0:
            break
        _swap_moves(lanes, picked, win, does_nodes, val)
        ended = trial_ends(
            kind, in_start, inputs, order, blocks, phases, base_nodes, next_lits, terminal_lit,
            lanes, tmp, saved, val,
        )  # fmt: skip
        if ended != 0:
            won |= _best_reached(ended, chooser, best, goal_lits, goal_values, goal_start, val)
        for i in range(nb):
            val[base_nodes[i]] = saved[i]
        _swap_moves(lanes, win, picked, does_nodes, val)
    eval_phase64(kind, in_start, inputs, order, blocks, phases[0], phases[1], val)
    _swap_moves(won, picked, win, does_nodes, val)
    w = won
    while w != 0:
        lane = ctz(w)
        w &= w - one
        picked[lane] = win[lane]
    return won


@njit(cache=True, nogil=True)
def trial_ends(  # type: ignore[no-untyped-def]
    kind, in_start, inputs, order, blocks, phases, base_nodes, next_lits, terminal_lit, lanes,
    tmp, saved, val,
):  # fmt: skip
    """Play the moves in the move inputs of ``lanes``: their next states go into those
    lanes' base words (the words before are kept in ``saved``, for the caller to put
    back), their terminal phase is evaluated, and where one ended its goals too.
    Returns the lanes that ended."""
    nb = base_nodes.shape[0]
    eval_phase64(kind, in_start, inputs, order, blocks, phases[2], phases[3], val)
    for i in range(nb):
        tmp[i] = lit64(next_lits[i], val)
    for i in range(nb):
        x = base_nodes[i]
        saved[i] = val[x]
        val[x] = (val[x] & ~lanes) | (tmp[i] & lanes)
    eval_phase64(kind, in_start, inputs, order, blocks, phases[0], phases[1], val)
    ended = lit64(terminal_lit, val) & lanes
    if ended != 0:
        eval_phase64(kind, in_start, inputs, order, blocks, phases[4], phases[5], val)
    return ended


@njit(cache=True, nogil=True)
def _best_reached(lanes, chooser, best, goal_lits, goal_values, goal_start, val):  # type: ignore[no-untyped-def]
    """The lanes of ``lanes`` where the chooser's best goal holds."""
    one = np.uint64(1)
    reached = np.uint64(0)
    w = lanes
    while w != 0:
        lane = ctz(w)
        w &= w - one
        bit = one << np.uint64(lane)
        r = chooser[lane]
        for k in range(goal_start[r], goal_start[r + 1]):
            if goal_values[k] == best[r] and lit64(goal_lits[k], val) & bit:
                reached |= bit
    return reached


@njit(cache=True, nogil=True)
def step64(  # type: ignore[no-untyped-def]
    kind, in_start, inputs, order, blocks, phases, base_nodes, next_lits, legal_lits,
    does_nodes, terminal_lit, goal_lits, goal_values, goal_start,
    states, rows, joint, val, legal, term, goal, all_goals,
):  # fmt: skip
    """Play ``joint[j]`` (a legal-literal index per role) from ``states[rows[j]]``, 64
    rows at a time, writing the next state back over it; for each ``j`` also the next
    state's legal literals (``legal[j, k]`` 0/1), whether it is terminal (``term[j]``)
    and, where it is (in every state with ``all_goals``), each role's goal
    (``goal[j, r]``; -1 unless exactly one holds).

    Why: a compiled tree makes its new children here, one lane each, instead of one
    scalar network step per child.
    """
    nb = base_nodes.shape[0]
    nroles = goal_start.shape[0] - 1
    one = np.uint64(1)
    tmp = np.zeros(nb, dtype=np.uint64)
    for lo in range(0, rows.shape[0], 64):
        hi = min(rows.shape[0], lo + 64)
        for i in range(val.shape[0]):
            val[i] = 0
        val[1] = ~np.uint64(0)
        for j in range(lo, hi):
            bit = one << np.uint64(j - lo)
            for i in range(nb):
                if states[rows[j], i]:
                    val[base_nodes[i]] |= bit
        eval_phase64(kind, in_start, inputs, order, blocks, phases[0], phases[1], val)
        for j in range(lo, hi):
            for r in range(nroles):
                val[does_nodes[joint[j, r]]] |= one << np.uint64(j - lo)
        eval_phase64(kind, in_start, inputs, order, blocks, phases[2], phases[3], val)
        for i in range(nb):
            tmp[i] = lit64(next_lits[i], val)
        for i in range(nb):
            val[base_nodes[i]] = tmp[i]
            for j in range(lo, hi):
                states[rows[j], i] = (tmp[i] >> np.uint64(j - lo)) & one
        for k in range(does_nodes.shape[0]):
            val[does_nodes[k]] = 0
        eval_phase64(kind, in_start, inputs, order, blocks, phases[0], phases[1], val)
        ended = lit64(terminal_lit, val)
        if ended != 0 or all_goals:
            eval_phase64(kind, in_start, inputs, order, blocks, phases[4], phases[5], val)
        for j in range(lo, hi):
            lane = np.uint64(j - lo)
            term[j] = (ended >> lane) & one
            if term[j] or all_goals:
                for r in range(nroles):
                    found = 0
                    for k in range(goal_start[r], goal_start[r + 1]):
                        if (lit64(goal_lits[k], val) >> lane) & one:
                            found += 1
                            goal[j, r] = goal_values[k]
                    if found != 1:
                        goal[j, r] = -1
        for k in range(legal_lits.shape[0]):
            w = lit64(legal_lits[k], val)
            for j in range(lo, hi):
                legal[j, k] = (w >> np.uint64(j - lo)) & one
