"""Boards inferred from the facts a game can hold, checked against the rules (not the code).

Expected sizes come from rules.md or from the public .kif files read with a regular
expression here; games of ../shared/ggp-games skip cleanly when it is absent.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from ggpkit.games.api import Game
from ggpkit.games.board.facts import possible_facts
from ggpkit.games.board.layout import Layout, board_view, infer_layout, move_cells, move_column
from ggpkit.games.gdl.game import load_kif_text
from ggpkit.games.registry import load
from ggpkit.gdl.kif import parse_term
from ggpkit.web.outcome import counter_limits, generic_reason, result_text

GAMES_DIR = Path(__file__).resolve().parents[3] / "shared" / "ggp-games"


def _public(name: str, reasoner: str = "auto") -> Game[Any]:
    path = GAMES_DIR / name
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return load_kif_text(path.read_text(), name, reasoner=reasoner)


def _layout(game: Game[Any]) -> Layout:
    known = possible_facts(game)
    initial = game.facts(game.initial_state())
    # GDL games declare no board style; asking their info would run their probe (slow on chess)
    style = game.info.capabilities.board if game.name in ("peg", "pawn-checkers") else None
    layout = infer_layout(initial, known.facts, style, known.complete)
    assert layout is not None
    return layout


def _view(game: Game[Any]) -> dict[str, Any]:
    return board_view(_layout(game), game.facts(game.initial_state()))


def test_connect_four_has_its_whole_grid_though_it_starts_empty() -> None:
    game = _public("connectFour.kif")
    text = (GAMES_DIR / "connectFour.kif").read_text()
    width = len(set(re.findall(r"\(x (\d+)\)", text)))
    height = len(set(re.findall(r"\(y (\d+)\)", text)))
    assert not any("cell" in str(f) for f in game.facts(game.initial_state()))
    view = _view(game)
    assert (view["width"], view["height"], len(view["cells"])) == (width, height, width * height)
    assert view["look"] == "grid"  # no checkerboard where colours mean nothing
    layout = _layout(game)
    assert move_column(layout, parse_term("(drop 3)")) == "3"


def test_chess_on_the_prover_gets_a_checkerboard_with_chess_pieces() -> None:
    game = _public("chess.kif", reasoner="prover")
    view = _view(game)
    assert (view["width"], view["height"]) == (8, 8)
    assert view["look"] == "checkered"
    by_name = {c["name"]: c for c in view["cells"]}
    king = by_name["e 1"]["content"]
    assert view["styles"][king] == {"shape": "glyph", "color": "#f5f5f4", "label": "\u265a"}
    assert by_name["a 1"]["shade"] == 1  # a dark corner on the left of white's side
    assert by_name["d 8"]["content"] is not None and by_name["d 4"]["content"] is None


def test_nine_board_tic_tac_toe_is_nine_boards_of_nine() -> None:
    view = _view(_public("nineBoardTicTacToe.kif"))
    assert len(view["cells"]) == 81
    assert (view["width"], view["height"]) == (11, 11)  # 9 cells and 2 gaps each way
    assert {c["x"] for c in view["cells"]} == {0, 1, 2, 4, 5, 6, 8, 9, 10}


def test_3d_tic_tac_toe_draws_its_layers_side_by_side() -> None:
    game = _public("tictactoe_3d_2player.kif")
    view = _view(game)
    assert len(view["cells"]) == 64 and view["height"] == 4 and view["width"] == 4 * 4 + 3
    move = game.legal_moves(game.initial_state(), game.roles[0])[0]
    assert len(move_cells(_layout(game), move)) == 1


def test_peg_is_the_english_cross_of_holes() -> None:
    view = _view(load("peg"))
    assert len(view["cells"]) == 33 and view["look"] == "holes"
    rows = {r: {c["name"] for c in view["cells"] if c["name"].startswith(r)} for r in "abcdefg"}
    assert rows["a"] == {"a3", "a4", "a5"} and len(rows["d"]) == 7  # rules.md 1
    assert [c["text"] for c in view["cols"]] == ["1", "2", "3", "4", "5", "6", "7"]
    assert [c for c in view["cells"] if c["content"] is None] == [
        c for c in view["cells"] if c["name"] == "d4"
    ]


def test_pawn_checkers_light_squares_are_plain() -> None:
    view = _view(load("pawn-checkers"))
    playable = {c["key"] for c in view["cells"] if c["playable"]}
    # rules.md 2: pawns stand only where x and y are both odd or both even
    assert playable == {f"{x},{y}" for x in range(1, 9) for y in range(1, 9) if x % 2 == y % 2}
    assert view["look"] == "checkered"
    assert all(c["shade"] == 1 for c in view["cells"] if c["playable"])


def test_facts_seen_in_playouts_stand_in_on_the_prover() -> None:
    race = """
    (role left) (role right) (init (control left))
    (<= (legal ?r (mark ?c ?d)) (true (control ?r)) (num ?c) (num ?d) (not (taken ?c ?d)))
    (<= (taken ?c ?d) (true (cell ?c ?d ?r)))
    (<= (legal left noop) (true (control right)))
    (<= (legal right noop) (true (control left)))
    (num 1) (num 2) (num 3)
    (<= (next (cell ?c ?d ?r)) (does ?r (mark ?c ?d)))
    (<= (next (cell ?c ?d ?r)) (true (cell ?c ?d ?r)))
    (<= (next (control right)) (true (control left)))
    (<= (next (control left)) (true (control right)))
    (<= terminal (true (cell 3 3 ?r)))
    (<= (goal ?r 100) (true (cell 3 3 ?r)))
    (<= (goal ?r 0) (role ?r) (not (true (cell 3 3 ?r))))
    """
    game = load_kif_text(race, "race.kif", reasoner="prover")
    known = possible_facts(game)
    assert not known.complete
    assert any(str(f).startswith("(cell") for f in known.facts)
    layout = _layout(game)
    assert layout.cols == ("1", "2", "3") and layout.rows == ("3", "2", "1")


def test_a_counter_at_its_highest_value_is_a_step_limit() -> None:
    possible = [parse_term(f"(step {n})") for n in range(1, 31)] + [parse_term("(control a)")]
    limits = counter_limits(possible)
    assert limits == {"step": 30}
    at_end = [parse_term("(step 30)"), parse_term("(control a)")]
    assert generic_reason(at_end, limits) == "the step limit was reached ((step 30))"
    assert generic_reason([parse_term("(step 12)")], limits) == "the rules' end condition holds"


def test_results_name_the_winner_or_a_draw() -> None:
    assert result_text(["white", "black"], {"white": 0, "black": 100}) == (
        "black wins (white 0, black 100)"
    )
    assert result_text(["a", "b"], {"a": 50, "b": 50}) == "a draw (a 50, b 50)"
    assert result_text(["jumper"], {"jumper": 90}) == "score 90"


def test_hex_is_drawn_from_its_cells_not_its_connection_bookkeeping() -> None:
    game = _public("hex.kif")
    text = (GAMES_DIR / "hex.kif").read_text()
    assert "connected" in text  # the relation with more facts than the board
    layout = _layout(game)
    assert layout.relation == "cell"
    move = game.legal_moves(game.initial_state(), game.roles[0])[0]
    assert len(move_cells(layout, move)) == 1  # (place a 1) is a click on a cell
