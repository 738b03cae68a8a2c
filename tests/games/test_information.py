"""Information sets on Monty Hall, counted by hand: which doors may hide the car, and how
likely each is, after each of the contestant's turns.

The contestant picks d1 while nature places the car (3 ways, unseen); nature then opens
a door that is neither the car's nor the pick, which the contestant sees. Opened d3: the
car is behind d1 (nature chose d3 of d2, d3: probability 1/3 x 1/2) or d2 (d3 was its
only choice: 1/3 x 1), so two states, of posterior 1/3 and 2/3. A contestant who ignores
what it saw allows four: car d1 (opened d2 or d3), car d2 (d3), car d3 (d2).
"""

from __future__ import annotations

import random
from collections.abc import Hashable

import pytest

from games.gdl2_support import MONTY_HALL
from ggpkit.games.gdl.game import GdlGame, load_kif_text
from ggpkit.games.information import (
    Hypothesis,
    InformationSetError,
    information_set,
    views_agree,
    weighted_states,
)
from ggpkit.games.sampling import extend_hypothesis, sample_history, sample_hypothesis
from ggpkit.games.views import RoleView
from ggpkit.gdl.kif import parse_term

ROLE = "contestant"


@pytest.fixture(scope="module")
def monty() -> GdlGame:
    return load_kif_text(MONTY_HALL, "monty", reasoner="propnet")


def _picked(door: str) -> RoleView:
    return RoleView(ROLE).then(parse_term(f"(pick {door})"), frozenset())


def _opened(pick: str, door: str) -> RoleView:
    return _picked(pick).then(parse_term("wait"), frozenset({parse_term(f"(opened {door})")}))


def _car(game: GdlGame, state: Hashable) -> str:
    cars = [str(f) for f in game.facts(state) if str(f).startswith("(car ")]
    assert len(cars) == 1
    return cars[0][5:-1]


def test_the_information_set_at_each_turn_is_the_hand_count(monty: GdlGame) -> None:
    assert len(information_set(monty, RoleView(ROLE))) == 1
    assert sorted(_car(monty, s) for s in information_set(monty, _picked("d1"))) == [
        "d1",
        "d2",
        "d3",
    ]
    assert sorted(_car(monty, s) for s in information_set(monty, _opened("d1", "d3"))) == [
        "d1",
        "d2",
    ]
    assert sorted(_car(monty, s) for s in information_set(monty, _opened("d2", "d1"))) == [
        "d2",
        "d3",
    ]
    deaf = information_set(monty, _opened("d1", "d3"), use_percepts=False)
    assert sorted(_car(monty, s) for s in deaf) == ["d1", "d1", "d2", "d3"]


def test_the_posterior_gives_the_other_door_two_thirds(monty: GdlGame) -> None:
    belief = weighted_states(monty, _opened("d1", "d3"))
    by_car = {_car(monty, s): p for s, p in belief.items()}
    assert by_car == pytest.approx({"d1": 1 / 3, "d2": 2 / 3})


def test_a_view_no_line_gives_is_refused(monty: GdlGame) -> None:
    impossible = _opened("d1", "d1")  # the host never opens the picked door
    with pytest.raises(InformationSetError):
        information_set(monty, impossible)
    with pytest.raises(InformationSetError):
        weighted_states(monty, impossible)
    assert sample_history(monty, impossible, random.Random(0)) is None


@pytest.mark.parametrize("seed", range(4))
def test_sampled_histories_give_the_view(monty: GdlGame, seed: int) -> None:
    rng = random.Random(seed)
    for view in (_picked("d2"), _opened("d1", "d3"), _opened("d3", "d2")):
        for _ in range(10):
            line = sample_history(monty, view, rng)
            assert line is not None and views_agree(monty, line, view)
            assert line[-1] in information_set(monty, view)


def test_a_history_that_died_is_backed_up_and_walked_again(monty: GdlGame) -> None:
    rng = random.Random(3)
    before = sample_hypothesis(monty, _picked("d1"), rng)
    assert before is not None
    while _car(monty, before.state) != "d3":  # the car behind d3: nature cannot open it
        before = sample_hypothesis(monty, _picked("d1"), rng)
        assert before is not None
    view = _opened("d1", "d3")
    assert sample_hypothesis(monty, view, rng, before) is None  # it cannot go on as it is
    after = extend_hypothesis(monty, view, rng, before)
    assert after is not None and views_agree(monty, after.line, view)
    assert _car(monty, after.state) in ("d1", "d2")


def test_factors_weigh_the_hosts_choice(monty: GdlGame) -> None:
    """The weight of a history is the chance of its percepts: 1/2 where the host could
    have opened either door, 1 where it had one."""
    rng = random.Random(5)
    weights: dict[str, set[float]] = {}
    for _ in range(30):
        found = sample_hypothesis(monty, _opened("d1", "d3"), rng)
        assert isinstance(found, Hypothesis)
        weights.setdefault(_car(monty, found.state), set()).add(found.weight)
    assert weights == {"d1": {0.5}, "d2": {1.0}}
