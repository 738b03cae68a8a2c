"""A board view inferred from a state's facts, so any GDL game can be drawn and clicked.

Most board games describe their board with facts of the shape
``(relation A B content)``: ``(cell 1 2 white)``, ``(hole a c3 peg)``,
``(location 3 1 blackPawn)``. :func:`infer_layout` picks the relation that looks
most like that from a game's initial state, and :func:`board_view` turns any state
of the game into rows, columns and cell contents. Moves whose arguments name two
cells become a from/to pair (click a piece, then its target); moves naming one cell
become a click on that cell (``(mark 1 1)``). Everything else is offered as a list.

Nothing here knows a particular game: the native games are drawn the same way
through their ``facts``, oriented by the board style they declare (facts do not say
which way is up).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ggpkit.games.capabilities import BoardStyle
from ggpkit.gdl.terms import Const, Func, Term

EMPTY_WORDS = frozenset({"b", "blank", "empty", "e", "none", "0"})
_PALETTE = ["#1f2937", "#f5f5f4", "#dc2626", "#2563eb", "#16a34a", "#d97706", "#9333ea", "#0891b2"]


def natural_key(text: str) -> tuple[Any, ...]:
    """Sort key that orders ``c2`` before ``c10`` and ``2`` before ``10``."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", text) if p != "")


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
    cells: frozenset[tuple[str, str]]
    """(col, row) pairs that are part of the board."""
    pieces: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """Looks the game declares for cell contents (its board style), before the defaults."""


def _candidate_relations(facts: Iterable[Term]) -> Counter[tuple[str, int]]:
    counts: Counter[tuple[str, int]] = Counter()
    for fact in facts:
        if (
            isinstance(fact, Func)
            and len(fact.args) >= 3
            and all(isinstance(a, Const) for a in fact.args[:2])
        ):
            counts[(fact.name, len(fact.args))] += 1
    return counts


def infer_layout(
    initial_facts: Iterable[Term],
    extra_facts: Iterable[Term] = (),
    style: BoardStyle | None = None,
) -> Layout | None:
    """The grid of a game from its facts, or None when nothing looks like a board.

    A game that declares its board style (``info.capabilities.board``) names the
    relation and its orientation; otherwise the most board-like relation is taken, with
    the first argument as the column and rows growing upwards.
    """
    facts = list(initial_facts) + list(extra_facts)
    counts = _candidate_relations(facts)
    if style is not None:
        counts = Counter({k: n for k, n in counts.items() if k[0] == style.relation})
    if not counts:
        return None
    (relation, arity), n = counts.most_common(1)[0]
    if n < 4:
        return None
    pairs = {
        (str(f.args[0]), str(f.args[1]))
        for f in facts
        if isinstance(f, Func) and f.name == relation and len(f.args) == arity
    }
    col_arg, rows_grow_up = (0, True) if style is None else (style.col_arg - 1, not style.rows_down)
    row_arg = 1 - col_arg
    col_values = {p[col_arg] for p in pairs}
    row_values = {p[row_arg] for p in pairs}
    numeric = all(v.isdigit() for v in col_values | row_values)
    cells = {(p[col_arg], p[row_arg]) for p in pairs}
    if numeric:
        # Boards with numbered rows and columns are rectangles; many list only the
        # occupied squares, so fill the whole grid 1..max.
        cmax = max(int(v) for v in col_values)
        rmax = max(int(v) for v in row_values)
        cmin = min(1, *(int(v) for v in col_values))
        rmin = min(1, *(int(v) for v in row_values))
        if len(cells) < (cmax - cmin + 1) * (rmax - rmin + 1):
            col_values = {str(i) for i in range(cmin, cmax + 1)}
            row_values = {str(i) for i in range(rmin, rmax + 1)}
            cells = {(c, r) for c in col_values for r in row_values}
    cols = tuple(sorted(col_values, key=natural_key))
    rows = tuple(sorted(row_values, key=natural_key, reverse=rows_grow_up))
    pieces = {} if style is None else style.pieces
    return Layout(relation, arity, col_arg, row_arg, cols, rows, frozenset(cells), pieces)


def board_cells(layout: Layout, facts: Iterable[Term]) -> dict[tuple[str, str], str]:
    """Content of each occupied cell of the layout in a state (empty cells left out)."""
    out: dict[tuple[str, str], str] = {}
    for f in facts:
        if isinstance(f, Func) and f.name == layout.relation and len(f.args) == layout.arity:
            key = (str(f.args[layout.col_arg]), str(f.args[layout.row_arg]))
            content = " ".join(str(a) for a in f.args[2:])
            if content.lower() not in EMPTY_WORDS:
                out[key] = content
    return out


def move_cells(layout: Layout, move: Term) -> list[tuple[str, str]]:
    """The board cells a move names, in order (two for from/to moves, one for placements)."""
    if not isinstance(move, Func):
        return []
    args = [str(a) if isinstance(a, Const) else None for a in move.args]
    found: list[tuple[str, str]] = []
    i = 0
    while i + 1 < len(args):
        a, b = args[i], args[i + 1]
        if a is not None and b is not None:
            first, second = (a, b) if layout.col_arg == 0 else (b, a)
            if (first, second) in layout.cells:
                found.append((first, second))
                i += 2
                continue
        i += 1
    return found


def piece_styles(
    contents: Sequence[str], declared: Mapping[str, Mapping[str, str]] | None = None
) -> dict[str, dict[str, str]]:
    """A colour and a short label for each kind of cell content, stable across states.

    Looks the game declares come first; the others are guessed from common words.
    """
    styles: dict[str, dict[str, str]] = {}
    named = {
        "white": "#f5f5f4", "black": "#1f2937", "red": "#dc2626", "blue": "#2563eb",
        "x": "#2563eb", "o": "#dc2626", "hole": "hole",
    }  # fmt: skip
    spare = iter(_PALETTE)
    for content in sorted(set(contents)):
        low = content.lower()
        colour = named.get(low) or next(
            (v for k, v in named.items() if len(k) > 2 and k in low), None
        )
        colour = colour or next(spare, "#6b7280")
        label = content if len(content) <= 2 else ""
        styles[content] = {"color": colour, "label": label, **(declared or {}).get(content, {})}
    return styles


def board_view(layout: Layout, facts: Iterable[Term]) -> dict[str, Any]:
    """A JSON-ready picture of a state: rows, columns, cells with contents, piece styles."""
    occupied = board_cells(layout, facts)
    cells = [
        {"col": c, "row": r, "content": occupied.get((c, r))}
        for r in layout.rows
        for c in layout.cols
        if (c, r) in layout.cells
    ]
    return {
        "cols": list(layout.cols),
        "rows": list(layout.rows),
        "cells": cells,
        "styles": piece_styles(list(occupied.values()), layout.pieces),
    }
