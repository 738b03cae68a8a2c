"""Puzzles whose moves flip fixed facts, solved by linear algebra over GF(2).

The oracle is independent of the solver: every set of buttons of a random lights-out
puzzle, tried in plain Python, for the fewest that turn every light off. Each line the
solver offers is also played through on the join-code reasoner.
"""

from __future__ import annotations

import itertools
import random

import pytest

from ggpkit.agents.base import Limit
from ggpkit.games.gdl.game import GdlGame, load_kif_text
from ggpkit.match.arena import play_match
from ggpkit.search.puzzles.step_counter import step_counter
from ggpkit.search.puzzles.toggles import find_toggles, toggle_line

LIMIT = 12
"""The random puzzles' step limit (more than their buttons: every line fits)."""


def lights_rules(flips: list[set[int]], lit: set[int], lights: int) -> str:
    """Lights out on ``lights`` lamps, ``lit`` on at the start, where button ``b`` flips
    the lamps ``flips[b]``: 100 once every lamp is off, 0 at the step limit."""
    rules = ["(role p)", "(init (step 0))"]
    rules += [f"(init (on l{i}))" for i in sorted(lit)]
    rules += [f"(light l{i})" for i in range(lights)]
    rules += [f"(button b{b})" for b in range(len(flips))]
    rules += [f"(flips b{b} l{i})" for b, lamps in enumerate(flips) for i in sorted(lamps)]
    rules += [f"(succ {k} {k + 1})" for k in range(LIMIT)]
    rules += [
        "(<= (legal p (press ?b)) (button ?b))",
        "(<= (flipped ?l) (does p (press ?b)) (flips ?b ?l))",
        "(<= (next (on ?l)) (true (on ?l)) (not (flipped ?l)))",
        "(<= (next (on ?l)) (light ?l) (not (true (on ?l))) (flipped ?l))",
        "(<= (next (step ?m)) (true (step ?k)) (succ ?k ?m))",
        "(<= anyon (true (on ?l)))",
        "(<= terminal (not anyon))",
        f"(<= terminal (true (step {LIMIT})))",
        "(<= (goal p 100) (not anyon))",
        "(<= (goal p 0) anyon)",
    ]
    return "\n".join(rules)


def random_lights(rng: random.Random) -> tuple[list[set[int]], set[int], int]:
    lights = rng.randint(3, 7)
    buttons = rng.randint(2, lights + 3)
    flips = [set(rng.sample(range(lights), rng.randint(1, lights))) for _ in range(buttons)]
    lit = set(rng.sample(range(lights), rng.randint(1, lights)))
    return flips, lit, lights


def fewest_buttons(flips: list[set[int]], lit: set[int]) -> int | None:
    """The fewest buttons that turn every lamp off, by trying every set (None: no set)."""
    for size in range(len(flips) + 1):
        for pressed in itertools.combinations(range(len(flips)), size):
            on = set(lit)
            for b in pressed:
                on ^= flips[b]
            if not on:
                return size
    return None


def goal_after(twin: GdlGame, names: list[str]) -> int | None:
    """Role 0's goal where the moves named end the game on the join code (None: they
    do not end it)."""
    state = twin.initial_state()
    role = twin.roles[0]
    for name in names:
        assert not twin.is_terminal(state)
        move = next(m for m in twin.legal_moves(state, role) if str(m) == name)
        state = twin.next_state(state, {role: move})
    return twin.goals(state)[role] if twin.is_terminal(state) else None


@pytest.mark.parametrize("seed", range(30))
def test_the_fewest_presses_are_those_of_every_set_tried(seed: int) -> None:
    rng = random.Random(seed)
    flips, lit, lights = random_lights(rng)
    rules = lights_rules(flips, lit, lights)
    game = load_kif_text(rules, reasoner="propnet")
    twin = load_kif_text(rules, reasoner="joincode")
    reasoner = game.reasoner
    toggles = find_toggles(reasoner, random.Random(0), step_counter(reasoner, random.Random(0)))  # type: ignore[arg-type]
    assert toggles is not None
    found = toggle_line(reasoner, toggles, reasoner.initial())  # type: ignore[arg-type]
    expected = fewest_buttons(flips, lit)
    if expected is None:
        assert found is None
        return
    assert found is not None
    value, line = found
    assert (value, len(line)) == (1.0, expected)
    names = [str(reasoner.net.moves[0][i]) for i in line]  # type: ignore[attr-defined]
    assert goal_after(twin, names) == 100


WALK = """
(role p) (init (at 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
(<= (legal p stay) (true (at ?n)))
(<= (legal p (go ?m)) (true (at ?n)) (succ ?n ?m))
(<= (next (at ?m)) (does p (go ?m)))
(<= (next (at ?n)) (does p stay) (true (at ?n)))
(<= (next (moved ?n)) (does p (go ?n)))
(<= (next (moved ?n)) (true (moved ?n)))
(<= terminal (true (at 4)))
(<= (goal p 100) (true (at 4)) (true (moved 2)))
(<= (goal p 0) (not (true (at 4))))
(<= (goal p 0) (not (true (moved 2))))
"""
"""A walk: its legal moves change from state to state."""

SET_ONCE = """
(role p) (init (step 0))
(light a) (light b) (light c)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(<= (legal p (press ?l)) (light ?l))
(<= (next (on ?l)) (does p (press ?l)))
(<= (next (on ?l)) (true (on ?l)))
(<= (next (step ?m)) (true (step ?k)) (succ ?k ?m))
(<= anyoff (light ?l) (not (true (on ?l))))
(<= terminal (not anyoff))
(<= terminal (true (step 6)))
(<= (goal p 100) (not anyoff))
(<= (goal p 0) anyoff)
"""
"""Presses that turn a light on for good: pressed twice, a light stays on (no flip)."""


@pytest.mark.parametrize("rules", [WALK, SET_ONCE])
def test_moves_that_do_not_flip_fixed_facts_are_no_toggles(rules: str) -> None:
    game = load_kif_text(rules, reasoner="propnet")
    reasoner = game.reasoner
    counter = step_counter(reasoner, random.Random(0))  # type: ignore[arg-type]
    assert find_toggles(reasoner, random.Random(0), counter) is None  # type: ignore[arg-type]


def test_the_agent_plays_the_fewest_presses_with_no_search() -> None:
    """With the breadth-first and depth-first searches off, ten lamps, each with its own
    button, all on: the only line to 100 within the step limit presses every button
    once, which the toggles' line does and a tree of a twentieth of 0.05 s does not."""
    flips = [{i} for i in range(10)]
    game = load_kif_text(lights_rules(flips, set(range(10)), 10), reasoner="propnet")
    record = play_match(game, ["mcts:time=0.05,dfs=0,bfs=0"], 0, 1, Limit())
    assert record.goals == {"p": 100}
    assert len(record.moves) == 10
