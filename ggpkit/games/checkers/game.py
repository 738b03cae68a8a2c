"""Native pawn checkers (``pawn-checkers``) and its barrel variant (``pawn-checkers-barrel``).

The rules are those specified for ggpkit's seed games (section 2) and the GDL twins
``games/rules/pawn-checkers.kif`` and ``pawn-checkers-barrel.kif``: an 8x8 board,
pawns on the squares whose x and y are both odd or both even, black moving up
and red moving down, one diagonal step or one compulsory single jump per turn,
no kings, a step counter from 1 that ends the game at 100, and each role scored
from its own capture count. The barrel board wraps vertically (row 8 continues
on row 1); that is a flag on one shared engine, never a second copy of the rules.

The state is a :class:`CheckersState`: two 64-bit bitboards (bit
``(y - 1) * 8 + (x - 1)`` is square (x, y)), the capture counts, the step and
the role with control. Its facts use the vocabulary of the public GGP game
``checkersBarrelNoKings``: ``(location X Y blackPawn)``, ``(captureCount black N)``,
``(control black)``, ``(step N)``, so native and GDL states compare directly.

Two move generators exist on purpose: a plain-Python one written square by
square from the rules (the readable reference, used by the API), and the
bitboard kernels of :mod:`ggpkit.games.checkers.kernels` (used for playouts
and perft). The tests check that they agree.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import cache, lru_cache
from typing import NamedTuple

import numpy as np

from ggpkit.games.api import (
    BatchStepper,
    Dynamics,
    Game,
    GameError,
    GameInfo,
    IllegalMoveError,
    MoveLike,
    Utility,
)
from ggpkit.games.capabilities import Capabilities
from ggpkit.games.checkers import extras, kernels, tree
from ggpkit.games.native.twin import FromTwin
from ggpkit.gdl.terms import Const, Func, Term, func
from ggpkit.reasoning.base import PlayoutStats
from ggpkit.search.native.tree import NativeTrees

ROLES = ("black", "red")
SIZE = 8
STEP_LIMIT = kernels.STEP_LIMIT
GOALS = tuple(int(g) for g in kernels.GOAL_TABLE)
"""Goal by own capture count: 0, 8, 16, ..., 80 for 0..10 captures, then 90, 100."""

NOOP = Const("noop")
PAWN_NAMES = ("blackPawn", "redPawn")
FORWARD = (1, -1)  # black moves up (y + 1), red moves down (y - 1)

Square = tuple[int, int]
PlainMove = tuple[str, int, int, int, int]
"""A move as plain data: (kind, x1, y1, x2, y2) with kind "move" or "jump"."""


class CheckersState(NamedTuple):
    """A pawn checkers position; immutable and hashable.

    ``black`` and ``red`` are bitboards (bit ``(y-1)*8 + (x-1)`` is square (x, y));
    ``control`` is the index of the role to move (0 black, 1 red).
    """

    black: int
    red: int
    black_captures: int
    red_captures: int
    step: int
    control: int


def square_bit(x: int, y: int) -> int:
    """The bitboard bit of square (x, y)."""
    return 1 << ((y - 1) * SIZE + (x - 1))


def squares(bitboard: int) -> Iterator[Square]:
    """The squares (x, y) of a bitboard's set bits, in bit order (row by row from y = 1)."""
    while bitboard:
        low = bitboard & -bitboard
        index = low.bit_length() - 1
        yield index % SIZE + 1, index // SIZE + 1
        bitboard ^= low


def is_pawn_square(x: int, y: int) -> bool:
    """True for the squares pawns may stand on: x and y both odd or both even."""
    return 1 <= x <= SIZE and 1 <= y <= SIZE and (x + y) % 2 == 0


def _start_bitboard(rows: Iterable[int]) -> int:
    return sum(square_bit(x, y) for y in rows for x in range(1, SIZE + 1) if is_pawn_square(x, y))


