"""How many paths of a compiled tree share its 64-lane batch of playouts, per game.

Why: a batch of the compiled tree runs ``paths`` descents, then ``64 // paths``
playouts from each one's leaf. What a path costs (the descent, the new child, the
backup) hardly depends on the game, but a playout does: a native bitboard playout is
many times cheaper than a path, so with 64 paths of one playout each nearly all the
time goes to bookkeeping, while a propnet playout costs about what a path does, where
one playout a path is about right.

The split is chosen so that a path's playouts cost about as much as the path itself:
``k`` playouts a leaf where ``k`` is the power of two nearest to the ratio of the two
costs (at most :data:`MAX_LEAF`), so that playouts take about half the time. A path
counts one visit worth its playouts' mean (``tree_kernels.backup_leaves``): counting a
visit per playout narrowed UCB's exploration, which beat our own search and lost to a
stronger one (the matches are in docs/results.md).
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable
from typing import Any

from ggpkit.games.api import Game

LANES = 64
"""Playouts of one batch of the bit-parallel kernel."""

MAX_LEAF = 16
"""Most playouts a leaf gets: at least four paths share a batch, so the tree still grows."""

SLOW_BATCH_SECONDS = 0.05
"""A first batch of 64 slower than this is timed once: loading the kernels (a few ms) is
then a small part of it, and a second batch would take the start clock's time."""


def time_playouts(game: Game[Any], state: Hashable) -> tuple[float, float]:
    """(Seconds of a batch of 64 compiled playouts from ``state``, of one more playout.)

    The first calls load the kernels (breakthrough.kif: 8 ms for a 1 ms batch), so a
    fast batch is timed again, and at four times the size: the difference, over the
    192 extra playouts, leaves out what a call costs whatever its size.
    """
    game.playout_stats(state, 1, 0)
    first = _timed(game, state, LANES)
    if first >= SLOW_BATCH_SECONDS:
        return first, first / LANES
    batch = _timed(game, state, LANES)
    bigger = _timed(game, state, 4 * LANES)
    return batch, max(bigger - batch, bigger / 8) / (3 * LANES)


def _timed(game: Game[Any], state: Hashable, playouts: int) -> float:
    began = time.perf_counter()
    game.playout_stats(state, playouts, 0)
    return time.perf_counter() - began


def path_seconds(seconds: float, iterations: int, playouts: float, per_playout: float) -> float:
    """What the tree spent a path in a search of ``seconds`` (the playouts taken out);
    NaN when the search ran too few paths to tell."""
    if iterations < LANES:
        return math.nan
    return max(0.0, seconds - playouts * per_playout) / iterations


def paths_sharing_a_batch(per_path: float, per_playout: float) -> int:
    """The paths of a batch when a path costs ``per_path`` and a playout ``per_playout``:
    64 over the power of two nearest to their ratio (in a log scale), that ratio between
    1 and :data:`MAX_LEAF`."""
    if not per_path > 0.0 or not per_playout > 0.0:
        return LANES
    ratio = min(float(MAX_LEAF), max(1.0, per_path / per_playout))
    return LANES >> round(math.log2(ratio))
