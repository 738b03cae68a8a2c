"""Sampling histories of big information sets: restarts, dead states and percept-led order.

The game here is built so that a walk that backs up chronologically drowns: nature hides
one of eight numbers, then stirs eight times among three ways (each stir leaves a mark,
so every line is a different state), and only at the end does the watcher see the hidden
number. A walk that guesses the number wrong explores 3^8 lines of stirs before it
revises the guess; restarted walks revise it after a few dead ends. Every history found
is checked step by step against the view (``views_agree``), not by the sampler.
"""

from __future__ import annotations

import random
import time

import pytest

from ggpkit.games.gdl.game import GdlGame, load_kif_text
from ggpkit.games.information import Hypothesis, information_set, views_agree
from ggpkit.games.sampling import (
    DeadStates,
    _Cues,
    _JointOrder,
    _runs,
    extend_hypothesis,
    greedy_history,
    luby,
    sample_history,
    sample_hypothesis,
    sample_states,
)
from ggpkit.games.views import RoleView
from ggpkit.gdl.kif import parse_term

STIRS = 8

HIDDEN_NUMBER = f"""\
(role watcher)
(role random)
(init (step 0))
(number 1) (number 2) (number 3) (number 4) (number 5) (number 6) (number 7) (number 8)
(way a) (way b) (way c)
{" ".join(f"(succ {i} {i + 1})" for i in range(STIRS + 1))}
(<= (legal random (hide ?n)) (true (step 0)) (number ?n))
(<= (legal random (stir ?w)) (true (step ?s)) (distinct ?s 0) (distinct ?s {STIRS + 1})
    (way ?w))
(<= (legal random wait) (true (step {STIRS + 1})))
(<= (legal watcher look) (not (true (step {STIRS + 2}))))
(<= (sees watcher (hidden ?n)) (true (step {STIRS + 1})) (true (hidden ?n)))
(<= (next (hidden ?n)) (does random (hide ?n)))
(<= (next (hidden ?n)) (true (hidden ?n)))
(<= (next (mark ?s ?w)) (true (step ?s)) (does random (stir ?w)))
(<= (next (mark ?s ?w)) (true (mark ?s ?w)))
(<= (next (step ?t)) (true (step ?s)) (succ ?s ?t))
(<= terminal (true (step {STIRS + 2})))
(<= (goal watcher 100) (true (step {STIRS + 2})))
(<= (goal random 0) (true (step {STIRS + 2})))
"""


@pytest.fixture(scope="module")
def hidden() -> GdlGame:
    return load_kif_text(HIDDEN_NUMBER, "hidden-number", reasoner="propnet")


def _view(number: int) -> RoleView:
    """The watcher's view of a whole match in which nature hid ``number``."""
    look = parse_term("look")
    view = RoleView("watcher")
    for _ in range(STIRS + 1):
        view = view.then(look, frozenset())
    return view.then(look, frozenset({parse_term(f"(hidden {number})")}))


def test_luby_sequence_is_the_published_one() -> None:
    # Luby, Sinclair and Zuckerman (1993): 1,1,2,1,1,2,4,1,1,2,1,1,2,4,8,...
    published = [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, 1, 1, 2]
    assert [luby(i) for i in range(1, len(published) + 1)] == published


@pytest.mark.parametrize("seed", range(6))
def test_a_guess_refuted_at_the_end_is_revised_within_a_small_budget(
    hidden: GdlGame, seed: int
) -> None:
    view = _view(1 + seed % 8)
    # 3^8 lines of stirs follow a wrong guess: a chronological walk needs thousands of
    # steps to revise it; restarted walks need a few times the depth per wrong guess.
    line = sample_history(hidden, view, random.Random(seed), budget=1_000)
    assert line is not None and views_agree(hidden, line, view)
    assert f"(hidden {1 + seed % 8})" in {str(f) for f in hidden.facts(line[-1])}


def test_a_view_no_line_gives_is_found_dead_once(hidden: GdlGame) -> None:
    look = parse_term("look")
    impossible = RoleView("watcher").then(look, frozenset({parse_term("(hidden 3)")}))
    dead = DeadStates()
    assert sample_hypothesis(hidden, impossible, random.Random(0), budget=100, dead=dead) is None
    assert (0, hidden.initial_state()) in dead  # every line was tried: the start is dead
    # a later turn of the same view is refused at once, without walking
    longer = impossible.then(look, frozenset())
    assert sample_hypothesis(hidden, longer, random.Random(0), budget=1, dead=dead) is None


