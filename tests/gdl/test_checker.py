"""The static checker: one small bad description per error class, exact positions and kinds."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ggpkit.gdl.checker import Problem, check_file, check_text, errors
from ggpkit.gdl.kif import MAX_DEPTH, MAX_TEXT_CHARS

# A minimal valid game; each bad case below adds or changes a line of it.
GOOD = """\
(role a)
(init (p 1))
(succ 1 2)
(<= (legal a (go ?x)) (true (p ?x)))
(<= (next (p ?y)) (does a (go ?x)) (succ ?x ?y))
(<= terminal (true (p 2)))
(<= (goal a 100) (true (p 2)))
(<= (goal a 0) (not (true (p 2))))
"""


def where(problems: list[Problem], code: str) -> list[tuple[int, int, str]]:
    return [(p.pos.line, p.pos.col, p.severity) for p in problems if p.code == code]


def test_the_good_game_has_no_problem() -> None:
    assert check_text(GOOD, "good.kif") == []


def test_syntax_error_is_one_problem_with_its_position() -> None:
    problems = check_text("(role a)\n(init (p 1)\n", "s.kif")
    assert len(problems) == 1
    assert str(problems[0]).startswith("s.kif:2:1: error: ")
    assert "never closed" in problems[0].message


@pytest.mark.parametrize(
    ("extra", "code", "line", "col", "words"),
    [
        # relation arity: q used with 1 then 2 arguments
        ("(q 1)\n(<= (r ?x) (q ?x ?x))", "arity", 10, 12, "used with 2 argument(s)"),
        # keyword arity
        ("(<= (legal a) (true (p 1)))", "arity", 9, 5, "'legal' takes 2"),
        ("(<= (r 1) (distinct 1 2 3) (true (p 1)))", "arity", 9, 11, "'distinct' takes 2"),
        # keyword placement
        ("(<= (true (p 1)) (succ 1 2))", "keyword", 9, 5, "only appear in a rule body"),
        ("(<= (r 1) (next (p 1)))", "keyword", 9, 11, "only appear as a rule head"),
        ("(<= (role b) (succ 1 2))", "keyword", 9, 5, "must be given as a fact"),
        # dependencies
        ("(<= (init (p 2)) (true (p 1)))", "dependency", 9, 18, "'init' must not depend"),
        ("(<= (legal a noop) (does a (go 1)))", "dependency", 9, 20, "'legal' must not depend"),
        ("(<= (goal a 50) (q2 1))\n(<= (q2 ?x) (does a (go ?x)))", "dependency", 9, 17,
         "'goal' must not depend on 'does'"),
        # safety
        ("(<= (r ?x) (succ 1 2))", "safety", 9, 8, "head variable ?x"),
        ("(<= (r ?x) (succ ?x 2) (not (succ ?y 1)))", "safety", 9, 35, "?y of this negation"),
        ("(<= (r ?x) (succ ?x 2) (distinct ?x ?z))", "safety", 9, 37, "?z of this distinct"),
        ("(r ?x)", "safety", 9, 4, "a fact cannot contain variables"),
        # stratification
        ("(<= (r 1) (not (s 1)) (succ 1 2))\n(<= (s 1) (r 1))", "stratification", 9, 16,
         "negation through recursion"),
        # recursion restriction: (r ?z) in the recursion with ?z bound only inside it
        ("(<= (r 1) (succ 1 2))\n(<= (r ?x) (succ ?x ?y) (r ?z) (r2 ?z ?y))\n"
         "(<= (r2 ?a ?b) (r ?a) (succ ?a ?b))", "recursion", 10, 28, "recursion restriction"),
        # goal values
        ("(<= (goal a 101) (true (p 1)))", "goal", 9, 13, "integer 0..100"),
        # an implication inside a rule, as a literal or as an argument
        ("(<= (r 1) (<= (s 1) (succ 1 2)))", "keyword", 9, 11, "only at the top level"),
        ("(<= (r 1) (succ 1 2) (not (<= (s 1) (succ 1 2))))", "keyword", 9, 27,
         "only at the top level"),
        ("(t (<= (s 1) (succ 1 2)))", "keyword", 9, 4, "only at the top level"),
        # roles: constants, each once
        ("(role (f a))", "keyword", 9, 7, "a role must be a constant"),
        ("(role ?r)", "keyword", 9, 7, "a role must be a constant"),
        ("(role a)", "keyword", 9, 1, "duplicate role 'a' (first at 1:1)"),
        # a number is no sentence
        ("(<= (r 1) (succ 1 2) 7)", "keyword", 9, 22, "a number cannot be a relation"),
    ],
)  # fmt: skip
def test_each_error_class_is_found_at_its_position(
    extra: str, code: str, line: int, col: int, words: str
) -> None:
    problems = check_text(GOOD + extra + "\n", "bad.kif")
    found = [p for p in problems if p.code == code and p.severity == "error"]
    assert found, f"no {code} error in {[str(p) for p in problems]}"
    assert (found[0].pos.line, found[0].pos.col) == (line, col), str(found[0])
    assert words in found[0].message
    assert str(found[0]).startswith(f"bad.kif:{line}:{col}: error: ")


def test_nesting_1000_deep_is_one_syntax_problem_not_a_recursion_error() -> None:
    body = "(not " * 1000 + "(true (p 1))" + ")" * 1000
    problems = check_text(GOOD + f"(<= (r 1) {body})\n", "deep.kif")
    assert [(p.code, p.pos.line, p.pos.col) for p in problems] == [
        ("syntax", 9, len("(<= (r 1) ") + 5 * (MAX_DEPTH - 1) + 1)
    ]
    assert f"{MAX_DEPTH} levels" in problems[0].message


def test_nesting_at_the_limit_is_checked_without_error() -> None:
    term = "(f " * (MAX_DEPTH - 3) + "1" + ")" * (MAX_DEPTH - 3)
    body = "(not " * (MAX_DEPTH - 3) + "(true (p 1))" + ")" * (MAX_DEPTH - 3)
    text = GOOD + f"(q {term})\n(<= (r ?x) (q ?x) {body})\n(<= (s 1) (r ?x))\n"
    assert errors(check_text(text)) == []


def test_missing_required_relations() -> None:
    problems = check_text("(role a)\n(init (p 1))\n", "m.kif")
    missing = sorted(p.message for p in problems if p.code == "missing")
    assert missing == [
        "the game defines no 'goal'",
        "the game defines no 'legal'",
        "the game defines no 'terminal'",
    ]


def test_gdl2_is_a_supported_kind() -> None:
    """``sees`` and the role ``random`` are GDL-II, checked by ``tests/gdl/test_gdl2_checks.py``."""
    sees = "(<= (sees a x) (true (p 1)))"
    nature = "(role random) (legal random noop) " + sees
    for extra in (sees, nature):
        assert errors(check_text(GOOD + extra + "\n", "g2.kif")) == []


def test_negation_broken_by_constant_arguments_is_accepted() -> None:
    text = GOOD.replace("(<= (goal a 0) (not (true (p 2))))", "(<= (goal a 0) (not (goal a 100)))")
    assert errors(check_text(text)) == []


def test_undefined_relation_is_a_warning() -> None:
    problems = check_text(GOOD + "(<= (r 1) (nowhere 1))\n")
    assert where(problems, "undefined") == [(9, 11, "warning")]
    assert errors(problems) == []


def _games_dir() -> Path:
    env = os.environ.get("GGPKIT_GAMES_DIR")
    return Path(env) if env else Path(__file__).resolve().parents[2] / ".." / "shared" / "ggp-games"


@pytest.mark.parametrize(
    "name",
    ["ticTacToe", "connectFour", "peg", "checkersBarrelNoKings", "breakthroughSmallHoles",
     "chess", "hexPie", "futoshiki4", "amazons", "knightThrough"],
)  # fmt: skip
def test_valid_public_games_have_no_errors(name: str) -> None:
    path = _games_dir() / f"{name}.kif"
    if not path.exists():
        pytest.skip(f"{path} not available")
    assert errors(check_file(path)) == []


def test_a_rule_whose_ors_would_expand_into_a_million_bodies_is_one_problem() -> None:
    body = " ".join("(or (p a) (p b))" for _ in range(20))
    rest = (
        "(init (q)) (<= (next (q)) (true (q)))\n"
        "(<= terminal (true (q))) (<= (goal r 100) (true (q)))"
    )
    text = f"(role r) (p a) (p b) (<= (legal r x) {body})\n{rest}"
    problems = check_text(text, "ors.kif")
    assert [(p.severity, p.pos.line) for p in problems if p.severity == "error"] == [("error", 1)]
    assert "1,048,576 alternatives" in problems[0].message


def test_a_file_over_the_size_limit_is_one_problem(tmp_path: Path) -> None:
    big = tmp_path / "big.kif"
    big.write_text("(role a)\n" + " " * MAX_TEXT_CHARS)
    problems = check_file(big)
    assert len(problems) == 1 and problems[0].severity == "error"
    assert "characters" in problems[0].message
