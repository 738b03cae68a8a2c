"""The breakthrough-holes solver on endgames with known values, and against a brute force."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ggpkit
from ggpkit.games.breakthrough.game import BtState, position
from ggpkit.games.breakthrough.solver import (
    BreakthroughSolver,
    BtPosition,
    Outcome,
    cell_bit,
    position_of_facts,
)

GAME: Any = ggpkit.load("breakthrough-holes")
HOLES = {(2, 3), (3, 4), (4, 3), (5, 4)}


@pytest.fixture(scope="module")
def solver() -> BreakthroughSolver:
    return BreakthroughSolver(table_bits=16)


def brute_force(state: BtState) -> Outcome:
    """Perfect play by plain recursion over the game API: fastest win, slowest loss."""

    @cache
    def score(s: BtState) -> int:  # from the view of the side to move; +-(100 - plies)
        if GAME.is_terminal(s):
            return -100  # the side to move has lost (it cannot have won on the opponent's move)
        best = -1000
        for move in GAME.legal_moves(s, GAME.to_move(s)):
            v = -score(GAME.play(s, move))
            best = max(best, v - 1 if v > 0 else v + 1)
        return best

    if GAME.is_terminal(state):
        winner = "white" if GAME.goals(state)["white"] == 100 else "black"
        return Outcome(winner, 0)
    v = score(state)
    mover = GAME.to_move(state)
    other = "black" if mover == "white" else "white"
    return Outcome(mover if v > 0 else other, 100 - abs(v))


def outcome(solver: BreakthroughSolver, state: BtState) -> Outcome:
    return solver.outcome(position_of_facts(GAME.facts(state)))[0]


def test_facts_give_the_solver_position() -> None:
    pos = position_of_facts(GAME.facts(position([(1, 2)], [(6, 5)], "black")))
    assert pos == BtPosition(1 << cell_bit(1, 2), 1 << cell_bit(6, 5), 1)


def test_a_piece_one_step_from_home_wins_in_one_ply(solver: BreakthroughSolver) -> None:
    state = position([(1, 5)], [(6, 2)], "white")
    assert outcome(solver, state) == Outcome("white", 1)
    state = position([(1, 5)], [(6, 2)], "black")
    assert outcome(solver, state) == Outcome("black", 1)


def test_blocked_side_to_move_has_lost_already(solver: BreakthroughSolver) -> None:
    # white's only piece on (1,5) faces black on (1,6) and (2,6): no move, so black has won
    state = position([(1, 5)], [(1, 6), (2, 6)], "white")
    assert GAME.is_terminal(state)
    assert outcome(solver, state) == Outcome("black", 0)


def test_race_won_by_the_side_ahead(solver: BreakthroughSolver) -> None:
    # white needs 3 moves (plies 1, 3, 5); black needs 5 moves and cannot block both lanes
    state = position([(1, 3)], [(6, 6)], "white")
    assert outcome(solver, state) == Outcome("white", 5)


def test_zugzwang_loser_moves_last(solver: BreakthroughSolver) -> None:
    # white's one piece is stuck behind black's; black just waits with its other piece
    state = position([(1, 4)], [(1, 5), (2, 5), (6, 6)], "white")
    assert outcome(solver, state) == brute_force(state)


cells = st.tuples(st.integers(1, 6), st.integers(1, 6)).filter(lambda c: c not in HOLES)


@settings(max_examples=40, deadline=None)
@given(
    white=st.lists(cells.filter(lambda c: 2 <= c[1] <= 5), min_size=1, max_size=3, unique=True),
    black=st.lists(cells.filter(lambda c: 2 <= c[1] <= 5), min_size=1, max_size=3, unique=True),
    control=st.sampled_from(["white", "black"]),
)
def test_solver_matches_brute_force(
    solver: BreakthroughSolver,
    white: list[tuple[int, int]],
    black: list[tuple[int, int]],
    control: str,
) -> None:
    black = [c for c in black if c not in white]
    assume(black)
    state = position(white, black, control)
    assert outcome(solver, state) == brute_force(state)


def test_best_moves_win_fastest(solver: BreakthroughSolver) -> None:
    state = position([(1, 3), (6, 5)], [(3, 2)], "white")
    answer = solver.solve(GAME, state)
    assert answer.outcome == Outcome("white", 1)
    assert {str(m) for m in answer.best_moves} == {"(move 6 5 6 6)", "(move 6 5 5 6)"}
    for move, after in answer.moves.items():
        assert after == Outcome(
            brute_force(GAME.play(state, move)).winner,
            brute_force(GAME.play(state, move)).plies + 1,
        )
