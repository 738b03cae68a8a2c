"""The observation layout keeps the whole state: distinct positions never look the same."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

import ggpkit
from envs.support import corpus_file
from ggpkit.games.encoding import Encoding


def _positions(game: Any, playouts: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    seen = []
    for _ in range(playouts):
        state = game.initial_state()
        seen.append(state)
        while not game.is_terminal(state):
            state = game.next_state(state, [rng.choice(ms) for ms in game.all_legal_moves(state)])
            seen.append(state)
    return seen


def _key(observation: dict[str, np.ndarray]) -> bytes:
    return b"|".join(observation[k].tobytes() for k in sorted(observation))


NATIVE = ["peg", "pawn-checkers", "breakthrough-holes"]
PUBLIC = ["ticTacToe", "connectFour", "nim1"]


@pytest.mark.parametrize("name", NATIVE + PUBLIC)
def test_distinct_positions_have_distinct_observations(name: str) -> None:
    game = ggpkit.load(str(corpus_file(name)) if name in PUBLIC else name)
    encoding = Encoding(game)
    by_view: dict[bytes, frozenset[Any]] = {}
    for state in _positions(game, 5, 3):
        facts = game.facts(state)
        assert by_view.setdefault(_key(encoding.observation(state)), facts) == facts


def test_peg_planes_mark_the_pegs_and_extra_the_peg_count() -> None:
    game = ggpkit.load("peg")
    encoding = Encoding(game)
    obs = encoding.observation(game.initial_state())
    assert obs["observation"].shape == (1, 7, 7) and obs["observation"].sum() == 32
    extra = [str(encoding.base[i]) for i in encoding.extra]
    assert all(f.startswith("(pegs ") for f in extra)
    assert [f for f, bit in zip(extra, obs["extra"], strict=True) if bit] == ["(pegs s32)"]
