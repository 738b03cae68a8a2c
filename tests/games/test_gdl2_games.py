"""GDL-II games through the game contract: loading, percepts, nature, and api_test.

The 22 public files of ``../shared/gdl2-games`` load (repaired where the checker refuses
them as written or warns of a misspelt relation; a fragment with the game it extends),
pass ``api_test`` (percepts and threads included) on the reasoner ``load`` picks, and
each plays 100 random matches with one goal per role at the end; the Monty Hall written
in ``gdl2_support`` is checked against the puzzle's known odds, computed exactly over
nature's uniform draws.
"""

from __future__ import annotations

import functools
import gc
import random
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from agents.toy_games import Nim

from games.gdl2_support import (
    FRAGMENTS,
    LOADED,
    MISSPELT,
    MONTY_HALL,
    PERFECT,
    PLAYABLE,
    REPAIRED,
    RULE_BUGS,
    SLOW,
    gdl2_dir,
    marked,
)
from ggpkit.games.api import Game, GameInfo, Information
from ggpkit.games.gdl.game import GdlCheckError, GdlGame, load_kif_file, load_kif_text
from ggpkit.games.registry import load
from ggpkit.games.testing import ApiTestFailure, api_test
from ggpkit.gdl.checker import check_file, errors
from ggpkit.gdl.game_rules import GOAL_COMPLETION_NOTE, relation, with_nature_goal
from ggpkit.gdl.kif import parse_rules, parse_term
from ggpkit.gdl.terms import Term, Var, func
from ggpkit.reasoning.base import ReasonerError
from ggpkit.reasoning.prover.reasoner import Prover


@functools.cache
def _public(name: str) -> GdlGame:
    """A public game loaded once for this module (the propnet of blackjack takes seconds)."""
    return load_kif_file(gdl2_dir() / name)


def test_every_public_file_is_sorted() -> None:
    files = {p.name for p in gdl2_dir().glob("*.kif")}
    assert files == {*RULE_BUGS, *PLAYABLE}
    assert len(files) == 22 == len(PLAYABLE) + len(RULE_BUGS)


@pytest.mark.parametrize("name", sorted(FRAGMENTS))
def test_fragments_load_with_the_game_they_extend(name: str) -> None:
    base = FRAGMENTS[name]
    game = _public(name)
    assert game.info.notes[0] == (
        f"{name} is a fragment (no role, legal, goal or terminal): loaded with {base}, the "
        "game it extends, whose lines come first"
    )
    extended = _public(base)
    assert game.roles == extended.roles and len(game.roles) == 2
    assert len(game.rules) > len(extended.rules)  # the fragment's rules come with them
    assert "robot_choice" in {relation(r.head) for r in game.rules}
    assert "robot_choice" not in {relation(r.head) for r in extended.rules}


def test_a_fragment_with_no_game_beside_it_is_refused(tmp_path: Path) -> None:
    source = (gdl2_dir() / "minesweeper_robot.kif").read_text()
    alone = tmp_path / "minesweeper_robot.kif"
    alone.write_text(source)
    with pytest.raises(GdlCheckError) as refused:
        load_kif_file(alone, reasoner="prover")
    first = next(p for p in refused.value.problems if p.severity == "error")
    assert (first.pos.file, first.pos.line, first.pos.col, first.code) == (
        str(alone), 1, 1, "missing"
    )  # fmt: skip
    assert "a fragment, not a game" in first.message


@pytest.mark.parametrize("name", sorted(MISSPELT))
def test_misspelt_relations_are_warnings_to_the_checker_and_load_read(name: str) -> None:
    path = gdl2_dir() / name
    (line, col), words = MISSPELT[name]
    problems = check_file(path)
    assert errors(problems) == []
    undefined = [p for p in problems if p.code == "undefined"]
    assert [(p.pos.line, p.pos.col) for p in undefined] == [(line, col)]
    game = load_kif_file(path, reasoner="prover")
    repairs = [n for n in game.info.notes if ": warning: " in n]
    assert repairs == [f"{path}:{line}:{col}: warning: {words}"]


