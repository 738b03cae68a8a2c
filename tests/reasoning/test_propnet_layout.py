"""The word layout renumbers a network without changing what any literal reads."""

from __future__ import annotations

import random

import numpy as np
import pytest

from ggpkit.reasoning.propnet.graph import csr
from ggpkit.reasoning.propnet.layout import WORD, check_layout, lay_out

INPUT, AND, OR = 0, 1, 2


def _random_network(rng: random.Random, inputs: int, gates: int) -> list[tuple[int, list[int]]]:
    """Nodes 0 (false) and 1 (true), then inputs, then gates over earlier nodes."""
    nodes: list[tuple[int, list[int]]] = [(INPUT, []), (AND, [])]
    nodes += [(INPUT, []) for _ in range(inputs)]
    for _ in range(gates):
        ins = [2 * rng.randrange(len(nodes)) + rng.randrange(2) for _ in range(rng.randint(1, 3))]
        nodes.append((rng.choice([AND, OR]), ins))
    return nodes


def _values(kind: list[int], ins: list[list[int]], given: dict[int, int]) -> list[int]:
    """Every node's value, evaluated in node order (the networks here are acyclic in
    order before renumbering; after it, to a fixpoint)."""
    val = [given.get(n, 0) for n in range(len(kind))]
    changed = True
    while changed:
        changed = False
        for n, k in enumerate(kind):
            if k == INPUT:
                continue
            lits = [val[x >> 1] ^ (x & 1) for x in ins[n]]
            v = int(all(lits)) if k == AND else int(any(lits))
            if v != val[n]:
                val[n], changed = v, True
    return val


@pytest.mark.parametrize("seed", range(20))
def test_each_group_reads_a_run_of_nodes_holding_its_literals_values(seed: int) -> None:
    rng = random.Random(seed)
    nodes = _random_network(rng, inputs=6, gates=40)
    kind = np.array([k for k, _ in nodes], dtype=np.int32)
    in_start, flat = csr([ins for _, ins in nodes])
    literal = list(range(2 * len(nodes)))  # any node, either sign, repeats allowed
    groups = [[rng.choice(literal) for _ in range(rng.randint(0, 20))] for _ in range(3)]
    new_kind, new_start, new_flat, new, runs = lay_out(kind, in_start, flat, groups)
    assert len(new_kind) % WORD == 0 and new[0] == 0 and new[1] == 1
    for run, lits in zip(runs, groups, strict=True):
        assert len(run) == len(lits)
        if run:
            assert run[0] % (2 * WORD) == 0
            assert run == list(range(run[0], run[0] + 2 * len(run), 2))
    check_layout([np.array(run, dtype=np.int32) for run in runs], len(new_kind))
    before = _values(
        [k for k, _ in nodes], [ins for _, ins in nodes], {n: rng.randrange(2) for n in range(2, 8)}
    )
    given = {int(new[n]): before[n] for n in range(2, 8)}
    new_ins = [new_flat[new_start[n] : new_start[n + 1]].tolist() for n in range(len(new_kind))]
    after = _values(new_kind.tolist(), new_ins, given)
    for n in range(len(nodes)):
        assert after[int(new[n])] == before[n]
    for run, lits in zip(runs, groups, strict=True):
        for x, y in zip(lits, run, strict=True):
            assert after[y >> 1] == before[x >> 1] ^ (x & 1)


def test_a_network_not_laid_out_in_words_is_refused() -> None:
    legal = np.array([16, 18, 22], dtype=np.int32)  # nodes 8, 9, 11: not consecutive
    with pytest.raises(ValueError, match="runs of words"):
        check_layout([legal], 16)
    with pytest.raises(ValueError, match="runs of words"):  # consecutive, off a boundary
        check_layout([legal[:1] + 2], 16)
    with pytest.raises(ValueError, match="whole number of words"):
        check_layout([legal[:2]], 17)
    check_layout([legal[:2], legal[:0]], 16)  # a run, and an empty one: accepted
