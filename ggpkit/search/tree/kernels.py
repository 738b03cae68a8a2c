"""A UCT tree in arrays, generic over how states are stored and stepped.

Why apart from the propnet's kernels: the tree itself (nodes, edges, selection by UCB
or GRAVE, virtual losses, backups, MCTS-solver proofs, compaction) does not depend on
what a state is. :mod:`ggpkit.search.propnet.kernels` steps states on a
propnet; a native game steps its own bitboards (:mod:`ggpkit.search.native.tree`).
Both store a state as one row of ``tree[0]`` (propnet: a byte per base proposition,
native: the game's uint64 words) and a move as an index into the roles' move ranges
(``move_start``: role r's moves are ``move_start[r]`` to ``move_start[r + 1] - 1``).

Arrays, by index: the tree has nodes (0 ``bits`` the state row, 1 ``first`` / 2
``nedge`` their edges (-1: not expanded), 3 ``mover``, 4 ``fixed`` the one move of each
role without a choice, 5 ``term``, 6 ``visits``, 7 ``proven``, 8 ``value`` per role in
0..1) and edges (9 ``child``, 10 ``move``, 11 ``count``, 12 reward sums per role, 13 and
14 GRAVE's all-moves-as-first count and sum); 15 ``table`` finds a node by its state
(open addressing, -1 empty; a power of two in size), 16 each node's state ``hash``, 17
each node's ``mark``, the last path that passed it, 18 each node's heuristic goals (-1:
none), 19 their minimax over the node's children (implicit minimax backups), 20 the
search's settings (0: the share of a child's minimax value in selection, 1: whether
a blunder's visit teaches the moves above it nothing, see :func:`_avoided_loss`, 2:
whether latched facts may settle a node, 3: whether heuristic goals come from the
roles' moves, see :func:`mobility_goals`). ``sizes``
holds the nodes and edges used, and the last path's number.

Transpositions: a batch of paths makes a child only where no node has its state yet,
else the edge leads to that node, so the tree is a graph. Move statistics are kept
on edges, so a node reached two ways does not mix one parent's move values into the
other's. A path that meets a node already on it (a repeated state) stops there.

A batch of paths keeps its scratch in ``q`` (see ``ArrayTree._queue``): 0 nodes and 1
edges of each path, 2 depths, 3 leaves, 4 leaf state rows, 5 goal sums, 6 joint moves
to new children, 7 their legal moves, 8 whether they are terminal, 9 their goals, 10
rows of the batch, 11 a new child's move that wins at once (-1: none), 12 the state it
leads to, 13 the goals there.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from numba import njit

from ggpkit.reasoning.jit import copy_into, njit_no_refcounts, rand_below

STOP_DONE, STOP_PROVEN, STOP_SIMULTANEOUS, STOP_NO_LEGAL, STOP_GOAL, STOP_TOO_LONG = range(6)

TOP = 1.0 - 1e-9
"""A value at or above this is the top goal (100): nothing can be better."""
GRAVE_BIAS = 1e-5
"""GRAVE's bias in the weight of the all-moves-as-first mean (Cazenave's value)."""

SIMULTANEOUS = -1
"""``mover`` of a node where several roles choose (see :func:`select_joint`)."""

MAX_JOINT_MOVES = 4096
"""Most joint moves a simultaneous node may have in the tree: its edges hold them all
(battle: about 3,000 a state; more fall back to the Python tree)."""

PATH_PROVEN, PATH_LEAF, PATH_NEW = range(3)
"""How a path of a batch ends: at a proven node, at a leaf to play out from, or at an
edge whose child is still to be made."""


@njit_no_refcounts
def new_node(bits, tree, sizes):  # type: ignore[no-untyped-def]
    """A fresh unexpanded node for state ``bits``, or -1 when the node arrays are full."""
    if sizes[0] >= tree[0].shape[0]:
        return -1
    n = sizes[0]
    sizes[0] += 1
    copy_into(tree[0][n], bits)
    tree[2][n] = -1
    tree[5][n] = 0
    tree[6][n] = 0.0
    tree[7][n] = 0
    tree[18][n, :] = -1.0
    tree[19][n, :] = -1.0
    _insert(n, row_hash(bits), tree)
    return n


@njit_no_refcounts
def row_hash(bits):  # type: ignore[no-untyped-def]
    """FNV-1a over the row's items, then a final mix (the table uses the low bits)."""
    h = np.uint64(0xCBF29CE484222325)
    for x in bits:
        h = (h ^ np.uint64(x)) * np.uint64(0x100000001B3)
    return h ^ (h >> np.uint64(29))