@pytest.mark.parametrize("name", sorted(REPAIRED))
def test_repaired_files_are_errors_to_the_checker_and_load_repaired(name: str) -> None:
    """``ggpkit check`` stays strict; ``load`` reads the defects and says where, in notes."""
    path = gdl2_dir() / name
    (line, col, code), count, words = REPAIRED[name]
    first = errors(check_file(path))[0]
    assert (first.pos.file, first.pos.line, first.pos.col, first.code) == (
        str(path), line, col, code
    )  # fmt: skip
    game = load_kif_file(path, reasoner="prover")
    repairs = [n for n in game.info.notes if ": warning: " in n]
    assert len(repairs) == count
    assert repairs[0].startswith(f"{path}:{line}:{col}: warning: ") and words in repairs[0]
    assert GOAL_COMPLETION_NOTE in game.info.notes


@pytest.mark.parametrize("name", marked(LOADED))
def test_public_games_load_and_declare_what_they_are(name: str) -> None:
    game = _public(name)
    text = (gdl2_dir() / FRAGMENTS.get(name, name)).read_text()
    nature = "(role random)" in text and name not in PERFECT
    assert game.info.information is (
        Information.PERFECT if name in PERFECT else Information.IMPERFECT
    )
    assert game.info.chance_role == ("random" if nature else None)
    assert game.seats == tuple(r for r in game.roles if not (nature and r == "random"))


@pytest.mark.parametrize("name", marked(PLAYABLE))
def test_playable_public_games_pass_api_test(name: str) -> None:
    game = _public(name)
    report = api_test(game, time_budget=60.0)
    assert report.finished == report.matches == 3
    assert report.wrong_answers == 0
    assert (GOAL_COMPLETION_NOTE in game.info.notes) == (name not in PERFECT)


MATCHES = 100


@contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
    """Python's cycle collector paused: it walks every live object at each full pass, and
    the join code's state cache of a :data:`SLOW` game holds millions (nearly half of its
    100 matches' time went there); the cache holds no cycles to collect."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _random_matches(game: GdlGame, matches: int) -> int:
    """``matches`` seeded random matches; the joint moves played in all."""
    steps = 0
    for seed in range(matches):
        rng = random.Random(seed)
        state = game.initial_state()
        for _ in range(1000):
            if game.is_terminal(state):
                break
            joint = [rng.choice(game.legal_moves(state, r)) for r in game.roles]
            seen = game._percepts(state, joint)
            assert all(isinstance(p, frozenset) for p in seen.values())
            state = game._next(state, joint)
            steps += 1
        else:
            raise AssertionError(f"match {seed} has not ended after 1000 steps")
        goals = game.goals(state)
        assert list(goals) == list(game.roles) and all(0 <= g <= 100 for g in goals.values())
    return steps


@pytest.mark.parametrize("name", marked(PLAYABLE))
def test_playable_public_games_play_100_random_matches(name: str) -> None:
    """The issue's 100 random matches of each game, through the game contract: every
    match ends, every role (nature too) has one goal 0..100 at the end, and percepts are
    ground terms. Each step lists the legal moves once and plays a joint move drawn from
    them, so the move checks of ``next_state`` and ``percepts`` (which list them again)
    are skipped: on the join code listing nature's moves is most of a step's cost.
    ``tests/match/test_gdl2_matches.py`` plays them through the match driver.

    A :data:`SLOW` game is loaded for this test alone, and played with the cycle
    collector paused: the join code keeps the relations of its last 4096 states,
    gigabytes after 100 matches of SmallDominion2, and a process that holds them forks
    slowly enough to fail a later propnet's grounding estimate (a CPU bound)."""
    if name not in SLOW:
        assert _random_matches(_public(name), MATCHES) >= MATCHES
        return
    game = load_kif_file(gdl2_dir() / name)
    with _cyclic_gc_paused():
        assert _random_matches(game, MATCHES) >= MATCHES


