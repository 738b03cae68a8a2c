"""Implicit minimax backups in the compiled tree (``mcts:minimax``), against a model.

The model recomputes, in Python, what each node's backed-up heuristic value must be:
the stored value of the child best for the node's mover (a proven child's exact
value). It holds exactly at every node whose subtree no other path can reach (every
node below has one parent): a transposition can change a child through a path that
does not pass its other parents.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from search.tree_options import plain_options

from ggpkit.search.options import SearchLimit
from ggpkit.search.tree import kernels as tk

from .corpus import public
from .test_compiled_tree import random_state, tree_of


def _parents(arrays: Any, nodes: int) -> np.ndarray[Any, np.dtype[np.int64]]:
    counts = np.zeros(nodes, dtype=np.int64)
    for node in range(nodes):
        first, n = int(arrays[1][node]), int(arrays[2][node])
        for e in range(first, first + max(0, n)):
            if arrays[9][e] >= 0:
                counts[int(arrays[9][e])] += 1
    return counts


def _children(arrays: Any, node: int) -> list[int]:
    first, n = int(arrays[1][node]), int(arrays[2][node])
    return [int(arrays[9][e]) for e in range(first, first + max(0, n)) if arrays[9][e] >= 0]


def _expected(arrays: Any, node: int) -> tuple[float, ...] | None:
    """The model: the best child's exact value or backed-up value for the mover."""
    mover = int(arrays[3][node])
    known = []
    for ch in _children(arrays, node):
        if arrays[7][ch]:
            known.append(tuple(float(v) for v in arrays[8][ch]))
        elif arrays[19][ch, 0] >= 0:
            known.append(tuple(float(v) for v in arrays[19][ch]))
    return max(known, key=lambda v: v[mover]) if known else None


def _checked_nodes(arrays: Any, root: int, nodes: int) -> int:
    """Check every node under ``root`` whose subtree only it reaches: how many had a value."""
    parents = _parents(arrays, nodes)
    checked = 0

    def clean(node: int) -> bool:  # its subtree is reached only through it
        below = [clean(ch) for ch in _children(arrays, node)]
        kids_single = all(parents[ch] == 1 for ch in _children(arrays, node))
        ok = all(below) and kids_single
        nonlocal checked
        if ok and not arrays[7][node] and arrays[3][node] != tk.SIMULTANEOUS:
            expected = _expected(arrays, node)
            if expected is not None:
                assert tuple(arrays[19][node]) == pytest.approx(expected), node
                checked += 1
        return ok

    clean(root)
    return checked


@pytest.mark.parametrize(("name", "plies"), [("breakthroughSmall", 4), ("checkersSmall", 6)])
def test_each_node_holds_the_minimax_of_its_childrens_heuristic_values(
    name: str, plies: int
) -> None:
    """breakthroughSmall's values come from its pieces (the material heuristic),
    checkersSmall's from its states' goals; both before and after a compaction."""
    game = public(name)
    state = random_state(game, plies, random.Random(plies))
    search = tree_of(game).tree  # type: ignore[attr-defined]
    material = None
    if name == "breakthroughSmall":
        from ggpkit.agents.mcts.material_heuristic import material_sets
        from ggpkit.agents.mcts.probe import probe_matches

        pieces = material_sets(game, probe_matches(game, random.Random(1)))
        assert pieces, "breakthroughSmall's pieces are found"
        material = tree_of(game)._masks(pieces)  # type: ignore[attr-defined]
    bits = game.reasoner.bits(state)
    search.search(
        bits,
        SearchLimit(iterations=4000),
        plain_options(c=0.4, leaf=1, seed=3, paths=16, goals=0.5, minimax=0.3),
        material=material,
    )
    arrays, sizes = search._tree, search._sizes
    assert _checked_nodes(arrays, search._root, int(sizes[0])) > 100
    child = max(_children(arrays, search._root), key=lambda c: arrays[6][c])
    tk.compact(arrays, sizes, child, search._newid, search._order)
    assert _checked_nodes(arrays, 0, int(sizes[0])) > 20


def test_without_a_share_no_value_is_backed_up() -> None:
    game = public("checkersSmall")
    search = tree_of(game).tree  # type: ignore[attr-defined]
    bits = game.reasoner.bits(game.initial_state())
    search.search(
        bits,
        SearchLimit(iterations=2000),
        plain_options(c=0.4, leaf=1, seed=3, paths=16, goals=0.5),
    )
    arrays, root = search._tree, search._root
    assert not np.array_equal(arrays[19][root], _expected(arrays, root))


def test_selection_follows_the_backed_up_values_by_their_share() -> None:
    """Two edges with equal means: the one whose child's backed-up value is higher for
    the mover is chosen once the share is positive, the other with share 0 (its
    exploration term is larger)."""
    arrays = tree_arrays_for_two_moves()
    rng = np.uint64(7)
    path = np.zeros(4, dtype=np.int64)
    arrays[20][0] = 0.0
    e0, _ = tk.select_edge(0, arrays, 0.4, rng, path, 0, 0.0)
    arrays[20][0] = 0.5
    e1, _ = tk.select_edge(0, arrays, 0.4, rng, path, 0, 0.0)
    assert (e0, e1) == (1, 0)


def tree_arrays_for_two_moves() -> Any:
    from ggpkit.search.tree.array_tree import tree_arrays

    arrays = tree_arrays(4, 1, 2, np.uint8)
    arrays[1][0], arrays[2][0], arrays[3][0] = 0, 2, 0
    arrays[6][0] = 30.0
    for e, (child, visits) in enumerate([(1, 20.0), (2, 10.0)]):
        arrays[9][e], arrays[10][e], arrays[11][e] = child, e, visits
        arrays[12][e] = (0.5 * visits, 0.5 * visits)
    arrays[19][1] = (0.9, 0.1)
    arrays[19][2] = (0.2, 0.8)
    return arrays
