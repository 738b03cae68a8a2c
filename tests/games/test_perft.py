"""Generic perft: depth semantics on a small simultaneous game, terminal lines, compiled hooks."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest

from ggpkit.games.api import Dynamics, Game, GameInfo, Utility
from ggpkit.games.breakthrough.game import BreakthroughHoles, position
from ggpkit.games.perft import perft, perft_table
from ggpkit.gdl.terms import Const, Term


class Race(Game[tuple[int, int]]):
    """Two roles move at once; each adds 1 or 2 to its counter; the game ends at >= 3.

    Small enough to count joint-move sequences by brute force in the test.
    """

    name = "race"
    description = "test game"
    roles = ("a", "b")
    info = GameInfo(Dynamics.SIMULTANEOUS, Utility.GENERAL_SUM)

    def initial_state(self) -> tuple[int, int]:
        return (0, 0)

    def _legal(self, state: tuple[int, int], role_index: int) -> list[Term]:
        return [Const("1"), Const("2")]

    def _next(self, state: tuple[int, int], moves: Sequence[Term]) -> tuple[int, int]:
        return (state[0] + int(str(moves[0])), state[1] + int(str(moves[1])))

    def is_terminal(self, state: tuple[int, int]) -> bool:
        return max(state) >= 3

    def goals(self, state: tuple[int, int]) -> dict[str, int]:
        return {"a": 100 if state[0] >= 3 else 0, "b": 100 if state[1] >= 3 else 0}

    def facts(self, state: tuple[int, int]) -> frozenset[Term]:
        return frozenset({Const(f"a{state[0]}"), Const(f"b{state[1]}")})


def _brute_force(game: Race, depth: int) -> int:
    """Enumerate every sequence of ``depth`` joint moves and keep those that stay playable."""
    steps = list(itertools.product((1, 2), repeat=2))
    count = 0
    for line in itertools.product(steps, repeat=depth):
        a = b = 0
        ok = True
        for da, db in line:
            if max(a, b) >= 3:
                ok = False
                break
            a, b = a + da, b + db
        count += ok
    return count


def test_generic_perft_counts_joint_move_sequences() -> None:
    game = Race()
    state = game.initial_state()
    assert perft(game, state, 0) == 1
    assert perft(game, state, 1) == 4
    for depth in range(0, 5):
        assert perft(game, state, depth) == _brute_force(game, depth)
    assert perft(game, state, 5) == 0  # every line ends within 3 joint moves
    assert perft_table(game, state, 3) == [perft(game, state, d) for d in (1, 2, 3)]


def test_terminal_state_counts_only_at_depth_zero() -> None:
    game = BreakthroughHoles()
    won = position([(2, 6)], [(3, 3)], "black")
    assert game.is_terminal(won)
    for compiled in (True, False):
        assert perft(game, won, 0, compiled=compiled) == 1
        assert perft(game, won, 1, compiled=compiled) == 0
        assert perft(game, won, 3, compiled=compiled) == 0


def test_compiled_hook_is_used_and_agrees() -> None:
    game = BreakthroughHoles()
    assert game.info.capabilities.compiled_perft
    assert not Race().info.capabilities.compiled_perft
    state = game.initial_state()
    assert perft(game, state, 1) == 10
    assert perft(game, state, 2) == 100
    assert perft(game, state, 3) == perft(game, state, 3, compiled=False)


def test_negative_depth_is_refused() -> None:
    with pytest.raises(ValueError, match="depth"):
        perft(Race(), (0, 0), -1)
