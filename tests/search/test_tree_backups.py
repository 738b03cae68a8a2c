"""A path's backup in the compiled tree when it ends in a proven loss for a mover above.

The tree is built by hand: a chain of nodes, each with a second edge leading nowhere
yet (so nothing is proven from all children), roles alternating. A blunder is a reply
proven to lose for its mover: with ``blunders`` on, the edges above the first unproven
node over the proven end take back the path's visit (their sums and means stay as
they were), and the edges from there down get the reward; with it off, every edge
gets the reward.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ggpkit.search.tree import kernels as tk
from ggpkit.search.tree.array_tree import tree_arrays

PRIOR = (6.0, 4.0)
"""Reward sums of every edge over its earlier ``VISITS`` visits (means 0.6 and 0.4)."""
VISITS = 10.0


def _chain(
    movers: list[int], end_value: tuple[float, float], blunders: bool, pending: float = 0.0
) -> Any:
    """Nodes 0..n-1 in a chain (node i's mover ``movers[i]``, its edge 2i to node i+1,
    edge 2i+1 untried), node n proven with ``end_value``; the path already counted, and
    ``pending`` virtual visits of other paths whose rewards are still to come."""
    n = len(movers)
    arrays = tree_arrays(n + 2, 1, 2, np.uint8)
    arrays[20][1] = float(blunders)
    for i, m in enumerate(movers):
        arrays[1][i], arrays[2][i], arrays[3][i] = 2 * i, 2, m
        arrays[9][2 * i], arrays[9][2 * i + 1] = i + 1, -1
        arrays[10][2 * i], arrays[10][2 * i + 1] = 0, 1
        arrays[11][2 * i] = VISITS + 1.0 + pending  # the descent counted this path already
        arrays[6][i] = VISITS + 1.0 + pending
        arrays[12][2 * i] = PRIOR
    arrays[2][n], arrays[5][n], arrays[7][n] = 0, 1, 1
    arrays[8][n] = end_value
    return arrays


def _backed_up_means(arrays: Any, n: int, reward: tuple[float, float]) -> list[tuple[float, ...]]:
    path_n = np.arange(n, dtype=np.int64)
    path_e = 2 * np.arange(n, dtype=np.int64)
    tk._backup_path(arrays, path_n, path_e, n, n, np.array(reward), 1.0)
    return [tuple(arrays[12][2 * i] / arrays[11][2 * i]) for i in range(n)]


KEPT = pytest.approx((0.6, 0.4))


def _taken(reward: tuple[float, float]) -> Any:
    return pytest.approx(((PRIOR[0] + reward[0]) / 11, (PRIOR[1] + reward[1]) / 11))


def test_a_reply_proven_lost_for_its_mover_teaches_the_moves_above_nothing() -> None:
    end = (1.0, 0.0)  # role 1 moves last and loses
    arrays = _chain([1, 0, 1], end, True)
    means = _backed_up_means(arrays, 3, end)
    assert means[:2] == [KEPT, KEPT]
    assert means[2] == _taken(end)
    assert list(arrays[11][[0, 2, 4]]) == [VISITS, VISITS, VISITS + 1]
    assert list(arrays[6][:3]) == [VISITS, VISITS, VISITS + 1]


def test_other_paths_pending_visits_do_not_change_the_sums_above_a_blunder() -> None:
    """Other paths of the batch have counted visits whose rewards are still to come:
    the edges above a blunder keep their sums exactly and only lose this path's visit."""
    end = (1.0, 0.0)
    arrays = _chain([1, 0, 1], end, True, pending=5.0)
    _backed_up_means(arrays, 3, end)
    assert [tuple(arrays[12][e]) for e in (0, 2)] == [PRIOR, PRIOR]
    assert list(arrays[11][[0, 2]]) == [VISITS + 5, VISITS + 5]


def test_a_proven_win_counts_from_the_first_unproven_node_above_it() -> None:
    """Node 2's mover wins at the end: node 2 is proven a win, so node 1's move into it
    is the blunder; edges 1 and 2 get the reward, edge 0 keeps its mean."""
    end = (0.0, 1.0)
    arrays = _chain([1, 0, 1], end, True)
    means = _backed_up_means(arrays, 3, end)
    assert arrays[7][2] == 1 and arrays[7][1] == 0
    assert means[0] == KEPT
    assert means[1:] == [_taken(end), _taken(end)]


@pytest.mark.parametrize(
    ("end", "blunders"), [((0.5, 0.5), True), ((1.0, 0.0), False), ((0.0, 1.0), False)]
)
def test_draws_and_the_old_backup_reward_every_edge(
    end: tuple[float, float], blunders: bool
) -> None:
    means = _backed_up_means(_chain([1, 0, 1], end, blunders), 3, end)
    assert means == [_taken(end)] * 3


def test_a_proven_root_is_rewarded_as_proven() -> None:
    """Node 0's mover wins at once: the whole path is proven and every edge rewarded."""
    end = (1.0, 0.0)
    arrays = _chain([0], end, True)
    assert _backed_up_means(arrays, 1, end) == [_taken(end)]
    assert arrays[7][0] == 1