@njit_no_refcounts
def find_node(bits, tree):  # type: ignore[no-untyped-def]
    """The node whose state is ``bits``, or -1."""
    table, hashes, rows = tree[15], tree[16], tree[0]
    mask = np.uint64(table.shape[0] - 1)
    h = row_hash(bits)
    i = h & mask
    while table[i] >= 0:
        n = table[i]
        if hashes[n] == h and _same_row(rows[n], bits):
            return n
        i = (i + np.uint64(1)) & mask
    return -1


@njit_no_refcounts
def _same_row(a, b):  # type: ignore[no-untyped-def]
    for k in range(a.shape[0]):  # noqa: SIM110 (a plain loop: no generator in numba)
        if a[k] != b[k]:
            return False
    return True


@njit_no_refcounts
def _insert(n, h, tree):  # type: ignore[no-untyped-def]
    table = tree[15]
    tree[16][n] = h
    mask = np.uint64(table.shape[0] - 1)
    i = h & mask
    while table[i] >= 0:
        i = (i + np.uint64(1)) & mask
    table[i] = n


@njit_no_refcounts
def clear(tree, sizes):  # type: ignore[no-untyped-def]
    """Empty the tree (the path number goes on, so old marks never match a new path)."""
    sizes[0] = 0
    sizes[1] = 0
    tree[15][:] = -1


@njit_no_refcounts
def expand_from(node, legal, ended, goal, move_start, tree, sizes, joint_limit):  # type: ignore[no-untyped-def]
    """Fill in ``node``: its terminal value, or the mover's edges.

    ``legal[k]`` says whether move ``k`` is legal in the node's state (role r's moves are
    ``move_start[r]`` to ``move_start[r + 1] - 1``), ``ended``
    whether it is terminal, ``goal[r]`` role r's goal there (-1: not exactly one).
    Where several roles choose, the node is simultaneous (:func:`_expand_simultaneous`)
    if it has at most ``joint_limit`` joint moves, else STOP_SIMULTANEOUS.
    Returns a stop code; STOP_DONE also when the edge arrays are full (the node then
    stays unexpanded and is played out like a leaf).
    """
    first, nedge, mover, fixed = tree[1], tree[2], tree[3], tree[4]
    term, proven, value = tree[5], tree[7], tree[8]
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
    choosers = 0
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
            choosers += 1
            chooser = r
            count *= nl
    if choosers > 1:
        if count > joint_limit:
            return STOP_SIMULTANEOUS
        return _expand_simultaneous(node, legal, move_start, tree, sizes, count)
    if chooser < 0:
        chooser = 0
    if sizes[1] + count > tree[9].shape[0]:
        return STOP_DONE
    mover[node] = chooser
    first[node] = sizes[1]
    for k in range(move_start[chooser], move_start[chooser + 1]):
        if legal[k]:
            _new_edge(tree, sizes, k)
    nedge[node] = count
    return STOP_DONE


@njit_no_refcounts
def _new_edge(tree, sizes, move):  # type: ignore[no-untyped-def]
    e = sizes[1]
    tree[9][e] = -1
    tree[10][e] = move
    tree[11][e] = 0.0
    tree[13][e] = 0.0
    tree[14][e] = 0.0
    tree[12][e, :] = 0.0
    sizes[1] += 1