START = CheckersState(_start_bitboard(range(1, 4)), _start_bitboard(range(6, 9)), 0, 0, 1, 0)


def _row(y: int, dy: int, wrap: bool) -> int | None:
    """The row ``dy`` rows from ``y``: wrapped on the barrel, None when off the plain board."""
    y2 = y + dy
    if wrap:
        return (y2 - 1) % SIZE + 1
    return y2 if 1 <= y2 <= SIZE else None


@lru_cache(maxsize=4096)  # legal_moves and is_terminal ask for the same state in turn
def plain_legal(black: int, red: int, control: int, wrap: bool) -> tuple[PlainMove, ...]:
    """The mover's legal moves, square by square from the rules (the reference generator).

    Jumps when any exists (compulsory), else one-square steps; sorted. Empty
    when the role with control is blocked.
    """
    own, opp = (black, red) if control == 0 else (red, black)
    occupied = black | red
    dy = FORWARD[control]
    jumps: list[PlainMove] = []
    steps: list[PlainMove] = []
    for x, y in squares(own):
        y1 = _row(y, dy, wrap)
        if y1 is None:
            continue
        y2 = _row(y1, dy, wrap)
        for dx in (1, -1):
            x1 = x + dx
            if not 1 <= x1 <= SIZE:
                continue
            if not occupied & square_bit(x1, y1):
                steps.append(("move", x, y, x1, y1))
                continue
            x2 = x1 + dx
            if (
                opp & square_bit(x1, y1)
                and y2 is not None
                and 1 <= x2 <= SIZE
                and not occupied & square_bit(x2, y2)
            ):
                jumps.append(("jump", x, y, x2, y2))
    return tuple(sorted(jumps or steps))


