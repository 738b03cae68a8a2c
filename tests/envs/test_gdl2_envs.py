"""GDL-II games in the research bridges: seats as agents, nature drawn (PettingZoo,
Gymnasium) or a chance player (OpenSpiel), and views, never states, as observations.

The checks that do not come from this project: PettingZoo's and Gymnasium's own API
tests, OpenSpiel's random simulation test, and OpenSpiel's exact best response and
policy evaluation on Monty Hall, which must find what probability says: switching
wins 2/3, staying 1/3, and no strategy does better than 2/3.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("pyspiel")

import pyspiel
from games.gdl2_support import MONTY_HALL, gdl2_dir
from gymnasium.utils.env_checker import check_env
from open_spiel.python import policy
from open_spiel.python.algorithms import best_response, expected_game_score
from pettingzoo.test import api_test, parallel_api_test

import ggpkit
from envs.hidden_card import hidden_card_file
from envs.support import run_quietly
from ggpkit.envs import gymnasium as ggp_gym
from ggpkit.envs import openspiel as ops
from ggpkit.envs import pettingzoo as pz
from ggpkit.games.api import GameError


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("gdl2")
    (path / "MontyHall.kif").write_text(MONTY_HALL, encoding="utf-8")
    hidden_card_file(path)
    return path


@pytest.fixture(scope="module")
def monty(folder: Path) -> str:
    return str(folder / "MontyHall.kif")


@pytest.fixture(scope="module")
def cards(folder: Path) -> str:
    return str(folder / "HiddenCard.kif")


# ---- PettingZoo ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["MontyHall.kif", "HiddenCard.kif"])
def test_pettingzoos_api_tests_pass(folder: Path, name: str) -> None:
    game = ggpkit.load(str(folder / name))
    run_quietly(lambda: api_test(pz.env(game), num_cycles=40))
    run_quietly(lambda: parallel_api_test(pz.parallel_env(game), num_cycles=40))


def test_the_agents_are_the_seats_and_nature_is_drawn_from_the_seed(monty: str) -> None:
    env = pz.env(monty)
    assert env.possible_agents == ["contestant"]

    def final_view(seed: int) -> str:
        env.reset(seed=seed)
        while env.agents and not env.terminations["contestant"]:
            mask = env.observe("contestant")["action_mask"]
            env.step(int(np.flatnonzero(mask)[0]))
        return str(env.infos["contestant"]["view"])

    views = [final_view(seed) for seed in range(8)]
    assert views[:4] == [final_view(seed) for seed in range(4)]  # the seed fixes nature
    assert len(set(views)) > 1  # and nature's doors vary with it


def _bob_and_alice_at_step_two(env: Any, seed: int) -> tuple[Any, Any, str]:
    """Bob's and alice's observations when first asked, and the card dealt (from the state)."""
    env.reset(seed=seed)
    assert env.agent_selection == "alice"
    alice = env.observe("alice")["observation"].copy()
    bob = env.observe("bob")["observation"].copy()
    dealt = next(str(f) for f in env.session.game.facts(env.session.state) if "dealt" in str(f))
    return alice, bob, dealt


def test_an_observation_is_the_view_never_the_hidden_state(cards: str) -> None:
    env = pz.env(cards)
    seen = [_bob_and_alice_at_step_two(env, seed) for seed in range(12)]
    dealt = {card for _, _, card in seen}
    assert len(dealt) == 3  # every card was dealt in some match
    assert len({bob.tobytes() for _, bob, _ in seen}) == 1  # bob cannot tell them apart
    by_card = {card: alice.tobytes() for alice, _, card in seen}
    assert len(set(by_card.values())) == 3  # alice sees her card
    for alice, _, card in seen:
        assert alice.tobytes() == by_card[card]
    assert "sees (card" in env.infos["alice"]["view"] and "(card" not in env.infos["bob"]["view"]


def test_a_simultaneous_step_asks_both_seats_before_either_learns_anything(cards: str) -> None:
    env = pz.env(cards)
    env.reset(seed=1)
    before = env.observe("bob")["observation"].copy()
    env.step(int(np.flatnonzero(env.observe("alice")["action_mask"])[0]))  # alice's hint
    assert env.agent_selection == "bob"
    assert env.observe("bob")["observation"].tobytes() == before.tobytes()
    env.step(int(np.flatnonzero(env.observe("bob")["action_mask"])[0]))  # bob's bet
    assert env.observe("bob")["observation"].tobytes() != before.tobytes()  # the hint came


# ---- Gymnasium ----------------------------------------------------------------------------


def test_gymnasium_plays_one_seat_against_nature(monty: str, cards: str) -> None:
    env = ggp_gym.make(monty)
    run_quietly(lambda: check_env(env, skip_render_check=True))
    first, info = env.reset(seed=4)
    assert not first["observation"].any() and info["view"] == "contestant, turn 0"
    with pytest.raises(GameError, match="2 seats"):
        ggp_gym.make(cards)


# ---- OpenSpiel ----------------------------------------------------------------------------


def test_openspiel_sees_a_game_of_imperfect_information_with_chance(monty: str) -> None:
    game = ops.load_game(monty)
    kind = game.get_type()
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.num_players() == 1
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert [p for _, p in outcomes] == pytest.approx([1 / 3] * 3)
    assert sorted(state.action_to_string(pyspiel.PlayerId.CHANCE, a) for a, _ in outcomes) == [
        "(place d1)", "(place d2)", "(place d3)",
    ]  # fmt: skip


@pytest.mark.parametrize("name", ["MontyHall.kif", "HiddenCard.kif"])
def test_openspiels_random_simulation_test_passes(folder: Path, name: str) -> None:
    game = ops.load_game(str(folder / name))
    pyspiel.random_sim_test(game, num_sims=20, serialize=True, verbose=False)


def test_information_states_hide_the_card_from_bob(cards: str) -> None:
    game = ops.load_game(cards)
    bob, alice = set(), set()
    for outcome, _ in game.new_initial_state().chance_outcomes():
        state = game.new_initial_state()
        state.apply_action(outcome)
        assert state.current_player() == 0  # alice hints first
        alice.add(state.information_state_string(0))
        bob.add(state.information_state_string(1))
        assert len(state.information_state_tensor(0)) == game.information_state_tensor_size()
    assert len(alice) == 3 and len(bob) == 1


def _named(action: str) -> policy.Policy:
    """The Monty Hall policy that plays ``action`` where it may, else uniformly."""

    class Named(policy.Policy):  # type: ignore[misc]
        def action_probabilities(self, state: Any, player_id: Any = None) -> dict[int, float]:
            legal = state.legal_actions()
            named = [a for a in legal if state.action_to_string(0, a) == action]
            return {named[0]: 1.0} if named else {a: 1 / len(legal) for a in legal}

    return Named(None, [0])


def test_openspiel_finds_that_switching_wins_two_thirds(monty: str) -> None:
    game = ops.load_game(monty)
    root = game.new_initial_state()
    switch = expected_game_score.policy_value(root, [_named("switch")])
    stay = expected_game_score.policy_value(root, [_named("stay")])
    assert (switch[0], stay[0]) == pytest.approx((2 / 3, 1 / 3))
    best = best_response.BestResponsePolicy(game, 0, policy.UniformRandomPolicy(game))
    assert best.value(root) == pytest.approx(2 / 3)


def test_the_public_monty_hall_also_gives_two_thirds() -> None:
    path = gdl2_dir() / "MontyHall.kif"
    game = ops.load_game(str(path))
    pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)
    best = best_response.BestResponsePolicy(game, 0, policy.UniformRandomPolicy(game))
    assert best.value(game.new_initial_state()) == pytest.approx(2 / 3)