@njit_no_refcounts
def _expand_simultaneous(node, legal, move_start, tree, sizes, joints):  # type: ignore[no-untyped-def]
    """The edges of a node where several roles choose (decoupled statistics).

    First each choosing role's own edges (its legal moves, in role order; ``fixed``
    holds minus their number), which gather that role's visits and rewards; then one
    edge per joint move (move -1), in mixed radix of the roles' move positions (the
    last choosing role's digit lowest), which only leads to the child.
    """
    fixed = tree[4]
    nroles = move_start.shape[0] - 1
    role_edges = 0
    for r in range(nroles):
        nl = 0
        for k in range(move_start[r], move_start[r + 1]):
            nl += legal[k] != 0
        if nl > 1:
            fixed[node, r] = -nl
            role_edges += nl
    if sizes[1] + role_edges + joints > tree[9].shape[0]:
        return STOP_DONE
    tree[3][node] = SIMULTANEOUS
    tree[1][node] = sizes[1]
    for r in range(nroles):
        if fixed[node, r] < 0:
            for k in range(move_start[r], move_start[r + 1]):
                if legal[k]:
                    _new_edge(tree, sizes, k)
    for _j in range(joints):
        _new_edge(tree, sizes, -1)
    tree[2][node] = role_edges + joints
    return STOP_DONE


@njit_no_refcounts
def _role_edges(tree, node):  # type: ignore[no-untyped-def]
    """How many edges of a simultaneous node are its roles' own (the joint ones follow)."""
    fixed = tree[4]
    total = 0
    for r in range(fixed.shape[1]):
        if fixed[node, r] < 0:
            total -= fixed[node, r]
    return total


@njit_no_refcounts
def role_edge(tree, node, e, role):  # type: ignore[no-untyped-def]
    """The edge of ``role`` that joint edge ``e`` of a simultaneous node is made of (-1:
    the role has no choice there)."""
    fixed = tree[4]
    end = tree[1][node] + _role_edges(tree, node)
    j = e - end
    for r in range(fixed.shape[1] - 1, -1, -1):
        n = -fixed[node, r]
        if n <= 0:
            continue
        end -= n
        if r == role:
            return end + j % n
        j //= n
    return -1


@njit_no_refcounts
def select_joint(node, tree, c, rng, w):  # type: ignore[no-untyped-def]
    """The joint edge to descend at a simultaneous node: (edge, rng).

    Decoupled UCT: each choosing role picks by UCB on its own edges, blind to the
    others' pick, and its pick counts ``w`` virtual visits there (the rewards come
    with the backup, :func:`_credit_roles`).
    """
    fixed, count = tree[4], tree[11]
    e = tree[1][node]
    j = 0
    log_n = math.log(max(2.0, tree[6][node]))
    for r in range(fixed.shape[1]):
        n = -fixed[node, r]
        if n <= 0:
            continue
        best, rng = _ucb_among(tree, e, e + n, r, c, rng, log_n)
        count[best] += w
        j = j * n + (best - e)
        e += n
    return e + j, rng


@njit_no_refcounts
def _ucb_among(tree, a, b, role, c, rng, log_n):  # type: ignore[no-untyped-def]
    """UCB for ``role`` among edges ``a`` to ``b - 1``; untried edges first, at random."""
    count, esum = tree[11], tree[12]
    best_e = a
    best_u = -1e300
    for e in range(a, b):
        n = count[e]
        if n == 0:
            rng, j = rand_below(rng, 1 << 20)
            u = 1e9 + j
        else:
            u = esum[e, role] / n + c * math.sqrt(log_n / n)
        if u > best_u:
            best_u = u
            best_e = e
    return best_e, rng


@njit_no_refcounts
def _credit_roles(tree, node, e, reward, w):  # type: ignore[no-untyped-def]
    """Each choosing role's edge in joint edge ``e`` gets that role's reward."""
    fixed = tree[4]
    for r in range(fixed.shape[1]):
        if fixed[node, r] < 0:
            tree[12][role_edge(tree, node, e, r), r] += reward[r] * w


@njit_no_refcounts
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
    m = mover[node]
    if m == SIMULTANEOUS:  # its value may need mixed strategies: left to the samples
        return False
    a = first[node]
    b = a + nedge[node]
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
        copy_into(value[node], value[best])
        return True
    return False


@njit_no_refcounts
def prove_path(tree, path_n, depth):  # type: ignore[no-untyped-def]
    """Prove the path's nodes from the deepest up, as far as each one can be."""
    proven = tree[7]
    for d in range(depth - 1, -1, -1):
        if proven[path_n[d]] != 0 or not try_prove(path_n[d], tree):
            break


@njit_no_refcounts
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


