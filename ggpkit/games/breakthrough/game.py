"""Breakthrough on a 6x6 board with four holes (``breakthrough-holes``) and its capture variant.

Rules: as specified for ggpkit's seed games, section 3 (seed 003). White (y = 1, 2) moves up,
black (y = 5, 6) moves down, one row forward, straight or diagonally, onto an
empty cell that is not a hole; white moves first and control alternates. A
piece on the far row wins, and so does the side whose opponent has control but
no move. ``breakthrough-holes-capture`` (the public ``breakthroughSmallHoles``)
also lets a DIAGONAL move land on an opponent piece, which is captured.

The state is three plain ints (white bitboard, black bitboard, control); the
bit layout and the compiled kernels are in :mod:`ggpkit.games.breakthrough.kernels`.
This module keeps a plain-Python move generator as well: it is the readable
reference that the kernels are tested against.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ggpkit.games.api import (
    BatchStepper,
    Dynamics,
    Game,
    GameError,
    GameInfo,
    UnknownRoleError,
    Utility,
)
from ggpkit.games.breakthrough import extras, kernels, tree
from ggpkit.games.capabilities import Capabilities
from ggpkit.games.native.twin import FromTwin
from ggpkit.gdl.terms import Const, Func, Term, func
from ggpkit.reasoning.base import PlayoutStats
from ggpkit.search.native.tree import NativeTrees

ROLES = ("white", "black")
SIZE = 6
MAX_LENGTH = 85
"""Every move takes a piece one row forward and a piece on its last row wins: each side's
12 pieces make at most 6 * 4 + 6 * 3 = 42 moves short of winning, so a match lasts at
most 42 + 42 + 1 joint moves (captures only remove pieces)."""
HOLE_CELLS = ((2, 3), (3, 4), (4, 3), (5, 4))
"""Holes as (x, y): impassable and never occupied."""

NOOP = Const("noop")


def cell_index(x: int, y: int) -> int:
    """Bit index of cell (x, y), both 1..6."""
    return (y - 1) * SIZE + (x - 1)


def cell_xy(index: int) -> tuple[int, int]:
    """Cell (x, y) of a bit index."""
    return index % SIZE + 1, index // SIZE + 1


HOLES = sum(1 << cell_index(x, y) for x, y in HOLE_CELLS)
ROW1 = sum(1 << cell_index(x, 1) for x in range(1, SIZE + 1))
ROW6 = sum(1 << cell_index(x, SIZE) for x in range(1, SIZE + 1))


class BtState(NamedTuple):
    """A position: white and black bitboards (bit ``(y-1)*6 + (x-1)``) and the side to move.

    ``control`` is 0 when white has control, 1 when black has. Immutable and hashable.
    """

    white: int
    black: int
    control: int


def initial_position() -> BtState:
    """White on rows 1 and 2, black on rows 5 and 6, white to move."""
    white = sum(1 << cell_index(x, y) for x in range(1, 7) for y in (1, 2))
    black = sum(1 << cell_index(x, y) for x in range(1, 7) for y in (5, 6))
    return BtState(white, black, 0)


def position(
    white: Sequence[tuple[int, int]], black: Sequence[tuple[int, int]], control: str
) -> BtState:
    """A hand-built position from cell lists, e.g. for tests and puzzles."""
    if control not in ROLES:
        raise UnknownRoleError(control, ROLES)
    cells = [*white, *black]
    for x, y in cells:
        if not (1 <= x <= SIZE and 1 <= y <= SIZE):
            raise GameError(f"cell ({x},{y}) is off the 6x6 board")
        if (x, y) in HOLE_CELLS:
            raise GameError(f"cell ({x},{y}) is a hole and cannot hold a piece")
    if len(set(cells)) != len(cells):
        raise GameError("a cell is listed twice: each cell holds at most one piece")
    w = sum(1 << cell_index(x, y) for x, y in white)
    b = sum(1 << cell_index(x, y) for x, y in black)
    return BtState(w, b, ROLES.index(control))


# ---- the plain-Python reference ---------------------------------------------------------


def plain_legal(state: BtState, capture: bool) -> list[tuple[int, int]]:
    """Legal (source, destination) cells of the side with control, cell by cell.

    Sorted by source, then destination: the same order as the compiled generator.
    """
    mine, theirs = (state.white, state.black) if state.control == 0 else (state.black, state.white)
    dy = 1 if state.control == 0 else -1
    out: list[tuple[int, int]] = []
    for src in range(SIZE * SIZE):
        if not mine >> src & 1:
            continue
        x, y = cell_xy(src)
        for dx in (-1, 0, 1):
            x2, y2 = x + dx, y + dy
            if not (1 <= x2 <= SIZE and 1 <= y2 <= SIZE):
                continue
            dst = cell_index(x2, y2)
            bit = 1 << dst
            if bit & (HOLES | mine):
                continue
            if bit & theirs and not (capture and dx != 0):
                continue
            out.append((src, dst))
    return sorted(out)


def plain_next(state: BtState, src: int, dst: int) -> BtState:
    """The position after the side with control moves ``src -> dst`` (a capture clears ``dst``)."""
    move = (1 << src) | (1 << dst)
    if state.control == 0:
        return BtState(state.white ^ move, state.black & ~(1 << dst), 1)
    return BtState(state.white & ~(1 << dst), state.black ^ move, 0)


def plain_wins(state: BtState, capture: bool) -> tuple[bool, bool]:
    """(white wins, black wins) by the rules, in any position (both only if hand-built)."""
    white_win = bool(state.white & ROW6) or (state.control == 1 and not plain_legal(state, capture))
    black_win = bool(state.black & ROW1) or (state.control == 0 and not plain_legal(state, capture))
    return white_win, black_win


# ---- terms ----------------------------------------------------------------------------------


def _move_term(src: int, dst: int) -> Func:
    (x1, y1), (x2, y2) = cell_xy(src), cell_xy(dst)
    return func("move", x1, y1, x2, y2)


_MOVE_TERMS: dict[tuple[int, int], Func] = {
    (src, dst): _move_term(src, dst)
    for src in range(SIZE * SIZE)
    for dst in range(SIZE * SIZE)
    if abs(cell_xy(src)[0] - cell_xy(dst)[0]) <= 1 and abs(cell_xy(src)[1] - cell_xy(dst)[1]) == 1
}
MOVE_CELLS: dict[Term, tuple[int, int]] = {t: k for k, t in _MOVE_TERMS.items()}
_PIECE_FACTS = {
    (role, i): func("cell", *cell_xy(i), role) for role in ROLES for i in range(SIZE * SIZE)
}
_HOLE_FACTS = frozenset(func("cell", x, y, "hole") for x, y in HOLE_CELLS)
_CONTROL_FACTS = (func("control", "white"), func("control", "black"))


class BreakthroughHoles(FromTwin, Game[BtState]):
    """Breakthrough on 6x6 with holes at (2,3) (3,4) (4,3) (5,4); no captures."""

    name = "breakthrough-holes"
    description = "Breakthrough on 6x6 with four holes; no captures."
    roles = ROLES
    info = GameInfo(
        Dynamics.TURN_TAKING,
        Utility.ZERO_SUM,
        goal_range=(0, 100),
        max_length=MAX_LENGTH,
        capabilities=Capabilities(
            compiled_playouts=True,
            compiled_perft=True,
            evaluation=extras.evaluation_without_capture,
            end_reason=extras.end_reason,
            notation=extras.NOTATION,
            board=extras.BOARD,
            solver=extras.solver,
            tree_search=NativeTrees("breakthrough-holes", ROLES, tree.PLAIN),
        ),
    )
    capture = False

    def initial_state(self) -> BtState:
        return initial_position()

    def _legal(self, state: BtState, role_index: int) -> list[Term]:
        if role_index != state.control:
            return [NOOP]
        cells = kernels.legal_moves(state.white, state.black, state.control, self.capture)
        return [_MOVE_TERMS[(int(s), int(d))] for s, d in cells]

    def _next(self, state: BtState, moves: Sequence[Term]) -> BtState:
        src, dst = MOVE_CELLS[moves[state.control]]
        return plain_next(state, src, dst)

    def _wins(self, state: BtState) -> tuple[bool, bool]:
        white_win, black_win = kernels.game_wins(
            state.white, state.black, state.control, self.capture
        )
        return bool(white_win), bool(black_win)

    def is_terminal(self, state: BtState) -> bool:
        white_win, black_win = self._wins(state)
        return white_win or black_win

    def goals(self, state: BtState) -> dict[str, int]:
        white_win, black_win = self._wins(state)
        return {"white": 100 if white_win else 0, "black": 100 if black_win else 0}

    def winner(self, state: BtState) -> str | None:
        """The winning role in a terminal state, else None."""
        white_win, black_win = self._wins(state)
        if white_win != black_win:
            return "white" if white_win else "black"
        return None

    def state_from_facts(self, facts: Iterable[Term]) -> BtState:
        """The position whose facts are ``facts`` (pieces, holes and control)."""
        given = frozenset(facts)
        boards = [0, 0]
        control = -1
        for role_index, role in enumerate(ROLES):
            if _CONTROL_FACTS[role_index] in given:
                control = role_index
            for i in range(SIZE * SIZE):
                if _PIECE_FACTS[(role, i)] in given:
                    boards[role_index] |= 1 << i
        if control < 0:
            raise GameError("the facts need (control white) or (control black)")
        return self._exactly(BtState(boards[0], boards[1], control), given)

    def facts(self, state: BtState) -> frozenset[Term]:
        out: set[Term] = set(_HOLE_FACTS)
        out.add(_CONTROL_FACTS[state.control])
        for role_index, board in enumerate((state.white, state.black)):
            role = ROLES[role_index]
            while board:
                low = board & -board
                out.add(_PIECE_FACTS[(role, low.bit_length() - 1)])
                board ^= low
        return frozenset(out)

    def batch_stepper(self, count: int, max_steps: int) -> BatchStepper:
        """Matches stepped together on the native bitboards, in the twin's vocabulary."""
        from ggpkit.games.breakthrough.batch import BreakthroughStepper

        return BreakthroughStepper(self, count, max_steps)

    def to_move(self, state: BtState) -> str | None:
        if self.is_terminal(state):
            return None
        return ROLES[state.control]

    def why_illegal(self, state: BtState, role: str, move: Term) -> str:
        index = self.role_index(role)
        controller = ROLES[state.control]
        if index != state.control:
            return f"it is {controller}'s turn: {role} may only play noop"
        if move == NOOP:
            return f"{role} has control and must move a piece; noop is for the other role"
        coords = _move_coords(move)
        if coords is None:
            return "not a move of this game: moves are (move X1 Y1 X2 Y2) or noop"
        x1, y1, x2, y2 = coords
        for x, y in ((x1, y1), (x2, y2)):
            if not (1 <= x <= SIZE and 1 <= y <= SIZE):
                return f"({x},{y}) is off the board (x and y are 1..6)"
        mine, theirs = (state.white, state.black) if index == 0 else (state.black, state.white)
        other = ROLES[1 - index]
        src, dst = cell_index(x1, y1), cell_index(x2, y2)
        if not mine >> src & 1:
            return f"there is no {role} piece on ({x1},{y1})"
        dy = 1 if index == 0 else -1
        if y2 - y1 != dy:
            return f"{role} moves one row forward: from y={y1} only to y={y1 + dy}"
        if abs(x2 - x1) > 1:
            return "a piece moves straight ahead or to a neighbouring column (x +-1)"
        if HOLES >> dst & 1:
            return f"({x2},{y2}) is a hole"
        if mine >> dst & 1:
            return f"({x2},{y2}) is occupied by {role}'s own piece"
        if theirs >> dst & 1:
            if x1 == x2 and self.capture:
                return f"({x2},{y2}) is occupied by {other}: a straight move cannot capture"
            if not self.capture:
                return f"({x2},{y2}) is occupied by {other}: there are no captures in this game"
        return super().why_illegal(state, role, move)

    def render(self, state: BtState) -> str:
        """The board with y = 6 on top: ``w`` white, ``b`` black, ``#`` hole, ``.`` empty."""
        lines = []
        for y in range(SIZE, 0, -1):
            row = [_cell_char(state, 1 << cell_index(x, y)) for x in range(1, SIZE + 1)]
            lines.append(f"{y} " + " ".join(row))
        lines.append("  " + " ".join("abcdef"[:SIZE]))  # columns as the notation names them
        lines.append("(w white, b black, # hole)")
        winner = self.winner(state)
        if self.is_terminal(state):
            lines.append(f"game over: {winner} wins" if winner else "game over: both win")
        else:
            lines.append(f"{ROLES[state.control]} to move")
        return "\n".join(lines)

    # ---- compiled fast paths ----------------------------------------------------------

    def random_playout(self, state: BtState, rng: random.Random) -> tuple[dict[str, int], int]:
        gw, gb, steps = kernels.random_playout(
            state.white, state.black, state.control, self.capture, rng.getrandbits(63)
        )
        return {"white": int(gw), "black": int(gb)}, int(steps)

    def playout_stats(self, state: BtState, count: int, seed: int) -> PlayoutStats:
        moves, sum_w, sum_b = kernels.playout_stats(
            state.white, state.black, state.control, self.capture, count, seed & (2**63 - 1)
        )
        return PlayoutStats(count, int(moves), (int(sum_w), int(sum_b)))

    def perft_compiled(self, state: BtState, depth: int) -> int:
        """Perft by the compiled generator (see :mod:`ggpkit.games.perft`)."""
        if depth > 0 and self.is_terminal(state):
            return 0
        return int(kernels.perft(state.white, state.black, state.control, self.capture, depth))


