"""The compiled graph passes of the propnet build, against plain definitions on random graphs.

Each node's inputs are literals ``2 * node + negated``; the passes must agree with
what reachability, strongly connected components and topological order mean,
whatever the graph (cycles, self-loops, negations, unreachable parts).
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ggpkit.reasoning.propnet import graph


@st.composite
def networks(draw: st.DrawFn) -> list[list[int]]:
    size = draw(st.integers(min_value=2, max_value=40))
    literal = st.integers(min_value=0, max_value=2 * size - 1)
    ins = [[], []]  # nodes 0 and 1 (the constants) have no inputs
    ins += [draw(st.lists(literal, max_size=4)) for _ in range(size - 2)]
    return ins


def _reachable(ins: list[list[int]], roots: list[int]) -> set[int]:
    seen: set[int] = set()
    todo = [r >> 1 for r in roots]
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(x >> 1 for x in ins[node])
    return seen


@settings(max_examples=100, deadline=None)
@given(networks(), st.data())
def test_closure_is_reachability(ins: list[list[int]], data: st.DataObject) -> None:
    roots = data.draw(st.lists(st.integers(0, 2 * len(ins) - 1), max_size=5))
    mask = graph.closure(*graph.csr(ins), np.asarray(roots, dtype=np.int32))
    assert {int(n) for n in np.flatnonzero(mask)} == _reachable(ins, roots)


@settings(max_examples=100, deadline=None)
@given(networks())
def test_components_are_the_strongly_connected_ones_dependencies_first(
    ins: list[list[int]],
) -> None:
    in_start, inputs = graph.csr(ins)
    mask = np.ones(len(ins), dtype=np.uint8)
    comp_start, comp_nodes = graph.components(in_start, inputs, mask)
    comps = [set(comp_nodes[a:b].tolist()) for a, b in itertools.pairwise(comp_start)]
    assert sorted(n for c in comps for n in c) == list(range(len(ins)))  # a partition
    reach = {n: _reachable(ins, [2 * n]) for n in range(len(ins))}
    position = {n: i for i, c in enumerate(comps) for n in c}
    for n in range(len(ins)):
        for m in reach[n]:
            same = n in reach[m]
            assert (position[m] == position[n]) == same  # mutual reachability = one component
            assert position[m] <= position[n]  # what a node depends on comes first


@settings(max_examples=100, deadline=None)
@given(networks())
def test_postorder_puts_each_gate_after_its_inputs_except_around_cycles(
    ins: list[list[int]],
) -> None:
    order = graph.postorder(*graph.csr(ins)).tolist()
    assert sorted(order) == list(range(2, len(ins)))
    where = {n: i for i, n in enumerate(order)}
    for n in order:
        for m in {x >> 1 for x in ins[n]} - {0, 1}:
            if where[m] > where[n]:  # only a cycle may put an input later
                assert n in _reachable(ins, [2 * m])
