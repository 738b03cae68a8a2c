"""Tiny games on the game API, for testing agents before (and besides) the native games.

Each is small enough to solve by hand or by brute force in a test:

* :class:`Nim`: n players in turn take 1..3 tokens; whoever takes the last token gets 100.
* :class:`TicTacToe`: the usual game, roles ``x`` and ``o``; win 100, draw 50, loss 0.
* :class:`Combination`: one role picks ``depth`` bits; the score counts the bits that match
  a hidden combination, 100 only for the whole combination (a single-player search test).
* :class:`GiveUp`: :class:`Combination` with a ``giveup`` move, legal throughout, that
  ends the game at 5; any other end is worth 100 for the combination, else 0.
* :class:`Traps`: nine first moves end the game at 0; ``go`` goes on to a
  :class:`Combination` of four bits.
* :class:`Pennies`: matching pennies played ``rounds`` times at once (a simultaneous game).
* :class:`Dilemma`: a one-shot prisoner's dilemma (simultaneous and general-sum).
* :class:`Race`: two roles add 1 or 2 in turn to reach 4 first; no short notation, so the
  human agent and ``ggpkit play`` see only what the generic game API offers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from ggpkit.games.api import Dynamics, Game, GameInfo, Utility
from ggpkit.gdl.terms import Const, Func, Term, const, func

NOOP = const("noop")


class Nim(Game[tuple[int, int]]):
    """State: (tokens left, index of the role to move)."""

    def __init__(self, tokens: int = 10, players: int = 2) -> None:
        self.name = f"nim{tokens}x{players}"
        self.description = "Take 1..3 tokens; the last taker wins."
        self.roles = tuple(f"p{i + 1}" for i in range(players))
        self.info = GameInfo(Dynamics.TURN_TAKING, Utility.ZERO_SUM)
        self.tokens = tokens

    def initial_state(self) -> tuple[int, int]:
        return (self.tokens, 0)

    def _legal(self, state: tuple[int, int], role_index: int) -> list[Term]:
        left, mover = state
        if role_index != mover:
            return [NOOP]
        return [func("take", k) for k in range(1, min(3, left) + 1)]

    def _next(self, state: tuple[int, int], moves: Sequence[Term]) -> tuple[int, int]:
        left, mover = state
        move = moves[mover]
        assert isinstance(move, Func)
        return (left - int(move.args[0].name), (mover + 1) % len(self.roles))

    def is_terminal(self, state: tuple[int, int]) -> bool:
        return state[0] == 0

    def goals(self, state: tuple[int, int]) -> dict[str, int]:
        left, mover = state
        winner = (mover - 1) % len(self.roles) if left == 0 else -1
        return {r: 100 if i == winner else 0 for i, r in enumerate(self.roles)}

    def facts(self, state: tuple[int, int]) -> frozenset[Term]:
        return frozenset({func("tokens", state[0]), func("control", self.roles[state[1]])})


TTTState = tuple[tuple[str, ...], int]
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


class TicTacToe(Game[TTTState]):
    """State: (9 cells of "x", "o" or "b" row by row, index of the role to move)."""

    def __init__(self, start: str = "bbbbbbbbb", mover: int = 0) -> None:
        self.name = "toy-tictactoe"
        self.description = "Tic-tac-toe."
        self.roles = ("x", "o")
        self.info = GameInfo(Dynamics.TURN_TAKING, Utility.ZERO_SUM)
        self.start = (tuple(start), mover)

    def initial_state(self) -> TTTState:
        return self.start

    def _legal(self, state: TTTState, role_index: int) -> list[Term]:
        if role_index != state[1]:
            return [NOOP]
        return [func("mark", i % 3 + 1, i // 3 + 1) for i, c in enumerate(state[0]) if c == "b"]

    def _next(self, state: TTTState, moves: Sequence[Term]) -> TTTState:
        cells, mover = state
        move = moves[mover]
        assert isinstance(move, Func)
        i = int(move.args[0].name) - 1 + 3 * (int(move.args[1].name) - 1)
        board = list(cells)
        board[i] = self.roles[mover]
        return (tuple(board), 1 - mover)

    def winner(self, state: TTTState) -> str | None:
        """The mark of the role with three in a row, if any."""
        cells = state[0]
        for a, b, c in LINES:
            if cells[a] != "b" and cells[a] == cells[b] == cells[c]:
                return cells[a]
        return None

    def is_terminal(self, state: TTTState) -> bool:
        return self.winner(state) is not None or "b" not in state[0]

    def goals(self, state: TTTState) -> dict[str, int]:
        w = self.winner(state)
        if w is None:
            return {"x": 50, "o": 50}
        return {r: 100 if r == w else 0 for r in self.roles}

    def facts(self, state: TTTState) -> frozenset[Term]:
        cells = {func("cell", i % 3 + 1, i // 3 + 1, c) for i, c in enumerate(state[0])}
        return frozenset(cells | {func("control", self.roles[state[1]])})


class Combination(Game[tuple[int, ...]]):
    """State: the bits chosen so far. Goal: 10 per matching bit, 100 for the full combination."""

    def __init__(self, secret: str = "1011010110") -> None:
        self.name = "toy-combination"
        self.description = "Guess a combination bit by bit."
        self.roles = ("solver",)
        self.info = GameInfo(Dynamics.TURN_TAKING, Utility.GENERAL_SUM)
        self.secret = tuple(int(c) for c in secret)

    def initial_state(self) -> tuple[int, ...]:
        return ()

    def _legal(self, state: tuple[int, ...], role_index: int) -> list[Term]:
        return [func("bit", 0), func("bit", 1)]

    def _next(self, state: tuple[int, ...], moves: Sequence[Term]) -> tuple[int, ...]:
        move = moves[0]
        assert isinstance(move, Func)
        return (*state, int(move.args[0].name))

    def is_terminal(self, state: tuple[int, ...]) -> bool:
        return len(state) == len(self.secret)

    def goals(self, state: tuple[int, ...]) -> dict[str, int]:
        if state == self.secret:
            return {"solver": 100}
        matches = sum(1 for a, b in zip(state, self.secret, strict=False) if a == b)
        return {"solver": min(90, 90 * matches // len(self.secret))}

    def facts(self, state: tuple[int, ...]) -> frozenset[Term]:
        return frozenset(func("bit", i, b) for i, b in enumerate(state))


class GiveUp(Combination):
    """State: the bits chosen so far, then -1 once given up."""

    def __init__(self, secret: str = "10110101") -> None:
        super().__init__(secret)
        self.name = "toy-giveup"
        self.description = "Guess a combination bit by bit, or give up for 5."

    def _legal(self, state: tuple[int, ...], role_index: int) -> list[Term]:
        return [*super()._legal(state, role_index), const("giveup")]

    def _next(self, state: tuple[int, ...], moves: Sequence[Term]) -> tuple[int, ...]:
        move = moves[0]
        return (*state, int(move.args[0].name) if isinstance(move, Func) else -1)

    def is_terminal(self, state: tuple[int, ...]) -> bool:
        return super().is_terminal(state) or -1 in state

    def goals(self, state: tuple[int, ...]) -> dict[str, int]:
        return {"solver": 5 if -1 in state else 100 if state == self.secret else 0}


class Traps(Combination):
    """State: -1 after a trap; else 2 after ``go``, then the bits chosen."""

    def __init__(self, secret: str = "1011") -> None:
        super().__init__(secret)
        self.name = "toy-traps"
        self.description = "Nine traps and one way on, to a combination."

    def _legal(self, state: tuple[int, ...], role_index: int) -> list[Term]:
        if state:
            return super()._legal(state, role_index)
        return [*(func("trap", i) for i in range(9)), const("go")]

    def _next(self, state: tuple[int, ...], moves: Sequence[Term]) -> tuple[int, ...]:
        move = moves[0]
        if state:
            return super()._next(state, moves)
        return (2,) if move == const("go") else (-1,)

    def is_terminal(self, state: tuple[int, ...]) -> bool:
        return state == (-1,) or len(state) == len(self.secret) + 1

    def goals(self, state: tuple[int, ...]) -> dict[str, int]:
        return {"solver": 100 if state[1:] == self.secret else 0}


class Pennies(Game[tuple[int, int]]):
    """State: (rounds played, score of ``even``); ``even`` scores when the coins match."""

    def __init__(self, rounds: int = 3) -> None:
        self.name = "toy-pennies"
        self.description = "Matching pennies, simultaneous."
        self.roles = ("even", "odd")
        self.info = GameInfo(Dynamics.SIMULTANEOUS, Utility.ZERO_SUM)
        self.rounds = rounds

    def initial_state(self) -> tuple[int, int]:
        return (0, 0)

    def _legal(self, state: tuple[int, int], role_index: int) -> list[Term]:
        return [const("heads"), const("tails")]

    def _next(self, state: tuple[int, int], moves: Sequence[Term]) -> tuple[int, int]:
        return (state[0] + 1, state[1] + (1 if moves[0] == moves[1] else 0))

    def is_terminal(self, state: tuple[int, int]) -> bool:
        return state[0] == self.rounds

    def goals(self, state: tuple[int, int]) -> dict[str, int]:
        even = 100 * state[1] // self.rounds
        return {"even": even, "odd": 100 - even}

    def facts(self, state: tuple[int, int]) -> frozenset[Term]:
        return frozenset({func("round", state[0]), func("score", state[1])})


class Dilemma(Game[tuple[str, ...]]):
    """State: the moves made (empty at the start). Defecting dominates; both defect: 10 each."""

    PAYOFF: ClassVar[dict[tuple[str, str], tuple[int, int]]] = {
        ("cooperate", "cooperate"): (60, 60),
        ("cooperate", "defect"): (0, 100),
        ("defect", "cooperate"): (100, 0),
        ("defect", "defect"): (10, 10),
    }

    def __init__(self) -> None:
        self.name = "toy-dilemma"
        self.description = "Prisoner's dilemma."
        self.roles = ("row", "column")
        self.info = GameInfo(Dynamics.SIMULTANEOUS, Utility.GENERAL_SUM)

    def initial_state(self) -> tuple[str, ...]:
        return ()

    def _legal(self, state: tuple[str, ...], role_index: int) -> list[Term]:
        return [const("cooperate"), const("defect")]

    def _next(self, state: tuple[str, ...], moves: Sequence[Term]) -> tuple[str, ...]:
        return tuple(m.name for m in moves)

    def is_terminal(self, state: tuple[str, ...]) -> bool:
        return len(state) == 2

    def goals(self, state: tuple[str, ...]) -> dict[str, int]:
        if len(state) != 2:
            return {"row": 0, "column": 0}
        a, b = self.PAYOFF[(state[0], state[1])]
        return {"row": a, "column": b}

    def facts(self, state: tuple[str, ...]) -> frozenset[Term]:
        return frozenset(func("did", r, m) for r, m in zip(self.roles, state, strict=False))


__all__ = ["NOOP", "Combination", "Const", "Dilemma", "Nim", "Pennies", "TicTacToe"]


class Race(Game[tuple[int, int]]):
    """Two roles add 1 or 2 in turn; whoever reaches 4 first wins (no short notation)."""

    name = "race"
    description = "add 1 or 2; reach 4 first"
    roles = ("first", "second")
    info = GameInfo(Dynamics.TURN_TAKING, Utility.ZERO_SUM)

    def initial_state(self) -> tuple[int, int]:
        return (0, 0)

    def _legal(self, state: tuple[int, int], role_index: int) -> list[Term]:
        if role_index != state[1]:
            return [NOOP]
        return [func("add", 1), func("add", 2)]

    def _next(self, state: tuple[int, int], moves: Sequence[Term]) -> tuple[int, int]:
        move = moves[state[1]]
        assert isinstance(move, Func)
        return (state[0] + int(str(move.args[0])), 1 - state[1])

    def is_terminal(self, state: tuple[int, int]) -> bool:
        return state[0] >= 4

    def goals(self, state: tuple[int, int]) -> dict[str, int]:
        if state[0] < 4:
            return {"first": 50, "second": 50}
        winner = 1 - state[1]
        return {r: 100 if i == winner else 0 for i, r in enumerate(self.roles)}

    def facts(self, state: tuple[int, int]) -> frozenset[Term]:
        return frozenset({func("total", state[0]), func("control", self.roles[state[1]])})
