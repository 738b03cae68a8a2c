"""The compiled pawn-checkers search: exact values against the generic search, legal moves."""

from __future__ import annotations

import random
from collections.abc import Hashable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ggpkit.agents.alphabeta import AlphaBetaAgent
from ggpkit.agents.base import Limit
from ggpkit.games.api import Game
from ggpkit.games.checkers.game import CheckersState, PawnCheckers, PawnCheckersBarrel
from ggpkit.games.checkers.search import MODE_FULL, MODE_GOALS, SCALE, CheckersSearch
from ggpkit.games.evaluation import GenericEvaluation

GAMES = [PawnCheckers(), PawnCheckersBarrel()]


class _GoalDifference(GenericEvaluation):
    """The bare goal difference: what the compiled search's MODE_GOALS evaluates."""

    def value(self, game: Game[Any], state: Hashable, role: int) -> float:
        goals = game.goals(state)
        return float(goals[game.roles[role]] - goals[game.roles[1 - role]])


def _generic_value(game: PawnCheckers, state: CheckersState, depth: int) -> float:
    """The generic (term-level) alpha-beta's root value at ``depth``, for the mover."""
    agent = AlphaBetaAgent(limit=Limit(depth=depth), compiled=False, evaluation=_GoalDifference())
    mover = game.to_move(state)
    assert mover is not None
    agent.select(game, state, mover, Limit())
    return agent.last_value


def _random_state(game: PawnCheckers, seed: int, plies: int) -> CheckersState:
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(plies):
        mover = game.to_move(state)
        if mover is None:
            break
        state = game.play(state, rng.choice(game.legal_moves(state, mover)), mover)
    return state


def _term_of(game: PawnCheckers, state: CheckersState, frm: int, to: int) -> str:
    mover = game.to_move(state)
    assert mover is not None
    wanted = (frm % 8 + 1, frm // 8 + 1, to % 8 + 1, to // 8 + 1)
    names = [
        str(m)
        for m in game.legal_moves(state, mover)
        if tuple(int(a.name) for a in getattr(m, "args", ())) == wanted
    ]
    assert len(names) == 1, f"{wanted} is not a legal move in\n{game.render(state)}"
    return names[0]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 100_000), plies=st.integers(0, 70), depth=st.integers(1, 3))
def test_agrees_with_the_generic_search(
    game: PawnCheckers, seed: int, plies: int, depth: int
) -> None:
    state = _random_state(game, seed, plies)
    if game.is_terminal(state) or len(game.legal_moves(state, game.roles[state.control])) < 2:
        return  # the generic agent does not search a forced move
    search = CheckersSearch(game.wrap, MODE_GOALS)
    result = search.search(state, None, depth)
    assert result.depth == depth
    assert result.value / SCALE == pytest.approx(_generic_value(game, state, depth), abs=1e-9)
    _term_of(game, state, result.frm, result.to)  # a legal move


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 100_000), plies=st.integers(80, 92))
def test_solves_endings_exactly(game: PawnCheckers, seed: int, plies: int) -> None:
    """Near the step limit both searches see the whole game: the values must be equal."""
    state = _random_state(game, seed, plies)
    if game.is_terminal(state) or len(game.legal_moves(state, game.roles[state.control])) < 2:
        return
    remaining = 100 - state.step
    result = CheckersSearch(game.wrap, MODE_FULL).search(state, None, remaining)
    assert result.value / SCALE == pytest.approx(_generic_value(game, state, remaining), abs=1e-9)


def test_finds_a_quiet_move_that_wins_a_pawn() -> None:
    game = PawnCheckers()
    # Six plies before the step limit, no jump on the board: black must find the
    # step that wins a pawn by force (checked against the generic search to the end).
    state = game.make_state(
        black=[(5, 3), (3, 3), (7, 3)], red=[(7, 5), (2, 8)], step=94, control="black"
    )
    remaining = 100 - state.step
    result = CheckersSearch(False).search(state, None, remaining)
    best = _generic_value(game, state, remaining)
    assert best > 0  # black out-captures red by force
    assert result.value / SCALE == pytest.approx(best, abs=1e-9)
    move = _term_of(game, state, result.frm, result.to)
    after = game.play(state, move, "black")
    assert move.startswith("(move")  # a quiet step, not a capture
    # the move keeps the win: red's best reply still loses as much (shading is one ply less)
    assert _generic_value(game, after, remaining - 1) == pytest.approx(-best, abs=0.0015)


def test_takes_the_only_jump_and_the_compulsory_rule() -> None:
    game = PawnCheckers()
    state = game.make_state(black=[(2, 2), (6, 2)], red=[(3, 3)], control="black")
    result = CheckersSearch(False).search(state, None, 4)
    assert _term_of(game, state, result.frm, result.to) == "(jump 2 2 4 4)"


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_time_limited_agent_plays_legal_moves(game: PawnCheckers) -> None:
    """A whole game under a short clock: every move legal (timing is measured by commands)."""
    agents = {role: AlphaBetaAgent(limit=Limit(time=0.02)) for role in game.roles}
    for role, agent in agents.items():
        agent.start(game, role)
    state = game.initial_state()
    while not game.is_terminal(state):
        mover = game.to_move(state)
        assert mover is not None
        move = agents[mover].select(game, state, mover, Limit())
        assert move in game.legal_moves(state, mover)
        state = game.play(state, move, mover)
    assert state.step <= 100


def test_a_tiny_node_budget_still_gives_a_move() -> None:
    game = PawnCheckers()
    search = CheckersSearch(False)
    search.nps = 1.0  # the first budget is the minimum: deeper iterations are abandoned
    result = search.search(game.initial_state(), 1e-6)
    assert result.depth >= 1
    _term_of(game, game.initial_state(), result.frm, result.to)