class BreakthroughHolesCapture(BreakthroughHoles):
    """The public ``breakthroughSmallHoles``: a diagonal move may also capture."""

    name = "breakthrough-holes-capture"
    description = "Breakthrough on 6x6 with four holes; diagonal moves may capture."
    capture = True
    info = GameInfo(
        Dynamics.TURN_TAKING,
        Utility.ZERO_SUM,
        goal_range=(0, 100),
        max_length=MAX_LENGTH,
        capabilities=Capabilities(
            compiled_playouts=True,
            compiled_perft=True,
            evaluation=extras.evaluation_with_capture,
            end_reason=extras.end_reason,
            notation=extras.NOTATION,
            board=extras.BOARD,
            tree_search=NativeTrees("breakthrough-holes-capture", ROLES, tree.CAPTURE),
        ),
    )


def _cell_char(state: BtState, bit: int) -> str:
    if state.white & bit:
        return "w"
    if state.black & bit:
        return "b"
    return "#" if HOLES & bit else "."


def _move_coords(move: Term) -> tuple[int, int, int, int] | None:
    """(x1, y1, x2, y2) of a ``(move X1 Y1 X2 Y2)`` term with integer arguments, else None."""
    if not isinstance(move, Func) or move.name != "move" or len(move.args) != 4:
        return None
    values = []
    for a in move.args:
        if not isinstance(a, Const) or not a.name.lstrip("-").isdigit():
            return None
        values.append(int(a.name))
    return values[0], values[1], values[2], values[3]
