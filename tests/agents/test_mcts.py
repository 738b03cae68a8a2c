"""MCTS: legal moves, limits, immediate wins, solver proofs, one-player lines, simultaneity."""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Hashable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ggpkit.agents.base import Limit
from ggpkit.agents.mcts.agent import MCTSAgent
from ggpkit.games.api import Game

from .toy_games import Combination, Dilemma, GiveUp, Nim, Pennies, TicTacToe, Traps


def random_walk(game: Game[Any], steps: int, seed: int) -> Hashable:
    """The state after up to ``steps`` random joint moves (stops at a terminal state)."""
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(steps):
        if game.is_terminal(state):
            break
        state = game.next_state(state, [rng.choice(ms) for ms in game.all_legal_moves(state)])
    return state


def minimax(game: TicTacToe, state: Hashable) -> int:
    """Exact goal of x under perfect play (brute force)."""
    if game.is_terminal(state):
        return game.goals(state)["x"]
    mover = game.to_move(state)
    assert mover is not None
    values = [minimax(game, game.play(state, m)) for m in game.legal_moves(state, mover)]
    return max(values) if mover == "x" else min(values)


@settings(max_examples=25, deadline=None)
@given(
    which=st.sampled_from(["nim", "ttt", "pennies", "nim3", "dilemma"]),
    steps=st.integers(0, 6),
    seed=st.integers(0, 10_000),
)
def test_every_chosen_move_is_legal(which: str, steps: int, seed: int) -> None:
    game: Game[Any] = {
        "nim": Nim(13),
        "nim3": Nim(11, players=3),
        "ttt": TicTacToe(),
        "pennies": Pennies(4),
        "dilemma": Dilemma(),
    }[which]
    state = random_walk(game, steps, seed)
    agent = MCTSAgent(seed=seed)
    agent.start(game, game.roles[0])
    while not game.is_terminal(state):
        joint = []
        for role in game.roles:
            move = agent.select(game, state, role, Limit(playouts=30))
            assert move in game.legal_moves(state, role)
            joint.append(move)
        state = game.next_state(state, joint)
    agent.stop()


def test_takes_the_immediate_win() -> None:
    game = TicTacToe("xxboobbbb", mover=0)  # x to move: (mark 3 1) completes the top row
    agent = MCTSAgent(seed=1)
    assert str(agent.select(game, game.initial_state(), "x", Limit(playouts=200))) == "(mark 3 1)"
    nim = Nim(3)
    assert str(MCTSAgent(seed=1).select(nim, (3, 0), "p1", Limit(playouts=50))) == "(take 3)"


def test_solver_proves_nim_and_plays_the_winning_move() -> None:
    for tokens in (5, 6, 7, 9, 10, 11):
        game = Nim(tokens)
        agent = MCTSAgent(seed=tokens)
        move = agent.select(game, game.initial_state(), "p1", Limit(playouts=20_000))
        assert agent.root_value() == (1.0, 0.0)  # tokens % 4 != 0: the first player wins
        assert str(move) == f"(take {tokens % 4})"
    lost = Nim(8)
    agent = MCTSAgent(seed=0)
    agent.select(lost, lost.initial_state(), "p1", Limit(playouts=20_000))
    assert agent.root_value() == (0.0, 1.0)


def test_solver_proves_a_tictactoe_middle_game() -> None:
    for start, mover in (("xobbxbbbo", 0), ("xbbbobbbb", 0), ("xobbbbbbb", 0)):
        game = TicTacToe(start, mover)
        state = game.initial_state()
        agent = MCTSAgent(seed=7)
        move = agent.select(game, state, "x", Limit(playouts=60_000))
        exact = minimax(game, state)
        assert agent.root_value() == (exact / 100, 1 - exact / 100)
        assert minimax(game, game.play(state, move)) == exact


def test_solver_values_for_three_players_are_exact() -> None:
    game = Nim(6, players=3)
    agent = MCTSAgent(seed=2)
    agent.select(game, game.initial_state(), "p1", Limit(playouts=20_000))
    value = agent.root_value()
    assert value is not None and sorted(value) == [0.0, 0.0, 1.0]


