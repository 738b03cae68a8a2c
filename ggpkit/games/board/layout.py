"""A board view inferred from a game's facts, so any GDL game can be drawn and clicked.

Most board games describe their board with facts of the shape
``(relation A B content)``: ``(cell 1 2 white)``, ``(hole a c3 peg)``,
``(location 3 1 blackPawn)``; some have a third or fourth coordinate
(``(cell 1 1 1 x)`` in 3D tic-tac-toe, ``(mark 1 2 3 1 o)`` in nine-board tic-tac-toe).

The grid is inferred from every fact the board relation may hold (the game's
possible facts, :mod:`ggpkit.games.board.facts`), not from the facts true now: many
games list only occupied cells, so the initial state of connect four has no cell
at all. :func:`infer_layout` picks the relation with the most cells, and
:func:`board_view` turns any state into positioned cells with contents. Moves whose
arguments name two cells become a from/to pair (click a piece, then its target);
moves naming one cell become a click on it (``(mark 1 1)``); a move naming only a
column (``(drop 3)``) is a click anywhere in that column.

Nothing here knows a particular game: native games are drawn the same way through
their facts, oriented and styled by the board style they declare.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ggpkit.games.board.pieces import EMPTY_WORDS, HOLE, is_empty, piece_looks
from ggpkit.games.capabilities import BoardStyle
from ggpkit.gdl.terms import Const, Func, Term

__all__ = ["EMPTY_WORDS", "Layout", "board_view", "infer_layout", "move_cells", "natural_key"]

MIN_CELLS = 4
"""Fewer distinct cells than this is no board."""

MAX_SIDE = 32
"""Most values a board coordinate takes (a 19x19 go board has 19)."""

Key = tuple[str, ...]
"""A cell: its coordinates in the order the facts give them (``("a", "c3")``)."""


def natural_key(text: str) -> tuple[Any, ...]:
    """Sort key: ``c2`` before ``c10``, ``2`` before ``10``; mixed ``a1`` and ``1a`` compare too."""
    parts = (p for p in re.split(r"(\d+)", text) if p != "")
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts)


@dataclass(frozen=True, slots=True)
class Layout:
    """How a game's facts map to a grid (fixed for the whole game)."""

    relation: str
    arity: int
    col_arg: int
    row_arg: int
    cols: tuple[str, ...]
    rows: tuple[str, ...]
    """Top to bottom, as drawn."""
    cells: frozenset[Key]
    """The cells that are part of the drawn board, as coordinate keys."""
    pieces: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """Looks the game declares for cell contents (its board style), before the defaults."""
    extra_axes: tuple[tuple[str, ...], ...] = ()
    """Values of the coordinates after the first two (layers, inner boards), in order."""
    playable: frozenset[Key] = frozenset()
    """Cells that can hold a piece (others are drawn plain: draughts' light squares)."""
    void: frozenset[Key] = frozenset()
    """Cells that only ever hold a hole: drawn as gaps in the board."""
    contents: tuple[str, ...] = ()
    """Every content the board can hold, for looks that stay the same all game."""
    look: str = "grid"
    """``checkered``, ``grid`` or ``holes``."""
    col_labels: Mapping[str, str] = field(default_factory=dict)
    """Column values as people write them (declared with the game's notation)."""

    @property
    def ncoords(self) -> int:
        """How many leading arguments of a board fact are coordinates."""
        return 2 + len(self.extra_axes)


def _coordinate_count(facts: list[Func]) -> int:
    """2, plus the following arguments that are all numbers and not the last (3D boards)."""
    arity = len(facts[0].args)
    count = 2
    while count < min(arity - 1, 4) and all(str(f.args[count]).isdigit() for f in facts):
        count += 1
    return count


def _board_facts(facts: Iterable[Term], style: BoardStyle | None) -> list[Func] | None:
    """The facts of the most board-like relation: the one with the most distinct cells."""
    groups: dict[tuple[str, int], list[Func]] = {}
    for f in facts:
        if (
            isinstance(f, Func)
            and len(f.args) >= 3
            and all(isinstance(a, Const) for a in f.args)
            and (style is None or f.name == style.relation)
        ):
            groups.setdefault((f.name, len(f.args)), []).append(f)
    if not groups:
        return None
    best = max(groups.values(), key=lambda fs: (_board_sized(fs), len({f.args[:2] for f in fs})))
    return best if len({f.args[:2] for f in best}) >= MIN_CELLS else None


