"""Pawn checkers evaluation for alpha-beta: captures, threats, mobility, advancement."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ggpkit.games.api import Game
from ggpkit.games.evaluation import GenericEvaluation, clip
from ggpkit.gdl.terms import Func, Term

_FULL = (1 << 64) - 1
_FILE_A = sum(1 << (8 * row) for row in range(8))
"""Squares with x = 1 (bit ``(y-1)*8 + (x-1)``)."""
_FILE_H = _FILE_A << 7
"""Squares with x = 8."""

_CHECKERS_GOALS = (0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 90, 100)


def _checkers_view(state: Hashable, game: Game[Any]) -> tuple[int, int, int, int, int]:
    """(black bitboard, red bitboard, black captures, red captures, control index)."""
    fields = getattr(state, "_fields", ())
    if "black_captures" in fields:
        s: Any = state
        return s.black, s.red, s.black_captures, s.red_captures, s.control
    boards = [0, 0]
    captures = [0, 0]
    control = 0
    for fact in game.facts(state):
        if not isinstance(fact, Func):
            continue
        args = [a.name for a in fact.args]
        if fact.name == "location" and args[2] in ("blackPawn", "redPawn"):
            bit = 1 << ((int(args[1]) - 1) * 8 + int(args[0]) - 1)
            boards[0 if args[2] == "blackPawn" else 1] |= bit
        elif fact.name == "captureCount":
            captures[0 if args[0] == "black" else 1] = int(args[1])
        elif fact.name == "control":
            control = 0 if args[0] == "black" else 1
    return boards[0], boards[1], captures[0], captures[1], control


class CheckersEvaluation(GenericEvaluation):
    """Pawn checkers: capture goal difference, pawns under threat, mobility, advancement.

    There are no kings, so a pawn is worth the captures it can still make and the
    capture it can give away. Jumps are compulsory, so the search resolves pending
    jumps (``noisy``) before this is trusted; what remains is the threat the side
    *not* to move faces after the mover's move, counted as pawns that stand hanging.
    """

    forced_tactics = True

    def __init__(self, wrap: bool) -> None:
        self.wrap = wrap

    def _shift(self, board: int, dx: int, dy: int) -> int:
        """Every pawn of ``board`` moved by (dx, dy); off-board ones vanish (a barrel wraps)."""
        board = (board & ~_FILE_H) << 1 if dx > 0 else (board & ~_FILE_A) >> 1
        if dy > 0:
            top = board >> 56 if self.wrap else 0
            return ((board << 8) & _FULL) | top
        bottom = (board & 0xFF) << 56 if self.wrap else 0
        return (board >> 8) | bottom

    def _hanging(self, mine: int, theirs: int, their_dy: int) -> tuple[int, int]:
        """(my pawns the opponent could jump now, my pawns with a free forward step).

        Counted per diagonal direction, on whole bitboards at once: a pawn is hanging
        when an opponent pawn stands diagonally behind it (as the opponent moves) and
        the square diagonally ahead of it is empty.
        """
        empty = ~(mine | theirs) & _FULL
        hanging = 0
        mobile = 0
        for dx in (-1, 1):
            attackers = self._shift(theirs, dx, their_dy)
            landings = self._shift(empty, -dx, -their_dy)
            hanging += (mine & attackers & landings).bit_count()
            mobile += (mine & self._shift(empty, -dx, their_dy)).bit_count()
        return hanging, mobile

    def value(self, game: Game[Any], state: Hashable, role: int) -> float:
        black, red, black_caps, red_caps, control = _checkers_view(state, game)
        goal = [_CHECKERS_GOALS[min(12, black_caps)], _CHECKERS_GOALS[min(12, red_caps)]]
        black_hanging, black_mobile = self._hanging(black, red, -1)
        red_hanging, red_mobile = self._hanging(red, black, 1)
        hanging = [black_hanging, red_hanging]
        mobile = [black_mobile, red_mobile]
        pawns = [black.bit_count(), red.bit_count()]
        other = 1 - role
        score = float(goal[role] - goal[other])
        score += 2.0 * (pawns[role] - pawns[other])
        # a hanging pawn of the side not to move is likely lost; of the mover, less so
        for side, sign in ((role, -1.0), (other, 1.0)):
            weight = 4.0 if side != control else 1.5
            score += sign * weight * min(hanging[side], 2)
        score += 0.3 * (mobile[role] - mobile[other])
        return clip(score)

    def priority(self, game: Game[Any], state: Hashable, move: Term, role: int) -> int:
        return 1 if move.name == "jump" else 0

    def noisy(self, game: Game[Any], state: Hashable, moves: list[Term], role: int) -> bool:
        return bool(moves) and moves[0].name == "jump"