def plain_next(state: CheckersState, move: PlainMove, wrap: bool) -> CheckersState:
    """The state after the role with control plays ``move`` (known to be legal)."""
    kind, x1, y1, x2, y2 = move
    black, red, bc, rc, step, control = state
    own, opp = (black, red) if control == 0 else (red, black)
    own ^= square_bit(x1, y1) | square_bit(x2, y2)
    if kind == "jump":
        middle_y = _row(y1, FORWARD[control], wrap)
        assert middle_y is not None
        opp ^= square_bit((x1 + x2) // 2, middle_y)
        if control == 0:
            bc += 1
        else:
            rc += 1
    if control == 0:
        return CheckersState(own, opp, bc, rc, step + 1, 1)
    return CheckersState(opp, own, bc, rc, step + 1, 0)


_INTEGER = re.compile(r"-?[0-9]+")


@cache
def _move_term(move: PlainMove) -> Func:
    return func(*move)


def decode_move(term: Term) -> PlainMove | None:
    """A ``(move X1 Y1 X2 Y2)`` or ``(jump X1 Y1 X2 Y2)`` term as plain data; None otherwise.

    Coordinates are only read as integers here; whether they are on the board is
    for the caller to say.
    """
    if not isinstance(term, Func) or term.name not in ("move", "jump") or len(term.args) != 4:
        return None
    coords: list[int] = []
    for arg in term.args:
        if not isinstance(arg, Const) or not _INTEGER.fullmatch(arg.name):
            return None
        coords.append(int(arg.name))
    x1, y1, x2, y2 = coords
    return term.name, x1, y1, x2, y2


class PawnCheckers(FromTwin, Game[CheckersState]):
    """Pawn checkers on the plain 8x8 board (rules.md section 2)."""

    name = "pawn-checkers"
    description = "Checkers with pawns only, compulsory single jumps, 100-step limit."
    roles = ROLES
    info = GameInfo(
        Dynamics.TURN_TAKING,
        Utility.GENERAL_SUM,
        goal_range=(0, 100),
        max_length=STEP_LIMIT - 1,
        capabilities=Capabilities(
            compiled_playouts=True,
            compiled_perft=True,
            evaluation=extras.evaluation_plain,
            end_reason=extras.end_reason,
            notation=extras.NOTATION,
            board=extras.BOARD,
            search=extras.search_plain,
            tree_search=NativeTrees("pawn-checkers", ROLES, tree.PLAIN),
        ),
    )
    wrap = False
    """True on the barrel board: rows wrap vertically (row 8 continues on row 1)."""

    # ---- building positions ---------------------------------------------------------

    def initial_state(self) -> CheckersState:
        return START

    def make_state(
        self,
        black: Iterable[Square],
        red: Iterable[Square],
        captures: tuple[int, int] = (0, 0),
        step: int = 1,
        control: str = "black",
    ) -> CheckersState:
        """A position built by hand (for tests, puzzles and analysis), checked for sense.

        Pawns must stand on pawn squares, one per square; ``captures`` are
        (black, red); a role's captures plus the opponent's pawns may not exceed
        12, so counts stay within the goal table (and the GDL twin's counter).
        """
        boards = [0, 0]
        for side, pawns in enumerate((black, red)):
            for x, y in pawns:
                if not is_pawn_square(x, y):
                    raise ValueError(f"{x} {y} is not a square pawns stand on")
                if (boards[0] | boards[1]) & square_bit(x, y):
                    raise ValueError(f"two pawns on {x} {y}")
                boards[side] |= square_bit(x, y)
        for i, role in enumerate(ROLES):
            opponent_pawns = boards[1 - i].bit_count()
            if not 0 <= captures[i] <= 12 - opponent_pawns:
                raise ValueError(
                    f"{role} cannot have {captures[i]} captures with {opponent_pawns} "
                    f"{ROLES[1 - i]} pawns on the board (12 pawns each)"
                )
        if not 1 <= step <= STEP_LIMIT:
            raise ValueError(f"step {step} is outside 1..{STEP_LIMIT}")
        return CheckersState(
            boards[0], boards[1], captures[0], captures[1], step, self.role_index(control)
        )

    # ---- the rules ------------------------------------------------------------------

    def _mover_moves(self, state: CheckersState) -> tuple[PlainMove, ...]:
        return plain_legal(state.black, state.red, state.control, self.wrap)

    def _legal(self, state: CheckersState, role_index: int) -> list[Term]:
        if role_index != state.control:
            return [NOOP]
        return [_move_term(m) for m in self._mover_moves(state)]

    def _next(self, state: CheckersState, moves: Sequence[Term]) -> CheckersState:
        move = decode_move(moves[state.control])
        assert move is not None, "the move of the role with control was checked legal"
        return plain_next(state, move, self.wrap)

    def is_terminal(self, state: CheckersState) -> bool:
        return (
            state.black == 0
            or state.red == 0
            or state.step >= STEP_LIMIT
            or not self._mover_moves(state)
        )

    def goals(self, state: CheckersState) -> dict[str, int]:
        return {"black": GOALS[state.black_captures], "red": GOALS[state.red_captures]}

    def state_from_facts(self, facts: Iterable[Term]) -> CheckersState:
        """The position whose facts are ``facts`` (locations, capture counts, control, step)."""
        given = frozenset(facts)
        boards = [0, 0]
        captures = [0, 0]
        control = step = -1
        try:
            for f in given:
                args = [str(a) for a in f.args] if isinstance(f, Func) else []
                if f.name == "location" and len(args) == 3 and args[2] in PAWN_NAMES:
                    boards[PAWN_NAMES.index(args[2])] |= square_bit(int(args[0]), int(args[1]))
                elif f.name == "captureCount" and len(args) == 2 and args[0] in ROLES:
                    captures[ROLES.index(args[0])] = int(args[1])
                elif f.name == "control" and len(args) == 1 and args[0] in ROLES:
                    control = ROLES.index(args[0])
                elif f.name == "step" and len(args) == 1:
                    step = int(args[0])
        except ValueError:
            raise GameError("a location, count or step in the facts is not a number") from None
        if control < 0 or step < 0:
            raise GameError("the facts need (control R) and (step N)")
        state = CheckersState(boards[0], boards[1], captures[0], captures[1], step, control)
        return self._exactly(state, given)

    def facts(self, state: CheckersState) -> frozenset[Term]:
        out: list[Term] = [
            func("location", x, y, PAWN_NAMES[side])
            for side, board in enumerate((state.black, state.red))
            for x, y in squares(board)
        ]
        out.append(func("captureCount", "black", state.black_captures))
        out.append(func("captureCount", "red", state.red_captures))
        out.append(func("control", ROLES[state.control]))
        out.append(func("step", state.step))
        return frozenset(out)

    def batch_stepper(self, count: int, max_steps: int) -> BatchStepper:
        """Matches stepped together on the native bitboards, in the twin's vocabulary."""
        from ggpkit.games.checkers.batch import CheckersStepper

        return CheckersStepper(self, count, max_steps)

    def to_move(self, state: CheckersState) -> str | None:
        if self.is_terminal(state):
            return None
        return ROLES[state.control]

    def play(self, state: CheckersState, move: MoveLike, role: str | None = None) -> CheckersState:
        """Play ``move`` for the role with control; naming the other role says whose turn it is.

        (The generic version would blame the other role's "choice" instead.)
        """
        if role is not None and not self.is_terminal(state):
            index = self.role_index(role)
            if index != state.control:
                mover = ROLES[state.control]
                term = self.parse_move(move, role)
                reason = (
                    f"it is {mover}'s turn: play a move for {mover} ({role}'s only move is noop)"
                    if term == NOOP
                    else self.why_illegal(state, role, term)
                )
                raise IllegalMoveError(move, role, reason)
        return super().play(state, move, role)

    # ---- explanations ---------------------------------------------------------------

    def why_illegal(self, state: CheckersState, role: str, move: Term) -> str:
        """The precise rule a move breaks, checked in the order a player thinks of them."""
        index = self.role_index(role)
        mover = ROLES[state.control]
        if index != state.control:
            return f"it is {mover}'s turn: {role} may only play noop"
        if move == NOOP:
            return f"it is {role}'s turn: {role} must move or jump (noop is for the other role)"
        plain = decode_move(move)
        if plain is None:
            return (
                f"{move} is not a checkers move: write (move X1 Y1 X2 Y2), "
                "(jump X1 Y1 X2 Y2) or noop"
            )
        kind, x1, y1, x2, y2 = plain
        for x, y in ((x1, y1), (x2, y2)):
            if not (1 <= x <= SIZE and 1 <= y <= SIZE):
                return f"{x} {y} is off the board (x and y run from 1 to {SIZE})"
        own, opp = (state.black, state.red) if index == 0 else (state.red, state.black)
        other = ROLES[1 - index]
        if not own & square_bit(x1, y1):
            return f"no {role} pawn on {x1} {y1}"
        if (state.black | state.red) & square_bit(x2, y2):
            return f"{x2} {y2} is occupied"
        reach = 1 if kind == "move" else 2
        direction = "up" if index == 0 else "down"
        forward_y = _row(y1, reach * FORWARD[index], self.wrap)
        if abs(x2 - x1) != reach or y2 != forward_y:
            wrapping = " (rows wrap from 8 to 1 and from 1 to 8)" if self.wrap else ""
            return (
                f"a {kind} goes {reach} square{'s' * (reach > 1)} diagonally forward: "
                f"{role} pawns go {direction}{wrapping}, so {x1} {y1} cannot {kind} to {x2} {y2}"
            )
        if kind == "jump":
            middle_y = _row(y1, FORWARD[index], self.wrap)
            assert middle_y is not None
            middle_x = (x1 + x2) // 2
            if not opp & square_bit(middle_x, middle_y):
                return (
                    f"a jump must pass over a {other} pawn, and there is none on "
                    f"{middle_x} {middle_y}"
                )
        elif any(m[0] == "jump" for m in self._mover_moves(state)):
            return "a jump is available, so moves are not legal: jumps are compulsory"
        return super().why_illegal(state, role, move)

    # ---- playouts (compiled) --------------------------------------------------------

    def _kernel_args(
        self, state: CheckersState
    ) -> tuple[np.uint64, np.uint64, int, int, int, int, bool]:
        return (
            np.uint64(state.black),
            np.uint64(state.red),
            state.black_captures,
            state.red_captures,
            state.step,
            state.control,
            self.wrap,
        )

    def random_playout(
        self, state: CheckersState, rng: random.Random
    ) -> tuple[dict[str, int], int]:
        """One uniformly random playout in compiled code, seeded from ``rng``."""
        start = np.uint64(kernels.seed_state(np.uint64(rng.getrandbits(64))))
        _, _, bc, rc, _, _, moves, _ = kernels.playout(*self._kernel_args(state), start)
        return {"black": GOALS[bc], "red": GOALS[rc]}, int(moves)

    def playout_stats(self, state: CheckersState, count: int, seed: int) -> PlayoutStats:
        """``count`` random playouts in one compiled call (no return to Python between moves)."""
        moves, black_sum, red_sum = kernels.playouts(
            *self._kernel_args(state), count, np.uint64(seed & 0xFFFFFFFFFFFFFFFF)
        )
        return PlayoutStats(count, int(moves), (int(black_sum), int(red_sum)))

    def perft_compiled(self, state: CheckersState, depth: int) -> int:
        """Number of move sequences of length ``depth`` from ``state`` (compiled)."""
        return int(
            kernels.perft(
                np.uint64(state.black),
                np.uint64(state.red),
                state.step,
                state.control,
                depth,
                self.wrap,
            )
        )

    # ---- display --------------------------------------------------------------------

    def render(self, state: CheckersState) -> str:
        """The board with y = 8 at the top: ``b`` black pawn, ``r`` red pawn, ``.`` empty square."""
        lines = []
        status = "game over" if self.is_terminal(state) else f"{ROLES[state.control]} to move"
        lines.append(
            f"step {state.step}, {status}; captures: black {state.black_captures}, "
            f"red {state.red_captures}"
        )
        for y in range(SIZE, 0, -1):
            cells = []
            for x in range(1, SIZE + 1):
                bit = square_bit(x, y)
                if state.black & bit:
                    cells.append("b")
                elif state.red & bit:
                    cells.append("r")
                else:
                    cells.append("." if is_pawn_square(x, y) else " ")
            lines.append(f"{y} | {' '.join(cells)}".rstrip())
        lines.append("    " + "-" * (2 * SIZE - 1))
        lines.append("    " + " ".join("abcdefgh"[:SIZE]))  # columns as the notation names them
        lines.append("b = black pawn (moves up), r = red pawn (moves down)")
        if self.wrap:
            lines.append("barrel board: row 8 continues on row 1")
        return "\n".join(lines)


class PawnCheckersBarrel(PawnCheckers):
    """Pawn checkers on a board that wraps vertically (public ``checkersBarrelNoKings``)."""

    info = GameInfo(
        Dynamics.TURN_TAKING,
        Utility.GENERAL_SUM,
        goal_range=(0, 100),
        max_length=STEP_LIMIT - 1,
        capabilities=Capabilities(
            compiled_playouts=True,
            compiled_perft=True,
            evaluation=extras.evaluation_barrel,
            end_reason=extras.end_reason,
            notation=extras.NOTATION,
            board=extras.BOARD,
            search=extras.search_barrel,
            tree_search=NativeTrees("pawn-checkers-barrel", ROLES, tree.BARREL),
        ),
    )

    name = "pawn-checkers-barrel"
    description = "Pawn checkers on a board that wraps vertically."
    wrap = True