@njit_no_refcounts
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


@njit_no_refcounts
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
            u = value[ch, m]  # a worse proven child never beats the best one's exact value
        elif n == 0 and ac == 0:
            rng, j = rand_below(rng, 1 << 20)
            u = 1e9 + j  # untried and unknown: first, in random order
        elif ac == 0:
            u = _mean(tree, e, ch, m, n) + c * math.sqrt(log_n / n)
        else:
            beta = ac / (ac + n + GRAVE_BIAS * ac * n)
            q = 0.0 if n == 0 else esum[e, m] / n
            u = (1.0 - beta) * q + beta * asum[r] / ac + c * math.sqrt(log_n / (n + 1.0))
        if u > best_u:
            best_u = u
            best_e = e
    return best_e, rng


@njit_no_refcounts
def _mean(tree, e, ch, m, n):  # type: ignore[no-untyped-def]
    """Edge ``e``'s mean reward for role ``m`` over its ``n`` visits, mixed with its
    child's minimax heuristic value (:func:`_minimax_path`) by the search's share."""
    q = tree[12][e, m] / n
    share = tree[20][0]
    if share > 0.0 and ch >= 0 and tree[19][ch, 0] >= 0.0:
        q = (1.0 - share) * q + share * tree[19][ch, m]
    return q


@njit_no_refcounts
def _descend(tree, sizes, root, c, rng, w, path_n, path_e, reward):  # type: ignore[no-untyped-def]
    """One pass down from ``root`` for a batch of paths: (rng, depth, node, how it ends).

    Each edge taken counts ``w`` visits at once with no reward yet (a virtual loss), so
    the next path of the batch looks elsewhere; the backup adds the rewards. Only
    stored states are walked, without the network. A proven node ends the path with
    its value in ``reward``; :data:`PATH_NEW`: the last edge (``path_e[depth - 1]``)
    of ``node`` has no child yet; a node met twice (a repeated state) is a leaf.
    """
    nedge, proven, value, visits = tree[2], tree[7], tree[8], tree[6]
    echild, count, mark = tree[9], tree[11], tree[17]
    sizes[2] += 1
    path = sizes[2]
    node = root
    depth = 0
    while True:
        if proven[node] != 0:
            copy_into(reward, value[node])
            return rng, depth, node, PATH_PROVEN
        if nedge[node] < 0 or depth >= path_n.shape[0] or mark[node] == path:
            return rng, depth, node, PATH_LEAF
        mark[node] = path
        if tree[3][node] == SIMULTANEOUS:
            e, rng = select_joint(node, tree, c, rng, w)
        else:
            e, rng = select_edge(node, tree, c, rng, path_n, depth, 0.0)
        path_n[depth] = node
        path_e[depth] = e
        depth += 1
        visits[node] += w
        count[e] += w
        if echild[e] < 0:
            return rng, depth, node, PATH_NEW
        node = echild[e]


@njit_no_refcounts
def _backup_path(tree, path_n, path_e, depth, leaf, reward, w):  # type: ignore[no-untyped-def]
    """The rewards of a path that :func:`_descend` counted already, after its proofs.

    Where the path ends in a proven loss for the mover of the first unproven node
    above it, the edges above that node take back the path's visit instead
    (:func:`_avoided_loss`). Not a reward at their means: their counts hold the
    virtual visits of the batch's other paths, whose rewards are still to come.
    """
    visits, esum, count = tree[6], tree[12], tree[11]
    if leaf >= 0:
        visits[leaf] += w
    prove_path(tree, path_n, depth)
    above = _avoided_loss(tree, path_n, depth, leaf)
    for d in range(depth):
        e = path_e[d]
        if d < above:
            count[e] -= w
            visits[path_n[d]] -= w
            continue
        for r in range(reward.shape[0]):
            esum[e, r] += reward[r] * w
        if tree[3][path_n[d]] == SIMULTANEOUS:
            _credit_roles(tree, path_n[d], e, reward, w)
    if tree[20][0] > 0.0:
        _minimax_path(tree, path_n, depth)


