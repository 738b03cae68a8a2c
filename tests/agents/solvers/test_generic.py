"""The generic solver on small games written on the game API, and on the GDL tic-tac-toe."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import ggpkit
from ggpkit.agents.solvers.generic import CycleError, GenericSolver, NodeLimitError
from ggpkit.games.api import Dynamics, Game, GameInfo, Utility
from ggpkit.gdl.terms import Term, const
from ggpkit.search.contract import SimultaneousMovesError

from ..toy_games import Combination, Nim, Pennies, TicTacToe


def games_dir() -> Path:
    env = os.environ.get("GGPKIT_GAMES_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / ".." / "shared" / "ggp-games"


def test_tictactoe_is_a_draw() -> None:
    game = TicTacToe()
    solver = GenericSolver(game)
    assert solver.value(game.initial_state()) == {"x": 50, "o": 50}
    # every reachable non-terminal state expanded once: 4520 of them in tic-tac-toe
    assert solver.nodes == 4520


def test_tictactoe_won_position_and_its_winning_moves() -> None:
    # x to move, x on the first two cells of the top row, o on two of the middle row
    game = TicTacToe(start="xxboobbbb", mover=0)
    solver = GenericSolver(game)
    state = game.initial_state()
    assert solver.value(state) == {"x": 100, "o": 0}
    best = solver.best_moves(state, "x")
    assert "(mark 3 1)" in [str(m) for m in best]
    values = solver.move_values(state, "x")
    assert {m for m, v in values.items() if v["x"] == 100} == set(best)
    # letting o complete the middle row loses
    assert values[game.parse_move("(mark 1 3)")] == {"x": 0, "o": 100}


def test_nim_values_follow_the_mod_4_rule() -> None:
    for tokens in range(1, 13):
        game = Nim(tokens=tokens, players=2)
        first_wins = tokens % 4 != 0
        assert GenericSolver(game).value(game.initial_state()) == (
            {"p1": 100, "p2": 0} if first_wins else {"p1": 0, "p2": 100}
        )


def test_one_player_game_maximises_its_goal() -> None:
    game = Combination(secret="101101")
    assert GenericSolver(game).value(game.initial_state()) == {game.roles[0]: 100}


def test_simultaneous_game_is_refused_with_its_roles() -> None:
    game = Pennies(rounds=1)
    with pytest.raises(SimultaneousMovesError, match="simultaneous"):
        GenericSolver(game).value(game.initial_state())


def test_node_limit_stops_with_a_clear_error() -> None:
    game = TicTacToe()
    with pytest.raises(NodeLimitError, match="more than 100 states"):
        GenericSolver(game, node_limit=100).value(game.initial_state())


class _Loop(Game[int]):
    """One role walks around a ring of three states forever (never terminal but via 'stop')."""

    name = "loop"
    description = "a cycle"
    roles = ("walker",)
    info = GameInfo(Dynamics.TURN_TAKING, Utility.GENERAL_SUM)

    def initial_state(self) -> int:
        return 0

    def _legal(self, state: int, role_index: int) -> list[Term]:
        return [const("step"), const("stop")]

    def _next(self, state: int, moves: list[Term]) -> int:  # type: ignore[override]
        return -1 if str(moves[0]) == "stop" else (state + 1) % 3

    def is_terminal(self, state: int) -> bool:
        return state < 0

    def goals(self, state: int) -> dict[str, int]:
        return {"walker": 100 if state < 0 else 0}

    def facts(self, state: int) -> frozenset[Term]:
        return frozenset({const(f"s{state}")})


def test_cycle_is_refused() -> None:
    with pytest.raises(CycleError, match="cycle"):
        GenericSolver(_Loop()).value(0)


def test_gdl_tictactoe_is_a_draw() -> None:
    path = games_dir() / "ticTacToe.kif"
    if not path.is_file():
        pytest.skip("../shared/ggp-games is not here")
    game = ggpkit.load(str(path))
    assert GenericSolver(game).value(game.initial_state()) == {"xplayer": 50, "oplayer": 50}
