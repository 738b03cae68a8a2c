"""The KIF reader on whole game descriptions: every construct, positions, and syntax errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ggpkit.gdl.kif import (
    MAX_DEPTH,
    MAX_TEXT_CHARS,
    GdlLimitError,
    GdlSyntaxError,
    Rule,
    parse_rules,
    parse_term,
    parse_terms,
    read_kif_file,
)
from ggpkit.gdl.terms import Const, Func, Term, Var, func

TEXT = """\
; a comment line
(ROLE White) ; trailing comment
(<= (Init (cell ?X 1)) (Index ?X))
(<= (legal White (move ?x))
    (TRUE (cell ?x (pair ?y (f ?z))))
    (NOT (Occupied ?x))
    (Or (DISTINCT ?x a) (does White noop)))
(base (cell 1 1))
(<= (input ?r noop) (role ?r))
"""


def test_reads_every_construct_with_keywords_lower_case_and_symbols_kept() -> None:
    rules = parse_rules(TEXT, "g.kif")
    assert [str(r) for r in rules] == [
        "(role White)",
        "(<= (init (cell ?X 1)) (Index ?X))",
        "(<= (legal White (move ?x)) (true (cell ?x (pair ?y (f ?z)))) (not (Occupied ?x)) "
        "(or (distinct ?x a) (does White noop)))",
        "(base (cell 1 1))",
        "(<= (input ?r noop) (role ?r))",
    ]
    legal = rules[2]
    assert legal.head == func("legal", "White", Func("move", (Var("x"),)))
    assert not rules[0].body and rules[1].body == (Func("Index", (Var("X"),)),)


def test_positions_of_rules_and_nested_terms() -> None:
    rules = parse_rules(TEXT, "g.kif")
    assert str(rules[0].pos) == "g.kif:2:1"
    legal = rules[2]
    assert str(legal.pos) == "g.kif:4:1"
    true_lit = legal.body[0]
    assert isinstance(true_lit, Func) and str(true_lit.pos) == "g.kif:5:5"
    cell = true_lit.args[0]
    assert isinstance(cell, Func)
    x, pair = cell.args
    assert str(x.pos) == "g.kif:5:17"
    assert isinstance(pair, Func) and str(pair.pos) == "g.kif:5:20"
    assert str(pair.args[1].pos) == "g.kif:5:29"


def test_comment_characters_end_a_symbol() -> None:
    assert parse_terms("(a b;c\n d)") == [func("a", "b", "d")]


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        ("(role a)\n(init (cell 1 2)", "2:1", "never closed"),
        ("(role a))", "1:9", "unbalanced ')'"),
        ("(role a)\n  ()", "2:3", "empty list"),
        ("(role a)\n(?x 1)", "2:2", "expected a relation or function name"),
        ("(<= ?x (true a))", "1:5", "head of a rule cannot be a variable"),
        ("(<= (p 1) ?x)", "1:11", "cannot be a bare variable"),
        ("(<=)", "1:1", "'<=' needs a head"),
        ("?x", "1:1", "cannot be a variable"),
        ("(p ? 1)", "1:4", "variable needs a name"),
        ("(p ((q)) 1)", "1:5", "expected a relation or function name"),
        # numbers and strings where a name stands; broken or glued strings
        ("(role a)\n(1 2)", "2:2", "found the number '1'"),
        ("(p (-3 a))", "1:5", "found the number '-3'"),
        ('(p ("f" a))', "1:5", "found the string"),
        ('(p "abc)', "1:4", "never closed"),
        ('(p "abc\n def")', "1:4", "never closed"),
        ('(p ab"c d")', "1:6", "separated"),
        ('(p "c d"e)', "1:9", "separated"),
    ],
)
def test_syntax_errors_give_position_and_what_was_expected(
    text: str, where: str, words: str
) -> None:
    with pytest.raises(GdlSyntaxError) as err:
        parse_rules(text, "bad.kif")
    assert str(err.value).startswith(f"bad.kif:{where}: error: ")
    assert words in err.value.message


def test_parse_term_needs_exactly_one_term() -> None:
    with pytest.raises(GdlSyntaxError, match="exactly one term"):
        parse_term("a b")


_symbols = st.from_regex(r"[a-zA-Z][a-zA-Z0-9_]{0,5}", fullmatch=True).filter(
    lambda s: s.lower() not in {"not", "or", "distinct", "true", "does", "role", "init", "next",
                                "legal", "goal", "terminal", "base", "input"}
)  # fmt: skip


def _terms() -> st.SearchStrategy[Term]:
    leaves = st.one_of(_symbols.map(Const), _symbols.map(Var))
    return st.recursive(
        leaves,
        lambda inner: st.builds(
            lambda n, a: Func(n, tuple(a)), _symbols, st.lists(inner, min_size=1, max_size=3)
        ),
        max_leaves=10,
    )


@given(_terms())
def test_printed_terms_read_back_equal(term: Term) -> None:
    if isinstance(term, Var):
        return
    assert parse_term(str(term)) == term
    rule = Rule(term, (term, Func("not", (term,))))
    [back] = parse_rules(str(rule))
    assert (back.head, back.body) == (rule.head, rule.body)


# ---- hostile input: limits and malformed text ----------------------------------------


def _nested(depth: int, inner: str = "a") -> str:
    return "(f " * depth + inner + ")" * depth


def test_nesting_deeper_than_the_limit_is_refused_where_it_is_crossed() -> None:
    text = "(role x)\n(init (p a))\n(role " + _nested(999) + ")\n"
    with pytest.raises(GdlLimitError) as err:
        parse_rules(text, "deep.kif")
    # "(role " is level 1; the (MAX_DEPTH + 1)-th '(' of line 3 crosses the limit.
    col = len("(role ") + 3 * (MAX_DEPTH - 1) + 1
    assert str(err.value).startswith(f"deep.kif:3:{col}: error: ")
    assert f"{MAX_DEPTH} levels" in err.value.message
    assert isinstance(err.value, GdlSyntaxError)


def test_nesting_at_the_limit_is_read() -> None:
    term = parse_term(_nested(MAX_DEPTH))
    depth = 0
    while isinstance(term, Func):
        term, depth = term.args[0], depth + 1
    assert depth == MAX_DEPTH


def test_text_longer_than_the_limit_is_refused_before_it_is_read() -> None:
    text = "(role a)\n" + " " * MAX_TEXT_CHARS
    with pytest.raises(GdlLimitError) as err:
        parse_terms(text, "big.kif")
    assert str(err.value).startswith(f"big.kif:2:{MAX_TEXT_CHARS - 9 + 1}: error: ")
    assert "characters" in err.value.message


def test_a_file_longer_than_the_limit_is_not_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "big.kif"
    path.write_text("(role a)\n" + " " * (MAX_TEXT_CHARS + 100))
    with pytest.raises(GdlLimitError):
        read_kif_file(path)
    small = tmp_path / "small.kif"
    small.write_text("(role a)\n")
    assert read_kif_file(small) == "(role a)\n"


def test_a_string_literal_is_one_constant_not_two() -> None:
    term = parse_term('(say "abc def" "a;b" "q\\"x")')
    assert term == Func("say", (Const('"abc def"'), Const('"a;b"'), Const('"q\\"x"')))
    assert parse_term(str(term)) == term