def _board_sized(facts: list[Func]) -> bool:
    """Both first arguments take at most :data:`MAX_SIDE` values, as a board's coordinates do.

    Bookkeeping relations can have more pairs than the board (hex's ``(connected GROUP
    COL ROW)`` has a group id for every cell); their first argument is no coordinate.
    """
    return all(len({f.args[i] for f in facts}) <= MAX_SIDE for i in (0, 1))


def _axis(values: set[str], fill: bool) -> tuple[str, ...]:
    """Sorted values; numbers filled to a whole range 1..max (many games skip empty rows)."""
    if fill and values and all(v.isdigit() for v in values):
        low = min(1, *(int(v) for v in values))
        values = {str(i) for i in range(low, max(int(v) for v in values) + 1)}
    return tuple(sorted(values, key=natural_key))


def _content(fact: Func, ncoords: int) -> str:
    return " ".join(str(a) for a in fact.args[ncoords:])


def infer_layout(
    initial_facts: Iterable[Term],
    extra_facts: Iterable[Term] = (),
    style: BoardStyle | None = None,
    complete: bool = False,
) -> Layout | None:
    """The grid of a game from its facts, or None when nothing looks like a board.

    ``extra_facts`` are the other facts the game may hold (its possible facts, or
    those seen in playouts); ``complete`` says they are all of them, so a cell that
    never appears can never hold a piece. A declared board style names the relation
    and its orientation; otherwise the first argument is the column and rows grow
    upwards.
    """
    found = _board_facts([*initial_facts, *extra_facts], style)
    if found is None:
        return None
    n = _coordinate_count(found)
    col_arg = 0 if style is None else style.col_arg - 1
    row_arg = 1 - col_arg
    seen: dict[Key, set[str]] = {}
    for f in found:
        seen.setdefault(tuple(str(a) for a in f.args[:n]), set()).add(_content(f, n))
    axes = [_axis({k[i] for k in seen}, fill=True) for i in range(n)]
    cells = _product(axes) if all(len(a) for a in axes) and _numeric(axes) else set(seen)
    rows = axes[row_arg] if style is not None and style.rows_down else axes[row_arg][::-1]
    declared = {} if style is None else style.pieces
    looks = piece_looks({c for cs in seen.values() for c in cs}, declared)
    void = {k for k, cs in seen.items() if cs and all(_is_hole(c, looks) for c in cs)}
    # Complete facts tell where pieces can never stand (draughts' light squares).
    held = {k for k, cs in seen.items() if any(c in looks and not _is_hole(c, looks) for c in cs)}
    playable = held if complete else cells - void
    cols, parity = axes[col_arg], {k: _shade(axes, col_arg, k) for k in playable}
    return Layout(
        relation=found[0].name,
        arity=len(found[0].args),
        col_arg=col_arg,
        row_arg=row_arg,
        cols=cols,
        rows=rows,
        cells=frozenset(cells),
        pieces=declared,
        extra_axes=tuple(axes[2:]),
        playable=frozenset(playable),
        void=frozenset(void),
        contents=tuple(sorted(looks, key=natural_key)),
        look=_look(style, looks, set(parity.values()), playable != cells),
        col_labels={} if style is None else style.col_labels,
    )


def _numeric(axes: list[tuple[str, ...]]) -> bool:
    return all(v.isdigit() for a in axes for v in a)


def _product(axes: list[tuple[str, ...]]) -> set[Key]:
    keys: set[Key] = {()}
    for axis in axes:
        keys = {(*k, v) for k in keys for v in axis}
    return keys


def _is_hole(content: str, looks: Mapping[str, Mapping[str, str]]) -> bool:
    return looks.get(content, {}).get("shape") == HOLE


def _shade(axes: list[tuple[str, ...]], col_arg: int, key: Key) -> int:
    """0 or 1: the colour of a cell's square on a checkerboard."""
    return (axes[col_arg].index(key[col_arg]) + axes[1 - col_arg].index(key[1 - col_arg])) % 2


def _look(
    style: BoardStyle | None,
    looks: Mapping[str, Mapping[str, str]],
    shades: set[int],
    some_unplayable: bool,
) -> str:
    """The declared look, else: a checkerboard where colours matter, plain squares elsewhere.

    Colours matter for a chess set and for draughts (pieces on one colour only).
    """
    if style is not None and style.look:
        return style.look
    if any(look.get("shape") == "glyph" for look in looks.values()):
        return "checkered"
    return "checkered" if len(shades) == 1 and some_unplayable else "grid"


