"""Graph passes of the propnet build, compiled: reachability, components, schedule, fanouts.

Why compiled: the networks of big games (hex, chess) have up to a million nodes,
and these passes, written over Python lists and dicts, took more of a game's
start clock than grounding did. Here the network is a CSR array of input literals
(``in_start``, ``inputs``; a literal is ``2 * node + negated``) and every pass is a
loop in numba, in the same visiting order as the plain algorithms, so the network
built is the same node for node.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

I32 = npt.NDArray[np.int32]
U8 = npt.NDArray[np.uint8]

KIND_INPUT = 0
TRUE_NODE = 1


def csr(ins: list[list[int]]) -> tuple[I32, I32]:
    """``(in_start, inputs)``: the inputs of every node, flattened."""
    lengths = np.fromiter((len(x) for x in ins), dtype=np.int32, count=len(ins))
    in_start = np.zeros(len(ins) + 1, dtype=np.int32)
    np.cumsum(lengths, out=in_start[1:])
    inputs = np.fromiter((y for x in ins for y in x), dtype=np.int32, count=int(in_start[-1]))
    return in_start, inputs


@njit(cache=True)
def postorder(in_start: I32, inputs: I32) -> I32:
    """Every node from 2 on after its inputs (cycles broken anywhere); iterative DFS."""
    n = in_start.shape[0] - 1
    seen = np.zeros(n, dtype=np.uint8)
    out = np.empty(n, dtype=np.int32)
    count = 0
    stack_node = np.empty(n, dtype=np.int32)
    stack_pos = np.empty(n, dtype=np.int32)
    for root in range(2, n):
        if seen[root]:
            continue
        seen[root] = 1
        top = 0
        stack_node[0] = root
        stack_pos[0] = in_start[root]
        while top >= 0:
            v = stack_node[top]
            i = stack_pos[top]
            end = in_start[v + 1]
            while i < end and seen[inputs[i] >> 1]:
                i += 1
            if i < end:
                m = inputs[i] >> 1
                seen[m] = 1
                stack_pos[top] = i + 1
                top += 1
                stack_node[top] = m
                stack_pos[top] = in_start[m]
            else:
                if v >= 2:
                    out[count] = v
                    count += 1
                top -= 1
    return out[:count]


@njit(cache=True)
def closure(in_start: I32, inputs: I32, root_lits: I32) -> U8:
    """A mask of every node the literals ``root_lits`` depend on (themselves included)."""
    n = in_start.shape[0] - 1
    seen = np.zeros(n, dtype=np.uint8)
    stack = np.empty(n, dtype=np.int32)
    top = 0
    for lit in root_lits:
        node = lit >> 1
        if not seen[node]:
            seen[node] = 1
            stack[top] = node
            top += 1
    while top > 0:
        top -= 1
        v = stack[top]
        for k in range(in_start[v], in_start[v + 1]):
            m = inputs[k] >> 1
            if not seen[m]:
                seen[m] = 1
                stack[top] = m
                top += 1
    return seen


@njit(cache=True)
def components(in_start: I32, inputs: I32, mask: U8) -> tuple[I32, I32]:
    """Tarjan's strongly connected components of the masked nodes, dependencies first.

    Returns ``(comp_start, comp_nodes)``: component ``c`` is
    ``comp_nodes[comp_start[c]:comp_start[c + 1]]``, its nodes in the order they leave
    Tarjan's stack. Roots are visited in increasing node order.
    """
    n = in_start.shape[0] - 1
    index = np.full(n, -1, dtype=np.int32)
    low = np.zeros(n, dtype=np.int32)
    on_stack = np.zeros(n, dtype=np.uint8)
    stack = np.empty(n, dtype=np.int32)
    work_node = np.empty(n, dtype=np.int32)
    work_pos = np.empty(n, dtype=np.int32)
    comp_nodes = np.empty(n, dtype=np.int32)
    comp_start = np.zeros(n + 1, dtype=np.int32)
    ncomp = 0
    written = 0
    sp = 0
    counter = 0
    for root in range(n):
        if not mask[root] or index[root] >= 0:
            continue
        top = 0
        work_node[0] = root
        work_pos[0] = -1  # -1: first visit
        while top >= 0:
            v = work_node[top]
            i = work_pos[top]
            top -= 1
            if i < 0:
                index[v] = counter
                low[v] = counter
                counter += 1
                stack[sp] = v
                sp += 1
                on_stack[v] = 1
                i = in_start[v]
            end = in_start[v + 1]
            recurse = False
            while i < end:
                w = inputs[i] >> 1
                i += 1
                if index[w] < 0:
                    top += 1
                    work_node[top] = v
                    work_pos[top] = i
                    top += 1
                    work_node[top] = w
                    work_pos[top] = -1
                    recurse = True
                    break
                if on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
            if recurse:
                continue
            if low[v] == index[v]:
                while True:
                    sp -= 1
                    w = stack[sp]
                    on_stack[w] = 0
                    comp_nodes[written] = w
                    written += 1
                    if w == v:
                        break
                ncomp += 1
                comp_start[ncomp] = written
            if top >= 0:
                u = work_node[top]
                if low[v] < low[u]:
                    low[u] = low[v]
    return comp_start[: ncomp + 1], comp_nodes[:written]


@njit(cache=True)
def _is_cyclic(in_start: I32, inputs: I32, comp_start: I32, comp_nodes: I32, c: int) -> bool:
    if comp_start[c + 1] - comp_start[c] > 1:
        return True
    v = comp_nodes[comp_start[c]]
    for k in range(in_start[v], in_start[v + 1]):  # noqa: SIM110 (numba has no generators)
        if inputs[k] >> 1 == v:
            return True
    return False


@njit(cache=True)
def schedule(
    kind: I32, in_start: I32, inputs: I32, comp_start: I32, comp_nodes: I32, needs: U8
) -> tuple[I32, I32, I32]:
    """The evaluation order, blocks (``start, end, cyclic`` rows) and phase ranges.

    ``needs[p, node]`` says whether phase ``p`` (A, B, G) evaluates the node. Within a
    phase, components come dependencies first; a cyclic component is a block of its
    own, runs of acyclic gates between them form blocks too.
    """
    n = kind.shape[0]
    ncomp = comp_start.shape[0] - 1
    order = np.empty(3 * n, dtype=np.int32)
    blocks = np.empty(3 * (2 * ncomp + 3) * 3, dtype=np.int32)
    phases = np.empty(6, dtype=np.int32)
    length = 0
    nblocks = 0
    for p in range(3):
        phases[2 * p] = nblocks
        run_start = length
        for c in range(ncomp):
            first = comp_nodes[comp_start[c]]
            if not needs[p, first]:
                continue
            gates_start = length
            for k in range(comp_start[c], comp_start[c + 1]):
                g = comp_nodes[k]
                if kind[g] != KIND_INPUT and g != TRUE_NODE:
                    order[length] = g
                    length += 1
            if length == gates_start:
                continue
            if _is_cyclic(in_start, inputs, comp_start, comp_nodes, c):
                if gates_start > run_start:
                    blocks[3 * nblocks : 3 * nblocks + 3] = (run_start, gates_start, 0)
                    nblocks += 1
                blocks[3 * nblocks : 3 * nblocks + 3] = (gates_start, length, 1)
                nblocks += 1
                run_start = length
        if length > run_start:
            blocks[3 * nblocks : 3 * nblocks + 3] = (run_start, length, 0)
            nblocks += 1
        phases[2 * p + 1] = nblocks
    return order[:length], blocks[: 3 * nblocks], phases


@njit(cache=True)
def incremental(
    kind: I32, in_start: I32, inputs: I32, comp_start: I32, comp_nodes: I32, next_lits: I32
) -> tuple[I32, I32, I32, I32, I32, I32]:
    """Fanouts and cyclic components, for incremental (differential) propagation.

    Returns ``fan_start, fanout, scc, scc_start, scc_nodes, needed``; only the gates of
    the components appear as consumers, so changes never flow into dead logic, and
    the node of each base fact's ``next`` literal names that fact as a watcher.
    """
    n = kind.shape[0]
    ncomp = comp_start.shape[0] - 1
    scc = np.full(n, -1, dtype=np.int32)
    scc_start = np.zeros(ncomp + 1, dtype=np.int32)
    scc_nodes = np.empty(n, dtype=np.int32)
    needed = np.empty(n, dtype=np.int32)
    nscc = 0
    nscc_nodes = 0
    nneeded = 0
    for c in range(ncomp):
        first_gate = nneeded
        for k in range(comp_start[c], comp_start[c + 1]):
            g = comp_nodes[k]
            if kind[g] != KIND_INPUT and g != TRUE_NODE:
                needed[nneeded] = g
                nneeded += 1
        if nneeded > first_gate and _is_cyclic(in_start, inputs, comp_start, comp_nodes, c):
            for j in range(first_gate, nneeded):
                scc[needed[j]] = nscc
                scc_nodes[nscc_nodes] = needed[j]
                nscc_nodes += 1
            nscc += 1
            scc_start[nscc] = nscc_nodes
    fan_start, fanout = _fanouts(
        in_start, inputs, needed[:nneeded], scc, scc_start, scc_nodes, next_lits, n
    )
    return (
        fan_start,
        fanout,
        scc,
        scc_start[: nscc + 1],
        scc_nodes[:nscc_nodes],
        needed[:nneeded],
    )


@njit(cache=True)
def _fanouts(
    in_start: I32,
    inputs: I32,
    needed: I32,
    scc: I32,
    scc_start: I32,
    scc_nodes: I32,
    next_lits: I32,
    n: int,
) -> tuple[I32, I32]:
    """CSR of each node's consumers among ``needed``, in ``needed`` order, as
    ``4 * gate + 2 * cyclic + neg``: a cyclic gate is named by its component's first
    node, which stands for the whole component in propagation (its entries carry no
    sign: it is recomputed from its inputs). After them, ``4 * i + 3``
    for each base fact ``i`` whose ``next`` literal reads the node (constants have
    none): a change there may change the next state at ``i``."""
    counts = np.zeros(n + 1, dtype=np.int32)
    for g in needed:
        for k in range(in_start[g], in_start[g + 1]):
            counts[(inputs[k] >> 1) + 1] += 1
    for i in range(next_lits.shape[0]):
        if next_lits[i] >> 1 > TRUE_NODE:
            counts[(next_lits[i] >> 1) + 1] += 1
    fan_start = np.cumsum(counts).astype(np.int32)
    cursor = fan_start[:-1].copy()
    fanout = np.empty(fan_start[-1], dtype=np.int32)
    for g in needed:
        sid = scc[g]
        entry = 4 * g if sid < 0 else 4 * scc_nodes[scc_start[sid]] + 2
        for k in range(in_start[g], in_start[g + 1]):
            x = inputs[k]
            m = x >> 1
            fanout[cursor[m]] = entry + (x & 1) if sid < 0 else entry  # a component rereads
            cursor[m] += 1
    for i in range(next_lits.shape[0]):
        m = next_lits[i] >> 1
        if m > TRUE_NODE:
            fanout[cursor[m]] = 4 * i + 3
            cursor[m] += 1
    return fan_start, fanout


def warm_up() -> None:
    """Compile (or load from the cache) every pass on a tiny network."""
    ins: list[list[int]] = [[], [], [2], [4, 7], [6]]
    in_start, inputs = csr(ins)
    kind = np.array([0, 1, 1, 2, 1], dtype=np.int32)
    postorder(in_start, inputs)
    mask = closure(in_start, inputs, np.array([8], dtype=np.int32))
    comp_start, comp_nodes = components(in_start, inputs, mask)
    needs = np.zeros((3, 5), dtype=np.uint8)
    needs[0] = mask
    schedule(kind, in_start, inputs, comp_start, comp_nodes, needs)
    incremental(kind, in_start, inputs, comp_start, comp_nodes, np.array([8], dtype=np.int32))


__all__: list[Any] = [
    "closure",
    "components",
    "csr",
    "incremental",
    "postorder",
    "schedule",
    "warm_up",
]
