"""Tactical playouts of breakthrough-holes' tree: a win in one is taken, a threat met."""

from __future__ import annotations

import numpy as np

from ggpkit.games.breakthrough import kernels as k
from ggpkit.games.breakthrough.tactical import tactical_playout, tactical_playout_stats

U = np.uint64


def bit(x: int, y: int) -> int:
    return 1 << ((y - 1) * 6 + x - 1)


WHITE = bit(3, 5) | bit(1, 1) | bit(2, 1)  # a white pawn one step from row 6
BLACK = bit(4, 6) | bit(6, 6) | bit(5, 6)  # a black pawn that can take it from (4,6)


def _playouts(control: int, n: int = 300) -> list[tuple[int, int, int]]:
    rng = U(12345)
    out = []
    for _ in range(n):
        gw, gb, steps, drawn = tactical_playout(U(WHITE), U(BLACK), control, True, rng)
        rng = U(drawn)  # numba hands a uint64 back as a Python int
        out.append((gw, gb, steps))
    return out


def test_a_side_that_can_win_in_one_move_does() -> None:
    assert set(_playouts(control=0)) == {(100, 0, 1)}


def test_a_random_playout_often_misses_that_win() -> None:
    """The baseline the tactical playout is measured against: uniform moves."""
    _, white_sum, _ = k.playout_stats(WHITE, BLACK, 0, True, 300, 7)
    assert white_sum < 100 * 300


def test_a_side_facing_a_win_in_one_takes_the_threatening_pawn() -> None:
    """Black to move: not taking (3,5) loses at once (white's next move is decisive)."""
    lost_at_once = [p for p in _playouts(control=1) if p[:2] == (100, 0) and p[2] == 2]
    assert lost_at_once == []


def test_the_batch_sums_what_single_playouts_give() -> None:
    moves, white_sum, black_sum = tactical_playout_stats(WHITE, BLACK, 0, True, 50, 3)
    assert (moves, white_sum, black_sum) == (50, 5000, 0)


def test_tactical_playouts_end_with_one_winner_from_the_start() -> None:
    from ggpkit.games.breakthrough.tree import state_row
    from ggpkit.games.registry import load

    game = load("breakthrough-holes-capture")
    row = state_row(game.initial_state())
    moves, white_sum, black_sum = tactical_playout_stats(
        int(row[0]), int(row[1]), int(row[2]), True, 400, 11
    )
    assert white_sum + black_sum == 100 * 400  # no draws in breakthrough
    assert 0 < white_sum < 100 * 400 and moves > 400 * 10
