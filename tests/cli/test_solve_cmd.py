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
from ggpkit.games.breakthrough import position
from ggpkit.gdl.kif import parse_term
from ggpkit.gdl.terms import facts_text

_load_commands()
runner = CliRunner()


@pytest.fixture(autouse=True)
def empty_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No peg table: the tests use the search, whatever the user has built."""
    monkeypatch.setenv("GGPKIT_CACHE_DIR", str(tmp_path / "cache"))


def test_solve_peg_prints_a_checked_31_jump_line() -> None:
    result = runner.invoke(app, ["solve", "peg"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[-1] == "value: jumper=100"
    moves = lines[:31]
    assert lines[31].startswith("check: 31 jumps")
    game: Any = ggpkit.load("peg")
    state = game.initial_state()
    for text in moves:
        assert text == str(parse_term(text))  # printed as the game API prints moves
        state = game.next_state(state, {"jumper": text})
    assert game.is_terminal(state) and game.goals(state) == {"jumper": 100}


def test_solve_peg_from_facts_of_an_endgame() -> None:
    game: Any = ggpkit.load("peg")
    state = game.from_holes(["b c4", "c c4", "d c5"])
    result = runner.invoke(app, ["solve", "peg", "--position", facts_text(game.facts(state))])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "(jump b c4 d c4)"
    assert lines[-1] == "value: jumper=99"


def test_solve_peg_after_a_move_list() -> None:
    result = runner.invoke(app, ["solve", "peg", "--position", "(jump b c4 d c4) (jump c c2 c c4)"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 29 + 2 and lines[-1] == "value: jumper=100"


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
    assert lines[1].startswith("plies: 5 ")
    assert lines[-1] == "value: white=100 black=0"
    assert sum(1 for line in lines if line[0].isdigit()) == 5  # the perfect-play line


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
