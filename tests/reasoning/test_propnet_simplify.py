"""The network simplifier on random circuits: same values, and nothing left to simplify.

Circuits here have cycles (a gate fed by a later gate) and negations, stratified as
GDL's are: gates of the first layer read the inputs (negated or not) and each other
positively; gates of the second read the inputs and the first layer, negated or not,
and each other positively. A node's value is the least fixpoint, layer by layer, as
in a propnet. The simplifier works to a fixpoint: a second run must find nothing left
to fold, bypass or merge.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from ggpkit.reasoning.propnet.build import KIND_AND, KIND_INPUT, KIND_OR, Builder, simplify

INPUTS = 3
FIRST = 2 + INPUTS
"""Node of the first gate: 0 is false, 1 is true (an empty AND), then the inputs."""

Circuit = tuple[int, list[tuple[int, list[int]]]]
"""The number of first-layer gates, then every gate's kind and input literals."""


@st.composite
def circuits(draw: st.DrawFn) -> Circuit:
    first = draw(st.integers(1, 8))
    second = draw(st.integers(0, 8))
    gates = []
    for i in range(first + second):
        layer_end = FIRST + (first if i < first else first + second)
        negatable = FIRST if i < first else FIRST + first
        lits = st.one_of(
            st.integers(0, 2 * negatable - 1),  # constants, inputs (and the first layer)
            st.integers(negatable, layer_end - 1).map(lambda n: 2 * n),  # own layer, positive
        )
        kind = draw(st.sampled_from([KIND_AND, KIND_OR]))
        gates.append((kind, draw(st.lists(lits, max_size=4))))
    return first, gates


def _values(
    kind: list[int], ins: list[list[int]], first: int, inputs: tuple[bool, ...]
) -> list[bool]:
    """Least fixpoint of each layer in turn, every gate of a layer starting false."""
    val = [False, True, *inputs] + [False] * (len(kind) - FIRST)

    def lit(x: int) -> bool:
        return val[x >> 1] ^ bool(x & 1)

    for layer in (range(FIRST, FIRST + first), range(FIRST + first, len(kind))):
        changed = True
        while changed:
            changed = False
            for n in layer:
                now = all(map(lit, ins[n])) if kind[n] == KIND_AND else any(map(lit, ins[n]))
                if now and not val[n]:
                    val[n], changed = True, True
    return val


@settings(max_examples=400, deadline=None)
@given(circuits())
def test_simplified_circuits_keep_every_value_and_are_settled(circuit: Circuit) -> None:
    first, gates = circuit
    b = Builder()
    for kind, ins in [(KIND_INPUT, [])] * INPUTS + gates:
        b.node(kind, list(ins))
    kinds, old_ins = list(b.kind), [list(x) for x in b.ins]
    resolve = simplify(b)
    for inputs in itertools.product([False, True], repeat=INPUTS):
        old = _values(kinds, old_ins, first, inputs)
        new = _values(b.kind, b.ins, first, inputs)
        for n in range(2, len(b.kind)):
            r = resolve(2 * n)
            assert old[n] == new[r >> 1] ^ bool(r & 1), (n, inputs)
    live = [n for n in range(len(b.kind)) if resolve(2 * n) == 2 * n]
    for n in set(range(FIRST, len(b.kind))) - set(live):
        b.kind[n], b.ins[n] = KIND_INPUT, []  # as the build drops them
    settled = [list(x) for x in b.ins]
    again = simplify(b)
    assert all(again(2 * n) == 2 * n for n in live), "a second run still merged or folded"
    assert b.ins == settled, "a second run still rewrote inputs"
