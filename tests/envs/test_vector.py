"""The vector environment against the game contract: every match, every step, replayed one
at a time through ``next_state`` (for native games, on the native engine itself)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ggpkit
from envs.support import corpus_file
from ggpkit.envs.vector import VectorEnv, random_actions
from ggpkit.games.encoding import Encoding


def _replay_check(game: Any, num_envs: int, steps: int, max_steps: int | None = None) -> int:
    """Step a vector env with random actions and check every match against the game API;
    returns how many matches ended."""
    env = VectorEnv(game, num_envs, max_steps=max_steps)
    enc = Encoding(game)
    limit = env.max_steps
    obs, masks = env.reset()
    states = [game.initial_state() for _ in range(num_envs)]
    played = [0] * num_envs
    rng = np.random.default_rng(11)
    ended = 0
    for _ in range(steps):
        for i, state in enumerate(states):
            assert np.array_equal(obs[i], enc.base_bits(state))
            for r in range(len(game.roles)):
                assert np.array_equal(masks[r][i], enc.legal_mask(state, r))
        actions = random_actions(masks, rng)
        out = env.step(actions)
        for i in range(num_envs):
            joint = [enc.move(r, actions[i, r]) for r in range(len(game.roles))]
            after = game.next_state(states[i], joint)
            played[i] += 1
            over = game.is_terminal(after)
            assert out.terminated[i] == over
            assert out.truncated[i] == (not over and played[i] >= limit)
            expected = (
                [enc.scaled(g) for g in game.goals(after).values()]
                if over
                else [0.0] * len(game.roles)
            )
            assert out.rewards[i].tolist() == pytest.approx(expected)
            if over or played[i] >= limit:
                assert np.array_equal(out.final_observations[i], enc.base_bits(after))
                ended += 1
                after, played[i] = game.initial_state(), 0
            states[i] = after
        obs, masks = out.observations, out.masks
    return ended


def test_tic_tac_toe_matches_the_gdl_game_step_by_step() -> None:
    assert _replay_check(ggpkit.load(str(corpus_file("ticTacToe"))), 70, 25) > 70


@pytest.mark.parametrize("name", ["breakthrough-holes", "breakthrough-holes-capture"])
def test_native_breakthrough_matches_its_engine_step_by_step(name: str) -> None:
    assert _replay_check(ggpkit.load(name), 20, 60) > 0


def test_peg_matches_its_engine_step_by_step() -> None:
    assert _replay_check(ggpkit.load("peg"), 70, 40) > 0


@pytest.mark.parametrize("name", ["pawn-checkers", "pawn-checkers-barrel"])
def test_native_checkers_matches_its_engine_step_by_step(name: str) -> None:
    assert _replay_check(ggpkit.load(name), 10, 120) > 0


@pytest.mark.parametrize(
    ("name", "stepper"),
    [
        ("breakthrough-holes", "BreakthroughStepper"),
        ("peg", "PegStepper"),
        ("pawn-checkers", "CheckersStepper"),
        ("pawn-checkers-barrel", "CheckersStepper"),
    ],
)
def test_which_engine_steps_the_batch(name: str, stepper: str) -> None:
    assert type(ggpkit.load(name).batch_stepper(2, 10)).__name__ == stepper


def test_peg_with_a_step_limit_is_truncated_and_restarted() -> None:
    assert _replay_check(ggpkit.load("peg"), 3, 12, max_steps=5) == 6


def test_minus_one_plays_the_only_legal_move() -> None:
    env = VectorEnv("breakthrough-holes", 2)
    _, masks = env.reset()
    white = np.flatnonzero(masks[0][0])[0]
    out = env.step([[white, -1], [white, -1]])
    assert not out.terminated.any()
    with pytest.raises(ggpkit.GgpkitError, match="role with a choice"):
        env.step([[-1, -1], [-1, -1]])


def test_an_illegal_action_is_refused_and_nothing_moves() -> None:
    env = VectorEnv("breakthrough-holes", 2)
    obs, masks = env.reset()
    legal = np.flatnonzero(masks[0][0])[0]
    illegal = np.flatnonzero(masks[0][0] == 0)[0]
    with pytest.raises(ggpkit.GgpkitError, match="not legal"):
        env.step([[legal, -1], [illegal, -1]])
    out = env.step([[legal, -1], [legal, -1]])
    assert np.array_equal(out.observations[0], out.observations[1])
    assert not np.array_equal(out.observations[0], obs[0])


def test_bad_shapes_are_refused() -> None:
    env = VectorEnv("peg", 4)
    env.reset()
    with pytest.raises(ggpkit.GameError, match=r"shape \(4, 1\)"):
        env.step([0, 0, 0, 0])
    with pytest.raises(ggpkit.GameError, match="or -1"):
        env.step([[0], [0], [0], [-2]])
