"""``ggpkit.display``: every state draws as well-formed SVG showing the pieces it holds.

The five native games and twenty public games, each after a few random moves. What is
drawn is read back from the SVG (``data-cell`` / ``data-content``) and compared with
the state's own board facts; a game without a board shows every fact as text.
"""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import pytest

import ggpkit
from ggpkit.games.api import Game
from ggpkit.games.board.display import Display, layout_of
from ggpkit.games.board.pieces import is_empty
from ggpkit.games.registry import games
from ggpkit.gdl.terms import Func

SVG = "{http://www.w3.org/2000/svg}"
PUBLIC_DIR = Path(__file__).resolve().parents[3] / "shared" / "ggp-games"
PUBLIC = [
    "ticTacToe", "connectFour", "breakthroughSmall", "knightThrough", "pentago", "reversi",
    "hex", "nineBoardTicTacToe", "tictactoe_3d_small_2player", "checkersTiny", "peg",
    "queens06ug", "chomp", "dotsAndBoxes", "sheepAndWolf", "nim1", "eightPuzzle",
    "gt_prisoner", "roshambo2", "hanoi",
]  # fmt: skip
"""Boards of every look (grid, checkered, holes, layers, boards of boards) and games with
no board at all (nim, the prisoner's dilemma, rock-paper-scissors, hanoi's towers)."""


def _played(game: Game[Any], plies: int, seed: int) -> Hashable:
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(plies):
        if game.is_terminal(state):
            break
        joint = {r: rng.choice(game.legal_moves(state, r)) for r in game.roles}
        state = game.next_state(state, joint)
    return state


def _drawn(svg: str) -> dict[str, set[str]]:
    """Content words drawn in each cell, read back from the document."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    out: dict[str, set[str]] = {}
    for cell in root.iter(f"{SVG}g"):
        key = cell.get("data-cell")
        if key is not None:
            out[key] = {p.get("data-content", "") for p in cell.iter(f"{SVG}g") if p is not cell}
    return out


def _check(game: Game[Any], state: Hashable) -> None:
    view = ggpkit.display(game, state)
    assert isinstance(view, Display)
    svg = view._repr_svg_()
    facts = game.facts(state)
    layout = layout_of(game)
    if layout is None:
        texts = {t.text for t in ET.fromstring(svg).iter(f"{SVG}text")}
        assert {str(f) for f in facts} <= texts
        return
    drawn = _drawn(svg)
    n = layout.ncoords
    expected: dict[str, set[str]] = {}
    for fact in facts:
        if (
            isinstance(fact, Func)
            and fact.name == layout.relation
            and len(fact.args) == layout.arity
        ):
            content = " ".join(str(a) for a in fact.args[n:])
            key = ",".join(str(a) for a in fact.args[:n])
            if not is_empty(content) and tuple(key.split(",")) not in layout.void:
                expected.setdefault(key, set()).add(content)
    for key, contents in expected.items():
        assert drawn.get(key) == contents, (game.name, key, contents, drawn.get(key))
    assert {k for k, v in drawn.items() if v} <= set(expected), game.name


@pytest.mark.parametrize("name", sorted(games()))
def test_native_games_draw_their_pieces(name: str) -> None:
    game = ggpkit.load(name)
    for plies in (0, 5):
        _check(game, _played(game, plies, seed=plies))


@pytest.mark.slow
@pytest.mark.parametrize("name", PUBLIC)
def test_public_games_draw_their_pieces_or_facts(name: str) -> None:
    path = PUBLIC_DIR / f"{name}.kif"
    if not path.exists():
        pytest.skip(f"needs the public games folder ({PUBLIC_DIR})")
    game = ggpkit.load(str(path))
    for plies in (0, 4):
        _check(game, _played(game, plies, seed=7 + plies))


def test_a_state_without_a_board_lists_its_facts() -> None:
    game = ggpkit.load_kif(
        "(role a) (init (count 0)) (<= (legal a go) (true (count 0))) "
        "(<= (next (count 1)) (does a go)) (<= terminal (true (count 1))) "
        "(<= (goal a 100) (true (count 1))) (<= (goal a 0) (true (count 0)))"
    )
    svg = ggpkit.display(game).svg()
    assert [t.text for t in ET.fromstring(svg).iter(f"{SVG}text")] == ["(count 0)"]
