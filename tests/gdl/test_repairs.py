"""Repairs at load time (``ggpkit.gdl.repairs``) and the completion of GDL-II goals.

Each repair on a small text written here: the checker still reports the defect as an
error (a warning, for a misspelt relation), ``load`` reads it as a Prolog-style reasoner
does and says so in a warning at the defect's exact place, and the prover and the propnet
play the repaired rules alike.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ggpkit.cli import _load_commands, app
from ggpkit.games.api import GameError
from ggpkit.games.gdl.game import GdlCheckError, GdlGame, load_kif_text
from ggpkit.gdl.checker import check_text, errors
from ggpkit.gdl.game_rules import GOAL_COMPLETION_NOTE, with_goal_completion
from ggpkit.gdl.kif import parse_rules, parse_term
from ggpkit.gdl.repairs import repair_rules, role_positions

REASONERS = ("prover", "propnet")


def _load(text: str, reasoner: str) -> GdlGame:
    return load_kif_text(text, "t.kif", reasoner=reasoner)


def _warnings(game: GdlGame) -> list[str]:
    return [n for n in game.info.notes if ": warning: " in n]


def _first_error(text: str) -> tuple[int, int, str]:
    first = errors(check_text(text, "t.kif"))[0]
    return (first.pos.line, first.pos.col, first.code)


# ---- a bare 'not' ------------------------------------------------------------------------

BARE_NOT = """\
(role p)
(init (n 0))
(<= (legal p go) (true (n 0)))
(<= (legal p stop) (true (n 0)))
(<= (next (n 1)) (does p go))
(<= (next (n 0)) (does p stop))
(<= open (true (n 0)))
(<= terminal not open)
(goal p 100)
"""


@pytest.mark.parametrize("reasoner", REASONERS)
def test_a_bare_not_reads_as_the_negation_of_the_next_literal(reasoner: str) -> None:
    assert _first_error(BARE_NOT) == (8, 14, "arity")
    game = _load(BARE_NOT, reasoner)
    assert _warnings(game) == ["t.kif:8:14: warning: a bare 'not' before open: read as (not open)"]
    start = game.initial_state()
    assert not game.is_terminal(start)  # 'not' alone would be a relation never true
    assert not game.is_terminal(game.next_state(start, ["stop"]))
    assert game.is_terminal(game.next_state(start, ["go"]))


def test_a_bare_not_at_the_end_of_a_body_stays_an_error() -> None:
    text = BARE_NOT.replace("(<= terminal not open)", "(<= terminal open not)")
    with pytest.raises(GdlCheckError) as refused:
        _load(text, "prover")
    first = errors(refused.value.problems)[0]
    assert (first.pos.line, first.pos.col, first.code) == (8, 19, "arity")


# ---- a relation with two arities -----------------------------------------------------------

ARITIES = """\
(role p)
(init (n 0))
(pick a b)
(cell 1 1)
(<= (pick ?x) (pick ?x b))
(<= (legal p (take ?x)) (pick ?x) (true (n 0)))
(<= (legal p wait) (not (cell 1)) (true (n 0)))
(<= (next (n 1)) (true (n 0)))
(<= (next done) (not (true n 0)))
(<= terminal (true (n 1)))
(<= (goal p 100) (true done))
(<= (goal p 0) (not (true done)))
"""


@pytest.mark.parametrize("reasoner", REASONERS)
def test_a_second_arity_is_a_relation_apart(reasoner: str) -> None:
    assert _first_error(ARITIES) == (5, 5, "arity")
    game = _load(ARITIES, reasoner)
    assert _warnings(game) == [
        "t.kif:5:5: warning: 'pick' with 1 argument(s) here, with 2 elsewhere: read as a "
        "relation apart, 'pick/1', defined by its own rules",
        "t.kif:6:25: warning: 'pick' with 1 argument(s) here, with 2 elsewhere: read as a "
        "relation apart, 'pick/1', defined by its own rules",
        "t.kif:7:25: warning: 'cell' with 1 argument(s) here, with 2 elsewhere: read as a "
        "relation apart, 'cell/1', which no rule defines: never true, so a 'not' of it holds",
        "t.kif:9:22: warning: 'true' takes 1 argument(s), 2 here: read as a relation apart, "
        "'true/2', which no rule defines: never true, so a 'not' of it holds",
    ]
    start = game.initial_state()
    assert [str(m) for m in game.legal_moves(start, "p")] == ["(take a)", "wait"]
    after = game.next_state(start, ["wait"])
    assert game.is_terminal(after) and game.goals(after) == {"p": 100}
    assert parse_term("done") in game.facts(after)


def test_a_fresh_name_never_meets_one_of_the_game() -> None:
    text = ARITIES.replace("(cell 1 1)", "(cell 1 1) (cell/1 0)")
    repaired = repair_rules(parse_rules(text, "t.kif"))
    assert not repaired.errors
    assert "'cell/1''" in repaired.repairs[2].message
    assert any(str(r) == "(cell/1 0)" for r in repaired.rules)


def test_a_keyword_head_with_another_arity_stays_an_error() -> None:
    text = ARITIES.replace("(pick a b)", "(<= (legal p a b) (true (n 0)))")
    with pytest.raises(GdlCheckError) as refused:
        _load(text, "prover")
    first = errors(refused.value.problems)[0]
    assert (first.pos.line, first.pos.col, first.code) == (3, 5, "arity")


# ---- a role variable bound only by distinct or not ----------------------------------------

ROLE_VARIABLES = """\
(role random)
(role a)
(role b)
(init (phase 0))
(card c1)
(card c2)
(<= (legal random (deal ?x)) (true (phase 0)) (card ?x))
(<= (legal ?p noop) (distinct ?p random) (true (phase 0)))
(<= (sees ?p (dealt ?x)) (does random (deal ?x)) (watches ?p))
(<= (watches ?p) (not (true (blind ?p))) (distinct ?p random))
(<= (next (phase 1)) (true (phase 0)))
(<= terminal (true (phase 1)))
(goal a 100)
(goal b 50)
"""


@pytest.mark.parametrize("reasoner", REASONERS)
def test_a_role_variable_tested_only_is_bound_to_the_roles(reasoner: str) -> None:
    assert _first_error(ROLE_VARIABLES) == (8, 12, "safety")
    game = _load(ROLE_VARIABLES, reasoner)
    said = "is bound by no positive literal, only tested by 'distinct' or 'not': read as for "
    assert _warnings(game) == [
        f"t.kif:8:12: warning: ?p, a role argument of 'legal', {said}every role, (role ?p) "
        "added to the body",
        f"t.kif:10:14: warning: ?p, a role argument of 'watches', {said}every role, (role ?p) "
        "added to the body",
    ]
    start = game.initial_state()
    assert [str(m) for m in game.legal_moves(start, "a")] == ["noop"]
    assert [str(m) for m in game.legal_moves(start, "b")] == ["noop"]
    assert [str(m) for m in game.legal_moves(start, "random")] == ["(deal c1)", "(deal c2)"]
    seen = game.percepts(start, ["(deal c2)", "noop", "noop"])
    assert seen == {
        "random": frozenset(),
        "a": frozenset({parse_term("(dealt c2)")}),
        "b": frozenset({parse_term("(dealt c2)")}),
    }


def test_role_places_are_found_through_the_rules_that_use_them() -> None:
    places = role_positions(parse_rules(ROLE_VARIABLES))
    assert ("watches", 0) in places and ("legal", 0) in places and ("card", 0) not in places


def test_a_variable_that_is_no_role_stays_unsafe() -> None:
    text = ROLE_VARIABLES + "(<= (seen ?x) (distinct ?x c1) (true (phase 0)))\n"
    with pytest.raises(GdlCheckError) as refused:
        _load(text, "prover")
    first = errors(refused.value.problems)[0]
    assert (first.pos.line, first.pos.col, first.code) == (15, 11, "safety")


# ---- a stray sentence --------------------------------------------------------------------

STRAY = """\
(role p)
(init (n 0))
(<= (legal p go)
    (true (n 0)))
    (true (turn ?c))
