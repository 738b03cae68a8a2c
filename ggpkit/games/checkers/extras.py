"""What pawn checkers declares beyond the rules: its evaluation and compiled alpha-beta."""

from __future__ import annotations

import time
from collections.abc import Hashable
from typing import Any

from ggpkit.games.api import Game, GameError
from ggpkit.games.capabilities import Evaluation, Searcher, SearchResult
from ggpkit.gdl.terms import Func

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