@njit_no_refcounts
def _avoided_loss(tree, path_n, depth, leaf):  # type: ignore[no-untyped-def]
    """The depth of the first unproven node above a path's proven end when that end is a
    loss for its mover (it will not play into it), else 0.

    Why: a move that creates a threat makes every reply that ignores it a proven loss
    for the replier (wins in one at new nodes find them at once), and each such reply
    is visited once before selection shuns it. Backed up as rewards, those first
    visits raise the threatening move above a quiet one that is better (a replayed
    breakthroughSmall loss: the winning quiet reply got 550 to 71,000 visits of
    300,000 on five seeds). The reply's own edge keeps the loss; the edges above learn nothing.
    (Backing up each edge's own mean instead cost reversi 2-10 in an arena: the
    batch's pending virtual visits made those means too low.)
    """
    proven, value, mover = tree[7], tree[8], tree[3]
    if tree[20][1] == 0.0 or leaf < 0 or proven[leaf] == 0:
        return 0
    k = depth
    while k > 0 and proven[path_n[k - 1]] != 0:
        k -= 1
    if k == 0:
        return 0
    end = leaf if k == depth else path_n[k]
    m = mover[path_n[k - 1]]
    if m == SIMULTANEOUS or value[end, m] > 0.0:
        return 0
    for d in range(k - 1):
        if mover[path_n[d]] == SIMULTANEOUS:
            return 0
    return k - 1


@njit_no_refcounts
def _minimax_path(tree, path_n, depth):  # type: ignore[no-untyped-def]
    """Implicit minimax backups (Lanctot, Winands, Pepels and Sturtevant 2014): each node
    of the path, from the deepest up, takes the heuristic goals of its child best for its
    mover (a proven child's exact value; children without goals are left out).

    Why: a leaf's heuristic goals averaged into the playouts' rewards count a capture
    the opponent answers at once as a gain; their minimax over the tree does not.
    Selection mixes it into each move's mean (:func:`_mean`).
    """
    first, nedge, mover, proven = tree[1], tree[2], tree[3], tree[7]
    value, echild, minimax = tree[8], tree[9], tree[19]
    for d in range(depth - 1, -1, -1):
        node = path_n[d]
        m = mover[node]
        if m == SIMULTANEOUS or nedge[node] <= 0:
            continue
        best = -1
        best_v = -1.0
        for e in range(first[node], first[node] + nedge[node]):
            ch = echild[e]
            if ch < 0 or (proven[ch] == 0 and minimax[ch, 0] < 0.0):
                continue
            v = value[ch, m] if proven[ch] != 0 else minimax[ch, m]
            if v > best_v:
                best_v = v
                best = ch
        if best >= 0:
            copy_into(minimax[node], value[best] if proven[best] != 0 else minimax[best])


