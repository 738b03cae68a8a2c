"""Short move notations that the native games declare, against the examples of the issue.

The expected strings are written by hand from the games' coordinates (x is the column,
written as a letter a.., y the row number; peg's rows are letters a..g and columns c1..c7).
"""

from __future__ import annotations

import random

import pytest

from ggpkit.games.notation import move_from_text, short_form
from ggpkit.games.registry import load
from ggpkit.gdl.kif import parse_term

EXAMPLES = [
    ("peg", "(jump d c2 d c4)", "d2-d4"),
    ("peg", "(jump b c4 d c4)", "b4-d4"),
    ("breakthrough-holes", "(move 2 2 3 3)", "b2-c3"),
    ("breakthrough-holes-capture", "(move 6 5 5 4)", "f5-e4"),
    ("pawn-checkers", "(move 2 3 3 4)", "b3-c4"),
    ("pawn-checkers", "(jump 2 3 4 5)", "b3xd5"),
    ("pawn-checkers-barrel", "(jump 8 8 6 2)", "h8xf2"),
]


@pytest.mark.parametrize(("game", "term", "short"), EXAMPLES)
def test_short_forms_of_the_examples(game: str, term: str, short: str) -> None:
    g = load(game)
    assert short_form(g, parse_term(term)) == short
    assert move_from_text(g, short) == parse_term(term)
    assert move_from_text(g, short.upper()) == parse_term(term)


@pytest.mark.parametrize("game", ["peg", "breakthrough-holes", "pawn-checkers"])
def test_every_move_of_random_games_reads_back_from_its_short_form(game: str) -> None:
    g = load(game)
    rng = random.Random(7)
    for _ in range(3):
        state = g.initial_state()
        while not g.is_terminal(state):
            for role in g.roles:
                for move in g.legal_moves(state, role):
                    short = short_form(g, move)
                    if str(move) == "noop":
                        assert short is None
                    else:
                        assert short is not None and move_from_text(g, short) == move
            state = g.next_state(state, [rng.choice(g.legal_moves(state, r)) for r in g.roles])


def test_text_that_is_no_short_form_is_read_as_a_term() -> None:
    checkers = load("pawn-checkers")
    assert move_from_text(checkers, "z9-a1") == "z9-a1"  # no such square: left for the checks
    assert move_from_text(checkers, "b3=c4") == "b3=c4"
    assert move_from_text(checkers, "move 2 3 3 4") == "(move 2 3 3 4)"
    assert move_from_text(checkers, " (jump 2 3 4 5) ") == "(jump 2 3 4 5)"
    breakthrough = load("breakthrough-holes")
    assert move_from_text(breakthrough, "b2xc3") == "b2xc3"  # no capture sign in breakthrough
