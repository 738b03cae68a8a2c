"""The compiled tree's use of latches (``TreeSearch.search(latches=...)``).

A node whose latched facts settle every role's goal becomes a leaf of that value. The
checks: every such leaf's value is what random playouts from its state all end with;
the tree proves the same root values with latches as without (the solver alone, on
games small enough to solve); a search started in a decided state still offers moves.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from reasoning.test_latches import CAREFUL, CLAIM
from reasoning.test_propnet import _games_dir

import ggpkit
from ggpkit.games.gdl.game import GdlGame, load_kif_text
from ggpkit.search.contract import TreeSearch
from ggpkit.search.options import SearchLimit
from ggpkit.search.propnet.tree import PropnetTreeSearch
from search.tree_options import plain_options


def tree_of(game: Any) -> TreeSearch:
    make = game.info.capabilities.tree_search
    assert make is not None
    return make(None)  # type: ignore[no-any-return]


def public(name: str) -> Any:
    path = _games_dir() / f"{name}.kif"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return ggpkit.load(str(path))


def _game(rules: str) -> GdlGame:
    return load_kif_text(rules, reasoner="propnet")


def _search(
    game: GdlGame, state: Any, iterations: int, paths: int, latches: bool
) -> PropnetTreeSearch:
    search: PropnetTreeSearch = tree_of(game).tree  # type: ignore[attr-defined]
    bits = game.reasoner.bits(state)
    search.search(
        bits,
        SearchLimit(iterations=iterations),
        plain_options(c=0.4, leaf=1, seed=5, paths=paths, latches=latches),
    )
    return search


def _decided_leaves(game: GdlGame, search: PropnetTreeSearch) -> list[int]:
    """Nodes with no edges whose state the rules do not end."""
    t, n = search._tree, int(search._sizes[0])
    return [
        node
        for node in range(n)
        if t[2][node] == 0 and not game.reasoner.terminal(_state(game, t[0][node]))
    ]


def _state(game: GdlGame, row: np.ndarray) -> bytes:
    return bytes(np.packbits(row, bitorder="little"))


def _playout_goals(game: GdlGame, state: bytes, rng: random.Random) -> tuple[int, ...]:
    r = game.reasoner
    while not r.terminal(state):
        state = r.next(state, [rng.choice(r.legal(state, i)) for i in range(len(r.roles))])
    return tuple(r.goal(state, i) for i in range(len(r.roles)))


def _check_leaves(game: GdlGame, search: PropnetTreeSearch) -> int:
    """Every decided leaf's value against 20 random playouts from it: how many leaves."""
    t = search._tree
    rng = random.Random(1)
    leaves = _decided_leaves(game, search)
    for node in leaves:
        assert t[7][node], "a decided leaf is proven"
        value = tuple(round(100 * v) for v in t[8][node])
        state = _state(game, t[0][node])
        for _ in range(20):
            assert _playout_goals(game, state, rng) == value
    return len(leaves)


@pytest.mark.parametrize(("rules", "paths"), [(CLAIM, 16), (CAREFUL, 1)])
def test_decided_leaves_hold_their_values(rules: str, paths: int) -> None:
    game = _game(rules)
    search = _search(game, game.initial_state(), 3000, paths, latches=True)
    assert _check_leaves(game, search) > 0
    search = _search(_game(rules), game.initial_state(), 3000, paths, latches=False)
    assert not _decided_leaves(game, search)


@pytest.mark.parametrize(("rules", "paths"), [(CLAIM, 16), (CAREFUL, 1)])
def test_the_same_root_values_with_latches_as_without(rules: str, paths: int) -> None:
    values = []
    for latches in (True, False):
        game = _game(rules)
        search = _search(game, game.initial_state(), 20_000, paths, latches)
        t, root = search._tree, search._root
        assert t[7][root], "the game is small enough to prove"
        values.append(tuple(t[8][root]))
    assert values[0] == values[1]


def test_a_search_from_a_decided_state_still_offers_moves() -> None:
    game = _game(CLAIM)
    red, blue = game.roles
    claimed = game.next_state(game.initial_state(), [_term("claim"), _term("noop")])
    search = _search(game, game.initial_state(), 2000, 16, latches=True)
    report = tree_of(game).search(
        claimed, SearchLimit(iterations=500), plain_options(c=0.4, leaf=1, seed=5, paths=16)
    )  # a new tree
    assert report.moves, "the decided state's moves are searched"
    assert report.proven == {red: 1.0, blue: 0.0}
    bits = game.reasoner.bits(claimed)
    leaf = [n for n in _decided_leaves(game, search) if _state(game, search._tree[0][n]) == claimed]
    assert leaf, "the claim made a decided leaf"
    search.search(
        bits, SearchLimit(iterations=500), plain_options(c=0.4, leaf=1, seed=5, paths=16)
    )  # the decided leaf as the root
    assert search._tree[2][search._root] > 0


def _term(text: str) -> Any:
    from ggpkit.gdl.kif import parse_term

    return parse_term(text)


def test_a_latched_puzzle_is_proven_and_played_to_its_value() -> None:
    """factoringEasyTurtleBrain: proven within a few thousand iterations with latches;
    following the search's moves ends at the proven goal."""
    game = public("factoringEasyTurtleBrain")
    tree = tree_of(game)
    state = game.initial_state()
    report = tree.search(state, SearchLimit(iterations=5000), plain_options(c=1.4, leaf=1, seed=3))
    assert report.proven is not None
    (role,) = game.roles
    target = round(100 * report.proven[role])
    while not game.is_terminal(state):
        report = tree.search(
            state, SearchLimit(iterations=2000), plain_options(c=1.4, leaf=1, seed=3)
        )
        exact = [-1.0 if e is None else e for e in report.exact]
        best = max(range(len(report.moves)), key=lambda i: (exact[i], report.visits[i]))
        state = game.next_state(state, [report.moves[best]])
    assert game.goals(state)[role] == target
