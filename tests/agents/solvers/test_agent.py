"""SolverAgent: perfect moves from the dedicated solvers and the generic one; clear refusals."""

from __future__ import annotations

import random
from typing import Any

import pytest
from games.breakthrough.test_solver import brute_force
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import ggpkit
from ggpkit.agents.base import Limit
from ggpkit.agents.solvers import SolverAgent, SolverError
from ggpkit.agents.solvers.agent import solver_for
from ggpkit.agents.solvers.generic import GenericSolver
from ggpkit.games.breakthrough.game import position
from ggpkit.search.contract import SimultaneousMovesError

from ..toy_games import Pennies, TicTacToe

BT: Any = ggpkit.load("breakthrough-holes")
HOLES = {(2, 3), (3, 4), (4, 3), (5, 4)}
NO_LIMIT = Limit()


def test_solver_by_declaration() -> None:
    """Games that declare an exact solver get it (twins too); the others the generic one."""
    for name in ("peg", "breakthrough-holes"):
        for engine in ("native", "gdl"):
            game = ggpkit.load(name, engine=engine)
            assert game.info.capabilities.solver is not None
            assert not isinstance(solver_for(game, 10), GenericSolver)
    assert isinstance(solver_for(ggpkit.load("breakthrough-holes-capture"), 10), GenericSolver)
    assert isinstance(solver_for(TicTacToe(), 10), GenericSolver)


cells = st.tuples(st.integers(1, 6), st.integers(2, 5)).filter(lambda c: c not in HOLES)


@settings(max_examples=25, deadline=None)
@given(
    white=st.lists(cells, min_size=1, max_size=3, unique=True),
    black=st.lists(cells, min_size=1, max_size=3, unique=True),
    control=st.sampled_from(["white", "black"]),
)
def test_breakthrough_agent_keeps_every_won_position(
    white: list[tuple[int, int]], black: list[tuple[int, int]], control: str
) -> None:
    """In a won position the agent wins, as fast as possible, against any defence."""
    black = [c for c in black if c not in white]
    assume(black)
    state = position(white, black, control)
    assume(not BT.is_terminal(state))
    solved = brute_force(state)
    assume(solved.winner == control)
    agent = SolverAgent()
    agent.start(BT, control)
    rng = random.Random(len(white) * 7 + len(black))
    plies = 0
    while not BT.is_terminal(state):
        mover = BT.to_move(state)
        if mover == control:
            move = agent.select(BT, state, mover, NO_LIMIT)
            after = BT.play(state, move)
            # the move keeps the win and shortens it by exactly one ply
            assert brute_force(after).winner == control
            assert brute_force(after).plies == brute_force(state).plies - 1
        else:
            move = rng.choice(BT.legal_moves(state, mover))
            after = BT.play(state, move)
        state = after
        plies += 1
    assert BT.goals(state)[control] == 100
    assert plies <= solved.plies


def test_breakthrough_agent_lost_position_holds_out_longest() -> None:
    state = position([(1, 3)], [(6, 6)], "black")  # white wins in 5 whatever black does... here 6
    solved = brute_force(state)
    assert solved.winner == "white"
    agent = SolverAgent()
    move = agent.select(BT, state, "black", NO_LIMIT)
    assert brute_force(BT.play(state, move)).plies == solved.plies - 1


def test_peg_agent_solves_the_start() -> None:
    game = ggpkit.load("peg")
    agent = SolverAgent()
    agent.start(game, "jumper")
    state = game.initial_state()
    while not game.is_terminal(state):
        state = game.next_state(state, {"jumper": agent.select(game, state, "jumper", NO_LIMIT)})
    assert game.goals(state) == {"jumper": 100}


def test_generic_agent_never_loses_tictactoe() -> None:
    game = TicTacToe()
    agent = SolverAgent()
    for seed in range(6):
        rng = random.Random(seed)
        me = game.roles[seed % 2]
        agent.start(game, me)
        state = game.initial_state()
        while not game.is_terminal(state):
            mover = game.to_move(state)
            assert mover is not None
            if mover == me:
                move = agent.select(game, state, me, NO_LIMIT)
            else:
                move = rng.choice(game.legal_moves(state, mover))
            state = game.play(state, move)
        assert game.goals(state)[me] >= 50
        agent.stop()


def test_unsolvable_games_raise_a_clear_error() -> None:
    game = Pennies(rounds=2)
    with pytest.raises(SimultaneousMovesError, match="simultaneous"):
        SolverAgent().select(game, game.initial_state(), game.roles[0], NO_LIMIT)
    checkers = ggpkit.load("pawn-checkers")
    with pytest.raises(SolverError, match="too big"):
        SolverAgent(node_limit=200).select(checkers, checkers.initial_state(), "black", NO_LIMIT)