# ---- Monty Hall, from the puzzle's rules ----------------------------------------------------


@pytest.fixture(scope="module", params=["prover", "joincode", "propnet"])
def monty(request: pytest.FixtureRequest) -> GdlGame:
    return load_kif_text(MONTY_HALL, "monty", reasoner=request.param)


def _win_chance(game: Game[Any], state: Any, pick: str, switch: bool) -> Fraction:
    """The contestant's exact chance of the car: nature's moves are uniform."""
    if game.is_terminal(state):
        return Fraction(game.goals(state)["contestant"], 100)
    own = game.legal_moves(state, "contestant")
    wanted = {f"(pick {pick})", "switch" if switch else "stay"}
    move = next((m for m in own if str(m) in wanted), own[0])
    chance = game.legal_moves(state, "random")
    total = sum(
        _win_chance(game, game.next_state(state, {"random": m, "contestant": move}), pick, switch)
        for m in chance
    )
    return Fraction(total) / len(chance)


@pytest.mark.parametrize("pick", ["d1", "d2", "d3"])
def test_monty_hall_switching_wins_two_thirds(monty: GdlGame, pick: str) -> None:
    start = monty.initial_state()
    assert _win_chance(monty, start, pick, switch=True) == Fraction(2, 3)
    assert _win_chance(monty, start, pick, switch=False) == Fraction(1, 3)


def test_monty_hall_declares_nature_and_imperfect_information(monty: GdlGame) -> None:
    info: GameInfo = monty.info
    assert info.information is Information.IMPERFECT and info.imperfect
    assert info.chance_role == "random"
    assert monty.roles == ("random", "contestant") and monty.seats == ("contestant",)
    assert info.goal_range == (0, 100)  # the contestant's: nature's goal is no seat's


def test_monty_hall_percepts_follow_the_rules(monty: GdlGame) -> None:
    t = parse_term
    state = monty.initial_state()
    joint = {"random": t("(place d2)"), "contestant": t("(pick d1)")}
    assert monty.percepts(state, joint) == {"random": frozenset(), "contestant": frozenset()}
    state = monty.next_state(state, joint)
    assert [str(m) for m in monty.legal_moves(state, "random")] == ["(reveal d3)"]
    joint = {"random": t("(reveal d3)"), "contestant": t("wait")}
    assert monty.percepts(state, joint)["contestant"] == {t("(opened d3)")}
    state = monty.next_state(state, joint)
    joint = {"random": t("wait"), "contestant": t("switch")}
    assert monty.percepts(state, joint) == {
        "random": frozenset(),
        "contestant": frozenset({t("(car d2)")}),
    }
    assert monty.goals(monty.next_state(state, joint)) == {"random": 0, "contestant": 100}


def test_monty_hall_passes_api_test(monty: GdlGame) -> None:
    report = api_test(monty, matches=6)
    assert report.finished == 6 and report.wrong_answers == 0


def test_percepts_are_checked_like_a_joint_move(monty: GdlGame) -> None:
    from ggpkit.games.api import IllegalMoveError

    with pytest.raises(IllegalMoveError):
        monty.percepts(monty.initial_state(), {"random": "wait", "contestant": "(pick d1)"})


def test_games_of_perfect_information_have_no_percepts() -> None:
    game = load("peg")
    state = game.initial_state()
    joint = [game.legal_moves(state, r)[0] for r in game.roles]
    assert game.info.information is Information.PERFECT and game.info.chance_role is None
    assert game.percepts(state, joint) == {r: frozenset() for r in game.roles}
    assert game.seats == game.roles


# ---- api_test catches broken percepts ------------------------------------------------------


