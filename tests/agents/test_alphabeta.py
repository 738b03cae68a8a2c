"""Alpha-beta: forced wins at small depth, limits, legality, and the evaluations' symmetry."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ggpkit
from ggpkit.agents.alphabeta import AlphaBetaAgent, AlphaBetaError
from ggpkit.agents.base import Limit
from ggpkit.games.api import Game
from ggpkit.games.capabilities import Evaluation
from ggpkit.games.evaluation import GenericEvaluation, PlayoutBlend

from .toy_games import Nim, Pennies, TicTacToe

NATIVE_TWO_PLAYER = [
    "pawn-checkers",
    "pawn-checkers-barrel",
    "breakthrough-holes",
    "breakthrough-holes-capture",
]


def test_takes_a_win_in_one() -> None:
    game = TicTacToe("xxboobbbb", mover=0)
    agent = AlphaBetaAgent(limit=Limit(depth=1))
    assert str(agent.select(game, game.initial_state(), "x", Limit())) == "(mark 3 1)"


def test_finds_a_fork_three_plies_deep() -> None:
    # x (corners 1 1 and 3 3) to move, o in the centre: a corner makes two threats at once
    game = TicTacToe("xbbbobbbx", mover=0)
    agent = AlphaBetaAgent(limit=Limit(depth=3))
    state = game.initial_state()
    move = agent.select(game, state, "x", Limit())
    assert agent.last_value >= 100  # a proven win for x
    after = game.play(state, move)
    # whatever o replies, x still wins by force
    for reply in game.legal_moves(after, "o"):
        follow = AlphaBetaAgent(limit=Limit(depth=1))
        nxt = game.play(after, reply)
        if not game.is_terminal(nxt):
            follow.select(game, nxt, "x", Limit())
            assert follow.last_value >= 100


def test_solves_nim_and_avoids_a_lost_move() -> None:
    for tokens in (5, 6, 7, 9, 10):
        game = Nim(tokens)
        agent = AlphaBetaAgent(limit=Limit(depth=tokens))
        move = agent.select(game, game.initial_state(), "p1", Limit())
        assert str(move) == f"(take {tokens % 4})"
        assert agent.last_value >= 100


def test_depth_limit_and_legal_moves_under_a_tiny_time() -> None:
    game = TicTacToe()
    agent = AlphaBetaAgent(limit=Limit(depth=2))
    move = agent.select(game, game.initial_state(), "x", Limit())
    assert agent.last_depth == 2
    assert move in game.legal_moves(game.initial_state(), "x")
    quick = AlphaBetaAgent()
    state = game.initial_state()
    while not game.is_terminal(state):
        mover = game.to_move(state)
        assert mover is not None
        move = quick.select(game, state, mover, Limit(time=0.001))
        assert move in game.legal_moves(state, mover)
        state = game.play(state, move)


def test_perfect_play_draws_tictactoe() -> None:
    game = TicTacToe()
    agents = {"x": AlphaBetaAgent(limit=Limit(depth=9)), "o": AlphaBetaAgent(limit=Limit(depth=9))}
    state = game.initial_state()
    while not game.is_terminal(state):
        mover = game.to_move(state)
        assert mover is not None
        state = game.play(state, agents[mover].select(game, state, mover, Limit()))
    assert game.goals(state) == {"x": 50, "o": 50}


def test_refuses_games_it_cannot_play() -> None:
    agent = AlphaBetaAgent(limit=Limit(depth=1))
    game = Pennies()
    with pytest.raises(AlphaBetaError, match="two-player turn-taking"):
        agent.select(game, game.initial_state(), "even", Limit())
    nim3 = Nim(5, players=3)
    with pytest.raises(AlphaBetaError, match="3 role"):
        agent.start(nim3, "p1")


def test_breakthrough_win_in_three() -> None:
    from ggpkit.games.breakthrough.game import position

    game = ggpkit.load("breakthrough-holes")
    # white (6,4) steps to row 5 and cannot be stopped: black's only piece is far away
    state = position([(6, 4), (1, 1)], [(1, 6)], "white")
    agent = AlphaBetaAgent(limit=Limit(depth=3))
    move = agent.select(game, state, "white", Limit())
    assert agent.last_value >= 100
    assert str(move).startswith("(move 6 4")


def test_checkers_does_not_hang_its_last_pawn() -> None:
    game: Game[Any] = ggpkit.load("pawn-checkers")
    make_state: Any = game.make_state  # type: ignore[attr-defined]
    # black (2,2) may step to (3,3), where red (4,4) jumps it and wins, or safely to (1,3)
    state = make_state(black=[(2, 2)], red=[(4, 4)], captures=(0, 0), control="black")
    agent = AlphaBetaAgent(limit=Limit(depth=2))
    assert str(agent.select(game, state, "black", Limit())) == "(move 2 2 1 3)"


@pytest.mark.parametrize("name", NATIVE_TWO_PLAYER)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 40))
def test_evaluation_is_antisymmetric(name: str, seed: int, steps: int) -> None:
    game = ggpkit.load(name)
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(steps):
        if game.is_terminal(state):
            break
        state = game.next_state(state, [rng.choice(ms) for ms in game.all_legal_moves(state)])
    ev = evaluation_for(game)
    assert type(ev) is not GenericEvaluation
    a, b = ev.value(game, state, 0), ev.value(game, state, 1)
    assert a == pytest.approx(-b)
    assert -100 < a < 100


def evaluation_for(game: Game[Any]) -> Evaluation:
    declared = game.info.capabilities.evaluation
    assert declared is not None, f"{game.name} declares no evaluation"
    return declared()


@pytest.mark.parametrize("name", NATIVE_TWO_PLAYER)
def test_facts_view_matches_the_state_view(name: str) -> None:
    """The evaluation reads facts when the state has no bitboard fields (GDL twins)."""
    game = ggpkit.load(name)

    rng = random.Random(1)
    state = game.initial_state()
    found = evaluation_for(game)
    ev = found.base if isinstance(found, PlayoutBlend) else found  # the static part
    for _ in range(30):
        if game.is_terminal(state):
            break
        state = game.next_state(state, [rng.choice(ms) for ms in game.all_legal_moves(state)])
        wrapped = _Opaque(state)
        shim = _FactsGame(game)
        assert ev.value(shim, wrapped, 0) == ev.value(game, state, 0)


class _Opaque:
    """A state without the engine's fields."""

    def __init__(self, state: Any) -> None:
        self.state = state

    def __hash__(self) -> int:
        return hash(self.state)


class _FactsGame:
    """Answers facts() and goals() for opaque states by unwrapping them."""

    def __init__(self, game: Game[Any]) -> None:
        self.game = game
        self.name = game.name
        self.roles = game.roles

    def facts(self, state: _Opaque) -> Any:
        return self.game.facts(state.state)

    def goals(self, state: _Opaque) -> Any:
        return self.game.goals(state.state)
