"""GDL-II's restrictions in the checker: each bad rule set reported at its file:line:col.

GDL-II (Thielscher, 2010) adds ``(sees ?role ?percept)``, computed like ``next`` from
the current state and the joint move, and the role ``random`` (nature). The positions
expected here are found in the text itself, so each test says where the fault is.
"""

from __future__ import annotations

from ggpkit.gdl.checker import Problem, check_text, errors
from ggpkit.gdl.game_rules import chance_role, uses_sees, with_nature_goal
from ggpkit.gdl.kif import parse_rules

GOOD = """\
(role a)
(init (p 1))
(succ 1 2)
(<= (legal a (go ?x)) (true (p ?x)))
(<= (next (p ?y)) (does a (go ?x)) (succ ?x ?y))
(<= terminal (true (p 2)))
(<= (goal a 100) (true (p 2)))
(<= (goal a 0) (not (true (p 2))))
(<= (sees a (went ?x)) (does a (go ?x)))
"""


def at(text: str, fragment: str, nth: int = 0) -> tuple[int, int]:
    """The 1-based line and column of the ``nth`` occurrence of ``fragment`` in ``text``."""
    index = -1
    for _ in range(nth + 1):
        index = text.index(fragment, index + 1)
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def found(problems: list[Problem], code: str) -> list[tuple[str, int, int, str]]:
    return [(p.pos.file, p.pos.line, p.pos.col, p.message) for p in problems if p.code == code]


def test_a_game_with_percepts_and_nature_is_clean() -> None:
    text = GOOD + "(role random)\n(<= (legal random (deal ?x)) (succ ?x ?y))\n"
    assert check_text(text, "ok.kif") == []
    rules = parse_rules(text)
    assert uses_sees(rules) and chance_role(rules) == "random"


def test_sees_in_a_body_is_an_error_at_the_literal() -> None:
    text = GOOD + "(<= (q ?x) (sees a ?x))\n(<= (legal a stop) (q 1))\n"
    problems = errors(check_text(text, "body.kif"))
    line, col = at(text, "(sees a ?x)")
    [(file, got_line, got_col, message)] = found(problems, "keyword")
    assert (file, got_line, got_col) == ("body.kif", line, col)
    assert "'sees' may only appear as a rule head" in message


def test_nature_without_legal_moves_is_an_error_at_its_role() -> None:
    text = GOOD + "(role random)\n"
    problems = errors(check_text(text, "nature.kif"))
    assert [(f, line, col) for f, line, col, _ in found(problems, "chance")] == [
        ("nature.kif", *at(text, "(role random)"))
    ]
    assert "no 'legal' rule can give it a move" in problems[0].message


def test_a_legal_rule_with_a_variable_role_can_move_nature() -> None:
    text = GOOD + "(role random)\n(<= (legal ?r wait) (role ?r))\n"
    assert found(check_text(text), "chance") == []


def test_a_role_named_random_without_sees_is_an_ordinary_role() -> None:
    """beatMania's ``random`` is a player: only ``sees`` makes GDL-II (and nature)."""
    plain = GOOD.replace("(<= (sees a (went ?x)) (does a (go ?x)))\n", "(role random)\n")
    rules = parse_rules(plain)
    assert not uses_sees(rules) and chance_role(rules) is None
    assert found(check_text(plain), "chance") == []


def test_a_percept_depending_on_next_is_an_error() -> None:
    direct = GOOD + "(<= (sees a ?x) (next ?x))\n"
    problems = errors(check_text(direct, "next.kif"))
    where = at(direct, "(next ?x)")
    assert [(line, col) for _, line, col, _ in found(problems, "dependency")] == [where]
    assert "'sees' must not depend on 'next'" in found(problems, "dependency")[0][3]
    assert [(line, col) for _, line, col, _ in found(problems, "keyword")] == [where]
    through = GOOD + "(<= (soon ?x) (next ?x))\n(<= (sees a ?x) (soon ?x))\n"
    problems = errors(check_text(through, "soon.kif"))
    [dependency] = found(problems, "dependency")
    assert dependency[1:3] == at(through, "(soon ?x)", 1)
    assert "not the next state" in dependency[3]


def test_a_percept_depending_on_init_is_an_error() -> None:
    text = GOOD + "(<= (sees a ?x) (init ?x))\n"
    problems = errors(check_text(text, "init.kif"))
    assert [(line, col) for _, line, col, _ in found(problems, "dependency")] == [
        at(text, "(init ?x)")
    ]


def test_an_unsafe_variable_in_a_percept_is_an_error_at_the_variable() -> None:
    text = GOOD + "(<= (sees a ?y) (true (p 1)))\n"
    problems = errors(check_text(text, "unsafe.kif"))
    [(_, line, col, message)] = found(problems, "safety")
    sees_line, sees_col = at(text, "(sees a ?y)")
    assert (line, col) == (sees_line, sees_col + len("(sees a "))
    assert "?y" in message


def test_sees_takes_two_arguments() -> None:
    text = GOOD + "(<= (sees a) (true (p 1)))\n"
    [(_, line, col, _)] = found(errors(check_text(text)), "arity")
    assert (line, col) == at(text, "(sees a)")


def test_a_percept_for_no_role_is_a_warning() -> None:
    text = GOOD + "(<= (sees b (went ?x)) (does a (go ?x)))\n"
    problems = check_text(text)
    assert errors(problems) == []
    assert [(p.pos.line, p.pos.col) for p in problems if p.code == "undefined"] == [
        at(text, "b (went")
    ]


def test_sees_and_random_are_read_as_keywords() -> None:
    text = GOOD.replace("(sees a", "(SEES a") + "(ROLE Random)\n(<= (legal RANDOM deal) (succ 1 2))"
    rules = parse_rules(text)
    assert uses_sees(rules) and chance_role(rules) == "random"


def test_nature_gets_goal_zero_whatever_the_rules_say() -> None:
    text = GOOD + (
        "(role random)\n(<= (legal random deal) (succ 1 2))\n"
        "(goal random 100)\n(<= (goal ?r 50) (role ?r) (true (p 9)))\n"
    )
    completed = with_nature_goal(parse_rules(text))
    goals = [str(r) for r in completed if r.head.name == "goal"]
    assert "(goal random 100)" not in goals
    assert "(<= (goal ?r 50) (role ?r) (true (p 9)) (distinct ?r random))" in goals
    assert goals[-1] == "(goal random 0)"
    assert with_nature_goal(parse_rules(GOOD)) == parse_rules(GOOD)  # no nature: unchanged
