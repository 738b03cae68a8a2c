"""``ggpkit solve``: peg's checked 31-jump line, breakthrough endgames, the generic solver."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import ggpkit
from ggpkit.agents.solvers.generic import NodeLimitError
from ggpkit.cli import _load_commands, app
from ggpkit.games.breakthrough.game import position
from ggpkit.gdl.kif import parse_term
from ggpkit.gdl.terms import facts_text

_load_commands()
runner = CliRunner()


@pytest.fixture(autouse=True)
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No peg table: the tests use the search, whatever the user has built."""
    monkeypatch.setenv("GGPKIT_CACHE_DIR", str(tmp_path / "cache"))


def line_moves(output: str) -> list[tuple[str, str]]:
    """The perfect-play line printed as ``N. role move``, as (role, move) pairs."""
    out = []
    for number, line in enumerate((x for x in output.splitlines() if x[:1].isdigit()), 1):
        head, role, move = line.split(" ", 2)
        assert head == f"{number}."
        out.append((role, move))
    return out


def test_solve_peg_prints_a_checked_31_jump_line() -> None:
    result = runner.invoke(app, ["solve", "peg"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[-1] == "value: jumper=100"
    assert lines[-2].startswith("check: 31 joint moves")
    moves = line_moves(result.stdout)
    assert len(moves) == 31
    game: Any = ggpkit.load("peg")
    state = game.initial_state()
    for role, text in moves:
        assert role == "jumper"
        assert text == str(parse_term(text))  # printed as the game API prints moves
        state = game.next_state(state, {"jumper": text})
    assert game.is_terminal(state) and game.goals(state) == {"jumper": 100}


def test_solve_peg_from_facts_of_an_endgame() -> None:
    game: Any = ggpkit.load("peg")
    state = game.from_holes(["b c4", "c c4", "d c5"])
    result = runner.invoke(app, ["solve", "peg", "--position", facts_text(game.facts(state))])
    assert result.exit_code == 0, result.output
    assert line_moves(result.stdout)[0] == ("jumper", "(jump b c4 d c4)")
    assert result.stdout.splitlines()[-1] == "value: jumper=99"


def test_solve_peg_after_a_move_list() -> None:
    result = runner.invoke(app, ["solve", "peg", "--position", "(jump b c4 d c4) (jump c c2 c c4)"])
    assert result.exit_code == 0, result.output
    assert len(line_moves(result.stdout)) == 29
    assert result.stdout.splitlines()[-1] == "value: jumper=100"


def test_a_position_that_is_neither_moves_nor_facts_is_one_clear_error() -> None:
    result = runner.invoke(app, ["solve", "peg", "--position", "(jump a c1 z c9)"])
    assert isinstance(result.exception, ggpkit.GameError)
    assert "neither a move list from the start" in str(result.exception)


def test_solve_peg_bench_reports_times() -> None:
    result = runner.invoke(app, ["solve", "peg", "--bench", "3", "--seed", "5"])
    assert result.exit_code == 0, result.output
    assert "query time: median" in result.stdout


def test_solve_breakthrough_endgame() -> None:
    game: Any = ggpkit.load("breakthrough-holes")
    state = position([(1, 3)], [(6, 6)], "white")
    result = runner.invoke(
        app, ["solve", "breakthrough-holes", "--position", facts_text(game.facts(state))]
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "winner with perfect play: white"
    assert any(line.startswith("plies: 5 ") for line in lines)
    assert lines[-1] == "value: white=100 black=0"
    assert [role for role, _ in line_moves(result.stdout)] == ["white", "black"] * 2 + ["white"]


def test_generic_solver_node_limit() -> None:
    result = runner.invoke(app, ["solve", "pawn-checkers", "--node-limit", "100"])
    assert isinstance(result.exception, NodeLimitError)


def test_solve_gdl_tictactoe() -> None:
    env = os.environ.get("GGPKIT_GAMES_DIR")
    games = (
        Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared" / "ggp-games"
    )
    path = games / "ticTacToe.kif"
    if not path.is_file():
        pytest.skip("../shared/ggp-games is not here")
    result = runner.invoke(app, ["solve", str(path)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == "value: xplayer=50 oplayer=50"