(<= (next (n 1)) (does p go))
(<= terminal (true (n 1)))
(goal p 100)
"""


@pytest.mark.parametrize("reasoner", REASONERS)
def test_a_stray_true_sentence_is_dropped(reasoner: str) -> None:
    assert _first_error(STRAY) == (5, 5, "keyword")
    game = _load(STRAY, reasoner)
    assert _warnings(game) == [
        "t.kif:5:5: warning: the top-level sentence (true (turn ?c)) is no rule ('true' "
        "cannot be a head; a rule closed too early?): dropped, as a reasoner never asks for it"
    ]
    start = game.initial_state()
    assert [str(m) for m in game.legal_moves(start, "p")] == ["go"]
    assert game.goals(game.next_state(start, ["go"])) == {"p": 100}


def test_a_true_rule_is_no_stray_sentence() -> None:
    text = STRAY.replace("    (true (turn ?c))", "(<= (true (turn 1)) (true (n 0)))")
    with pytest.raises(GdlCheckError) as refused:
        _load(text, "prover")
    first = errors(refused.value.problems)[0]
    assert (first.pos.line, first.pos.col, first.code) == (5, 5, "keyword")


# ---- a misspelt relation (a warning, not an error) ----------------------------------------

MISSPELT = """\
(role p)
(init (n 0))
(winner p red)
(<= (legal p go) (true (n 0)))
(<= (legal p stop) (true (n 0)))
(<= (next (n 1)) (does p go))
(<= (next (n 2)) (does p stop))
(<= terminal (not (true (n 0))))
(<= (goal p 100) (true (n 1)) (winer p ?c))
(<= (goal p 0) (true (n 2)))
(<= (goal p 0) (true (n 1)) (not (winer p red)))
"""
READ_AS = "'winer' is never defined: read as 'winner', one letter apart"


def _undefined(text: str) -> list[tuple[int, int]]:
    problems = check_text(text, "t.kif")
    assert errors(problems) == []
    return [(p.pos.line, p.pos.col) for p in problems if p.code == "undefined"]


@pytest.mark.parametrize("reasoner", REASONERS)
def test_a_misspelt_relation_reads_as_the_defined_one(reasoner: str) -> None:
    assert _undefined(MISSPELT) == [(9, 31)]  # a warning, at the first use only
    game = _load(MISSPELT, reasoner)
    assert _warnings(game) == [
        f"t.kif:9:31: warning: {READ_AS}",
        f"t.kif:11:34: warning: {READ_AS}",
    ]
    start = game.initial_state()
    assert game.goals(game.next_state(start, ["go"])) == {"p": 100}  # 0 too, as written
    assert game.goals(game.next_state(start, ["stop"])) == {"p": 0}


def test_the_prover_and_the_propnet_agree_on_a_misspelt_relation() -> None:
    prover, propnet = _load(MISSPELT, "prover"), _load(MISSPELT, "propnet")
    for move in ("go", "stop"):
        after = [g.next_state(g.initial_state(), [move]) for g in (prover, propnet)]
        assert prover.facts(after[0]) == propnet.facts(after[1])
        assert prover.goals(after[0]) == propnet.goals(after[1])


NO_READING = {
    "two names one edit away": [("(winner p red)", "(winner p red) (winnr p blue)")],
    "the defined relation has 3 arguments": [("(winner p red)", "(winner p red 1)")],
    "the only name one edit away is a keyword's (init)": [
        ("(winer p ?c)", "(inits (n 0))"), ("(winer p red)", "(inits (n 1))")
    ],
    "the undefined name is a keyword's": [
        ("(winner p red)", "(winner p red) (bases (n 0))"),
        ("(winer p ?c)", "(base (n 0))"), ("(winer p red)", "(base (n 1))"),
    ],
    "a name of 2 letters is too short to be read as misspelt": [
        ("winner", "win"), ("winer", "wi")
    ],
}  # fmt: skip


@pytest.mark.parametrize("why", sorted(NO_READING))
def test_no_reading_without_exactly_one_defined_relation_of_the_arity(why: str) -> None:
    text = MISSPELT
    for old, new in NO_READING[why]:
        assert old in text
        text = text.replace(old, new)
    assert len(_undefined(text)) == 1, why
    rules = parse_rules(text, "t.kif")
    repaired = repair_rules(rules)
    assert repaired.repairs == () and repaired.rules == tuple(rules), why


def test_check_shows_the_reading_of_a_warning_and_passes(tmp_path: Path) -> None:
    _load_commands()
    path = tmp_path / "t.kif"
    path.write_text(MISSPELT)
    result = CliRunner().invoke(app, ["check", "--playouts", "0", str(path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"{path}:9:31: warning: relation 'winer' is never defined (always false)"
    assert lines[1].startswith(f"{path}: note: ggpkit.load reads these warnings so: 2 repair(s)")
    assert lines[2:4] == [f"{path}:9:31: warning: {READ_AS}", f"{path}:11:34: warning: {READ_AS}"]
    assert f"{path}: 1 role(s) (p)" in result.output
    assert f"{path}: 0 error(s), 3 warning(s)" in result.output


# ---- what is not repaired ------------------------------------------------------------------


def test_a_file_with_an_error_left_is_refused_at_the_first_that_remains() -> None:
    text = BARE_NOT + "(<= (goal p ?v) (true (n 1)))\n"
    assert _first_error(text) == (8, 14, "arity")
    with pytest.raises(GdlCheckError) as refused:
        _load(text, "prover")
    first = errors(refused.value.problems)[0]
    assert (first.pos.line, first.pos.col, first.code) == (10, 13, "safety")
    assert "t.kif:8:14: warning: a bare 'not'" in "\n".join(map(str, refused.value.problems))


def test_rules_without_errors_are_not_touched() -> None:
    rules = parse_rules(STRAY.replace("    (true (turn ?c))\n", ""))
    repaired = repair_rules(rules)
    assert repaired.rules == tuple(rules) and repaired.repairs == ()


def test_a_fragment_is_no_game() -> None:
    text = "(<= (next (round 2)) (not has_round))\n(<= has_round (true (round ?r)))\n"
    with pytest.raises(GdlCheckError, match="a fragment, not a game: it defines none of"):
        _load(text, "prover")


def test_check_stays_strict_and_says_load_repairs(tmp_path: Path) -> None:
    _load_commands()
    path = tmp_path / "t.kif"
    path.write_text(BARE_NOT)
    result = CliRunner().invoke(app, ["check", "--playouts", "0", str(path)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith(f"{path}:8:14: error: 'not' takes 1 argument")
    assert f"{path}: note: ggpkit.load repairs these " in result.output
    assert f"{path}:8:14: warning: a bare 'not' before open: read as (not open)" in lines
    assert f"{path}: 1 role(s) (p)" in result.output


# ---- GDL-II goals: exactly one per role --------------------------------------------------

GOALS = """\
(role random)
(role a)
(role b)
(init (n 0))
(<= (legal random (roll ?x)) (true (n 0)) (face ?x))
(<= (legal ?p wait) (role ?p) (distinct ?p random) (true (n 0)))
(face 1) (face 2) (face 3)
(<= (sees a (rolled ?x)) (does random (roll ?x)))
(<= (next (n ?x)) (does random (roll ?x)))
(<= terminal (not (true (n 0))))
(<= (goal a 30) (true (n 1)))
(<= (goal a 70) (true (n 1)))
(<= (goal a 100) (true (n 2)))
(<= (goal b 50) (true (n 2)))
(<= (goal b 20) (goal a 100))
"""


@pytest.mark.parametrize("reasoner", ("prover", "joincode", "propnet"))
def test_gdl2_goals_are_the_highest_value_or_0(reasoner: str) -> None:
    game = load_kif_text(GOALS, "g", reasoner=reasoner)
    assert GOAL_COMPLETION_NOTE in game.info.notes
    start = game.initial_state()
    goals = {
        roll: game.goals(game.next_state(start, [f"(roll {roll})", "wait", "wait"]))
        for roll in (1, 2, 3)
    }
    assert goals == {
        1: {"random": 0, "a": 70, "b": 0},  # two values for a: the highest; none for b: 0
        2: {"random": 0, "a": 100, "b": 50},  # b's 20 comes from the rules' own goal of a
        3: {"random": 0, "a": 0, "b": 0},
    }
    assert game.info.goal_range == (0, 100)


def test_computed_goal_values_are_compared_too() -> None:
    text = GOALS + "(<= (goal b ?v) (true (n ?v)) (face ?v))\n"
    text = text.replace("(face 1) (face 2) (face 3)", "(face 1) (face 2) (face 3) (face 99)")
    text = text.replace("(face ?x))", "(face ?x) (distinct ?x 99))")  # nature never rolls 99
    game = load_kif_text(text, "g", reasoner="prover")
    state = game.next_state(game.initial_state(), ["(roll 3)", "wait", "wait"])
    assert game.goals(state) == {"random": 0, "a": 0, "b": 3}
    state = game.next_state(game.initial_state(), ["(roll 2)", "wait", "wait"])
    assert game.goals(state)["b"] == 50


def test_gdl_goals_stay_as_written() -> None:
    """Without ``sees`` the rules are plain GDL: a missing goal is the game's error."""
    text = GOALS.replace("(<= (sees a (rolled ?x)) (does random (roll ?x)))\n", "")
    assert with_goal_completion(parse_rules(text)) == parse_rules(text)
    game = load_kif_text(text, "g", reasoner="prover")
    assert GOAL_COMPLETION_NOTE not in game.info.notes
    with pytest.raises(GameError, match="goal"):
        game.goals(game.next_state(game.initial_state(), ["(roll 1)", "wait", "wait"]))
