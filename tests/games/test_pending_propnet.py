"""A propnet that goes on compiling after the load's timeout, the game on the prover meanwhile."""

from __future__ import annotations

import random

from ggpkit.games.gdl.game import GdlGame, load_kif_text
from ggpkit.games.registry import rules_path

RULES = rules_path("pawn-checkers").read_text()


def late_game() -> GdlGame:
    """Pawn checkers loaded with no time to build its propnet: it is still compiling."""
    return load_kif_text(RULES, "late", timeout=0.001, keep_compiling=120)


def test_the_late_propnet_plays_the_same_game_as_the_prover() -> None:
    game = late_game()
    assert game.reasoner_name == "joincode"
    assert game.pending_propnet is not None
    twin = game.pending_propnet.ready(60)
    assert twin is not None
    assert twin.reasoner_name == "propnet"
    assert game.pending_propnet.ready() is twin  # made once
    rng = random.Random(7)
    for _ in range(5):
        state = game.initial_state()
        while True:
            other = twin.state_from_facts(game.facts(state))
            assert twin.is_terminal(other) == game.is_terminal(state)
            if game.is_terminal(state):
                assert twin.goals(other) == game.goals(state)
                break
            legal = [game.legal_moves(state, r) for r in game.roles]
            assert [sorted(map(str, twin.legal_moves(other, r))) for r in game.roles] == [
                sorted(map(str, moves)) for moves in legal
            ]
            state = game.next_state(state, [rng.choice(moves) for moves in legal])


def test_a_cancelled_compilation_is_never_ready() -> None:
    game = late_game()
    assert game.pending_propnet is not None
    game.pending_propnet.cancel()
    assert game.pending_propnet.ready(2) is None
    assert game.pending_propnet.failed


def test_a_propnet_ready_in_time_leaves_nothing_pending() -> None:
    game = load_kif_text(RULES, "prompt", timeout=60, keep_compiling=120)
    assert game.reasoner_name == "propnet"
    assert game.pending_propnet is None
