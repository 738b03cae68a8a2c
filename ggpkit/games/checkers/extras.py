"""What pawn checkers declares beyond the rules: notation, board, evaluation, compiled search."""

from __future__ import annotations

import time
from collections.abc import Hashable
from typing import Any

from ggpkit.games.api import Game, GameError
from ggpkit.games.capabilities import BoardStyle, Evaluation, Searcher, SearchResult
from ggpkit.games.notation import SquareNotation
from ggpkit.gdl.terms import Func, Term

BOARD = BoardStyle(
    relation="location",
    look="checkered",
    col_labels={str(x): "abcdefgh"[x - 1] for x in range(1, 9)},
)
"""``(location X Y pawn)``, x across and y up; pawns stand on the dark squares only."""

NOTATION = SquareNotation(
    help="b3-c4 steps from x=2, y=3 to x=3, y=4; b3xd5 jumps to x=4, y=5",
    size=8,
    separators={"move": "-", "jump": "x"},
)
"""``b3-c4`` for ``(move 2 3 3 4)``, ``b3xd5`` for ``(jump 2 3 4 5)``."""

_MARGIN = 0.03
"""Seconds kept back from a time limit for the Python around the compiled search."""


def _evaluation(wrap: bool) -> Evaluation:
    from ggpkit.games.checkers.evaluation import CheckersEvaluation
    from ggpkit.games.evaluation import PlayoutBlend

    return PlayoutBlend(CheckersEvaluation(wrap=wrap))


def evaluation_plain() -> Evaluation:
    return _evaluation(False)


def evaluation_barrel() -> Evaluation:
    return _evaluation(True)


class CompiledCheckersSearch:
    """The numba bitboard search behind the ``Searcher`` protocol (tables kept across moves)."""

    def __init__(self, wrap: bool) -> None:
        from ggpkit.games.checkers.search import CheckersSearch

        self.search_tables = CheckersSearch(wrap)
        self.nodes = 0
        """Nodes searched by the last :meth:`search`."""

    def search(
        self, game: Game[Any], state: Hashable, role: str, seconds: float | None, depth: int | None
    ) -> SearchResult:
        started = time.perf_counter()
        legal = game.legal_moves(state, role)
        if seconds is not None:
            seconds = max(0.0, seconds - _MARGIN - (time.perf_counter() - started))
        from ggpkit.games.checkers.game import CheckersState

        if not isinstance(state, CheckersState):
            raise GameError("the compiled checkers search takes the native engine's states")
        result = self.search_tables.search(state, seconds, depth)
        self.nodes = result.nodes
        if result.frm < 0:
            return SearchResult(legal[0], 0, 0.0)
        wanted = (result.frm % 8 + 1, result.frm // 8 + 1, result.to % 8 + 1, result.to // 8 + 1)
        for move in legal:
            if isinstance(move, Func) and tuple(int(str(a)) for a in move.args) == wanted:
                return SearchResult(move, result.depth, result.value / 1000.0)
        raise GameError(f"the compiled checkers search chose {wanted}, not a legal move")


def search_plain() -> Searcher:
    return CompiledCheckersSearch(wrap=False)


def search_barrel() -> Searcher:
    return CompiledCheckersSearch(wrap=True)


def end_reason(facts: frozenset[Term]) -> str:
    """The step limit, a side without pawns, or a mover without a move (rules.md 2)."""
    from ggpkit.games.checkers.kernels import STEP_LIMIT

    values = {f.name: str(f.args[0]) for f in facts if isinstance(f, Func) and len(f.args) == 1}
    if values.get("step") == str(STEP_LIMIT):
        return f"the step limit was reached (step {STEP_LIMIT})"
    pawns = {str(f.args[2]) for f in facts if isinstance(f, Func) and f.name == "location"}
    for role in ("black", "red"):
        if f"{role}Pawn" not in pawns:
            return f"{role} has no pawns left"
    return f"{values.get('control', 'the player to move')} has no legal move or jump"
