"""Short move notations for people, and reading a move typed either way.

A game declares its notation (``info.capabilities.notation``); interfaces show the
short form next to the GDL term and accept both. :class:`SquareNotation` is the
chess-like form of games whose moves go from square to square on a board numbered
x (column, shown as a letter) by y (row): breakthrough's ``b2-c3`` for
``(move 2 2 3 3)``, checkers' ``b3xd5`` for ``(jump 2 3 4 5)``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ggpkit.gdl.terms import Const, Func, Term

if TYPE_CHECKING:
    from ggpkit.games.api import Game

_SQUARE_MOVE = re.compile(r"^\s*([a-z])\s*(\d{1,2})\s*([-x])\s*([a-z])\s*(\d{1,2})\s*$", re.I)


def _file(x: int) -> str:
    return chr(ord("a") + x - 1)


@dataclass(slots=True)
class SquareNotation:
    """``b3-c4`` / ``b3xd5`` for ``(NAME X1 Y1 X2 Y2)``: column letter, row number.

    ``separators`` maps a move's name to the sign between its squares (``-`` for a
    step, ``x`` for a capture); ``size`` is the largest coordinate.
    """

    help: str
    size: int
    separators: Mapping[str, str] = field(default_factory=lambda: {"move": "-"})

    def short(self, move: Term) -> str:
        """The short form of a square-to-square move (other terms as they are)."""
        if isinstance(move, Func) and move.name in self.separators and len(move.args) == 4:
            values = [str(a) for a in move.args]
            if all(v.isdigit() and 1 <= int(v) <= self.size for v in values):
                x1, y1, x2, y2 = (int(v) for v in values)
                sep = self.separators[move.name]
                return f"{_file(x1)}{y1}{sep}{_file(x2)}{y2}"
        return str(move)

    def parse(self, text: str) -> Term | None:
        """The move a short form stands for (legal or not); None if ``text`` is not one."""
        m = _SQUARE_MOVE.match(text)
        if m is None:
            return None
        f1, y1, sep, f2, y2 = m.groups()
        names = [name for name, s in self.separators.items() if s == sep.lower()]
        coords = [ord(f1.lower()) - ord("a") + 1, int(y1), ord(f2.lower()) - ord("a") + 1, int(y2)]
        if len(names) != 1 or not all(1 <= c <= self.size for c in coords):
            return None
        return Func(names[0], tuple(Const(str(c)) for c in coords))


def move_from_text(game: Game[Any], text: str) -> Term | str:
    """What a person typed, as a move: the game's short form when it is one, else the term text.

    ``jump b c4 d c4`` (without brackets) is read as ``(jump b c4 d c4)``. The result
    is not checked for legality.
    """
    text = text.strip()
    notation = game.info.capabilities.notation
    if notation is not None and not text.startswith("("):
        short = notation.parse(text)
        if short is not None:
            return short
    if " " in text and not text.startswith("("):
        return f"({text})"
    return text


def short_form(game: Game[Any], move: Term) -> str | None:
    """The game's short form of ``move``, or None when it declares no notation."""
    notation = game.info.capabilities.notation
    if notation is None:
        return None
    short: str = notation.short(move)
    return None if short == str(move) else short
