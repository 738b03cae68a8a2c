"""How cell contents look on a drawn board: chess glyphs, discs, marks, numbers, holes.

The look of a content word is guessed from the word itself and from the other words
of the same board (``wr`` is a rook only on a board that also has queens or knights;
on a draughts board ``wk`` is a crowned disc), so it is computed once per game from
every content the board can hold, never per state (a piece keeps its colour all game).
A game's declared board style (``BoardStyle.pieces``) overrides any guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

EMPTY_WORDS = frozenset({"b", "blank", "empty", "e", "none", "0"})
"""Contents that mean "nothing here" in the public games."""

HOLE = "hole"
"""The ``color`` (and ``shape``) of a cell that is not part of the board."""

_PALETTE = ["#1f2937", "#f5f5f4", "#dc2626", "#2563eb", "#16a34a", "#d97706", "#9333ea", "#0891b2"]
_COLOURS = {
    "white": "#f5f5f4", "black": "#1f2937", "red": "#dc2626", "blue": "#2563eb",
    "green": "#16a34a", "yellow": "#facc15", "orange": "#ea580c", "purple": "#9333ea",
}  # fmt: skip
_CHESS_KINDS = {
    "k": "\u265a", "q": "\u265b", "r": "\u265c", "b": "\u265d", "n": "\u265e", "p": "\u265f",
    "king": "\u265a", "queen": "\u265b", "rook": "\u265c", "bishop": "\u265d",
    "knight": "\u265e", "pawn": "\u265f",
}  # fmt: skip
_CHESS_CODE = re.compile(r"^([wb])([kqrbnp])$")
_CROWN = "\u265b"
_MARKS = {"x": "#2563eb", "o": "#dc2626", "xplayer": "#2563eb", "oplayer": "#dc2626"}


def is_empty(content: str) -> bool:
    """True for the words that mean an empty cell."""
    return content.lower() in EMPTY_WORDS


def _words(content: str) -> list[str]:
    """``blackPawn`` / ``black_pawn`` / ``black pawn`` as ``["black", "pawn"]``."""
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", content)
    return [w for w in re.split(r"[\s_\-]+", spaced.lower()) if w]


def _colour_of(words: list[str]) -> str | None:
    return next((_COLOURS[w] for w in words if w in _COLOURS), None)


def _chess_piece(content: str, chess_set: bool) -> tuple[str, str] | None:
    """(glyph, colour) when ``content`` names a chess piece on a board with a chess set."""
    if not chess_set:
        return None
    code = _CHESS_CODE.match(content.lower())
    if code:
        side, kind = code.groups()
        return _CHESS_KINDS[kind], _COLOURS["white" if side == "w" else "black"]
    words = _words(content)
    kinds = [w for w in words if w in _CHESS_KINDS and len(w) > 1]
    colour = _colour_of(words)
    if kinds and colour:
        return _CHESS_KINDS[kinds[0]], colour
    return None


def _has_chess_set(contents: Iterable[str]) -> bool:
    """A board whose contents include a queen, rook or knight holds a chess set."""
    for content in contents:
        code = _CHESS_CODE.match(content.lower())
        if code and code.group(2) in "qrn":
            return True
        if {"queen", "rook", "knight"} & set(_words(content)):
            return True
    return False


def _guess(content: str, chess_set: bool, spare: Iterator[str]) -> dict[str, str]:
    low = content.lower()
    if low == HOLE:
        return {"shape": HOLE, "color": HOLE, "label": ""}
    if low.isdigit():
        return {"shape": "number", "color": "#1f2937", "label": content}
    chess = _chess_piece(content, chess_set)
    if chess is not None:
        return {"shape": "glyph", "color": chess[1], "label": chess[0]}
    if low in _MARKS:
        return {"shape": "mark", "color": _MARKS[low], "label": low[0].upper()}
    words = _words(content)
    colour = _colour_of(words)
    label = _CROWN if "king" in words or low in ("wk", "bk", "rk") else ""
    if colour is None and low[:1] in ("w", "b", "r") and len(low) == 2:  # wp, bk: draughts codes
        colour = {"w": _COLOURS["white"], "b": _COLOURS["black"], "r": _COLOURS["red"]}[low[0]]
    if colour is None:
        colour = next(spare, "#6b7280")
        label = label or (content if len(content) <= 2 else content[:1].upper())
    return {"shape": "disc", "color": colour, "label": label}


def piece_looks(
    contents: Iterable[str], declared: Mapping[str, Mapping[str, str]] | None = None
) -> dict[str, dict[str, str]]:
    """The look of every non-empty content: ``shape``, ``color`` and ``label``.

    ``shape`` is ``disc``, ``glyph`` (a chess piece), ``mark`` (X and O), ``number`` or
    ``hole``. Declared looks win over guesses; a declared ``{"color": "hole"}`` makes a hole.
    """
    kinds = sorted({c for c in contents if not is_empty(c)})
    chess_set = _has_chess_set(kinds)
    spare = iter(_PALETTE)
    looks: dict[str, dict[str, str]] = {}
    for content in kinds:
        look = {**_guess(content, chess_set, spare), **(declared or {}).get(content, {})}
        if look.get("color") == HOLE:
            look["shape"] = HOLE
        looks[content] = look
    return looks
