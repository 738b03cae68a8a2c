"""Agent specs: parsing, errors that list what is valid, and agents built from specs."""

from __future__ import annotations

from typing import Any

import pytest

from ggpkit.agents import specs
from ggpkit.agents.alphabeta import AlphaBetaAgent
from ggpkit.agents.base import Agent, Limit
from ggpkit.agents.mcts.agent import MCTSAgent
from ggpkit.agents.specs import SpecError, make_agent, parse_spec


@pytest.mark.parametrize(
    ("text", "name", "limit", "options"),
    [
        ("random", "random", Limit(), {}),
        ("mcts", "mcts", Limit(), {}),
        ("mcts:time=2", "mcts", Limit(time=2.0), {}),
        ("mcts:playouts=1000,c=1.4", "mcts", Limit(playouts=1000), {"c": 1.4}),
        (" alphabeta:depth=6 ", "alphabeta", Limit(depth=6), {}),
        ("alphabeta:time=1", "alphabeta", Limit(time=1.0), {}),
        ("alphabeta:time=0.5, depth=3", "alphabeta", Limit(time=0.5, depth=3), {}),
        ("solver", "solver", Limit(), {}),
        ("human", "human", Limit(), {}),
    ],
)
def test_parse_valid_specs(text: str, name: str, limit: Limit, options: dict[str, float]) -> None:
    spec = parse_spec(text)
    assert (spec.name, spec.limit, spec.options) == (name, limit, options)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("minimax", "the agents are random, mcts, alphabeta, solver, human"),
        ("mcts:depth=3", "its options are time, playouts, c, leaf"),
        ("random:time=1", "its options are none"),
        ("mcts:time=-1", "must be > 0"),
        ("mcts:time=fast", "time='fast'"),
        ("alphabeta:depth=2.5", "depth='2.5'"),
        ("mcts:playouts", "needs a value"),
        ("mcts:time=1,time=2", "given twice"),
        ("mcts:", "nothing after ':'"),
    ],
)
def test_bad_specs_say_what_is_valid(text: str, needle: str) -> None:
    with pytest.raises(SpecError) as info:
        parse_spec(text)
    assert needle in str(info.value)
    assert info.value.spec == text
    assert "\n" not in str(info.value)


def test_make_agent_passes_limits_and_options() -> None:
    agent = make_agent("mcts:playouts=100,c=0.5", seed=3)
    assert isinstance(agent, MCTSAgent)
    assert agent.limit == Limit(playouts=100)
    assert agent.options.c == 0.5
    assert agent.name == "mcts:playouts=100,c=0.5"
    ab = make_agent("alphabeta:depth=4")
    assert isinstance(ab, AlphaBetaAgent)
    assert ab.limit == Limit(depth=4)


def test_random_agent_from_spec_is_seeded() -> None:
    from .toy_games import TicTacToe

    game = TicTacToe()
    state = game.initial_state()
    picks = {str(make_agent("random", seed=s).select(game, state, "x", Limit())) for s in range(20)}
    again = {str(make_agent("random", seed=s).select(game, state, "x", Limit())) for s in range(20)}
    assert picks == again
    assert len(picks) > 1


def test_missing_agent_module_is_a_spec_error(monkeypatch: pytest.MonkeyPatch) -> None:
    kind = specs.AGENTS["solver"]
    broken = specs._Kind("ggpkit.agents.no_such_module:SolverAgent", kind.options, kind.help)
    monkeypatch.setitem(specs.AGENTS, "solver", broken)
    with pytest.raises(SpecError, match="the solver agent is not available"):
        make_agent("solver")


@pytest.mark.parametrize("name", list(specs.AGENTS))
def test_every_agent_name_builds_an_agent(name: str) -> None:
    agent = make_agent(name, seed=1)
    assert agent.name == name
    assert name in specs.describe_agents()


class FirstMoveAgent(Agent):
    """Always the first legal move (a class of a user's own)."""

    def __init__(self, limit: Limit | None = None, seed: int | None = None) -> None:
        self.limit = limit
        self.seed = seed

    def select(self, game: Any, state: Any, role: str, limit: Limit) -> Any:
        return game.legal_moves(state, role)[0]


def test_a_registered_agent_class_is_a_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(specs, "AGENTS", dict(specs.AGENTS))
    specs.register_agent("first", FirstMoveAgent)
    agent = make_agent("first:time=0.5", seed=3)
    assert type(agent) is FirstMoveAgent
    assert agent.name == "first:time=0.5"
    assert agent.limit == Limit(time=0.5)
    assert agent.seed == 3
    assert "first" in specs.describe_agents()
    with pytest.raises(SpecError, match="has no option 'c'"):
        make_agent("first:c=1")


def test_register_agent_refuses_taken_names_and_non_agents(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(specs, "AGENTS", dict(specs.AGENTS))
    with pytest.raises(SpecError, match="taken"):
        specs.register_agent("mcts", FirstMoveAgent)
    with pytest.raises(SpecError, match="not an Agent class"):
        specs.register_agent("plain", int)  # type: ignore[arg-type]
    with pytest.raises(SpecError, match="a word without"):
        specs.register_agent("a:b", FirstMoveAgent)
    assert "plain" not in specs.AGENTS


def test_a_registered_class_without_a_limit_takes_no_options(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(specs, "AGENTS", dict(specs.AGENTS))

    class Plain(Agent):
        def select(self, game: Any, state: Any, role: str, limit: Limit) -> Any:
            return game.legal_moves(state, role)[0]

    specs.register_agent("plain", Plain, "first move")
    assert type(make_agent("plain")) is Plain
    with pytest.raises(SpecError, match="has no option 'time'"):
        make_agent("plain:time=1")
