"""PettingZoo's own checkers on native and public GDL games, and the layout they cannot see."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, parallel_api_test, seed_test

import ggpkit
from envs.support import corpus_file, run_quietly
from ggpkit.envs import pettingzoo as pz
from ggpkit.games.api import IllegalMoveError

NATIVE = sorted(ggpkit.games())

CORPUS = [
    "ticTacToe", "connectFour", "connectFourSimultaneous", "nim1", "chomp", "roshambo2",
    "gt_prisoner", "hanoi", "sum15", "tictactoe_3player", "pentago", "lightsOut",
]  # fmt: skip
"""Turn-taking and simultaneous, one to three roles, with and without a board."""


def _check_all(game: Any) -> None:
    run_quietly(lambda: api_test(pz.env(game), num_cycles=100))
    run_quietly(lambda: parallel_api_test(pz.parallel_env(game), num_cycles=100))
    run_quietly(lambda: seed_test(lambda: pz.env(game), num_cycles=30))


@pytest.mark.parametrize("name", NATIVE)
def test_pettingzoo_checkers_pass_on_native_games(name: str) -> None:
    _check_all(ggpkit.load(name))


@pytest.mark.parametrize("name", CORPUS)
def test_pettingzoo_checkers_pass_on_public_games(name: str) -> None:
    _check_all(ggpkit.load(str(corpus_file(name))))


def _play(env: pz.GgpAecEnv, moves: list[str]) -> None:
    for text in moves:
        agent = env.agent_selection
        role = env.session.game.role_index(agent)
        env.step(env.session.encoding.action(role, ggpkit.parse_term(text)))


def test_tic_tac_toe_planes_show_the_marks_where_they_were_made() -> None:
    env = pz.env(corpus_file("ticTacToe"))
    env.reset()
    _play(env, ["(mark 1 1)", "(mark 2 3)"])
    planes = env.session.encoding.planes
    assert planes is not None and set(planes.kinds) == {"x", "o"}
    obs = env.observe("xplayer")["observation"]
    x, o = planes.kinds.index("x"), planes.kinds.index("o")
    assert obs[x].sum() == 1 and obs[o].sum() == 1
    assert obs[x, planes.rows.index("1"), planes.cols.index("1")] == 1
    assert obs[o, planes.rows.index("3"), planes.cols.index("2")] == 1


def test_a_win_gives_plus_one_and_minus_one_in_a_zero_sum_game() -> None:
    env = pz.env(corpus_file("ticTacToe"))
    env.reset()
    # x takes the first column (mark col row): (1 1) (1 2) (1 3); o plays elsewhere.
    _play(env, ["(mark 1 1)", "(mark 2 1)", "(mark 1 2)", "(mark 2 2)", "(mark 1 3)"])
    assert env.terminations == {"xplayer": True, "oplayer": True}
    assert env.rewards == {"xplayer": 1.0, "oplayer": -1.0}


def test_general_sum_rewards_are_goals_over_100() -> None:
    game = ggpkit.load(str(corpus_file("gt_prisoner")))
    env = pz.parallel_env(game)
    env.reset()
    low, high = env.session.encoding.reward_range
    assert (low, high) == (0.0, 1.0)
    *_, rewards, terms, _, _ = _parallel_to_end(env)
    state = env.session.state
    assert all(terms.values())
    assert rewards == {r: g / 100 for r, g in game.goals(state).items()}


def _parallel_to_end(env: pz.GgpParallelEnv) -> tuple[Any, ...]:
    obs: Any = env.reset()[0]
    out: tuple[Any, ...] = ()
    rng = np.random.default_rng(0)
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        out = env.step(actions)
        obs = out[0]
    return out


def test_truncation_at_the_step_limit_gives_no_reward() -> None:
    env = pz.env("breakthrough-holes", max_steps=3)
    env.reset()
    mask = env.observe(env.agent_selection)["action_mask"]
    for _ in range(3):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
    assert env.session.steps == 3
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert set(env.rewards.values()) == {0.0}


def test_an_illegal_action_is_refused_with_the_games_reason() -> None:
    env = pz.env("breakthrough-holes")
    env.reset()
    mask = env.observe("white")["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalMoveError, match=f"action {illegal}"):
        env.step(illegal)
    with pytest.raises(ggpkit.GameError, match="outside"):
        env.step(len(mask))
    with pytest.raises(ggpkit.GameError, match="an action is an integer"):
        env.step(float(np.flatnonzero(mask)[0]))


def test_the_mask_marks_exactly_the_legal_moves() -> None:
    game = ggpkit.load("pawn-checkers")
    env = pz.env(game)
    env.reset()
    state = env.session.state
    for i, role in enumerate(game.roles):
        mask = env.observe(role)["action_mask"]
        marked = {env.session.encoding.moves[i][a] for a in np.flatnonzero(mask)}
        assert marked == set(game.legal_moves(state, role))


def test_simultaneous_moves_are_collected_before_the_joint_move() -> None:
    game = ggpkit.load(str(corpus_file("roshambo2")))
    env = pz.env(game)
    env.reset()
    first = env.agent_selection
    before = env.session.state
    mask = env.observe(first)["action_mask"]
    env.step(int(np.flatnonzero(mask)[0]))
    assert env.session.state == before  # nothing is played until every chooser has chosen
    assert env.agent_selection != first


def test_parallel_step_needs_an_action_from_every_role_with_a_choice() -> None:
    env = pz.parallel_env(corpus_file("roshambo2"))
    obs, _ = env.reset()
    first, second = env.agents
    one = int(np.flatnonzero(obs[first]["action_mask"])[0])
    with pytest.raises(IllegalMoveError, match="it has a choice"):
        env.step({first: one})
    with pytest.raises(IllegalMoveError, match="not a live agent"):
        env.step({first: one, second: one, "nobody": 0})
