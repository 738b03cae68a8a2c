"""UCT over a propnet, whole iterations in compiled code (see :mod:`ggpkit.search.propnet.tree`).

The interpreter is entered once per batch of iterations: selection, expansion, the
playout and the backup all run here, on the network's differential propagation
(:mod:`ggpkit.reasoning.propnet.kernels`), so an iteration costs about one playout
plus one step per tree level, not a pass of Python per node.

The network keeps one state in its node values. An iteration loads the root (only
the base propositions that differ are pushed), steps down the tree (a child's state
is the ``next`` of its parent, recorded when the child is made), and plays out from
the leaf in place; its end state is what the next iteration's load starts from.

Only turn-taking trees (at most one role with a choice in every state) are searched
here; a state where two roles choose returns :data:`STOP_SIMULTANEOUS` and the
caller searches that game another way.

Arrays, by name: ``net`` and ``work`` as in :mod:`ggpkit.reasoning.propnet.incremental`,
which steps the network's one state; the tree has nodes
(``bits`` one byte per base proposition, ``first``/``nedge`` their edges, ``mover``,
``fixed`` the one move of each role without a choice, ``term``, ``visits``,
``proven``, ``value`` per role in 0..1) and edges (``child``, ``move`` the mover's
legal-literal index, ``count``, ``esum`` reward sums per role).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpkit.reasoning.jit import copy_into, rand_below
from ggpkit.reasoning.propnet.incremental import goal_points, goals, lit, load, settle_goals, step
from ggpkit.reasoning.propnet.kernels import (
    playouts64,
    playouts64_from,
    step64,
)
from ggpkit.reasoning.propnet.latches import latched_goals64
from ggpkit.search.propnet.wins import scratch_arrays, wins_in_one
from ggpkit.search.tree.kernels import (
    STOP_DONE,
    STOP_GOAL,
    STOP_NO_LEGAL,
    STOP_PROVEN,
    STOP_TOO_LONG,
    attach_children,
    backup_leaves,
    descend_batch,
    expand_from,
    gather_leaves,
    material_goals,
    mobility_goals,
    new_node,
    prove_path,
    queue_joints,
    select_edge,
)

MAST_EPSILON = 0.4
"""MAST plays a random move this often, else the best one on record (CadiaPlayer's value)."""


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
    ks = work[4]
    tmp = work[7]
    use_mast = mast.shape[0] > 0
    keep = keep or use_mast
    nplayed = 0
    steps = 0
    while lit(terminal_lit, val) == 0:
        if steps >= max_steps:
            return STOP_TOO_LONG, rng, line_len, 0
        for r in range(nroles):
            nl = 0
            for k in range(move_start[r], move_start[r + 1]):
                nl += lit(legal_lits[k], val)
            if nl == 0:
                return STOP_NO_LEGAL, rng, line_len, 0
            rng, j = rand_below(rng, nl)
            for k in range(move_start[r], move_start[r + 1]):
                if lit(legal_lits[k], val) != 0:
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
        if lit(legal_lits[m], val) == 0:
            continue
        n = mast[m, 1]
        mean = 1.0 if n == 0 else mast[m, 0] / n
        if mean > best_mean:
            best_mean = mean
            best = m
    return rng, best


@njit(cache=True, nogil=True)
def expand(node, net, work, val, tree, sizes, joint_limit, decide):  # type: ignore[no-untyped-def]
    """Fill in ``node``, whose state ``val`` holds: see :func:`expand_from`. With
    ``decide`` (never at the root: a move must still be chosen there), a state whose
    latched facts settle every role's goal is a leaf of that value (:func:`latch_decided`)."""
    legal_lits, terminal_lit = net[8], net[11]
    legal, goal = work[6], work[10]
    for k in range(legal_lits.shape[0]):
        legal[k] = lit(legal_lits[k], val)
    ended = lit(terminal_lit, val)
    if ended:
        settle_goals(net, val)
        for r in range(goal.shape[0]):
            goal[r] = goal_points(net, val, r)
    elif decide and _latches_on(work, tree):
        row, one = work[19], work[20]
        copy_into(row[0], tree[0][node])
        goal[:] = -1
        latch_decided(net, work, row, one[:1], goal.reshape((1, goal.shape[0])))
        if goal[0] >= 0:
            ended = 1
    return expand_from(node, legal, ended, goal, net[10], tree, sizes, joint_limit)


@njit(cache=True, nogil=True)
def _latches_on(work, tree):  # type: ignore[no-untyped-def]
    """Whether this search reads latches: the game has some that force a goal
    (``work[14]`` not empty) and the search asked for them (``tree[20][2]``)."""
    return work[14].shape[0] > 0 and tree[20][2] != 0.0


@njit(cache=True, nogil=True)
def latch_decided(net, work, states, rows, goal):  # type: ignore[no-untyped-def]
    """Where the latched facts of ``states[rows[j]]`` settle every role's goal, write
    those goals into ``goal[j]`` (other rows are left as they are: callers fill them
    with -1 first)."""
    out = work[18]
    for first in range(0, rows.shape[0], out.shape[0]):
        last = min(rows.shape[0], first + out.shape[0])
        latched_goals64(
            net[0], net[1], net[2], net[3], net[4], net[5], net[6], net[12], net[13], net[14],
            work[14], work[15], states, rows[first:last], work[16], work[17], out,
        )  # fmt: skip
        for j in range(first, last):
            settled = True
            for r in range(goal.shape[1]):
                if out[j - first, r] < 0:
                    settled = False
            if settled:
                for r in range(goal.shape[1]):
                    goal[j, r] = out[j - first, r]


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
    if lit(net[11], val) != 0:
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
    prove_path(tree, path_n, depth)


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
    ks = work[4]
    tmp = work[7]
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
                copy_into(reward, value[node])
                break
            if nedge[node] < 0:
                code = expand(node, net, work, val, tree, sizes, 0, depth > 0)
                if code != STOP_DONE:
                    return code, it, playouts
                if proven[node] != 0:
                    copy_into(reward, value[node])
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
            copy_into(best_line[:line_len], line[:line_len])
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


@njit(cache=True, nogil=True)
def iterate_paths(  # type: ignore[no-untyped-def]
    net, work, val, val64, tree, sizes, root, iterations, c, per_path, seed, max_steps, q,
    reward, goal_weight, joint_limit, material, material_base, decisive, greedy, wins,
):  # fmt: skip
    """UCT iterations in batches of paths: (stop code, iterations, playouts).

    Up to ``len(q[2])`` paths descend (:func:`_descend`, with virtual losses); their
    new children are made together (:func:`_make_children`) and their leaves played
    out together, ``per_path`` playouts each, in the 64-lane kernel: a leaf costs a
    64th of a batch, not a scalar playout, so the tree grows many times faster than
    with one leaf at a time. Games of several roles only. ``q`` is the batch's scratch
    (see ``PropnetTreeSearch._queue``). ``goal_weight`` > 0: a leaf whose state gives goals is
    worth that share of them (see :func:`~ggpkit.search.tree.kernels.backup_leaves`).
    ``joint_limit``: the root may be simultaneous with that many joint moves (an
    argument, not the other module's constant, which numba's cache of this file would
    keep after that module changed). ``material``: per role, the state bits that are its
    pieces (no rows: none), ``material_base`` their counts at the root; with
    ``goal_weight`` > 0 a leaf's heuristic goals then come from the pieces
    (:func:`~ggpkit.search.tree.kernels.material_goals`). ``decisive``: one flag
    per legal literal, the moves that ended a playout at their role's best goal, which
    the playouts keep up (see :func:`~ggpkit.reasoning.propnet.kernels.playouts64_from`);
    ``greedy``: the playouts take wins in one among them; ``wins``: a new child where
    its mover wins in one by a flagged move is proven at once
    (:mod:`~ggpkit.search.propnet.wins`).
    """
    rng = seed | np.uint64(1)
    w = 1.0  # a path is one visit (see tree_kernels.backup_leaves)
    done = 0
    playouts = 0.0
    if tree[2][root] < 0 and tree[7][root] == 0:
        load(tree[0][root], net, work, val)
        code = expand(root, net, work, val, tree, sizes, joint_limit, False)
        if code != STOP_DONE:
            return code, done, playouts
    while done < iterations and tree[7][root] == 0:
        rng, ran, nq = descend_batch(tree, sizes, root, c, rng, w, q, iterations - done, reward)
        done += ran
        code = _make_children(
            net, work, val64, tree, sizes, q, nq, reward, w, goal_weight > 0.0, material,
            material_base, decisive if wins else decisive[:0],
        )  # fmt: skip
        if code != STOP_DONE:
            return code, done, playouts
        code, played = _play_queue(
            net, val64, q, nq, per_path, rng, max_steps, tree, reward, goal_weight, decisive,
            greedy,
        )  # fmt: skip
        rng, _j = rand_below(rng, 2)
        if code != STOP_DONE:
            return code, done, playouts
        playouts += played
    if tree[7][root] != 0:
        return STOP_PROVEN, done, playouts
    return STOP_DONE, done, playouts


@njit(cache=True, nogil=True)
def _make_children(  # type: ignore[no-untyped-def]
    net, work, val64, tree, sizes, q, nq, reward, w, all_goals, material, base, decisive
):
    """Make the new children the batch's paths end at, in the 64-lane kernel (each
    path's state row turns from its parent's into its child's), and store them; with
    ``decisive`` flags, a child whose mover wins in one by a flagged move is proven;
    with latches on, a child whose latched facts settle the goals ends there. The
    heuristic goals of ``all_goals`` come from the pieces with ``material``, from the
    roles' moves with the mobility setting (``tree[20][3]``), else from the states."""
    m = queue_joints(tree, q, nq)
    if m == 0:
        return STOP_DONE
    by_pieces = all_goals and material.shape[0] > 0
    by_mobility = all_goals and not by_pieces and tree[20][3] != 0.0
    step64(
        net[0], net[1], net[2], net[3], net[4], net[5], net[6], net[7], net[8], net[9],
        net[11], net[12], net[13], net[14], q[4], q[10][:m], q[6], val64, q[7], q[8], q[9],
        all_goals and not by_pieces and not by_mobility,
    )  # fmt: skip
    if by_pieces:
        material_goals(q, m, material, base)
    elif by_mobility:
        mobility_goals(tree, q, m, net[10])
    if _latches_on(work, tree):
        _decide_children(net, work, q, m)
    wins = _find_wins(net, val64, q, m, decisive)
    return attach_children(tree, sizes, q, m, net[10], reward, w, all_goals, wins)


@njit(cache=True, nogil=True)
def _decide_children(net, work, q, m):  # type: ignore[no-untyped-def]
    """Mark the batch's open new children that their latched facts decide as ended
    (``q[8]``), with the decided goals in ``q[9]``."""
    term, rows = q[8], q[10]
    open_rows = np.empty(m, dtype=np.int64)
    at = np.empty(m, dtype=np.int64)
    n = 0
    for j in range(m):
        if term[j] == 0:
            open_rows[n] = rows[j]
            at[n] = j
            n += 1
    if n == 0:
        return
    goal = np.full((n, q[9].shape[1]), -1, dtype=np.int64)
    latch_decided(net, work, q[4], open_rows[:n], goal)
    for k in range(n):
        if goal[k, 0] >= 0:
            term[at[k]] = 1
            for r in range(goal.shape[1]):
                q[9][at[k], r] = goal[k, r]


@njit(cache=True, nogil=True)
def _find_wins(net, val64, q, m, decisive):  # type: ignore[no-untyped-def]
    """Each new child's win in one by a flagged move, into ``q[11]`` to ``q[13]`` (see
    :func:`~ggpkit.search.propnet.wins.wins_in_one`): whether any was looked for."""
    flagged = np.flatnonzero(decisive)
    if flagged.shape[0] == 0:
        return False
    scratch = scratch_arrays(flagged.shape[0], net[6].shape[0])
    wins_in_one(
        net[0], net[1], net[2], net[3], net[4], net[5], net[6], net[7], net[9], net[10],
        net[11], net[12], net[13], net[14], q[4], q[10][:m], q[7], q[8], flagged, val64,
        scratch, q[11], q[12], q[13],
    )  # fmt: skip
    return True


@njit(cache=True, nogil=True)
def _play_queue(  # type: ignore[no-untyped-def]
    net, val64, q, nq, per_path, rng, max_steps, tree, reward, goal_weight, decisive, greedy
):
    """Play out the batch's open leaves together; back their paths up."""
    m = gather_leaves(q, nq)
    if m == 0:
        return STOP_DONE, 0.0
    code, played = _play_leaves(
        net, val64, q[4][:m], per_path, rng, max_steps, q[5], decisive, greedy
    )
    if code != STOP_DONE:
        return code, 0.0
    backup_leaves(tree, q, m, per_path, reward, goal_weight)
    return STOP_DONE, played


@njit(cache=True, nogil=True)
def _play_leaves(net, val64, starts, per_path, rng, max_steps, sums, decisive, greedy):  # type: ignore[no-untyped-def]
    """``per_path`` playouts from each row of ``starts``; goal sums to ``sums``."""
    sums[:] = 0
    seed = np.int64(rng >> np.uint64(1))
    done, _moves, err = playouts64_from(
        net[0], net[1], net[2], net[3], net[4], net[5], net[6], net[7], net[8], net[9],
        net[10], net[11], net[12], net[13], net[14], starts, per_path, seed, max_steps, val64,
        sums, decisive, greedy,
    )  # fmt: skip
    if err != 0:
        return (STOP_NO_LEGAL, STOP_GOAL, STOP_TOO_LONG)[err - 1], 0.0
    return STOP_DONE, float(done)
