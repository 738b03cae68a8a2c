"""The goal heuristic's probe: used where mid-game goals foretell results, nowhere else."""

from __future__ import annotations

import random

import pytest

from ggpkit.agents.mcts.agent import MCTSAgent
from ggpkit.agents.mcts.compiled import Heuristics
from ggpkit.agents.mcts.goal_heuristic import GOAL_WEIGHT, banks_goals, goal_heuristic_weight
from ggpkit.agents.mcts.material_heuristic import MATERIAL_WEIGHT
from ggpkit.agents.mcts.options import MCTSOptions
from ggpkit.agents.mcts.probe import probe_matches
from ggpkit.agents.specs import SpecError, make_agent

from .corpus import public


@pytest.mark.parametrize(
    ("name", "used"),
    [
        ("checkersSmall", True),  # goals count pieces: the count mid-game foretells the end
        ("checkers", True),
        ("reversi", False),  # "more discs now" says nothing in random play
        ("knightThrough", False),  # no goal before the end
        ("connectFour", False),  # goals 0 until the end
        ("sheepAndWolf", False),  # each role's goal is constant before the end
        ("checkersBarrelNoKings", False),  # goals count captures: they only accumulate
        ("point_grab", False),  # points collected only accumulate
    ],
)
def test_the_heuristic_is_used_only_where_mid_game_goals_go_with_the_result(
    name: str, used: bool
) -> None:
    game = public(name)
    weight = goal_heuristic_weight(game, probe_matches(game, random.Random(1)))
    assert weight == (GOAL_WEIGHT if used else 0.0)


def test_without_matches_there_is_no_goal_heuristic() -> None:
    assert goal_heuristic_weight(public("checkersSmall"), None) == 0.0


def heuristics(agent: MCTSAgent) -> Heuristics:
    """What the agent's start decided for its compiled tree."""
    assert agent.compiled_tree is not None
    return agent.compiled_tree.heuristics


def test_the_agent_decides_at_the_start_unless_told() -> None:
    game = public("checkersSmall")
    decided = MCTSAgent()
    decided.start(game, game.roles[0])
    assert heuristics(decided).goals == GOAL_WEIGHT and heuristics(decided).pieces == ()
    told = MCTSAgent(options=MCTSOptions(goals=0.0, material=0.0))
    told.start(game, game.roles[0])
    assert heuristics(told).goals == 0.0
    # the material heuristic is decided instead
    without_goals = MCTSAgent(options=MCTSOptions(goals=0.0))
    without_goals.start(game, game.roles[0])
    decided_instead = heuristics(without_goals)
    assert decided_instead.goals == MATERIAL_WEIGHT and len(decided_instead.pieces) == 2
    other = public("reversi")
    decided.start(other, other.roles[0])
    assert heuristics(decided).goals == 0.0


def test_the_spec_takes_a_share() -> None:
    agent = make_agent("mcts:goals=0.25")
    assert isinstance(agent, MCTSAgent) and agent.options.goals == 0.25
    with pytest.raises(SpecError):
        make_agent("mcts:goals=2")


def test_banked_goals_get_neither_the_goal_nor_the_material_heuristic() -> None:
    game = public("checkersBarrelNoKings")  # goals count captures: they only accumulate
    decided = MCTSAgent()
    decided.start(game, game.roles[0])
    assert heuristics(decided).goals == 0.0 and heuristics(decided).pieces == ()
    # a weight given is used all the same
    asked = MCTSAgent(options=MCTSOptions(material=MATERIAL_WEIGHT))
    asked.start(game, game.roles[0])
    assert heuristics(asked).goals == MATERIAL_WEIGHT and len(heuristics(asked).pieces) == 2


def test_goals_settled_only_at_the_end_are_not_banked() -> None:
    game = public("breakthroughSmall")  # 0 before the end: the material heuristic stays
    assert not banks_goals(game, probe_matches(game, random.Random(1)) or [])
    decided = MCTSAgent()
    decided.start(game, game.roles[0])
    assert heuristics(decided).goals == MATERIAL_WEIGHT and len(heuristics(decided).pieces) == 2
