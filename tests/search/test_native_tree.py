"""The native games' compiled trees against the games themselves.

The tree sees a native game only through three batch kernels over rows of words
(:class:`~ggpkit.search.native.tree.NativeTreeKernels`); here each kernel is checked
against the game's API (legal moves, next state, terminal, goals) on the states of
random matches, and the tree's proofs against an exact solve.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import numpy as np
import pytest

import ggpkit
from ggpkit.games.api import Game
from ggpkit.gdl.terms import Const
from ggpkit.search.native.tree import NativeTreeKernels, NativeTreeSearch
from ggpkit.search.options import SearchLimit
from search.tree_options import plain_options

NATIVE_TREES = ("breakthrough-holes", "breakthrough-holes-capture", "pawn-checkers",
                "pawn-checkers-barrel")  # fmt: skip


def kernels_of(game: Game[Any]) -> NativeTreeKernels:
    make = game.info.capabilities.tree_search
    assert make is not None, f"{game.name} declares a compiled tree"
    tree = make(1000)
    assert isinstance(tree, NativeTreeSearch)
    return tree.kernels


def scratch(kernels: NativeTreeKernels, n: int) -> tuple[Any, ...]:
    nmoves = kernels.move_start[-1]
    return (
        np.zeros((n, nmoves), dtype=np.uint8),
        np.zeros(n, dtype=np.uint8),
        np.zeros((n, 2), dtype=np.int64),
    )


def described(game: Game[Any], kernels: NativeTreeKernels, row: Any, legal: Any, term: Any,
              goal: Any) -> None:  # fmt: skip
    """Check one described row against the game's view of the same state."""
    state = game_state(game, row)
    assert bool(term) == game.is_terminal(state)
    if term:
        assert list(goal) == [game.goals(state)[r] for r in game.roles]
        return
    for r, role in enumerate(game.roles):
        lo, hi = kernels.move_start[r], kernels.move_start[r + 1]
        flagged = {kernels.move_term(r, i - lo) for i in range(lo, hi) if legal[i]}
        assert flagged == set(game.legal_moves(state, role)), f"{role} in {state}"


def game_state(game: Game[Any], row: Any) -> Any:
    return type(game.initial_state())(*(int(x) for x in row))


def states_of_random_matches(game: Game[Any], matches: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    out = []
    for _ in range(matches):
        state = game.initial_state()
        while True:
            out.append(state)
            if game.is_terminal(state):
                break
            moves = {r: rng.choice(game.legal_moves(state, r)) for r in game.roles}
            state = game.next_state(state, moves)
    return out


@pytest.mark.parametrize("name", NATIVE_TREES)
def test_kernels_make_the_games_children_legal_moves_and_goals(name: str) -> None:
    game = ggpkit.load(name)
    kernels = kernels_of(game)
    checked = 0
    for state in states_of_random_matches(game, 6, seed=3):
        rows = kernels.row(state)[None, :].copy()
        legal, term, goal = scratch(kernels, 1)
        kernels.describe(rows, np.zeros(1, dtype=np.int64), legal, term, goal, kernels.variant)
        described(game, kernels, rows[0], legal[0], term[0], goal[0])
        if term[0]:
            continue
        mover = next(r for r, role in enumerate(game.roles) if game.legal_moves(state, role) != [
            Const("noop")])  # fmt: skip
        lo, hi = kernels.move_start[mover], kernels.move_start[mover + 1]
        codes = [i for i in range(lo, hi) if legal[0][i]]
        other = 1 - mover
        noop = next(i for i in range(kernels.move_start[other], kernels.move_start[other + 1])
                    if legal[0][i])  # fmt: skip
        many = np.repeat(rows, len(codes), axis=0)
        joint = np.zeros((len(codes), 2), dtype=np.int64)
        joint[:, mover] = codes
        joint[:, other] = noop
        legal, term, goal = scratch(kernels, len(codes))
        kernels.children(many, np.arange(len(codes)), joint, legal, term, goal, kernels.variant)
        for j, code in enumerate(codes):
            move = kernels.move_term(mover, code - lo)
            moves = {game.roles[mover]: move, game.roles[other]: Const("noop")}
            child = game.next_state(state, moves)
            assert game_state(game, many[j]) == child, f"{move} from {state}"
            described(game, kernels, many[j], legal[j], term[j], goal[j])
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("name", NATIVE_TREES)
def test_playouts_sum_goals_the_game_allows(name: str) -> None:
    game = ggpkit.load(name)
    kernels = kernels_of(game)
    rows = np.stack([kernels.row(game.initial_state())] * 3)
    sums = np.zeros((3, 2), dtype=np.int64)
    played = kernels.playouts(rows, 10, 5, sums, kernels.variant)
    assert played > 30, "each playout makes moves"
    lo, hi = game.info.goal_range
    assert ((sums >= 10 * lo) & (sums <= 10 * hi)).all()
    assert (rows == kernels.row(game.initial_state())).all(), "the start rows stay"


def solve(game: Game[Any], state: Any, budget: list[int]) -> int:
    """White's exact goal in a win-or-lose game, by iterative deepening (a mover stops
    at its first win), within a budget of nodes."""

    @functools.cache
    def value(s: Any, depth: int) -> int | None:
        budget[0] -= 1
        if budget[0] < 0:
            raise TimeoutError
        if game.is_terminal(s):
            return game.goals(s)["white"]
        if depth == 0:
            return None
        mover = game.to_move(s)
        assert mover is not None
        other = next(r for r in game.roles if r != mover)
        win = 100 if mover == "white" else 0
        unknown = False
        for move in game.legal_moves(s, mover):
            v = value(game.next_state(s, {mover: move, other: Const("noop")}), depth - 1)
            if v == win:
                return win
            unknown = unknown or v is None
        return None if unknown else 100 - win

    for depth in range(1, 40):
        found = value(state, depth)
        if found is not None:
            return found
    raise TimeoutError


@pytest.mark.parametrize("name", ["breakthrough-holes", "breakthrough-holes-capture"])
def test_the_trees_proofs_match_an_exact_solve(name: str) -> None:
    game = ggpkit.load(name)
    make = game.info.capabilities.tree_search
    assert make is not None
    rng = random.Random(11)
    compared = 0
    for _ in range(40):
        line = states_of_random_matches(game, 1, seed=rng.randrange(10**6))
        state = line[max(0, len(line) - 1 - rng.randrange(2, 7))]
        if game.is_terminal(state):
            continue
        try:
            exact = solve(game, state, [20_000])
        except TimeoutError:
            continue
        report = make(10_000).search(
            state,
            SearchLimit(iterations=5_000),
            plain_options(c=0.4, leaf=1, seed=rng.randrange(100), paths=64),
        )
        if report.proven is None:
            continue
        assert round(100 * report.proven["white"]) == exact, f"{state}"
        compared += 1
    assert compared >= 10, f"{compared} proofs compared"
