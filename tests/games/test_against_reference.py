"""The native engines against independent reference implementations of rules.md.

WHY: the native engines and their GDL twins share authors, so a shared misreading
of the rules would pass every native-vs-GDL differential. ``reference_rules.py``
was written from the rule texts alone; here the two are played side by side on
random games (same joint move each step, mapped by text) and compared at every
step on the legal move sets of every role, the terminal test and the goals, and
on perft counts and the facts rules.md states.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ggpkit
from ggpkit.games.api import Game
from ggpkit.games.perft import perft as native_perft

from .reference_rules import RefGame, perft, reference

GAMES = (
    "peg",
    "pawn-checkers",
    "pawn-checkers-barrel",
    "breakthrough-holes",
    "breakthrough-holes-capture",
)

PERFT_DEPTH = {
    "peg": 5,
    "pawn-checkers": 5,
    "pawn-checkers-barrel": 5,
    "breakthrough-holes": 4,
    "breakthrough-holes-capture": 4,
}
"""Depths at which the plain-Python reference perft runs in about a second."""

RANDOM_GAMES = 200


def compare(game: Game[Any], ref: RefGame[Any], state: Any, rstate: Any, where: str) -> None:
    """Assert the native and reference states agree on legal sets, terminal and goals."""
    terminal = ref.terminal(rstate)
    assert game.is_terminal(state) == terminal, f"terminal differs {where}"
    assert game.goals(state) == ref.goals(rstate), f"goals differ {where}"
    if terminal:
        return
    for role in ref.roles:
        native = sorted(str(m) for m in game.legal_moves(state, role))
        expected = sorted(ref.legal(rstate, role))
        assert native == expected, f"legal moves of {role} differ {where}"


def play_side_by_side(name: str, rng: random.Random, start: tuple[Any, Any] | None = None) -> int:
    """Play one random game on both; compare at every step; return the number of steps."""
    game = ggpkit.load(name)
    ref = reference(name)
    state, rstate = start if start is not None else (game.initial_state(), ref.initial())
    history: list[str] = []
    while True:
        compare(game, ref, state, rstate, f"in {name} after {history}")
        if ref.terminal(rstate):
            return len(history)
        joint = {r: rng.choice(ref.legal(rstate, r)) for r in ref.roles}
        history.append(" ".join(joint[r] for r in ref.roles))
        state = game.next_state(state, joint)
        rstate = ref.next(rstate, joint)


@pytest.mark.parametrize("name", GAMES)
def test_random_games_agree(name: str) -> None:
    rng = random.Random(f"reference-{name}")
    lengths = [play_side_by_side(name, rng) for _ in range(RANDOM_GAMES)]
    assert min(lengths) >= 1


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_hypothesis_games_agree(name: str, seed: int) -> None:
    play_side_by_side(name, random.Random(seed))


@pytest.mark.parametrize("name", GAMES)
def test_perft_agrees(name: str) -> None:
    game = ggpkit.load(name)
    ref = reference(name)
    for depth in range(1, PERFT_DEPTH[name] + 1):
        expected = perft(ref, ref.initial(), depth)
        assert native_perft(game, game.initial_state(), depth) == expected, (name, depth)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("peg", [4, 12, 60, 400]),
        ("breakthrough-holes", [10, 100]),
        ("breakthrough-holes-capture", [10, 100]),
    ],
)
def test_rules_md_perft_facts(name: str, expected: list[int]) -> None:
    """rules.md: peg 4, 12, 60, 400; breakthrough 10 and 100."""
    game = ggpkit.load(name)
    ref = reference(name)
    depths = range(1, len(expected) + 1)
    assert [perft(ref, ref.initial(), d) for d in depths] == expected
    assert [native_perft(game, game.initial_state(), d) for d in depths] == expected


@pytest.mark.parametrize("name", ["pawn-checkers", "pawn-checkers-barrel"])
def test_checkers_seven_black_moves(name: str) -> None:
    """rules.md: 7 legal moves for black at the start (red: noop only)."""
    game = ggpkit.load(name)
    ref = reference(name)
    assert len(ref.legal(ref.initial(), "black")) == 7
    assert len(game.legal_moves(game.initial_state(), "black")) == 7
    assert [str(m) for m in game.legal_moves(game.initial_state(), "red")] == ["noop"]
