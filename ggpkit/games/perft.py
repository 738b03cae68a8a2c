"""Perft: the number of joint-move sequences of a given length, the move generator's oracle.

``perft(game, state, d)`` counts the sequences of ``d`` joint moves (one legal
move per role at each step) that can be played from ``state``. A line that
reaches a terminal state before ``d`` moves contributes nothing; a terminal
state at exactly depth ``d`` counts 1 like any other. ``perft(game, s, 0)`` is 1.

A game that declares ``capabilities.compiled_perft`` implements
``Game.perft_compiled(state, depth)`` with the same meaning; :func:`perft` uses it
unless ``compiled=False``.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable
from typing import TypeVar

from ggpkit.games.api import Game

S = TypeVar("S", bound=Hashable)


def perft(game: Game[S], state: S, depth: int, *, compiled: bool = True) -> int:
    """Joint-move sequences of length ``depth`` from ``state`` (terminal states end a line)."""
    if depth < 0:
        raise ValueError(f"perft depth must be >= 0, got {depth}")
    if compiled and game.info.capabilities.compiled_perft:
        return game.perft_compiled(state, depth)
    return _perft(game, state, depth)


def _perft(game: Game[S], state: S, depth: int) -> int:
    if depth == 0:
        return 1
    if game.is_terminal(state):
        return 0
    legal = game.all_legal_moves(state)
    if depth == 1:
        count = 1
        for moves in legal:
            count *= len(moves)
        return count
    return sum(
        _perft(game, game._next(state, joint), depth - 1) for joint in itertools.product(*legal)
    )


def perft_table(game: Game[S], state: S, depth: int, *, compiled: bool = True) -> list[int]:
    """Perft for every depth 1..``depth``, in order."""
    return [perft(game, state, d, compiled=compiled) for d in range(1, depth + 1)]