@njit(cache=True, nogil=True)
def compact(tree, sizes, root, newid, order):  # type: ignore[no-untyped-def]
    """Keep only ``root``'s subtree, moved to the front of the arrays (``root`` becomes 0).

    Why: a match's searches fill the arrays with the subtrees of moves not played;
    dropping them lets the tree reuse what it knows of the new root and still grow.
    Nodes keep their relative order, and so do the edge blocks, so every copy moves
    an entry down onto a slot already vacated: no second set of arrays is needed.
    A transposition can put a node older than ``root`` in its subtree; ``root`` is then
    swapped into slot 0 at the end (before stop 27 it was not, and the search went on
    from that older node: moves of another position).
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
    q = newid[root]
    if q != 0:  # a transposition put an older node in the subtree: the root goes first
        _swap_nodes(tree, 0, q)
        newid[order[0]] = q
        newid[root] = 0
    sizes[1] = _compact_edges(tree, kept, newid, order)
    sizes[0] = kept
    tree[15][:] = -1
    for k in range(kept):
        _insert(k, tree[16][k], tree)


@njit_no_refcounts
def _move_node(tree, i, k):  # type: ignore[no-untyped-def]
    if i == k:
        return
    tree[1][k] = tree[1][i]
    tree[2][k] = tree[2][i]
    tree[3][k] = tree[3][i]
    tree[5][k] = tree[5][i]
    tree[6][k] = tree[6][i]
    tree[7][k] = tree[7][i]
    tree[16][k] = tree[16][i]
    copy_into(tree[0][k], tree[0][i])
    copy_into(tree[4][k], tree[4][i])
    copy_into(tree[8][k], tree[8][i])
    copy_into(tree[18][k], tree[18][i])
    copy_into(tree[19][k], tree[19][i])


@njit_no_refcounts
def _swap_nodes(tree, i, k):  # type: ignore[no-untyped-def]
    """Exchange everything stored of nodes ``i`` and ``k`` (their edges stay put)."""
    _swap_items(tree[1], i, k)
    _swap_items(tree[2], i, k)
    _swap_items(tree[3], i, k)
    _swap_items(tree[5], i, k)
    _swap_items(tree[6], i, k)
    _swap_items(tree[7], i, k)
    _swap_items(tree[16], i, k)
    _swap_items(tree[17], i, k)
    _swap_rows(tree[0], i, k)
    _swap_rows(tree[4], i, k)
    _swap_rows(tree[8], i, k)
    _swap_rows(tree[18], i, k)
    _swap_rows(tree[19], i, k)


@njit_no_refcounts
def _swap_items(a, i, k):  # type: ignore[no-untyped-def]
    held = a[i]
    a[i] = a[k]
    a[k] = held


@njit_no_refcounts
def _swap_rows(a, i, k):  # type: ignore[no-untyped-def]
    for j in range(a.shape[1]):
        held = a[i, j]
        a[i, j] = a[k, j]
        a[k, j] = held


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
            copy_into(tree[12][t], tree[12][e])
        first[node] = pos
        pos += nedge[node]
    return pos


@njit_no_refcounts
def descend_batch(tree, sizes, root, c, rng, w, q, limit, reward):  # type: ignore[no-untyped-def]
    """Up to ``limit`` paths (at most the batch's size) descend from ``root``:
    (rng, paths descended, paths queued).

    A path that ends at a proven node is backed up at once; the others are queued
    with their leaf (-2: a child still to be made) and its state row in ``q[4]``.
    """
    qn, qe, qdepth, qleaf, starts = q[0], q[1], q[2], q[3], q[4]
    nq = 0
    done = 0
    for _p in range(min(qdepth.shape[0], limit)):
        if tree[7][root] != 0:
            break
        rng, depth, node, how = _descend(tree, sizes, root, c, rng, w, qn[nq], qe[nq], reward)
        done += 1
        if how == PATH_PROVEN:
            _backup_path(tree, qn[nq], qe[nq], depth, node, reward, w)
            continue
        qdepth[nq] = depth
        qleaf[nq] = node if how == PATH_LEAF else -2
        copy_into(starts[nq], tree[0][node])
        nq += 1
    return rng, done, nq


@njit_no_refcounts
def queue_joints(tree, q, nq):  # type: ignore[no-untyped-def]
    """The joint moves to the children the queued paths still need (``q[6]``, their
    paths in ``q[10]``): how many there are."""
    qn, qe, qdepth, qleaf = q[0], q[1], q[2], q[3]
    joint, rows = q[6], q[10]
    fixed, mover, emove = tree[4], tree[3], tree[10]
    m = 0
    for i in range(nq):
        if qleaf[i] == -2:
            parent = qn[i, qdepth[i] - 1]
            e = qe[i, qdepth[i] - 1]
            copy_into(joint[m], fixed[parent])
            if mover[parent] == SIMULTANEOUS:
                for r in range(joint.shape[1]):
                    if fixed[parent, r] < 0:
                        joint[m, r] = emove[role_edge(tree, parent, e, r)]
            else:
                joint[m, mover[parent]] = emove[e]
            rows[m] = i
            m += 1
    return m


@njit_no_refcounts
def attach_children(tree, sizes, q, m, move_start, reward, w, all_goals, wins):  # type: ignore[no-untyped-def]
    """Store the ``m`` children whose state rows the stepper wrote into ``q[4]`` (with
    their legal moves, terminal flags and goals in ``q[7]``, ``q[8]``, ``q[9]``).

    Each path's leaf becomes its child (-1 when the tree is full: the state is then
    played out unstored). A proven child ends its path at once: its backup is done
    here, and its leaf becomes -3. ``all_goals``: the stepper also gave the goals of
    states that are not terminal, kept in ``tree[18]`` for :func:`backup_leaves`.
    ``wins``: the stepper also found each child's win in one where it has one
    (``q[11]`` the move, -1: none; ``q[12]`` the state it leads to, ``q[13]`` its
    goals), made here as that child's child, which proves the child at once.
    Returns a stop code.
    """
    qn, qe, qdepth, qleaf, starts = q[0], q[1], q[2], q[3], q[4]
    legal, term, goal, rows = q[7], q[8], q[9], q[10]
    echild = tree[9]
    for j in range(m):
        i = rows[j]
        e = qe[i, qdepth[i] - 1]
        ch = echild[e]
        if ch < 0:  # else an earlier path of the batch made it
            ch = find_node(starts[i], tree)
            if ch >= 0:  # a transposition
                echild[e] = ch
        if ch < 0:
            ch = new_node(starts[i], tree, sizes)
            qleaf[i] = ch
            if ch < 0:
                continue
            echild[e] = ch
            code = expand_from(
                ch, legal[j], term[j], goal[j], move_start, tree, sizes, MAX_JOINT_MOVES
            )
            if code != STOP_DONE:
                return code
            if all_goals and not term[j]:
                _keep_goals(tree, ch, goal[j])
            if wins and q[11][j] >= 0:
                code = _attach_win(tree, sizes, ch, q[11][j], q[12][j], q[13][j], move_start)
                if code != STOP_DONE:
                    return code
        qleaf[i] = ch
        if tree[7][ch] != 0:
            copy_into(reward, tree[8][ch])
            _backup_path(tree, qn[i], qe[i], qdepth[i], ch, reward, w)
            qleaf[i] = -3
    return STOP_DONE


@njit_no_refcounts
def _attach_win(tree, sizes, node, move, bits, goal, move_start):  # type: ignore[no-untyped-def]
    """Make the terminal state ``bits`` (goals ``goal``) that ``move`` leads to from
    ``node`` its child there, and prove ``node`` by it: a stop code."""
    e = _edge_of(node, move, tree)
    if e < 0 or tree[3][node] == SIMULTANEOUS:
        return STOP_DONE
    ch = find_node(bits, tree)
    if ch < 0:
        ch = new_node(bits, tree, sizes)
        if ch < 0:
            return STOP_DONE
        code = expand_from(ch, bits[:0], True, goal, move_start, tree, sizes, 0)
        if code != STOP_DONE:
            return code
    tree[9][e] = ch
    try_prove(node, tree)
    return STOP_DONE


@njit_no_refcounts
def _keep_goals(tree, node, goal):  # type: ignore[no-untyped-def]
    """Keep a state's goals (0..1) as its heuristic value, where every role has one."""
    for r in range(goal.shape[0]):
        if goal[r] < 0:
            return
    for r in range(goal.shape[0]):
        tree[18][node, r] = goal[r] / 100.0
        tree[19][node, r] = goal[r] / 100.0


