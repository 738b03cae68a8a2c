"""UCT over a propnet, whole iterations in compiled code (see ``propnet_search.py``).

The interpreter is entered once per batch of iterations: selection, expansion, the
playout and the backup all run here, on the network's differential propagation
(:mod:`ggpkit.reasoning.propnet_kernels`), so an iteration costs about one playout
plus one step per tree level, not a pass of Python per node.

The network keeps one state in its node values. An iteration loads the root (only
the base propositions that differ are pushed), steps down the tree (a child's state
is the ``next`` of its parent, recorded when the child is made), and plays out from
the leaf in place; its end state is what the next iteration's load starts from.

Only turn-taking trees (at most one role with a choice in every state) are searched
here; a state where two roles choose returns :data:`STOP_SIMULTANEOUS` and the
caller searches that game another way.

Arrays, by name: ``net`` is the tuple of network arrays (:func:`net_arrays`);
``work`` the propagation's scratch (:func:`work_arrays`); the tree has nodes
(``bits`` one byte per base proposition, ``first``/``nedge`` their edges, ``mover``,
``fixed`` the one move of each role without a choice, ``term``, ``visits``,
``proven``, ``value`` per role in 0..1) and edges (``child``, ``move`` the mover's
legal-literal index, ``count``, ``esum`` reward sums per role).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ggpkit.reasoning.propnet_kernels import (
    _propagate,
    _push,
    eval_phase,
    playouts64,
    playouts64_from,
    rand_below,
    set_state,
    step64,
)

STOP_DONE, STOP_PROVEN, STOP_SIMULTANEOUS, STOP_NO_LEGAL, STOP_GOAL, STOP_TOO_LONG = range(6)

TOP = 1.0 - 1e-9
MAST_EPSILON = 0.4
"""MAST plays a random move this often, else the best one on record (CadiaPlayer's value)."""
GRAVE_BIAS = 1e-5
"""GRAVE's bias in the weight of the all-moves-as-first mean (Cazenave's value)."""


@njit(cache=True, nogil=True)
def prepare(net, work, bits, val):  # type: ignore[no-untyped-def]
    """Make every gate's count of true inputs consistent with state ``bits`` in ``val``."""
    kind, in_start, inputs, order, blocks, phases = net[0], net[1], net[2], net[3], net[4], net[5]
    base_nodes, does_nodes, needed = net[6], net[9], net[21]
    cnt = work[0]
    set_state(bits, base_nodes, val)
    for k in range(does_nodes.shape[0]):
        val[does_nodes[k]] = 0
    for p in range(3):
        eval_phase(kind, in_start, inputs, order, blocks, phases[2 * p], phases[2 * p + 1], val)
    for i in range(needed.shape[0]):
        g = needed[i]
        c = 0
        for k in range(in_start[g], in_start[g + 1]):
            x = inputs[k]
            c += val[x >> 1] ^ (x & 1)
        cnt[g] = c
    chosen = work[8]
    for r in range(chosen.shape[0]):
        chosen[r] = -1


@njit(cache=True, nogil=True)
def _assign(xs, values, net, work, val):  # type: ignore[no-untyped-def]
    """Give node ``xs[i]`` value ``values[i]`` for every i, then settle the network.

    The arrays are unpacked into locals once: indexing the tuples inside the loop
    would count references to every array at each step (a few hundred ns each).
    """
    kind, in_start, inputs = net[0], net[1], net[2]
    fan_start, fanout, level, scc, scc_start, scc_nodes = (
        net[15],
        net[16],
        net[17],
        net[18],
        net[19],
        net[20],
    )
    cnt, pend, bucket, bucket_start, bucket_len, lohi, old = (
        work[0],
        work[1],
        work[2],
        work[3],
        work[4],
        work[5],
        work[6],
    )
    for i in range(xs.shape[0]):
        x = xs[i]
        if val[x] != values[i]:
            val[x] = values[i]
            _push(x, -1, val, fan_start, fanout, scc, scc_start, scc_nodes, cnt, pend, level,
                  bucket, bucket_start, bucket_len, lohi)  # fmt: skip
    _propagate(kind, in_start, inputs, val, fan_start, fanout, scc, scc_start, scc_nodes,
               cnt, pend, level, bucket, bucket_start, bucket_len, lohi, old)  # fmt: skip


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
    chosen, does_x, does_v = work[8], work[11], work[12]
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
def _lit(x, val):  # type: ignore[no-untyped-def]
    return val[x >> 1] ^ (x & 1)


@njit(cache=True, nogil=True)
def goals(net, val, out):  # type: ignore[no-untyped-def]
    """Each role's goal / 100 into ``out``; False unless every role has exactly one."""
    for r in range(out.shape[0]):
        points = _goal_points(net, val, r)
        if points < 0:
            return False
        out[r] = points / 100.0
    return True


@njit(cache=True, nogil=True, inline="always")
def _goal_points(net, val, r):  # type: ignore[no-untyped-def]
    """Role ``r``'s goal in ``val``'s state, or -1 unless exactly one holds."""
    goal_lits, goal_values, goal_start = net[12], net[13], net[14]
    found = 0
    points = -1
    for k in range(goal_start[r], goal_start[r + 1]):
        if _lit(goal_lits[k], val) != 0:
            found += 1
            points = goal_values[k]
    return points if found == 1 else -1


@njit(cache=True, nogil=True)
def random_playout(  # type: ignore[no-untyped-def]
    net, work, val, rng, max_steps, reward, line, line_len, record, mast, played, keep
):
    """Play from ``val``'s state to the end: (stop code, rng, line length, moves kept).

    Moves are uniformly random, or chosen by MAST when ``mast`` has a row per legal
    literal (see :func:`_mast_move`); the moves played are then credited with their
    role's reward at the end. With MAST or ``keep`` (GRAVE's all-moves-as-first
    statistics), every role's moves are kept in ``played``, in order, as far as it
    holds them. With ``record``, role 0's moves are appended to ``line`` from
    ``line_len`` on (a one-role game keeps its best line).
    """
    legal_lits, move_start, terminal_lit = net[8], net[10], net[11]
    nroles = move_start.shape[0] - 1
    ks = work[7]
    tmp = work[10]
    use_mast = mast.shape[0] > 0
    keep = keep or use_mast
    nplayed = 0
    steps = 0
    while _lit(terminal_lit, val) == 0:
        if steps >= max_steps:
            return STOP_TOO_LONG, rng, line_len, 0
        for r in range(nroles):
            nl = 0
            for k in range(move_start[r], move_start[r + 1]):
                nl += _lit(legal_lits[k], val)
            if nl == 0:
                return STOP_NO_LEGAL, rng, line_len, 0
            rng, j = rand_below(rng, nl)
            for k in range(move_start[r], move_start[r + 1]):
                if _lit(legal_lits[k], val) != 0:
                    if j == 0:
                        ks[r] = k
                        break
                    j -= 1
            if use_mast and nl > 1:
                rng, pick = _mast_move(
                    ks[r], move_start[r], move_start[r + 1], legal_lits, val, mast, rng
                )
                ks[r] = pick
            if keep and nplayed < played.shape[0]:
                played[nplayed] = ks[r]
                nplayed += 1
        if record and line_len < line.shape[0]:
            line[line_len] = ks[0]
            line_len += 1
        step(ks, tmp, net, work, val)
        steps += 1
    if not goals(net, val, reward):
        return STOP_GOAL, rng, line_len, 0
    if not use_mast:
        return STOP_DONE, rng, line_len, nplayed
    for i in range(nplayed):
        k = played[i]
        r = 0
        while k >= move_start[r + 1]:
            r += 1
        mast[k, 0] += reward[r]
        mast[k, 1] += 1.0
    return STOP_DONE, rng, line_len, nplayed


@njit(cache=True, nogil=True)
def _mast_move(k, lo, hi, legal_lits, val, mast, rng):  # type: ignore[no-untyped-def]
    """MAST, epsilon-greedy (Finnsson and Bjoernsson's CadiaPlayer): with probability
    ``1 - MAST_EPSILON`` the legal move with the best mean reward over earlier playouts
    (an untried move counts as a win, so each gets tried), else the random move ``k``.
    The scan starts at ``k``, so ties go to a random one of the best."""
    rng, e = rand_below(rng, 1000)
    if e < MAST_EPSILON * 1000:
        return rng, k
    best = k
    best_mean = -1.0
    for i in range(hi - lo):
        m = lo + (k - lo + i) % (hi - lo)
        if _lit(legal_lits[m], val) == 0:
            continue
        n = mast[m, 1]
        mean = 1.0 if n == 0 else mast[m, 0] / n
        if mean > best_mean:
            best_mean = mean
            best = m
    return rng, best


@njit(cache=True, nogil=True)
def expand(node, net, work, val, tree, sizes):  # type: ignore[no-untyped-def]
    """Fill in ``node``, whose state ``val`` holds: see :func:`expand_from`."""
    legal_lits, terminal_lit = net[8], net[11]
    legal, goal = work[9], work[13]
    for k in range(legal_lits.shape[0]):
        legal[k] = _lit(legal_lits[k], val)
    ended = _lit(terminal_lit, val)
    if ended:
        for r in range(goal.shape[0]):
            goal[r] = _goal_points(net, val, r)
    return expand_from(node, legal, ended, goal, net, tree, sizes)


@njit(cache=True, nogil=True)
def expand_from(node, legal, ended, goal, net, tree, sizes):  # type: ignore[no-untyped-def]
    """Fill in ``node``: its terminal value, or the mover's edges.

    ``legal[k]`` says whether legal literal ``k`` holds in the node's state, ``ended``
    whether it is terminal, ``goal[r]`` role r's goal there (-1: not exactly one).
    Returns a stop code; STOP_DONE also when the edge arrays are full (the node then
    stays unexpanded and is played out like a leaf).
    """
    move_start = net[10]
    first, nedge, mover, fixed = tree[1], tree[2], tree[3], tree[4]
    term, proven, value = tree[5], tree[7], tree[8]
    echild, emove = tree[9], tree[10]
    nroles = move_start.shape[0] - 1
    if ended:
        term[node] = 1
        for r in range(nroles):
            if goal[r] < 0:
                return STOP_GOAL
            value[node, r] = goal[r] / 100.0
        proven[node] = 1
        nedge[node] = 0
        return STOP_DONE
    chooser = -1
    count = 1
    for r in range(nroles):
        nl = 0
        for k in range(move_start[r], move_start[r + 1]):
            if legal[k]:
                nl += 1
                fixed[node, r] = k
        if nl == 0:
            return STOP_NO_LEGAL
        if nl > 1:
            if chooser >= 0:
                return STOP_SIMULTANEOUS
            chooser = r
            count = nl
    if chooser < 0:
        chooser = 0
    if sizes[1] + count > echild.shape[0]:
        return STOP_DONE
    mover[node] = chooser
    first[node] = sizes[1]
    for k in range(move_start[chooser], move_start[chooser + 1]):
        if legal[k]:
            e = sizes[1]
            echild[e] = -1
            emove[e] = k
            tree[11][e] = 0.0
            tree[13][e] = 0.0
            tree[14][e] = 0.0
            tree[12][e, :] = 0.0
            sizes[1] += 1
    nedge[node] = count
    return STOP_DONE


@njit(cache=True, nogil=True)
def new_node(bits, tree, sizes):  # type: ignore[no-untyped-def]
    """A fresh unexpanded node for state ``bits``, or -1 when the node arrays are full."""
    if sizes[0] >= tree[0].shape[0]:
        return -1
    n = sizes[0]
    sizes[0] += 1
    tree[0][n, :] = bits
    tree[2][n] = -1
    tree[5][n] = 0
    tree[6][n] = 0.0
    tree[7][n] = 0
    return n


@njit(cache=True, nogil=True)
def try_prove(node, tree):  # type: ignore[no-untyped-def]
    """Prove ``node`` from its children: a top value for the mover, or every child proven."""
    first, nedge, mover, proven, value, echild = (
        tree[1],
        tree[2],
        tree[3],
        tree[7],
        tree[8],
        tree[9],
    )
    a = first[node]
    b = a + nedge[node]
    m = mover[node]
    best = -1
    every = True
    for e in range(a, b):
        ch = echild[e]
        if ch < 0 or proven[ch] == 0:
            every = False
            continue
        if best < 0 or value[ch, m] > value[best, m]:
            best = ch
    if best < 0:
        return False
    if every or value[best, m] >= TOP:
        proven[node] = 1
        value[node, :] = value[best, :]
        return True
    return False


@njit(cache=True, nogil=True)
def _leaf_value(  # type: ignore[no-untyped-def]
    net, work, val, val64, bits, rng, leaf, max_steps, reward, line, line_len, mast, played, keep
):
    """Evaluate the leaf ``val`` holds (state ``bits``): (code, rng, weight, line length,
    moves kept in ``played``).

    ``leaf`` >= 8 playouts 64 at a time in games of several roles without MAST, else
    one playout in place (recording role 0's moves in one-role games). With ``keep``
    a batch is followed by one playout in place whose moves are kept (GRAVE's sample
    of the moves; the batch's mean stays the leaf's value).
    """
    nroles = net[10].shape[0] - 1
    if _lit(net[11], val) != 0:
        if not goals(net, val, reward):
            return STOP_GOAL, rng, 0.0, line_len, 0
        return STOP_DONE, rng, 1.0, line_len, 0
    if leaf >= 8 and nroles > 1 and mast.shape[0] == 0:
        seed = np.int64(rng >> np.uint64(1))
        rng, _j = rand_below(rng, 2)
        done, _moves, sums, err = playouts64(
            net[0], net[1], net[2], net[3], net[4], net[5], net[6], net[7], net[8], net[9],
            net[10], net[11], net[12], net[13], net[14], bits, leaf, seed, max_steps, val64,
        )  # fmt: skip
        if err != 0:
            return (STOP_NO_LEGAL, STOP_GOAL, STOP_TOO_LONG)[err - 1], rng, 0.0, line_len, 0
        for r in range(nroles):
            reward[r] = sums[r] / (100.0 * done)
        kept = 0
        if keep:
            code, rng, line_len, kept = random_playout(
                net, work, val, rng, max_steps, np.empty_like(reward), line, line_len, False,
                mast, played, True,
            )  # fmt: skip
            if code != STOP_DONE:
                return code, rng, 0.0, line_len, 0
        return STOP_DONE, rng, float(done), line_len, kept
    code, rng, line_len, kept = random_playout(
        net, work, val, rng, max_steps, reward, line, line_len, nroles == 1, mast, played, keep
    )
    return code, rng, 1.0, line_len, kept


@njit(cache=True, nogil=True)
def _backup(tree, path_n, path_e, depth, node, reward, weight):  # type: ignore[no-untyped-def]
    """Add ``weight`` samples of ``reward`` along the path; then prove what now can be."""
    visits, count, esum = tree[6], tree[11], tree[12]
    visits[node] += weight
    for d in range(depth - 1, -1, -1):
        e = path_e[d]
        visits[path_n[d]] += weight
        count[e] += weight
        for r in range(reward.shape[0]):
            esum[e, r] += reward[r] * weight
    _prove_path(tree, path_n, depth)


@njit(cache=True, nogil=True)
def _prove_path(tree, path_n, depth):  # type: ignore[no-untyped-def]
    """Prove the path's nodes from the deepest up, as far as each one can be."""
    proven = tree[7]
    for d in range(depth - 1, -1, -1):
        if proven[path_n[d]] != 0 or not try_prove(path_n[d], tree):
            break


@njit(cache=True, nogil=True)
def iterate(  # type: ignore[no-untyped-def]
    net, work, val, val64, tree, sizes, root, iterations, c, leaf, seed, max_steps,
    path_n, path_e, reward, line, best_line, best, mast, played, grave, seen,
):  # fmt: skip
    """Run up to ``iterations`` UCT iterations from ``root``: (stop code, iterations, playouts).

    In one-role games ``best[0]`` keeps the best reward seen, ``best[1]`` the length
    of its line of moves from the root, kept in ``best_line``. ``grave`` > 0 selects
    by GRAVE with that many visits for a node's statistics to be used; ``seen`` is
    its scratch, -1 for every legal literal.
    """
    nroles = net[10].shape[0] - 1
    bits, nedge, fixed, mover, proven, value = (
        tree[0],
        tree[2],
        tree[4],
        tree[3],
        tree[7],
        tree[8],
    )
    echild, emove = tree[9], tree[10]
    ks = work[7]
    tmp = work[10]
    rng = seed | np.uint64(1)
    playouts = 0.0
    keep = grave > 0
    for it in range(iterations):
        if proven[root] != 0:
            return STOP_PROVEN, it, playouts
        load(bits[root], net, work, val)
        node = root
        depth = 0
        weight = 1.0
        line_len = 0
        kept = 0
        while True:
            if proven[node] != 0:
                reward[:] = value[node, :]
                break
            if nedge[node] < 0:
                code = expand(node, net, work, val, tree, sizes)
                if code != STOP_DONE:
                    return code, it, playouts
                if proven[node] != 0:
                    reward[:] = value[node, :]
                    break
                if nedge[node] < 0 or depth > 0:
                    code, rng, weight, line_len, kept = _leaf_value(
                        net, work, val, val64, bits[node], rng, leaf, max_steps, reward, line,
                        line_len, mast, played, keep,
                    )  # fmt: skip
                    if code != STOP_DONE:
                        return code, it, playouts
                    playouts += weight
                    break
            if depth >= path_n.shape[0]:  # deeper than the path can hold: a leaf
                code, rng, weight, line_len, kept = _leaf_value(
                    net, work, val, val64, bits[node], rng, leaf, max_steps, reward, line, line_len,
                    mast, played, keep,
                )  # fmt: skip
                if code != STOP_DONE:
                    return code, it, playouts
                playouts += weight
                break
            e, rng = select_edge(node, tree, c, rng, path_n, depth, grave)
            path_n[depth] = node
            path_e[depth] = e
            depth += 1
            if nroles == 1 and line_len < line.shape[0]:
                line[line_len] = emove[e]
                line_len += 1
            for r in range(nroles):
                ks[r] = fixed[node, r]
            ks[mover[node]] = emove[e]
            step(ks, tmp, net, work, val)
            ch = echild[e]
            if ch < 0:
                ch = new_node(tmp, tree, sizes)
                if ch < 0:  # the node arrays are full: this state is a leaf
                    code, rng, weight, line_len, kept = _leaf_value(
                        net, work, val, val64, tmp, rng, leaf, max_steps, reward, line, line_len,
                        mast, played, keep,
                    )  # fmt: skip
                    if code != STOP_DONE:
                        return code, it, playouts
                    playouts += weight
                    node = path_n[depth - 1]
                    depth -= 1
                    count_only_edge(tree, path_e[depth], reward, weight)
                    break
                echild[e] = ch
            node = ch
        if nroles == 1 and reward[0] > best[0]:
            best[0] = reward[0]
            best[1] = line_len
            best_line[:line_len] = line[:line_len]
        _backup(tree, path_n, path_e, depth, node, reward, weight)
        if keep:
            _amaf_backup(tree, path_n, path_e, depth, node, played, kept, reward, weight, seen)
    return STOP_DONE, iterations, playouts


@njit(cache=True, nogil=True)
def count_only_edge(tree, e, reward, weight):  # type: ignore[no-untyped-def]
    """Credit edge ``e`` whose child could not be stored (the backup adds its parent)."""
    tree[11][e] += weight
    for r in range(reward.shape[0]):
        tree[12][e, r] += reward[r] * weight


@njit(cache=True, nogil=True)
def _ref_node(node, tree, path_n, depth, grave):  # type: ignore[no-untyped-def]
    """GRAVE's reference: the deepest node of the path (``node`` included) with more than
    ``grave`` visits, else the root."""
    visits = tree[6]
    if visits[node] > grave:
        return node
    for d in range(depth - 1, -1, -1):
        if visits[path_n[d]] > grave:
            return path_n[d]
    return path_n[0] if depth > 0 else node


@njit(cache=True, nogil=True)
def _edge_of(node, move, tree):  # type: ignore[no-untyped-def]
    """The edge of ``node`` for legal literal ``move``, or -1 (edges are in move order)."""
    lo = tree[1][node]
    hi = lo + tree[2][node] - 1
    emove = tree[10]
    while lo <= hi:
        mid = (lo + hi) // 2
        if emove[mid] == move:
            return mid
        if emove[mid] < move:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


@njit(cache=True, nogil=True)
def select_edge(node, tree, c, rng, path_n, depth, grave):  # type: ignore[no-untyped-def]
    """The edge to descend: UCB for the node's mover, or with ``grave`` > 0 GRAVE
    (Cazenave 2015): each move's mean mixed with its all-moves-as-first mean at the
    reference node (:func:`_ref_node`), by a weight that fades as the move's own
    visits grow, plus UCB's exploration term. A move with no statistics (nor, with
    GRAVE, all-moves-as-first ones) is tried first, in random order; proven children
    count exactly, and those worse than another proven child never."""
    first, nedge, mover = tree[1], tree[2], tree[3]
    visits, proven, value = tree[6], tree[7], tree[8]
    echild, emove, count, esum = tree[9], tree[10], tree[11], tree[12]
    acount, asum = tree[13], tree[14]
    a = first[node]
    b = a + nedge[node]
    m = mover[node]
    ref = _ref_node(node, tree, path_n, depth, grave) if grave > 0 else node
    if ref != node and nedge[ref] <= 0:
        ref = node
    best_exact = -1.0
    for e in range(a, b):
        ch = echild[e]
        if ch >= 0 and proven[ch] != 0 and value[ch, m] > best_exact:
            best_exact = value[ch, m]
    log_n = math.log(max(2.0, visits[node]))
    best_e = a
    best_u = -1e300
    for e in range(a, b):
        ch = echild[e]
        n = count[e]
        r = e
        ac = 0.0
        if grave > 0:  # UCB never looks up the reference's edge
            r = e if ref == node else _edge_of(ref, emove[e], tree)
            ac = acount[r] if r >= 0 else 0.0
        if ch >= 0 and proven[ch] != 0:
            if value[ch, m] < best_exact:
                continue
            u = value[ch, m]
        elif n == 0 and ac == 0:
            rng, j = rand_below(rng, 1 << 20)
            u = 1e9 + j  # untried and unknown: first, in random order
        elif ac == 0:
            u = esum[e, m] / n + c * math.sqrt(log_n / n)
        else:
            beta = ac / (ac + n + GRAVE_BIAS * ac * n)
            q = 0.0 if n == 0 else esum[e, m] / n
            u = (1.0 - beta) * q + beta * asum[r] / ac + c * math.sqrt(log_n / (n + 1.0))
        if u > best_u:
            best_u = u
            best_e = e
    return best_e, rng


@njit(cache=True, nogil=True)
def _amaf_backup(  # type: ignore[no-untyped-def]
    tree, path_n, path_e, depth, leaf, played, kept, reward, weight, seen
):
    """All moves as first: at every node of the path (and the leaf, when expanded), each
    edge whose move its mover played later in this iteration (in the tree or the
    playout) counts ``weight`` samples of the mover's reward, as the visits do.
    ``seen`` holds each move's last position."""
    first, nedge, mover, emove = tree[1], tree[2], tree[3], tree[10]
    acount, asum = tree[13], tree[14]
    for d in range(depth):
        seen[emove[path_e[d]]] = d
    for i in range(kept):
        seen[played[i]] = depth + i
    for d in range(depth + 1):
        node = path_n[d] if d < depth else leaf
        if nedge[node] <= 0:
            continue
        m = mover[node]
        for e in range(first[node], first[node] + nedge[node]):
            if seen[emove[e]] >= d:
                acount[e] += weight
                asum[e] += reward[m] * weight
    for d in range(depth):
        seen[emove[path_e[d]]] = -1
    for i in range(kept):
        seen[played[i]] = -1


PATH_PROVEN, PATH_LEAF, PATH_NEW = range(3)
"""How a path of a batch ends: at a proven node, at a leaf to play out from, or at an
edge whose child is still to be made."""


@njit(cache=True, nogil=True)
def _descend(tree, root, c, rng, w, path_n, path_e, reward):  # type: ignore[no-untyped-def]
    """One pass down from ``root`` for a batch of paths: (rng, depth, node, how it ends).

    Each edge taken counts ``w`` visits at once with no reward yet (a virtual loss), so
    the next path of the batch looks elsewhere; the backup adds the rewards. Only
    stored states are walked, without the network. A proven node ends the path with
    its value in ``reward``; :data:`PATH_NEW`: the last edge (``path_e[depth - 1]``)
    of ``node`` has no child yet.
    """
    nedge, proven, value, visits = tree[2], tree[7], tree[8], tree[6]
    echild, count = tree[9], tree[11]
    node = root
    depth = 0
    while True:
        if proven[node] != 0:
            reward[:] = value[node, :]
            return rng, depth, node, PATH_PROVEN
        if nedge[node] < 0 or depth >= path_n.shape[0]:
            return rng, depth, node, PATH_LEAF
        e, rng = select_edge(node, tree, c, rng, path_n, depth, 0.0)
        path_n[depth] = node
        path_e[depth] = e
        depth += 1
        visits[node] += w
        count[e] += w
        if echild[e] < 0:
            return rng, depth, node, PATH_NEW
        node = echild[e]


@njit(cache=True, nogil=True)
def _backup_path(tree, path_n, path_e, depth, leaf, reward, w):  # type: ignore[no-untyped-def]
    """The rewards of a path that :func:`_descend` counted already; then its proofs."""
    visits, esum = tree[6], tree[12]
    if leaf >= 0:
        visits[leaf] += w
    for d in range(depth):
        e = path_e[d]
        for r in range(reward.shape[0]):
            esum[e, r] += reward[r] * w
    _prove_path(tree, path_n, depth)


@njit(cache=True, nogil=True)
def iterate_paths(  # type: ignore[no-untyped-def]
    net, work, val, val64, tree, sizes, root, iterations, c, per_path, seed, max_steps, q,
    reward,
):  # fmt: skip
    """UCT iterations in batches of paths: (stop code, iterations, playouts).

    Up to ``len(q[2])`` paths descend (:func:`_descend`, with virtual losses); their
    new children are made together (:func:`_make_children`) and their leaves played
    out together, ``per_path`` playouts each, in the 64-lane kernel: a leaf costs a
    64th of a batch, not a scalar playout, so the tree grows many times faster than
    with one leaf at a time. Games of several roles only. ``q`` is the batch's scratch
    (see ``PropnetTreeSearch._queue``).
    """
    qn, qe, qdepth, qleaf, starts = q[0], q[1], q[2], q[3], q[4]
    rng = seed | np.uint64(1)
    w = float(per_path)
    done = 0
    playouts = 0.0
    if tree[2][root] < 0 and tree[7][root] == 0:
        load(tree[0][root], net, work, val)
        code = expand(root, net, work, val, tree, sizes)
        if code != STOP_DONE:
            return code, done, playouts
    while done < iterations and tree[7][root] == 0:
        nq = 0
        for _p in range(min(qdepth.shape[0], iterations - done)):
            if tree[7][root] != 0:
                break
            rng, depth, node, how = _descend(tree, root, c, rng, w, qn[nq], qe[nq], reward)
            done += 1
            if how == PATH_PROVEN:
                _backup_path(tree, qn[nq], qe[nq], depth, node, reward, w)
                continue
            qdepth[nq] = depth
            qleaf[nq] = node if how == PATH_LEAF else -2
            starts[nq, :] = tree[0][node]
            nq += 1
        code = _make_children(net, val64, tree, sizes, q, nq, reward, w)
        if code != STOP_DONE:
            return code, done, playouts
        code, played = _play_queue(net, val64, tree, q, nq, per_path, rng, max_steps, reward)
        rng, _j = rand_below(rng, 2)
        if code != STOP_DONE:
            return code, done, playouts
        playouts += played
    if tree[7][root] != 0:
        return STOP_PROVEN, done, playouts
    return STOP_DONE, done, playouts


@njit(cache=True, nogil=True)
def _make_children(net, val64, tree, sizes, q, nq, reward, w):  # type: ignore[no-untyped-def]
    """Make the new children the batch's paths end at (``qleaf`` -2), in the 64-lane
    kernel: each path's state row turns from its parent's into its child's, and its
    leaf becomes the child (-1 when the tree is full). A terminal child ends its path
    at once (its backup is done here, and its ``qleaf`` becomes -3)."""
    qn, qe, qdepth, qleaf, starts = q[0], q[1], q[2], q[3], q[4]
    joint, legal, term, goal, rows = q[6], q[7], q[8], q[9], q[10]
    fixed, mover, emove, echild = tree[4], tree[3], tree[10], tree[9]
    m = 0
    for i in range(nq):
        if qleaf[i] == -2:
            parent = qn[i, qdepth[i] - 1]
            e = qe[i, qdepth[i] - 1]
            joint[m, :] = fixed[parent, :]
            joint[m, mover[parent]] = emove[e]
            rows[m] = i
            m += 1
    if m == 0:
        return STOP_DONE
    step64(
        net[0], net[1], net[2], net[3], net[4], net[5], net[6], net[7], net[8], net[9],
        net[11], net[12], net[13], net[14], starts, rows[:m], joint, val64, legal, term, goal,
    )  # fmt: skip
    for j in range(m):
        i = rows[j]
        e = qe[i, qdepth[i] - 1]
        ch = echild[e]
        if ch < 0:  # else an earlier path of the batch made it
            ch = new_node(starts[i], tree, sizes)
            qleaf[i] = ch  # -1: the tree is full, the state is played out unstored
            if ch < 0:
                continue
            echild[e] = ch
            code = expand_from(ch, legal[j], term[j], goal[j], net, tree, sizes)
            if code != STOP_DONE:
                return code
        qleaf[i] = ch
        if tree[7][ch] != 0:
            reward[:] = tree[8][ch, :]
            _backup_path(tree, qn[i], qe[i], qdepth[i], ch, reward, w)
            qleaf[i] = -3
    return STOP_DONE


@njit(cache=True, nogil=True)
def _play_queue(net, val64, tree, q, nq, per_path, rng, max_steps, reward):  # type: ignore[no-untyped-def]
    """Play out the batch's open leaves (``qleaf`` > -3) together; back their paths up."""
    qn, qe, qdepth, qleaf, starts, sums, rows = q[0], q[1], q[2], q[3], q[4], q[5], q[10]
    m = 0
    for i in range(nq):
        if qleaf[i] > -3:
            if m != i:
                starts[m, :] = starts[i, :]
            rows[m] = i
            m += 1
    if m == 0:
        return STOP_DONE, 0.0
    code, played = _play_leaves(net, val64, starts[:m], per_path, rng, max_steps, sums)
    if code != STOP_DONE:
        return code, 0.0
    for j in range(m):
        i = rows[j]
        for r in range(reward.shape[0]):
            reward[r] = sums[j, r] / (100.0 * per_path)
        _backup_path(tree, qn[i], qe[i], qdepth[i], qleaf[i], reward, float(per_path))
    return STOP_DONE, played


@njit(cache=True, nogil=True)
def _play_leaves(net, val64, starts, per_path, rng, max_steps, sums):  # type: ignore[no-untyped-def]
    """``per_path`` playouts from each row of ``starts``; goal sums to ``sums``."""
    sums[:] = 0
    seed = np.int64(rng >> np.uint64(1))
    done, _moves, err = playouts64_from(
        net[0], net[1], net[2], net[3], net[4], net[5], net[6], net[7], net[8], net[9],
        net[10], net[11], net[12], net[13], net[14], starts, per_path, seed, max_steps, val64,
        sums,
    )  # fmt: skip
    if err != 0:
        return (STOP_NO_LEGAL, STOP_GOAL, STOP_TOO_LONG)[err - 1], 0.0
    return STOP_DONE, float(done)


@njit(cache=True, nogil=True)
def compact(tree, sizes, root, newid, order):  # type: ignore[no-untyped-def]
    """Keep only ``root``'s subtree, moved to the front of the arrays (``root`` becomes 0).

    Why: a match's searches fill the arrays with the subtrees of moves not played;
    dropping them lets the tree reuse what it knows of the new root and still grow.
    Nodes keep their relative order, and so do the edge blocks, so every copy moves
    an entry down onto a slot already vacated: no second set of arrays is needed.
    ``newid`` and ``order`` are scratch of the node capacity.
    """
    nedge, first, echild = tree[2], tree[1], tree[9]
    n = sizes[0]
    newid[:n] = -1
    newid[root] = 0
    order[0] = root
    top = 1
    while top > 0:  # depth-first marking, ``order`` as the stack
        top -= 1
        node = order[top]
        for e in range(first[node], first[node] + max(0, nedge[node])):
            ch = echild[e]
            if ch >= 0 and newid[ch] < 0:
                newid[ch] = 0
                order[top] = ch
                top += 1
    kept = 0
    for i in range(n):
        if newid[i] >= 0:
            newid[i] = kept
            order[kept] = i
            kept += 1
    for k in range(kept):
        _move_node(tree, order[k], k)
    sizes[1] = _compact_edges(tree, kept, newid, order)
    sizes[0] = kept


@njit(cache=True, nogil=True)
def _move_node(tree, i, k):  # type: ignore[no-untyped-def]
    if i == k:
        return
    tree[1][k] = tree[1][i]
    tree[2][k] = tree[2][i]
    tree[3][k] = tree[3][i]
    tree[5][k] = tree[5][i]
    tree[6][k] = tree[6][i]
    tree[7][k] = tree[7][i]
    tree[0][k, :] = tree[0][i, :]
    tree[4][k, :] = tree[4][i, :]
    tree[8][k, :] = tree[8][i, :]


@njit(cache=True, nogil=True)
def _compact_edges(tree, kept, newid, order):  # type: ignore[no-untyped-def]
    """Move the kept nodes' edge blocks down, in their old order, renumbering children."""
    first, nedge, echild = tree[1], tree[2], tree[9]
    nexp = 0
    for k in range(kept):
        if nedge[k] > 0:
            order[nexp] = k
            nexp += 1
    blocks = order[:nexp]
    by_first = np.argsort(first[blocks], kind="mergesort")
    pos = 0
    for j in range(nexp):
        node = blocks[by_first[j]]
        a = first[node]
        for e in range(a, a + nedge[node]):
            t = pos + e - a
            ch = echild[e]
            echild[t] = newid[ch] if ch >= 0 else -1
            tree[10][t] = tree[10][e]
            tree[11][t] = tree[11][e]
            tree[13][t] = tree[13][e]
            tree[14][t] = tree[14][e]
            tree[12][t, :] = tree[12][e, :]
        first[node] = pos
        pos += nedge[node]
    return pos
