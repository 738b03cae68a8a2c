"""How the compiled tree's batch is split between paths and playouts a leaf."""

from __future__ import annotations

import math
from collections.abc import Hashable
from typing import Any

import pytest

import ggpkit
from ggpkit.agents.base import Limit
from ggpkit.agents.mcts import agent as mcts
from ggpkit.agents.mcts.agent import MCTSAgent
from ggpkit.agents.mcts.batch_split import path_seconds, paths_sharing_a_batch
from ggpkit.agents.mcts.options import MCTSOptions
from ggpkit.games.api import Game


@pytest.mark.parametrize(
    ("per_path", "per_playout", "paths"),
    [
        (7e-6, 0.27e-6, 4),  # 26 playouts' worth of tree a path: 16 a leaf at most
        (7e-6, 0.9e-6, 8),  # 7.8: 8 a leaf
        (5e-6, 0.9e-6, 16),  # 5.6: 4 a leaf (2^2.47)
        (6e-6, 2.9e-6, 32),  # 2.1: 2 a leaf
        (4e-6, 2.9e-6, 64),  # 1.4: one (2^0.46)
        (6e-6, 17e-6, 64),  # a playout costs more than a path: one each
        (8e-6, 1e-6, 8),  # exactly 8: 8 a leaf
        (0.0, 1e-6, 64),
        (math.nan, 1e-6, 64),  # nothing measured yet
        (1e-6, 0.0, 64),
    ],
)
def test_a_leaf_gets_as_many_playouts_as_its_path_costs(
    per_path: float, per_playout: float, paths: int
) -> None:
    assert paths_sharing_a_batch(per_path, per_playout) == paths


def test_a_paths_cost_leaves_out_its_playouts_and_needs_a_batch_of_paths() -> None:
    assert path_seconds(0.01, 1000, 64_000, 1e-7) == pytest.approx((0.01 - 0.0064) / 1000)
    assert path_seconds(0.01, 100, 1e9, 1e-7) == 0.0
    assert math.isnan(path_seconds(0.01, 63, 63, 1e-7))


def _agent_with_playouts_costing(
    monkeypatch: pytest.MonkeyPatch, per_playout: float, **options: Any
) -> tuple[MCTSAgent, Game[Any]]:
    def timed(game: Game[Any], state: Hashable) -> tuple[float, float]:
        return 1e-4, per_playout

    monkeypatch.setattr(mcts, "time_playouts", timed)
    game = ggpkit.load("breakthrough-holes")
    agent = MCTSAgent(seed=3, options=MCTSOptions(**options))
    agent.start(game, game.roles[0])
    return agent, game


def _assert_each_leaf_got(playouts: int, agent: MCTSAgent) -> None:
    """Every path's leaf got ``playouts`` playouts, but a path that ended on a proven
    node, which gets none: how many do depends on how far the timed calibration search
    in ``start`` grew the tree, so they may be a few, never a tenth."""
    assert agent.last_playouts % playouts == 0
    paths_played = agent.last_playouts // playouts
    assert 0.9 * agent.last_iterations <= paths_played <= agent.last_iterations


def test_cheap_playouts_give_each_leaf_sixteen(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any path costs more than 16 playouts of a nanosecond: 4 paths share a batch, and
    a search then plays 16 playouts a path."""
    agent, game = _agent_with_playouts_costing(monkeypatch, 1e-9)
    assert agent.compiled_tree is not None and agent.compiled_tree.paths == 4
    agent.select(game, game.initial_state(), game.roles[0], Limit(playouts=6400))
    _assert_each_leaf_got(16, agent)


def test_dear_playouts_give_each_leaf_one(monkeypatch: pytest.MonkeyPatch) -> None:
    agent, game = _agent_with_playouts_costing(monkeypatch, 1.0)
    assert agent.compiled_tree is not None and agent.compiled_tree.paths == 64
    agent.select(game, game.initial_state(), game.roles[0], Limit(playouts=6400))
    _assert_each_leaf_got(1, agent)


def test_paths_given_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    agent, game = _agent_with_playouts_costing(monkeypatch, 1e-9, paths=32)
    agent.select(game, game.initial_state(), game.roles[0], Limit(playouts=6400))
    assert agent.compiled_tree is not None and agent.compiled_tree.paths == 32
    _assert_each_leaf_got(2, agent)
