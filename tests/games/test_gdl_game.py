"""The GDL-backed game on the reference prover: a known ticTacToe line, API behaviour, errors."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

import ggpkit
from ggpkit.games.api import Dynamics, GameError, IllegalMoveError, Utility
from ggpkit.games.gdl import game as gdl_game
from ggpkit.games.gdl.game import (
    GdlCheckError,
    GdlGame,
    GdlGameError,
    load_kif_file,
    load_kif_text,
)
from ggpkit.games.registry import rules_path
from ggpkit.gdl.terms import func
from ggpkit.reasoning.base import QueryTimeLimitError, time_limit


def games_dir() -> Path:
    env = os.environ.get("GGPKIT_GAMES_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared" / "ggp-games"


def public_game(name: str, reasoner: str = "prover") -> GdlGame:
    path = games_dir() / f"{name}.kif"
    if not path.exists():
        pytest.skip(f"public game {name} not available ({path})")
    game = load_kif_file(path, reasoner=reasoner)
    assert isinstance(game, GdlGame)
    return game


# A tiny two-player race: each turn the mover adds 1 or 2 to a counter; reaching 3 or more
# ends the game and the player who moved last wins.
RACE = """
(role a) (role b)
(init (count 0)) (init (control a))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
(<= (legal ?p (add 1)) (true (control ?p)))
(<= (legal ?p (add 2)) (true (control ?p)))
(<= (legal ?p noop) (role ?p) (not (true (control ?p))))
(<= (next (count ?n)) (does ?p (add 1)) (true (count ?m)) (succ ?m ?n))
(<= (next (count ?n)) (does ?p (add 2)) (true (count ?m)) (succ ?m ?k) (succ ?k ?n))
(<= (next (control b)) (true (control a)))
(<= (next (control a)) (true (control b)))
(<= (next (last ?p)) (does ?p (add ?x)))
(<= big (true (count 3)))
(<= big (true (count 4)))
(<= terminal big)
(<= (goal ?p 100) (true (last ?p)) big)
(<= (goal ?p 0) (role ?p) (not (true (last ?p))))
(<= (goal ?p 0) (true (last ?p)) (not big))
"""


def test_race_game_plays_to_the_end_with_the_right_winner() -> None:
    game = load_kif_text(RACE, "race", reasoner="prover")
    assert game.roles == ("a", "b")
    s = game.initial_state()
    assert game.legal_moves(s, "a") == [func("add", 1), func("add", 2)]
    assert [str(m) for m in game.legal_moves(s, "b")] == ["noop"]
    assert game.to_move(s) == "a"
    s = game.play(s, "(add 2)")
    assert func("count", 2) in game.facts(s)
    assert game.to_move(s) == "b"
    assert not game.is_terminal(s)
    s = game.play(s, "(add 1)")
    assert game.is_terminal(s)
    assert game.goals(s) == {"a": 0, "b": 100}
    assert game.legal_moves(s, "a") == []


def test_illegal_move_is_refused_and_state_unchanged() -> None:
    game = load_kif_text(RACE, "race", reasoner="prover")
    s = game.initial_state()
    with pytest.raises(IllegalMoveError):
        game.play(s, "(add 3)")
    with pytest.raises(IllegalMoveError):
        game.next_state(s, {"a": "noop", "b": "noop"})
    assert game.facts(s) == game.facts(game.initial_state())


def test_states_are_hashable_and_equal_by_content() -> None:
    game = load_kif_text(RACE, "race", reasoner="prover")
    s = game.initial_state()
    t1 = game.next_state(s, ["(add 1)", "noop"])
    t2 = game.next_state(s, {"a": "(add 1)", "b": "noop"})
    assert t1 == t2 and hash(t1) == hash(t2)
    assert t1 != s


def test_goal_with_two_values_is_a_game_error_naming_role_and_values() -> None:
    text = RACE + "\n(<= (goal a 50) (true (count 0)))\n"
    game = load_kif_text(text, "race2", reasoner="prover")
    with pytest.raises(GdlGameError, match=r"role a has 2 goal values.*0, 50"):
        game.goals(game.initial_state())


def test_info_heuristic_on_the_race_game() -> None:
    game = load_kif_text(RACE, "race", reasoner="prover")
    assert game.info.turn_taking
    assert game.info.zero_sum  # the winner gets 100, the other 0
    assert game.reasoner_name == "prover"


def test_unknown_reasoner_is_refused() -> None:
    with pytest.raises(GameError, match="unknown reasoner"):
        load_kif_text(RACE, "race", reasoner="magic")


@pytest.mark.parametrize("reasoner", ["prover", "auto"])
def test_tictactoe_known_line_reaches_terminal_with_correct_goals(reasoner: str) -> None:
    game = public_game("ticTacToe", reasoner)
    assert game.roles == ("xplayer", "oplayer")
    s = game.initial_state()
    # x takes the first column; o plays the middle column.
    line = ["(mark 1 1)", "(mark 1 2)", "(mark 2 1)", "(mark 2 2)", "(mark 3 1)"]
    for move in line:
        assert not game.is_terminal(s)
        s = game.play(s, move)
    assert game.is_terminal(s)
    assert game.goals(s) == {"xplayer": 100, "oplayer": 0}


def test_tictactoe_random_matches_end_with_valid_goals() -> None:
    game = public_game("ticTacToe")
    rng = random.Random(7)
    for _ in range(20):
        goals, steps = game.random_playout(game.initial_state(), rng)
        assert 5 <= steps <= 9
        assert sorted(goals.values()) in ([0, 100], [50, 50])


def test_check_errors_become_one_typed_exception() -> None:
    with pytest.raises(GdlCheckError) as info:
        load_kif_text("(role a)\n(<= (legal a ?x) (true (p)))\n", "bad.kif", reasoner="prover")
    assert "bad.kif:2:" in str(info.value)


def test_state_from_facts_round_trips() -> None:
    game = load_kif_text(RACE, "race", reasoner="prover")
    s = game.next_state(game.initial_state(), ["(add 2)", "noop"])
    again = game.state_from_facts(game.facts(s))
    assert again == s
    assert game.to_move(again) == "b"


def test_playout_stats_totals_are_consistent() -> None:
    game = load_kif_text(RACE, "race", reasoner="prover")
    stats = game.playout_stats(game.initial_state(), 30, seed=5)
    assert stats.playouts == 30
    assert 2 * 30 <= stats.moves <= 3 * 30  # two or three joint moves per race
    assert sum(stats.goal_sums) == 100 * 30  # exactly one winner each time


def test_load_by_path_through_the_registry() -> None:
    path = games_dir() / "ticTacToe.kif"
    if not path.exists():
        pytest.skip("ticTacToe not available")
    game = ggpkit.load(str(path))
    assert isinstance(game, GdlGame) and game.name == "ticTacToe"
    assert len(game.legal_moves(game.initial_state(), "xplayer")) == 9


def test_auto_falls_back_to_the_prover_without_the_fast_reasoner(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ggpkit.games.gdl import game as gdl_game

    def no_module(name: str) -> object:
        raise ImportError(name)

    monkeypatch.setattr(gdl_game.importlib, "import_module", no_module)
    assert load_kif_text(RACE, "race").reasoner_name == "joincode"
    with pytest.raises(GameError, match="propnet reasoner cannot run this game"):
        load_kif_text(RACE, "race", reasoner="propnet")


def _clock_of(monkeypatch: pytest.MonkeyPatch, seconds_per_look: float) -> None:
    """Make the probe's clock run ``seconds_per_look`` each time it is read."""
    looks = iter(range(10**6))
    monkeypatch.setattr(gdl_game.time, "perf_counter", lambda: next(looks) * seconds_per_look)


