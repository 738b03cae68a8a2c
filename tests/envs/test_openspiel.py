"""OpenSpiel's own checker and algorithms on ggpkit games: random simulation with
serialisation, and minimax agreeing with ``ggpkit solve`` (MCTSBot: tests/examples)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyspiel")

import pyspiel
from open_spiel.python.algorithms import minimax
from typer.testing import CliRunner

import ggpkit
from envs.support import corpus_file
from ggpkit.cli import _load_commands, app
from ggpkit.envs import openspiel as ops

SOLVED = ["ticTacToe", "nim1", "sum15", "tictactoe-init1", "toetictac", "eotcatcit"]
"""Small two-role zero-sum public games the generic solver and minimax both finish."""

Dyn, Util = pyspiel.GameType.Dynamics, pyspiel.GameType.Utility


def _solve_value(path: str) -> dict[str, int]:
    """The last line of ``ggpkit solve``: ``value: ROLE=GOAL ...``."""
    _load_commands()
    result = CliRunner().invoke(app, ["solve", path])
    assert result.exit_code == 0, result.output
    last = [line for line in result.output.splitlines() if line.startswith("value:")][-1]
    return {k: int(v) for k, v in (pair.split("=") for pair in last.split()[1:])}


@pytest.mark.parametrize("name", SOLVED)
def test_minimax_agrees_with_ggpkit_solve(name: str) -> None:
    path = str(corpus_file(name))
    goals = _solve_value(path)
    game = ggpkit.load(path)
    first = game.roles[0]
    assert game.info.goal_range == (0, 100)
    expected = (goals[first] - 50) / 50  # goals 0..100 onto returns -1..1
    value, _ = minimax.alpha_beta_search(ops.load_game(path), maximum_depth=200)
    assert value == pytest.approx(expected)


@pytest.mark.parametrize(
    ("game", "dynamics", "utility", "players"),
    [
        ("ticTacToe", Dyn.SEQUENTIAL, Util.ZERO_SUM, 2),
        ("connectFourSimultaneous", Dyn.SIMULTANEOUS, Util.ZERO_SUM, 2),
        ("gt_prisoner", Dyn.SIMULTANEOUS, Util.GENERAL_SUM, 2),
        ("tictactoe_3player", Dyn.SEQUENTIAL, Util.GENERAL_SUM, 3),
        ("hanoi", Dyn.SEQUENTIAL, Util.GENERAL_SUM, 1),
    ],
)
def test_game_type_and_openspiels_random_simulation(
    game: str, dynamics: object, utility: object, players: int
) -> None:
    spiel = ops.load_game(corpus_file(game))
    kind = spiel.get_type()
    assert (kind.dynamics, kind.utility, spiel.num_players()) == (dynamics, utility, players)
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    pyspiel.random_sim_test(spiel, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("name", sorted(ggpkit.games()))
def test_openspiels_random_simulation_on_native_games(name: str) -> None:
    pyspiel.random_sim_test(ops.load_game(name), num_sims=2, serialize=True, verbose=False)


def test_loaded_by_name_with_the_game_as_parameter_and_state_round_trips() -> None:
    path = str(corpus_file("ticTacToe"))
    game = pyspiel.load_game(ops.SHORT_NAME, {"game": path})
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[4])
    text = pyspiel.serialize_game_and_state(game, state)
    again_game, again = pyspiel.deserialize_game_and_state(text)
    assert again_game.get_parameters()["game"] == path
    assert again.history() == state.history() and str(again) == str(state)
    assert again.observation_tensor(1) == state.observation_tensor(1)


def test_observation_tensor_is_the_board_then_the_other_facts() -> None:
    game = ops.load_game(corpus_file("ticTacToe"))
    state = game.new_initial_state()
    assert state.action_to_string(0, 0) == "(mark 1 1)"
    state.apply_action(0)
    tensor = np.asarray(state.observation_tensor(0))
    assert game.observation_tensor_shape() == [2 * 3 * 3 + 2]
    assert tensor[:18].sum() == 1  # one mark on the board
    assert tensor[18:].sum() == 1  # one control fact


def test_an_illegal_action_is_refused() -> None:
    state = ops.load_game("breakthrough-holes").new_initial_state()
    illegal = next(a for a in range(60) if a not in state.legal_actions())
    with pytest.raises(ggpkit.GameError, match="not among the legal actions"):
        state.apply_action(illegal)