MATERIAL_STEEPNESS = 10.0
"""How sharply a share of pieces won turns into a heuristic value (Sancho's factor)."""


@njit(cache=True, nogil=True)
def material_goals(q, m, masks, base):  # type: ignore[no-untyped-def]
    """Write the material heuristic's goals of the ``m`` new children into ``q[9]``.

    ``masks[r]`` marks the row items (bits) that are role r's pieces, ``base[r]`` their
    count at the root. As Sancho's piece heuristic does, a child is judged by what each
    role gained or lost since the root against the others, in proportion to the pieces
    left, through a steep logistic: one pawn won of ten is worth 0.74, not 0.53.
    Terminal children keep their real goals; a child without pieces gets none (-1).
    """
    term, goal, starts, rows = q[8], q[9], q[4], q[10]
    nroles = masks.shape[0]
    counts = np.zeros(nroles, dtype=np.float64)
    for j in range(m):
        if term[j]:
            continue
        row = starts[rows[j]]
        total, gained = 0.0, 0.0
        for r in range(nroles):
            count = 0
            for w in range(masks.shape[1]):
                count += _popcount(np.uint64(row[w] & masks[r, w]))
            counts[r] = count
            total += count
            gained += count - base[r]
        for r in range(nroles):
            if total == 0.0:
                goal[j, r] = -1
            else:
                share = (counts[r] - base[r] - gained / nroles) / (total / nroles)
                goal[j, r] = int(100.0 / (1.0 + np.exp(-MATERIAL_STEEPNESS * share)))