# ---- drawing positions ------------------------------------------------------------------


def _position(layout: Layout, key: Key) -> tuple[int, int]:
    """Where a cell is drawn, in cells from the top left (layers and inner boards with gaps)."""
    x = layout.cols.index(key[layout.col_arg])
    y = layout.rows.index(key[layout.row_arg])
    extra = key[2:]
    if len(extra) == 1:  # layers side by side
        x += layout.extra_axes[0].index(extra[0]) * (len(layout.cols) + 1)
    elif len(extra) == 2:  # a board of boards: the first two coordinates pick the board
        x = x * (len(layout.extra_axes[0]) + 1) + layout.extra_axes[0].index(extra[0])
        inner_rows = layout.extra_axes[1][::-1]
        y = y * (len(inner_rows) + 1) + inner_rows.index(extra[1])
    return x, y


def square_name(layout: Layout, key: Key) -> str:
    """A cell as people name it: ``b3`` with declared column labels, else ``2 3``."""
    if not layout.col_labels:
        return " ".join(key)
    return "".join(layout.col_labels.get(v, v) if i == layout.col_arg else v
                   for i, v in enumerate(key))  # fmt: skip


def board_cells(layout: Layout, facts: Iterable[Term]) -> dict[Key, str]:
    """Content of each occupied cell of the layout in a state (empty cells left out)."""
    out: dict[Key, str] = {}
    n = layout.ncoords
    for f in facts:
        if isinstance(f, Func) and f.name == layout.relation and len(f.args) == layout.arity:
            content = _content(f, n)
            if not is_empty(content):
                out[tuple(str(a) for a in f.args[:n])] = content
    return out


def other_facts(layout: Layout | None, facts: Iterable[Term]) -> list[str]:
    """The facts a board does not show (whose turn, counters, scores), sorted."""
    shown = [
        str(f)
        for f in facts
        if layout is None
        or not (isinstance(f, Func) and f.name == layout.relation and len(f.args) == layout.arity)
    ]
    return sorted(shown, key=natural_key)


def board_view(layout: Layout, facts: Iterable[Term]) -> dict[str, Any]:
    """A JSON-ready picture of a state: positioned cells with contents, labels, looks."""
    facts = list(facts)
    occupied = board_cells(layout, facts)
    cells = []
    places = {key: _position(layout, key) for key in layout.cells}
    for key in sorted(layout.cells, key=lambda k: places[k][::-1]):
        x, y = places[key]
        cells.append({
            "key": ",".join(key), "name": square_name(layout, key), "x": x, "y": y,
            "col": key[layout.col_arg],
            "content": occupied.get(key), "playable": key in layout.playable,
            "void": key in layout.void,
            "shade": (layout.cols.index(key[layout.col_arg])
                      + layout.rows.index(key[layout.row_arg])) % 2,
        })  # fmt: skip
    width = 1 + max((x for x, _ in places.values()), default=0)
    height = 1 + max((y for _, y in places.values()), default=0)
    flat = not layout.extra_axes
    return {
        "width": width,
        "height": height,
        "look": layout.look,
        "cols": [{"at": i, "text": layout.col_labels.get(c, c)} for i, c in enumerate(layout.cols)]
        if flat
        else [],
        "rows": [{"at": j, "text": r} for j, r in enumerate(layout.rows)] if flat else [],
        "cells": cells,
        "styles": piece_looks(layout.contents or occupied.values(), layout.pieces),
        "others": other_facts(layout, facts),
    }


# ---- moves on the board -------------------------------------------------------------------


def move_cells(layout: Layout, move: Term) -> list[Key]:
    """The board cells a move names, in order (two for from/to moves, one for placements)."""
    if not isinstance(move, Func):
        return []
    args = [str(a) if isinstance(a, Const) else None for a in move.args]
    n = layout.ncoords
    found: list[Key] = []
    i = 0
    while i + n <= len(args):
        window = args[i : i + n]
        key = tuple(a for a in window if a is not None)
        if len(key) == n and key in layout.cells:
            found.append(key)
            i += n
            continue
        i += 1
    return found


def move_column(layout: Layout, move: Term) -> str | None:
    """The column a move names when it names nothing else (connect four's ``(drop 3)``)."""
    if isinstance(move, Func) and len(move.args) == 1 and layout.ncoords == 2:
        value = str(move.args[0])
        if value in layout.cols:
            return value
    return None