def test_one_player_game_finds_and_plays_the_best_line() -> None:
    game = Combination("1011010")
    agent = MCTSAgent(seed=5)
    agent.start(game, "solver")
    state = game.initial_state()
    while not game.is_terminal(state):
        state = game.play(state, agent.select(game, state, "solver", Limit(playouts=400)))
    assert game.goals(state) == {"solver": 100}


def test_an_early_end_below_the_top_waits_while_it_stays_open() -> None:
    """Giving up (5) is the best line short searches see; played at once it ends every
    chance of 100, and it is still there a move later: it waits for the last step."""
    game = GiveUp()
    for seed in range(6):
        agent = MCTSAgent(seed=seed)
        agent.start(game, "solver")
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.play(state, agent.select(game, state, "solver", Limit(playouts=30)))
        assert game.goals(state)["solver"] in (5, 100), (seed, state)
        given_up_at = state.index(-1) if -1 in state else None
        assert given_up_at in (None, len(game.secret) - 1), (seed, state)


def test_a_worthless_line_is_not_followed_into_a_proven_loss() -> None:
    """The first random line most likely springs a trap (worth 0, like every line the
    search has seen); the tree proves the traps lost while ``go`` is open, so the
    agent goes on, whatever line it keeps."""
    game = Traps()
    for seed in range(8):
        agent = MCTSAgent(seed=seed)
        agent.start(game, "solver")
        move = agent.select(game, game.initial_state(), "solver", Limit(playouts=40))
        assert str(move) == "go", seed


def test_simultaneous_dominant_moves_are_found() -> None:
    game = Dilemma()
    picks = [
        str(MCTSAgent(seed=s).select(game, game.initial_state(), role, Limit(playouts=3000)))
        for s in range(3)
        for role in game.roles
    ]
    assert picks == ["defect"] * 6


def test_playout_limit_counts_iterations() -> None:
    game = TicTacToe()
    agent = MCTSAgent(seed=3)
    agent.select(game, game.initial_state(), "x", Limit(playouts=123))
    assert agent.last_iterations == 123


def test_tree_is_reused_between_moves() -> None:
    game = TicTacToe()
    agent = MCTSAgent(seed=4)
    agent.start(game, "x")
    state = game.initial_state()
    move = agent.select(game, state, "x", Limit(playouts=2000))
    state = game.play(state, move)
    reply = game.legal_moves(state, "o")[0]
    state = game.play(state, reply)
    assert agent.visits(state) > 0  # searched during the first move, kept for the next
    agent.select(game, state, "x", Limit(playouts=10))
    assert agent.visits(state) >= 10


def test_the_tree_is_kept_out_of_the_collectors_reach_until_stop() -> None:
    """After a search its tree is frozen (never scanned by a collection, which took
    seconds on a big Python tree), the collector is on again, and stop unfreezes."""
    game = TicTacToe()
    agent = MCTSAgent(seed=5)
    agent.start(game, "x")
    gc.unfreeze()
    before = gc.get_freeze_count()
    agent.select(game, game.initial_state(), "x", Limit(playouts=500))
    try:
        assert gc.isenabled()
        assert gc.get_freeze_count() > before
    finally:
        agent.stop()
    assert gc.get_freeze_count() == 0


def test_time_limit_is_respected() -> None:
    """The agent's own overshoot past a 0.2 s limit stays under 50 ms (allowing one hiccup)."""
    game = Nim(2000)  # long enough that nothing is proven within the limit
    agent = MCTSAgent(seed=1)
    agent.start(game, "p1")
    state = game.initial_state()
    overshoots = []
    for _ in range(5):
        t0 = time.perf_counter()
        move = agent.select(game, state, game.roles[state[1]], Limit(time=0.2))
        overshoots.append(time.perf_counter() - t0 - 0.2)
        state = game.play(state, move)
    assert sorted(overshoots)[-2] <= 0.05, overshoots
    assert max(overshoots) <= 0.5, overshoots