class PerceivingNim(Nim):
    """Tells the mover what it took; ``how`` breaks the contract in one way or another."""

    def __init__(self, how: str) -> None:
        super().__init__()
        self.how = how
        self.info = replace(self.info, information=Information.IMPERFECT)
        self._last: Any = None
        self._count = 0

    def _percepts(self, state: Any, moves: Sequence[Term]) -> dict[str, frozenset[Term]]:
        took: list[frozenset[Term]] = [frozenset({func("took", m)}) for m in moves]
        seen = dict(zip(self.roles, took, strict=True))
        if self.how == "changing":
            self._count += 1
            seen[self.roles[0]] = frozenset({func("count", self._count)})
        elif self.how == "variable":
            seen[self.roles[0]] = frozenset({Var("x")})
        elif self.how == "shared":  # keeps the state being answered on the object
            self._last = state
            time.sleep(0)
            seen[self.roles[0]] = frozenset({func("left", self._last[0])})
        return seen


def test_declared_percepts_pass() -> None:
    assert api_test(PerceivingNim("well"), facts_round_trip=False).wrong_answers == 0


@pytest.mark.parametrize(
    ("how", "message"),
    [("changing", "two different percepts"), ("variable", "no frozenset of ground terms")],
)
def test_broken_percepts_fail(how: str, message: str) -> None:
    with pytest.raises(ApiTestFailure, match=message):
        api_test(PerceivingNim(how), facts_round_trip=False)


def test_percepts_shared_between_threads_fail_the_thread_check() -> None:
    with pytest.raises(ApiTestFailure, match="differ from the serial run"):
        api_test(PerceivingNim("shared"), facts_round_trip=False, rounds=20)


def test_percepts_in_a_game_declared_perfect_fail() -> None:
    game = PerceivingNim("well")
    game.info = replace(game.info, information=Information.PERFECT)
    with pytest.raises(ApiTestFailure, match="perfect information"):
        api_test(game, facts_round_trip=False)


def test_a_chance_role_that_is_no_role_fails() -> None:
    game = Nim()
    game.info = replace(game.info, chance_role="random")
    with pytest.raises(ApiTestFailure, match="is no role"):
        api_test(game, facts_round_trip=False)


def test_goal_range_speaks_of_the_seats() -> None:
    """Nature's goal 0 is outside a declared 50..100 and passes; a seat's must not. (The
    goal range of GDL-II rules reaches down to 0, the completion's value for no goal.)"""
    game = load_kif_text(MONTY_HALL.replace("(goal contestant 0)", "(goal contestant 50)"), "m")
    assert game.info.goal_range == (0, 100)
    game.info = replace(game.info, goal_range=(50, 100))
    assert api_test(game, matches=4).finished == 4
    game.info = replace(game.info, goal_range=(100, 100))
    with pytest.raises(ApiTestFailure, match=r"of contestant is outside 100\.\.100"):
        api_test(game, matches=8)


def test_monty_hall_20_doors_can_leave_the_candidate_without_a_door() -> None:
    """The rule bug ``gdl2_support.COMPLETED`` names, shown on one line of play: the rules
    give the candidate no goal there, the completion 0."""
    game = load_kif_file(gdl2_dir() / "MontyHall-20door.kif")
    t = parse_term
    state = game.next_state(
        game.initial_state(), {"random": t("(hide_car 1)"), "candidate": t("(choose 1)")}
    )
    keep_one = t("(open_all_doors_except 1 1)")
    assert keep_one in game.legal_moves(state, "random")
    state = game.next_state(state, {"random": keep_one, "candidate": t("noop")})
    state = game.next_state(state, {"random": t("noop"), "candidate": t("switch")})
    assert game.is_terminal(state)
    assert game.goals(state) == {"random": 0, "candidate": 0}
    path = gdl2_dir() / "MontyHall-20door.kif"
    as_written = Prover(with_nature_goal(parse_rules(path.read_text(), str(path))))
    with pytest.raises(ReasonerError, match="candidate"):
        as_written.goal(as_written.state_from_facts(game.facts(state)), 1)
