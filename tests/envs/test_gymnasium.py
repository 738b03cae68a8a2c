"""Gymnasium's own checker on one-role games, and what it does not check."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import gymnasium
from gymnasium.utils.env_checker import check_env

import ggpkit
from envs.support import corpus_file
from ggpkit.envs import gymnasium as ggp_gym

ONE_ROLE_PUBLIC = ["hanoi", "lightsOut", "coins", "eightPuzzle"]


def _checked(game: str) -> None:
    """check_env on the registered environment, its warnings turned into failures."""
    env = gymnasium.make(ggp_gym.ENV_ID, game=game, render_mode="ansi").unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env)


def test_check_env_passes_on_peg() -> None:
    _checked("peg")


@pytest.mark.parametrize("name", ONE_ROLE_PUBLIC)
def test_check_env_passes_on_one_role_public_games(name: str) -> None:
    _checked(str(corpus_file(name)))


def test_games_with_more_roles_are_refused() -> None:
    with pytest.raises(ggpkit.GameError, match="2 roles"):
        ggp_gym.make("breakthrough-holes")


def test_an_illegal_action_ends_the_episode_with_the_lowest_reward() -> None:
    env = ggp_gym.make("peg")
    obs, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert "illegal move" in info["illegal_move"]


def test_a_played_out_game_is_rewarded_its_goal_over_100() -> None:
    game = ggpkit.load("peg")
    env = ggp_gym.make(game)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(3)
    terminated = truncated = False
    reward = 0.0
    while not (terminated or truncated):
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, reward, terminated, truncated, _ = env.step(action)
    assert terminated and not truncated
    assert reward == game.goals(env.session.state)["jumper"] / 100
    assert not obs["action_mask"].any()
