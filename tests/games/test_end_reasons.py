"""Why a native game ended, as each game declares it, on positions built from rules.md."""

from __future__ import annotations

from ggpkit.games.registry import load
from ggpkit.gdl.kif import parse_terms
from ggpkit.gdl.terms import Term


def _facts(text: str) -> frozenset[Term]:
    return frozenset(parse_terms(text))


def _reason(game: str, facts: str) -> str:
    declared = load(game).info.capabilities.end_reason
    assert declared is not None
    return declared(_facts(facts))


def test_peg_says_where_the_last_peg_is() -> None:
    centre = "(hole d c4 peg) (hole a c3 empty) (pegs s1)"
    assert _reason("peg", centre) == "no jump is left: the last peg is in the centre"
    aside = "(hole a c3 peg) (hole d c4 empty) (pegs s1)"
    assert _reason("peg", aside) == "no jump is left: one peg remains, on a c3 (not the centre)"
    three = "(hole a c3 peg) (hole g c5 peg) (hole d c1 peg) (pegs s3)"
    assert _reason("peg", three) == "no jump is left: 3 pegs remain"


def test_breakthrough_names_the_far_row_or_the_stuck_mover() -> None:
    assert _reason("breakthrough-holes", "(cell 3 6 white) (cell 1 5 black) (control black)") == (
        "white reached the far row (c6)"
    )
    assert _reason("breakthrough-holes", "(cell 6 1 black) (cell 1 2 white) (control white)") == (
        "black reached the far row (f1)"
    )
    stuck = "(cell 2 2 white) (cell 2 4 black) (cell 2 3 hole) (control black)"
    assert _reason("breakthrough-holes", stuck) == "black has no legal move"


def test_checkers_names_the_step_limit_a_side_without_pawns_or_a_stuck_mover() -> None:
    both = "(location 1 1 blackPawn) (location 8 8 redPawn) (captureCount black 0)"
    assert _reason("pawn-checkers", f"{both} (step 100) (control red)") == (
        "the step limit was reached (step 100)"
    )
    assert _reason("pawn-checkers", "(location 1 1 blackPawn) (step 40) (control red)") == (
        "red has no pawns left"
    )
    assert _reason("pawn-checkers", f"{both} (step 40) (control black)") == (
        "black has no legal move or jump"
    )
