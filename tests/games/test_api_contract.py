"""The generic game API conveniences, checked on the native games."""

from __future__ import annotations

import pytest

import ggpkit
from ggpkit.games.api import IllegalMoveError


def test_play_for_the_role_without_control_says_whose_turn_it_is() -> None:
    game = ggpkit.load("breakthrough-holes")
    state = game.initial_state()
    with pytest.raises(IllegalMoveError) as err:
        game.play(state, "(move 1 5 1 4)", role="black")
    assert err.value.role == "black"
    assert "white's turn" in err.value.reason
    assert game.play(state, "(move 1 2 1 3)") != state


@pytest.mark.parametrize("name", sorted(ggpkit.games()))
def test_every_registered_game_keeps_the_contract_on_a_random_game(name: str) -> None:
    import random

    game = ggpkit.load(name)
    rng = random.Random(7)
    state = game.initial_state()
    assert hash(state) == hash(game.initial_state())
    for _ in range(300):
        if game.is_terminal(state):
            break
        legal = game.all_legal_moves(state)
        assert all(legal), "every role has a legal move in a non-terminal state"
        mover = game.to_move(state)
        assert mover is not None
        for role, moves in zip(game.roles, legal, strict=True):
            if role != mover:
                assert [str(m) for m in moves] == ["noop"]
        joint = {r: rng.choice(m) for r, m in zip(game.roles, legal, strict=True)}
        nxt = game.next_state(state, {r: str(m) for r, m in joint.items()})
        assert nxt == game.next_state(state, joint)
        state = nxt
    assert game.is_terminal(state)
    goals = game.goals(state)
    assert set(goals) == set(game.roles)
    assert all(isinstance(v, int) and 0 <= v <= 100 for v in goals.values())