@njit(cache=True, nogil=True)
def mobility_goals(tree, q, m, move_start):  # type: ignore[no-untyped-def]
    """Write the mobility heuristic's goals of the ``m`` new children into ``q[9]``: each
    role's share of all roles' mobility, 0..100.

    A role's mobility is its number of legal moves in the child (``q[7]``), or where it
    has one there, in the path's parent of the child (at least 1; see
    :mod:`~ggpkit.agents.mcts.mobility_heuristic`, whose probe reads the same two states).
    Terminal children keep their real goals.
    """
    qn, qdepth, legal, term, goal, rows = q[0], q[2], q[7], q[8], q[9], q[10]
    nroles = move_start.shape[0] - 1
    counts = np.zeros(nroles, dtype=np.float64)
    for j in range(m):
        if term[j]:
            continue
        i = rows[j]
        parent = qn[i, qdepth[i] - 1]
        total = 0.0
        for r in range(nroles):
            n = 0
            for k in range(move_start[r], move_start[r + 1]):
                n += legal[j, k]
            if n <= 1:
                n = max(1, _choices(tree, parent, r))
            counts[r] = n
            total += n
        for r in range(nroles):
            goal[j, r] = int(100.0 * counts[r] / total)


@njit_no_refcounts
def _choices(tree, node, r):  # type: ignore[no-untyped-def]
    """Role ``r``'s number of moves at the expanded ``node``."""
    mover, fixed = tree[3][node], tree[4][node, r]
    if mover == SIMULTANEOUS:
        return -fixed if fixed < 0 else 1
    return tree[2][node] if mover == r else 1


def material_counts(
    row: npt.NDArray[np.generic], masks: npt.NDArray[np.generic]
) -> npt.NDArray[np.float64]:
    """Each role's pieces in ``row`` (see :func:`material_goals`), in Python."""
    counts = [
        sum(int(row[w] & masks[r, w]).bit_count() for w in range(masks.shape[1]))
        for r in range(masks.shape[0])
    ]
    return np.array(counts, dtype=np.float64)


@njit_no_refcounts
def _popcount(x):  # type: ignore[no-untyped-def]
    """The set bits of a uint64."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit_no_refcounts
def gather_leaves(q, nq):  # type: ignore[no-untyped-def]
    """Move the state rows of the paths still open (leaf > -3) to the front of ``q[4]``,
    their paths in ``q[10]``: how many there are."""
    qleaf, starts, rows = q[3], q[4], q[10]
    m = 0
    for i in range(nq):
        if qleaf[i] > -3:
            if m != i:
                copy_into(starts[m], starts[i])
            rows[m] = i
            m += 1
    return m


@njit_no_refcounts
def backup_leaves(tree, q, m, per_path, reward, weight):  # type: ignore[no-untyped-def]
    """Back up the ``m`` gathered paths with their playouts' goal sums (``q[5]``).

    A path counts one visit, worth the mean of its ``per_path`` playouts: they all
    start from one leaf, so they are not independent samples of the moves above it,
    and counting each as a visit made UCB's exploration a quarter as wide with 16 a
    leaf (the batch's descent counted one virtual visit a path too).

    ``weight`` > 0: a leaf whose state gives goals (``tree[18]``) is worth that share
    of them and the rest of its playouts (the goal heuristic).
    """
    qn, qe, qdepth, qleaf, sums, rows = q[0], q[1], q[2], q[3], q[5], q[10]
    for j in range(m):
        i = rows[j]
        leaf = qleaf[i]
        blend = weight > 0.0 and leaf >= 0 and tree[18][leaf, 0] >= 0.0
        for r in range(reward.shape[0]):
            reward[r] = sums[j, r] / (100.0 * per_path)
            if blend:
                reward[r] = (1.0 - weight) * reward[r] + weight * tree[18][leaf, r]
        _backup_path(tree, qn[i], qe[i], qdepth[i], qleaf[i], reward, 1.0)
