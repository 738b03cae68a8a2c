"""The compiled tree where several roles choose at once (decoupled UCT).

Each choosing role keeps its own statistics at a simultaneous node and picks blind to
the others; the child is the joint move's. These tests check that each role is
credited with its own reward, that the joint move made is the one the roles picked
(a wrong decoding values the wrong children), and that the agent uses the tree.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from search.tree_options import plain_options

import ggpkit
from ggpkit.agents.base import Limit
from ggpkit.agents.mcts.agent import MCTSAgent
from ggpkit.games.api import Dynamics, Game
from ggpkit.search.contract import CannotSearchError
from ggpkit.search.options import SearchLimit

from .corpus import public
from .test_compiled_tree import random_state, tree_of

PICK_THEN_FINISH = """
(role alice) (role bob)
(init (step 0))
(choice a) (choice b) (choice c)
(side x) (side y)
(<= (legal alice ?m) (choice ?m) (true (step 0)))
(<= (legal bob ?m) (side ?m) (true (step 0)))
(<= (legal alice ?m) (choice ?m) (true (step 1)))
(<= (legal bob wait) (true (step 1)))
(<= (next (picked ?a ?b)) (does alice ?a) (does bob ?b) (true (step 0)))
(<= (next (picked ?a ?b)) (true (picked ?a ?b)))
(<= (next (last ?m)) (does alice ?m) (true (step 1)))
(<= (next (step 1)) (true (step 0)))
(<= (next (step 2)) (true (step 1)))
(<= terminal (true (step 2)))
(<= good_start (true (picked b ?y)))
(<= (goal alice 100) good_start (true (last c)))
(<= (goal alice 50) good_start (not (true (last c))))
(<= (goal alice 0) (not good_start))
(<= bob_wins (true (picked ?x y)) (true (last a)))
(<= bob_wins (true (picked ?x y)) (true (last b)))
(<= bob_wins (true (picked a x)))
(<= (goal bob 100) bob_wins)
(<= (goal bob 0) (not bob_wins))
"""
"""Alice and Bob pick at once, then Alice alone. Alice's pick b is worth 50 or 100
whatever Bob does (100 when she ends with c); Bob's y is only good when Alice ends with
a or b, which she will not, so his best answer to her b is either (0 both ways), and
x is better only if she picks a. Values depend on the joint move made, so a child
made from the wrong joint move shows."""


def pick_then_finish() -> Game[Any]:
    game = ggpkit.load_kif(PICK_THEN_FINISH)
    assert game.info.dynamics == Dynamics.SIMULTANEOUS
    return game


def test_each_role_is_reported_with_its_own_moves_and_values() -> None:
    game = pick_then_finish()
    tree = tree_of(game)
    state = game.initial_state()
    alice = tree.search(
        state,
        SearchLimit(iterations=20_000),
        plain_options(c=0.4, leaf=1, seed=3, paths=64),
        role="alice",
    )
    assert alice.mover == "alice"
    assert sorted(map(str, alice.moves)) == ["a", "b", "c"]
    best = max(range(3), key=lambda i: alice.visits[i])
    assert str(alice.moves[best]) == "b"
    assert alice.means[best] == pytest.approx(1.0, abs=0.02)  # she ends with c
    bob = tree.search(
        state, SearchLimit(iterations=1), plain_options(c=0.4, leaf=1, seed=4, paths=64), role="bob"
    )
    assert bob.mover == "bob" and sorted(map(str, bob.moves)) == ["x", "y"]
    # against Alice's b Bob gets 0 whatever he does: both his means fall towards 0
    assert all(m < 0.15 for m in bob.means)


def test_every_path_counts_once_for_each_choosing_role() -> None:
    game = pick_then_finish()
    report_a = tree_of(game).search(
        game.initial_state(),
        SearchLimit(iterations=6400),
        plain_options(c=1.0, leaf=1, seed=1, paths=64),
    )
    assert sum(report_a.visits) == pytest.approx(report_a.iterations)
    tree = tree_of(game)
    tree.search(
        game.initial_state(),
        SearchLimit(iterations=6400),
        plain_options(c=1.0, leaf=1, seed=1, paths=64),
        role="alice",
    )
    report_b = tree.search(
        game.initial_state(),
        SearchLimit(iterations=64),
        plain_options(c=1.0, leaf=1, seed=1, paths=64),
        role="bob",
    )
    assert sum(report_b.visits) == pytest.approx(6400 + 64)


def test_one_path_at_a_time_refuses_simultaneous_states() -> None:
    game = pick_then_finish()
    with pytest.raises(CannotSearchError, match="two roles choose"):
        tree_of(game).search(
            game.initial_state(),
            SearchLimit(iterations=100),
            plain_options(c=1.0, leaf=1, seed=1, paths=1),
        )


@pytest.mark.parametrize("name", ["connectFourSimultaneous", "doubletictactoe", "blocker"])
def test_public_simultaneous_games_are_searched_compiled_with_legal_answers(name: str) -> None:
    game = public(name)
    assert game.info.dynamics == Dynamics.SIMULTANEOUS
    rng = random.Random(5)
    for plies in (0, 3, 6):
        state = random_state(game, plies, rng)
        if game.is_terminal(state):
            continue
        tree = tree_of(game)
        for role in game.roles:
            legal = game.legal_moves(state, role)
            report = tree.search(
                state,
                SearchLimit(iterations=2000),
                plain_options(c=0.4, leaf=1, seed=plies, paths=64),
                role=role,
            )
            if report.mover == role:
                assert sorted(map(str, report.moves)) == sorted(map(str, legal))
            else:
                assert len(legal) == 1, "a role with a choice gets its own statistics"


def test_mcts_plays_a_simultaneous_game_in_the_compiled_tree() -> None:
    game = pick_then_finish()
    agent = MCTSAgent(seed=2)
    agent.start(game, "alice")
    move = agent.select(game, game.initial_state(), "alice", Limit(playouts=20_000))
    assert str(move) == "b"
    assert agent.compiled_tree is not None and agent.report is not None
    assert agent.last_iterations > 0
