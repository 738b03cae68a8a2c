"""The term layer and the KIF reader's basic contract (moves read and print exactly)."""

import pytest

from ggpkit.gdl.kif import GdlSyntaxError, parse_rules, parse_term
from ggpkit.gdl.terms import Const, Func, func


def test_move_text_round_trips_in_canonical_form() -> None:
    term = parse_term("( jump  b c4\n d c4 )")
    assert str(term) == "(jump b c4 d c4)"
    assert term == func("jump", "b", "c4", "d", "c4")


def test_keywords_are_case_insensitive_other_symbols_keep_case() -> None:
    rules = parse_rules("(<= (LEGAL White (Move ?x)) (TRUE (cell ?x)))")
    head = rules[0].head
    assert isinstance(head, Func) and head.name == "legal"
    assert head.args[0] == Const("White")
    assert isinstance(rules[0].body[0], Func) and rules[0].body[0].name == "true"


def test_positions_are_kept_but_not_compared() -> None:
    term = parse_term("\n  (cell 1 2)", file="g.kif")
    assert term.pos is not None and (term.pos.line, term.pos.col) == (2, 3)
    assert term == func("cell", 1, 2)


@pytest.mark.parametrize(
    ("text", "where"),
    [("(cell 1 2", "1:1"), ("(a))", "1:4"), ("(?x 1)", "1:2"), ("()", "1:1")],
)
def test_syntax_errors_name_line_and_column(text: str, where: str) -> None:
    with pytest.raises(GdlSyntaxError) as err:
        parse_rules(text, file="bad.kif")
    assert str(err.value).startswith(f"bad.kif:{where}: error:")
