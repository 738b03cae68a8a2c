"""Independent reference implementations of the five native games, from ../shared/rules.md alone.

WHY this exists: the native engines and their GDL twins were written by the same
people, so a misreading of the rules can hide in both. These implementations were
written from the rule texts (rules.md and the seed texts) without looking at the
engines or the twins, in the plainest Python possible (dicts, tuples, loops) so
that each rule can be checked by eye against its sentence in rules.md.

Every game here has the same small interface (:class:`RefGame`): ``roles``,
``initial()``, ``legal(state, role)`` (move texts, exactly as rules.md writes
them), ``next(state, joint)``, ``terminal(state)`` and ``goals(state)``. States
are immutable tuples; moves are plain strings such as ``"(jump b c4 d c4)"``,
``"(move 1 3 2 4)"`` or ``"noop"``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

S = TypeVar("S")


class RefGame(Protocol[S]):
    """The interface every reference game offers (a plain GGP state machine)."""

    name: str
    roles: tuple[str, ...]

    def initial(self) -> S:
        """The start state."""
        ...

    def legal(self, state: S, role: str) -> list[str]:
        """Legal move texts of ``role`` in a non-terminal ``state``."""
        ...

    def next(self, state: S, joint: Mapping[str, str]) -> S:
        """The state after the joint move (one legal move text per role)."""
        ...

    def terminal(self, state: S) -> bool:
        """True when the game is over."""
        ...

    def goals(self, state: S) -> dict[str, int]:
        """Goal of every role (defined in non-terminal states too)."""
        ...


def perft(game: RefGame[S], state: S, depth: int) -> int:
    """Joint-move sequences of length ``depth``; a line that ends early counts 0."""
    if depth == 0:
        return 1
    if game.terminal(state):
        return 0
    legal = {r: game.legal(state, r) for r in game.roles}
    total = 0
    for joint in _joints(game.roles, legal):
        total += 1 if depth == 1 else perft(game, game.next(state, joint), depth - 1)
    return total


def _joints(roles: tuple[str, ...], legal: Mapping[str, list[str]]) -> list[dict[str, str]]:
    """Every joint move: one legal move per role."""
    out: list[dict[str, str]] = [{}]
    for r in roles:
        out = [{**j, r: m} for j in out for m in legal[r]]
    return out


# =====================================================================================
# 1. Peg solitaire (rules.md section 1)
# =====================================================================================

PEG_ROWS = "abcdefg"
"""Row letters; index 0..6."""


def peg_holes() -> list[tuple[int, int]]:
    """The 33 holes of the English cross as (row index 0..6, column 1..7).

    rules.md: rows a, b, f, g have only columns c3, c4, c5; rows c, d, e have c1..c7.
    """
    holes = []
    for r, letter in enumerate(PEG_ROWS):
        cols = range(1, 8) if letter in "cde" else range(3, 6)
        for c in cols:
            holes.append((r, c))
    return holes


@dataclass(frozen=True)
class PegState:
    """Pegs on the board (a frozenset of holes) and the peg counter (starts at 32)."""

    pegs: frozenset[tuple[int, int]]
    counter: int


class RefPeg:
    """Peg solitaire, one role ``jumper``."""

    name = "peg"
    roles: tuple[str, ...] = ("jumper",)

    def __init__(self) -> None:
        self.holes = frozenset(peg_holes())

    def initial(self) -> PegState:
        """A peg in every hole except d c4; counter 32."""
        return PegState(frozenset(h for h in self.holes if h != (3, 4)), 32)

    def legal(self, state: PegState, role: str) -> list[str]:
        """Jumps two holes away in a row or column, over a peg, onto an empty hole."""
        moves = []
        for r, c in sorted(state.pegs):
            for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                mid = (r + dr, c + dc)
                dst = (r + 2 * dr, c + 2 * dc)
                if dst not in self.holes or mid not in self.holes:
                    continue
                if mid in state.pegs and dst not in state.pegs:
                    moves.append(f"(jump {PEG_ROWS[r]} c{c} {PEG_ROWS[dst[0]]} c{dst[1]})")
        return moves

    def next(self, state: PegState, joint: Mapping[str, str]) -> PegState:
        """Source and middle become empty, destination gets the peg, counter - 1."""
        parts = joint["jumper"].strip("()").split()
        assert parts[0] == "jump", joint
        r1, c1 = PEG_ROWS.index(parts[1]), int(parts[2][1:])
        r2, c2 = PEG_ROWS.index(parts[3]), int(parts[4][1:])
        mid = ((r1 + r2) // 2, (c1 + c2) // 2)
        pegs = set(state.pegs)
        pegs.discard((r1, c1))
        pegs.discard(mid)
        pegs.add((r2, c2))
        return PegState(frozenset(pegs), state.counter - 1)

    def terminal(self, state: PegState) -> bool:
        """No legal jump."""
        return not self.legal(state, "jumper")

    def goals(self, state: PegState) -> dict[str, int]:
        """1 peg on d c4: 100; 1 peg elsewhere: 99; n = 2..10: 100 - 10(n-1); 11+: 0."""
        n = state.counter
        if n == 1:
            goal = 100 if (3, 4) in state.pegs else 99
        elif 2 <= n <= 10:
            goal = 100 - 10 * (n - 1)
        else:
            goal = 0
        return {"jumper": goal}


# =====================================================================================
# 2. Pawn checkers and the barrel variant (rules.md section 2)
# =====================================================================================

CHECKERS_GOAL = (0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 90, 100)
"""Goal by own capture count 0..12 (rules.md's table; note 11 -> 90)."""


@dataclass(frozen=True)
class CheckersState:
    """Pawns ((x, y) -> role), captures per role, the role with control, the step counter."""

    pawns: frozenset[tuple[tuple[int, int], str]]
    captures: tuple[int, int]  # (black, red)
    control: str
    step: int

    def board(self) -> dict[tuple[int, int], str]:
        """The pawns as a dict square -> role."""
        return dict(self.pawns)


def checkers_state(
    black: list[tuple[int, int]],
    red: list[tuple[int, int]],
    *,
    captures: tuple[int, int] = (0, 0),
    control: str = "black",
    step: int = 1,
) -> CheckersState:
    """A hand-built checkers position (for edge cases)."""
    pawns = [(sq, "black") for sq in black] + [(sq, "red") for sq in red]
    return CheckersState(frozenset(pawns), captures, control, step)


class RefCheckers:
    """Pawn checkers; ``barrel=True`` wraps rows 8 <-> 1 (x never wraps)."""

    roles: tuple[str, ...] = ("black", "red")

    def __init__(self, barrel: bool = False) -> None:
        self.barrel = barrel
        self.name = "pawn-checkers-barrel" if barrel else "pawn-checkers"

    def initial(self) -> CheckersState:
        """Black on playable squares of rows 1..3, red on rows 6..8; black has control; step 1."""
        black, red = [], []
        for x in range(1, 9):
            for y in range(1, 9):
                if x % 2 != y % 2:
                    continue
                if y <= 3:
                    black.append((x, y))
                elif y >= 6:
                    red.append((x, y))
        return checkers_state(black, red)

    def _row(self, y: int) -> int | None:
        """Row y on this board: wrapped on the barrel, None when off the flat board."""
        if self.barrel:
            return (y - 1) % 8 + 1
        return y if 1 <= y <= 8 else None

    def _actions(self, state: CheckersState, role: str) -> tuple[list[str], list[str]]:
        """(moves, jumps) of ``role``'s pawns, ignoring control and compulsion."""
        board = state.board()
        fwd = 1 if role == "black" else -1
        other = "red" if role == "black" else "black"
        moves, jumps = [], []
        for (x, y), owner in sorted(state.pawns):
            if owner != role:
                continue
            for dx in (-1, 1):
                x1, x2 = x + dx, x + 2 * dx
                y1, y2 = self._row(y + fwd), self._row(y + 2 * fwd)
                if 1 <= x1 <= 8 and y1 is not None and (x1, y1) not in board:
                    moves.append(f"(move {x} {y} {x1} {y1})")
                if (
                    1 <= x2 <= 8
                    and y1 is not None
                    and y2 is not None
                    and board.get((x1, y1)) == other
                    and (x2, y2) not in board
                ):
                    jumps.append(f"(jump {x} {y} {x2} {y2})")
        return moves, jumps

    def legal(self, state: CheckersState, role: str) -> list[str]:
        """Control: jumps if any (compulsory), else moves. Without control: noop."""
        if role != state.control:
            return ["noop"]
        moves, jumps = self._actions(state, role)
        return jumps if jumps else moves

    def next(self, state: CheckersState, joint: Mapping[str, str]) -> CheckersState:
        """Apply the controller's move or jump; control alternates; step + 1."""
        mover = state.control
        parts = joint[mover].strip("()").split()
        kind = parts[0]
        x1, y1, x2, y2 = (int(p) for p in parts[1:])
        board = state.board()
        del board[(x1, y1)]
        board[(x2, y2)] = mover
        caps = list(state.captures)
        if kind == "jump":
            fwd = 1 if mover == "black" else -1
            mid_y = self._row(y1 + fwd)
            assert mid_y is not None
            del board[((x1 + x2) // 2, mid_y)]
            caps[0 if mover == "black" else 1] += 1
        else:
            assert kind == "move", joint
        other = "red" if mover == "black" else "black"
        return CheckersState(frozenset(board.items()), (caps[0], caps[1]), other, state.step + 1)

    def terminal(self, state: CheckersState) -> bool:
        """A role has no pawns; or the controller has no move or jump; or step reaches 100."""
        owners = {owner for _, owner in state.pawns}
        if "black" not in owners or "red" not in owners:
            return True
        if state.step >= 100:
            return True
        return not self.legal(state, state.control)

    def goals(self, state: CheckersState) -> dict[str, int]:
        """Each role's goal from its own capture count, by the table."""
        return {
            "black": CHECKERS_GOAL[state.captures[0]],
            "red": CHECKERS_GOAL[state.captures[1]],
        }


# =====================================================================================
# 3. Breakthrough with holes and the capture variant (rules.md section 3)
# =====================================================================================

BT_HOLES = frozenset({(2, 3), (3, 4), (4, 3), (5, 4)})
"""Impassable cells, never occupied."""


@dataclass(frozen=True)
class BreakthroughState:
    """Pieces ((x, y) -> role) and the role with control."""

    pieces: frozenset[tuple[tuple[int, int], str]]
    control: str


def breakthrough_state(
    white: list[tuple[int, int]], black: list[tuple[int, int]], control: str = "white"
) -> BreakthroughState:
    """A hand-built breakthrough position (for edge cases)."""
    pieces = [(sq, "white") for sq in white] + [(sq, "black") for sq in black]
    return BreakthroughState(frozenset(pieces), control)


class RefBreakthrough:
    """Breakthrough 6x6 with holes; ``capture=True``: diagonal moves may capture."""

    roles: tuple[str, ...] = ("white", "black")

    def __init__(self, capture: bool = False) -> None:
        self.capture = capture
        self.name = "breakthrough-holes-capture" if capture else "breakthrough-holes"

    def initial(self) -> BreakthroughState:
        """White on rows 1, 2; black on rows 5, 6; white has control."""
        white = [(x, y) for x in range(1, 7) for y in (1, 2)]
        black = [(x, y) for x in range(1, 7) for y in (5, 6)]
        return breakthrough_state(white, black)

    def _moves(self, state: BreakthroughState, role: str) -> list[str]:
        """Moves of ``role``'s pieces (whoever has control)."""
        board = dict(state.pieces)
        fwd = 1 if role == "white" else -1
        out = []
        for (x, y), owner in sorted(state.pieces):
            if owner != role:
                continue
            for dx in (-1, 0, 1):
                nx, ny = x + dx, y + fwd
                if not (1 <= nx <= 6 and 1 <= ny <= 6) or (nx, ny) in BT_HOLES:
                    continue
                occupant = board.get((nx, ny))
                if occupant is None or (self.capture and dx != 0 and occupant != role):
                    out.append(f"(move {x} {y} {nx} {ny})")
        return out

    def legal(self, state: BreakthroughState, role: str) -> list[str]:
        """The controller's moves; the other role: noop."""
        if role != state.control:
            return ["noop"]
        return self._moves(state, role)

    def next(self, state: BreakthroughState, joint: Mapping[str, str]) -> BreakthroughState:
        """Move the piece (capturing whatever stands on the destination); control alternates."""
        mover = state.control
        x1, y1, x2, y2 = (int(p) for p in joint[mover].strip("()").split()[1:])
        board = dict(state.pieces)
        del board[(x1, y1)]
        board[(x2, y2)] = mover
        other = "black" if mover == "white" else "white"
        return BreakthroughState(frozenset(board.items()), other)

    def _wins(self, state: BreakthroughState) -> dict[str, bool]:
        """Each role's win condition, tested on its own as rules.md states it.

        White: a white piece on y = 6, or black has control and no legal move;
        black symmetrically. Both hold only in hand-built positions that play
        cannot reach; then both are winners (each condition is true).
        """
        return {
            "white": any(owner == "white" and y == 6 for (_, y), owner in state.pieces)
            or (state.control == "black" and not self._moves(state, "black")),
            "black": any(owner == "black" and y == 1 for (_, y), owner in state.pieces)
            or (state.control == "white" and not self._moves(state, "white")),
        }

    def terminal(self, state: BreakthroughState) -> bool:
        """Over as soon as someone has won."""
        return any(self._wins(state).values())

    def goals(self, state: BreakthroughState) -> dict[str, int]:
        """Winner 100, loser 0; both 0 in a non-terminal state."""
        wins = self._wins(state)
        return {r: 100 if wins[r] else 0 for r in self.roles}


def reference(name: str) -> RefGame[Any]:
    """The reference implementation of a registered native game, by name."""
    if name == "peg":
        return RefPeg()
    if name in ("pawn-checkers", "pawn-checkers-barrel"):
        return RefCheckers(barrel=name.endswith("barrel"))
    if name in ("breakthrough-holes", "breakthrough-holes-capture"):
        return RefBreakthrough(capture=name.endswith("capture"))
    raise KeyError(name)