def test_dead_states_carried_between_turns_never_hide_a_live_line(hidden: GdlGame) -> None:
    """Extending turn by turn with one dead-state memory gives the same information set
    as listing it: every state the sampler reaches is in it, and none is lost."""
    look = parse_term("look")
    rng, dead = random.Random(4), DeadStates()
    view = RoleView("watcher").then(look, frozenset())
    found = sample_hypothesis(hidden, view, rng, dead=dead)
    for _ in range(STIRS):
        view = view.then(look, frozenset())
        assert found is not None
        found = extend_hypothesis(hidden, view, rng, found, dead=dead)
        assert found is not None and views_agree(hidden, found.line, view)
    assert found is not None and found.state in set(information_set(hidden, view, 100_000))


def test_percept_led_order_tries_the_joint_moves_that_echo_the_percepts_first() -> None:
    scans = [parse_term(f"(doscan {a} {b} {a} {c} 4 4 4 3)") for a in "1234" for b in "1234"
             for c in "1234"]  # fmt: skip
    fires = [parse_term(f"(fire {a} {b})") for a in "xy" for b in "zw"]
    seen = frozenset({parse_term("(ghostship 3 1 3 2)")})
    later = frozenset({parse_term("(fired y w)")})
    cues = _Cues(frozenset().union(*map(_runs, seen)), dict.fromkeys(_runs(*later), 1))
    order = _JointOrder([[parse_term("noop")], fires, scans], cues, random.Random(0))
    joints = []
    while (joint := order.pop()) is not None:
        joints.append([str(m) for m in joint])
    assert joints[0] == ["noop", "(fire y w)", "(doscan 3 1 3 2 4 4 4 3)"]
    assert joints[1][2] == "(doscan 3 1 3 2 4 4 4 3)"  # the scan matters most, then the fire
    assert sorted(map(tuple, joints)) == sorted(
        ("noop", str(f), str(d)) for f in fires for d in scans
    )  # every joint move, each once
    drawn = order.drawn(32, random.Random(1))
    assert len(drawn) == 32 and all(j[0] == parse_term("noop") for j in drawn)


def test_a_state_where_the_role_cannot_play_has_no_joint_moves() -> None:
    order = _JointOrder([], _Cues.NONE, random.Random(0))
    assert order.count == 0 and order.pop() is None and order.drawn(32, random.Random(0)) == []


def test_sampled_states_are_in_the_information_set(hidden: GdlGame) -> None:
    look = parse_term("look")
    view = RoleView("watcher")
    for _ in range(4):
        view = view.then(look, frozenset())
    listed = set(information_set(hidden, view, 100_000))
    drawn = sample_states(hidden, view, 20, random.Random(2), distinct=True)
    assert drawn and set(drawn) <= listed
    assert len(drawn) > 10  # 8 numbers x 27 stirs: twenty draws seldom repeat


NOISY_NUMBER = """\
(role watcher)
(role random)
(init (step 0))
(number 1) (number 2) (number 3) (number 4) (number 5) (number 6) (number 7) (number 8)
(bit 1) (bit 2) (bit 3) (bit 4) (bit 5) (bit 6) (bit 7) (bit 8)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
(<= (legal random (hide ?n)) (true (step 0)) (number ?n))
(<= (legal random (noise ?a ?b ?c ?d)) (true (step ?s)) (distinct ?s 0) (distinct ?s 3)
    (bit ?a) (bit ?b) (bit ?c) (bit ?d))
(<= (legal random wait) (true (step 3)))
(<= (legal watcher look) (not (true (step 4))))
(<= (sees watcher (hidden ?n)) (true (step 2)) (true (hidden ?n)))
(<= (next (hidden ?n)) (does random (hide ?n)))
(<= (next (hidden ?n)) (true (hidden ?n)))
(<= (next (step ?t)) (true (step ?s)) (succ ?s ?t))
(<= terminal (true (step 4)))
(<= (goal watcher 100) (true (step 4)))
(<= (goal random 0) (true (step 4)))
"""
"""Nature hides a number, makes noise (4,096 ways that change nothing) twice, and the
watcher sees the number after the second noise."""


