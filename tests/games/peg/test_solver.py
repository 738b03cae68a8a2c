"""The peg solver: hand-computed endgames, a brute force, the 31-jump solution, the table."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ggpkit
from ggpkit.games.peg.game import PegState
from ggpkit.games.peg.kernels import START
from ggpkit.games.peg.solver import (
    HOLES,
    PegSolver,
    board_of_facts,
    goal_of,
)
from ggpkit.games.peg.table import PegTable, build

GAME: Any = ggpkit.load("peg")
HOLE_NAMES = [f"{'abcdefg'[i // 7]} c{i % 7 + 1}" for i in HOLES]


@pytest.fixture(scope="module")
def solver() -> PegSolver:
    return PegSolver(table_bits=20)


def at(*holes: str) -> PegState:
    return GAME.from_holes(list(holes))


@cache
def brute_force(board: int) -> int:
    """Best goal reachable, by plain recursion over the game API (no symmetry, no pruning)."""
    state = PegState(board)
    if GAME.is_terminal(state):
        return int(GAME.goals(state)["jumper"])
    return max(
        brute_force(GAME.next_state(state, {"jumper": m}).board)
        for m in GAME.legal_moves(state, "jumper")
    )


def test_facts_give_the_board() -> None:
    state = at("d c4", "a c3")
    assert board_of_facts(GAME.facts(state)) == state.board
    assert board_of_facts(GAME.facts(GAME.initial_state())) == START


def test_two_pegs_one_jump_into_the_centre(solver: PegSolver) -> None:
    # d c2 over d c3 lands on d c4 (100); d c3 over d c2 lands on d c1 (99)
    answer = solver.solve(GAME, at("d c2", "d c3"))
    assert answer.value == 100
    assert [str(m) for m in answer.best_moves] == ["(jump d c2 d c4)"]
    assert {str(m): v for m, v in answer.moves.items()} == {
        "(jump d c2 d c4)": 100,
        "(jump d c3 d c1)": 99,
    }


def test_two_pegs_apart_are_an_end(solver: PegSolver) -> None:
    answer = solver.solve(GAME, at("a c3", "g c5"))
    assert (answer.value, answer.moves) == (90, {})


def test_three_pegs_best_is_one_peg_off_centre(solver: PegSolver) -> None:
    # b c4 over c c4 to d c4, then d c5 jumps over d c4 (or d c4 over d c5): one peg, not centre.
    # c c4 over b c4 to a c4 leaves two pegs (90).
    answer = solver.solve(GAME, at("b c4", "c c4", "d c5"))
    assert answer.value == 99
    assert [str(m) for m in answer.best_moves] == ["(jump b c4 d c4)"]


def test_four_pegs_cannot_reach_the_centre(solver: PegSolver) -> None:
    state = at("d c1", "d c2", "c c4", "b c4")
    # b c4 over c c4 to d c4 leaves d c1 d c2 d c4: d c1 over d c2 to d c3, then d c3 over
    # d c4 (to d c5) or d c4 over d c3 (to d c2): one peg, off centre (99). Starting with
    # d c1 over d c2 instead comes to the same three pegs. Every other first jump
    # (c c4 over b c4 to a c4) strands a peg far away.
    assert solver.solve(GAME, state).value == 99 == brute_force(state.board)


@settings(max_examples=60, deadline=None)
@given(holes=st.lists(st.sampled_from(HOLE_NAMES), min_size=1, max_size=7, unique=True))
def test_value_matches_brute_force(solver: PegSolver, holes: list[str]) -> None:
    state = at(*holes)
    answer = solver.solve(GAME, state)
    assert answer.value == brute_force(state.board)
    for move, value in answer.moves.items():
        assert value == brute_force(GAME.next_state(state, {"jumper": move}).board)


def test_start_has_a_31_jump_solution_scoring_100(solver: PegSolver) -> None:
    state = GAME.initial_state()
    line = solver.solution(GAME, state)
    assert len(line) == 31
    for move in line:  # next_state refuses any illegal jump
        state = GAME.next_state(state, {"jumper": move})
    assert GAME.is_terminal(state)
    assert GAME.goals(state) == {"jumper": 100}


def test_goal_of_matches_the_game() -> None:
    for holes in (["d c4"], ["a c3"], ["a c3", "g c5"], HOLE_NAMES[:10], HOLE_NAMES[:11]):
        state = at(*holes)
        assert goal_of(state.board) == GAME.goals(state)["jumper"]


def test_table_from_a_small_start_agrees_with_the_search(solver: PegSolver, tmp_path: Path) -> None:
    # a 9-peg position reachable from the start stands in for the start: small, same code
    state = GAME.initial_state()
    line = solver.solution(GAME, state)
    for move in line[:23]:
        state = GAME.next_state(state, {"jumper": move})
    assert state.board.bit_count() == 9
    path = build(tmp_path / "table", start=state.board)
    table = PegTable(path)
    assert table.lookup(state.board) == 100
    assert table.lookup(START) is None  # not reachable from that start
    # every position the table holds has the search's value
    fresh = PegSolver(table_bits=16)
    assert table.keys.shape[0] > 20
    for key in table.keys.tolist():
        assert table.lookup(int(key)) == fresh.value(int(key))[0]


def test_damaged_table_is_refused(tmp_path: Path) -> None:
    from ggpkit.games.peg.table import PegTableError

    with pytest.raises(PegTableError, match="build it with"):
        PegTable(tmp_path / "missing")