def test_declared_info_does_not_depend_on_the_speed_of_the_machine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The GDL twin of breakthrough-holes is zero-sum: every probe on any machine must say so,
    # also on one so busy that the probe takes a minute (below its safety limit, lifted
    # here, it counts moves, never seconds; a 1 s time budget saw too few game ends).
    rules = rules_path("breakthrough-holes")
    calm = load_kif_file(rules).info
    monkeypatch.setattr(gdl_game, "PROBE_SAFETY_SECONDS", 1e9, raising=False)
    _clock_of(monkeypatch, 0.2)  # a machine so busy that 0.2 s pass between two looks
    busy = load_kif_file(rules).info
    assert calm == busy
    assert busy.utility == Utility.ZERO_SUM and busy.dynamics == Dynamics.TURN_TAKING


def test_rules_too_slow_to_probe_are_declared_general_sum_with_a_note(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _clock_of(monkeypatch, 0.2)  # the whole probe would take over a minute
    info = load_kif_file(rules_path("breakthrough-holes")).info
    assert info.utility == Utility.GENERAL_SUM and info.dynamics == Dynamics.TURN_TAKING
    assert any("too slow to probe" in note for note in info.notes)


HOSTILE = (
    "(role p) (init (x 0))"
    + " ".join(f"(n {i})" for i in range(40))
    + "(<= (big ?a ?b ?c ?d ?e ?f ?g) (n ?a) (n ?b) (n ?c) (n ?d) (n ?e) (n ?f) (n ?g))"
    "(<= (legal p (go ?a)) (big ?a ?b ?c ?d ?e ?f ?g)) (<= (next (x ?a)) (does p (go ?a)))"
    "(<= terminal (true (x 1))) (<= (goal p 0) (true (x ?a)))"
)
"""Legal moves that need 160 billion rule instances: no query on them ever ends."""


def test_info_of_rules_whose_queries_never_end_is_still_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(gdl_game, "PROBE_SAFETY_SECONDS", 0.5)
    game = load_kif_text(HOSTILE, "hostile.kif", reasoner="prover")
    info = game.info
    assert info.utility is Utility.GENERAL_SUM
    assert any("too slow" in note for note in info.notes)


def test_a_query_stopped_by_its_callers_limit_is_that_limits_error() -> None:
    """A search that set a limit catches its own error; the game's callers still see a
    game error."""
    rules = (
        "(role p) (init (at 0)) (<= (legal p (go ?x)) (true (at ?x)))"
        "(<= (next (at 1)) (does p (go ?x))) (<= terminal (true (at 1)))"
        "(<= (goal p 0) (true (at ?x)))"
    )
    game = load_kif_text(rules, "stopped", reasoner="prover")
    with pytest.raises(QueryTimeLimitError) as stopped, time_limit(0.0):
        game.legal_moves(game.initial_state(), "p")
    assert isinstance(stopped.value, GameError) and "stopped" in str(stopped.value)
    assert [str(m) for m in game.legal_moves(game.initial_state(), "p")] == ["(go 0)"]
