"""Breakthrough-with-holes evaluation for alpha-beta: advancement, blocked pieces, material."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ggpkit.games.api import Game
from ggpkit.games.evaluation import GenericEvaluation, clip
from ggpkit.gdl.terms import Func, Term

_BT_HOLES = ((2, 3), (3, 4), (4, 3), (5, 4))


def _bt_view(state: Hashable, game: Game[Any]) -> tuple[int, int, int]:
    """(white bitboard, black bitboard, control) with bit ``(y-1)*6 + (x-1)``."""
    fields = getattr(state, "_fields", ())
    if fields == ("white", "black", "control"):
        s: Any = state
        return s.white, s.black, s.control
    boards = [0, 0]
    control = 0
    for fact in game.facts(state):
        if not isinstance(fact, Func):
            continue
        args = [a.name for a in fact.args]
        if fact.name == "cell" and args[2] in ("white", "black"):
            bit = 1 << ((int(args[1]) - 1) * 6 + int(args[0]) - 1)
            boards[0 if args[2] == "white" else 1] |= bit
        elif fact.name == "control":
            control = 0 if args[0] == "white" else 1
    return boards[0], boards[1], control


_BT_HOLE_BITS = sum(1 << ((y - 1) * 6 + x - 1) for x, y in _BT_HOLES)


class BreakthroughEvaluation(GenericEvaluation):
    """Breakthrough with holes: advancement, the most advanced piece, blocked pieces, material.

    A win is a piece on the far row, so the race matters most (the most advanced
    piece, weighted strongly, and total advancement, growing with the row); a piece
    with no forward cell is dead weight; in the capture variant material counts too.
    """

    def __init__(self, capture: bool) -> None:
        self.capture = capture

    def _features(self, mine: int, theirs: int, side: int) -> tuple[float, int, int, int]:
        """(sum of squared advancement, best advancement, blocked pieces, pieces)."""
        dy = 1 if side == 0 else -1
        blocked_cells = mine | _BT_HOLE_BITS
        total = 0.0
        best = 0
        blocked = 0
        count = 0
        board = mine
        while board:
            low = board & -board
            index = low.bit_length() - 1
            board ^= low
            count += 1
            x, y = index % 6, index // 6
            adv = y if side == 0 else 5 - y
            total += adv * adv
            best = max(best, adv)
            ny = y + dy
            free = False
            if 0 <= ny < 6:
                for dx in (-1, 0, 1):
                    nx = x + dx
                    if not 0 <= nx < 6:
                        continue
                    bit = 1 << (ny * 6 + nx)
                    if bit & blocked_cells:
                        continue
                    if bit & theirs and not (self.capture and dx != 0):
                        continue
                    free = True
                    break
            if not free:
                blocked += 1
        return total, best, blocked, count

    def value(self, game: Game[Any], state: Hashable, role: int) -> float:
        white, black, _ = _bt_view(state, game)
        f = [self._features(white, black, 0), self._features(black, white, 1)]
        me, them = f[role], f[1 - role]
        score = 0.6 * (me[0] - them[0])
        score += 5.0 * (me[1] - them[1])
        score -= 2.0 * (me[2] - them[2])
        if self.capture:
            score += 6.0 * (me[3] - them[3])
        return clip(score, 90.0)

    def priority(self, game: Game[Any], state: Hashable, move: Term, role: int) -> int:
        if not (isinstance(move, Func) and move.name == "move" and len(move.args) == 4):
            return 0
        x2, y2 = int(move.args[2].name), int(move.args[3].name)
        adv = y2 if role == 0 else 7 - y2
        if self.capture:
            white, black, _ = _bt_view(state, game)
            theirs = black if role == 0 else white
            if theirs >> ((y2 - 1) * 6 + x2 - 1) & 1:
                return 10 + adv
        return adv

    def noisy(self, game: Game[Any], state: Hashable, moves: list[Term], role: int) -> bool:
        return False