def test_a_doomed_extension_leaves_time_to_mend_the_early_guess() -> None:
    """A history of turn 2 that guessed the number wrong cannot give turn 3's percept,
    but proving its last state dead means trying all 4,096 noises, far past any walk's
    cap: walks from there must give up soon enough for the walk from the start, which
    mends the guess, to run within the deadline."""
    game = load_kif_text(NOISY_NUMBER, "noisy-number", reasoner="propnet")
    look = parse_term("look")
    two = RoleView("watcher").then(look, frozenset()).then(look, frozenset())
    three = two.then(look, frozenset({parse_term("(hidden 5)")}))
    rng = random.Random(3)
    wrong = None
    while wrong is None or "(hidden 5)" in {str(f) for f in game.facts(wrong.state)}:
        wrong = sample_hypothesis(game, two, rng)
    found = extend_hypothesis(game, three, rng, wrong, deadline=time.perf_counter() + 1.0)
    assert found is not None and views_agree(game, found.line, three)
    assert "(hidden 5)" in {str(f) for f in game.facts(found.state)}


def test_moves_are_ranked_against_moves_of_their_kind() -> None:
    """A ship's moves share four numbers with the scan that shows a ghost there; the
    shots, one of which made the ghost show, share none. The best shot comes second,
    not after every move of the ship."""
    moves = [parse_term(f"(move 2 3 2 {y})") for y in "1234"]
    shots = [parse_term(f"(fire {x} {y})") for x in "1234" for y in "1234"]
    seen = frozenset({parse_term(f"(ghostship 2 3 2 {y})") for y in "1234"})
    cues = _Cues(frozenset().union(*map(_runs, seen)), {})
    order = _JointOrder([[*moves, *shots]], cues, random.Random(0))
    first_two = [str(order.pop()) for _ in range(2)]
    assert sum("fire" in joint for joint in first_two) == 1


TWO_COINS = """\
; Nature flips two coins; the player is told each face.
(role p) (role random)
(face 1) (face 2)
(init (step 0))
(legal p noop)
(<= (legal random (flip ?a ?b)) (face ?a) (face ?b))
(<= (sees p (first ?a)) (does random (flip ?a ?b)))
(<= (sees p (second ?b)) (does random (flip ?a ?b)))
(<= (next (got ?a ?b)) (does random (flip ?a ?b)))
(<= (next (step 1)) (true (step 0)))
(<= terminal (true (step 1)))
(goal p 100)
(goal random 0)
"""


def test_a_greedy_walk_gives_the_percepts_it_can_where_no_history_gives_them_all() -> None:
    """Told the first coin shows 1 and the second a face it does not have (a manager's
    mistake, or a walk that guessed wrong earlier), no history gives the view; the
    greedy walk keeps what it can (the first coin shows 1), where a walk deaf to the
    percepts would guess it."""
    game = load_kif_text(TWO_COINS, "two-coins", reasoner="propnet")
    told = frozenset({parse_term("(first 1)"), parse_term("(second 3)")})
    view = RoleView("p").then(parse_term("noop"), told)
    assert sample_history(game, view, random.Random(0)) is None
    start = Hypothesis((game.initial_state(),))
    for seed in range(20):
        walked = greedy_history(game, view, random.Random(seed), start)
        assert walked is not None
        facts = {str(f) for f in game.facts(walked.state)}
        assert facts & {"(got 1 1)", "(got 1 2)"}, facts
    faces = frozenset({parse_term("(first 2)"), parse_term("(second 1)")})
    exact = RoleView("p").then(parse_term("noop"), faces)
    walked = greedy_history(game, exact, random.Random(1), start)
    assert walked is not None and "(got 2 1)" in {str(f) for f in game.facts(walked.state)}
    late = greedy_history(game, exact, random.Random(1), start, deadline=0.0)
    assert late is not None and late.line == start.line  # the walk so far: none of it


@pytest.mark.parametrize("number", [2, 7])
def test_a_walk_from_a_step_on_gives_the_latest_percepts_where_the_whole_view_fails(
    hidden: GdlGame, number: int
) -> None:
    """A view no line gives (a percept at step 3 that the rules never give), whose last
    step shows the hidden number: a walk that heeds the last step only finds the number,
    every time; one that heeds every step finds nothing, and a deaf one guesses."""
    look = parse_term("look")
    wrong = frozenset({parse_term("(hidden 5)")})
    view = RoleView("watcher")
    for step in range(STIRS + 1):
        view = view.then(look, wrong if step == 3 else frozenset())
    view = view.then(look, frozenset({parse_term(f"(hidden {number})")}))
    assert sample_hypothesis(hidden, view, random.Random(0), budget=2_000) is None
    for seed in range(10):
        last = DeadStates(heed_from=view.turn - 1)
        found = sample_hypothesis(hidden, view, random.Random(seed), budget=2_000, dead=last)
        assert found is not None
        assert f"(hidden {number})" in {str(f) for f in hidden.facts(found.state)}
