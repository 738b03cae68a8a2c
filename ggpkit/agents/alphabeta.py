"""Iterative-deepening alpha-beta for two-role turn-taking games, through the game API.

The search is negamax on the mover's *goal difference* (its goal minus the
opponent's). That is exact for zero-sum games and, for general-sum games such as
pawn checkers (each side scored by its own captures, the higher score winning),
it is the objective that decides the winner; maximising one's own goal alone
would ignore the captures one concedes. Static values come from
:mod:`ggpkit.games.evaluation` in the same units. Terminal values are shaded by
the ply so that faster wins and slower losses are preferred.

Iterative deepening runs depth 1, 2, ... until the time or depth limit; the move
returned is the best one of the last completed depth (a legal move always, even
when the first depth does not finish). A transposition table keyed by state keeps
bounds and best moves across depths and across the moves of a match; moves are
ordered TT move first, then by the evaluation's priority (captures, jumps), then by
a history score. Pending captures (the evaluation's ``noisy``) are searched past the
horizon (quiescence), with standing pat unless captures are compulsory.

A game that declares its own compiled search (``capabilities.search``, native pawn
checkers' bitboard search) is searched by it instead, far faster than going through
terms; its evaluation comes from ``capabilities.evaluation`` when the
game declares one, else the generic one.
"""

from __future__ import annotations

import math
import time
from collections.abc import Hashable
from typing import Any

from ggpkit.agents.base import Agent, AgentError, Limit
from ggpkit.games.api import Game, GameError
from ggpkit.games.capabilities import Evaluation, Searcher
from ggpkit.games.evaluation import GenericEvaluation
from ggpkit.gdl.terms import Term

DEFAULT_LIMIT = Limit(time=1.0)
"""Used when neither the spec nor the caller limits the search."""

_PROVEN = 100.0
"""Only terminal values reach this (heuristics stay inside +-95): a proven win or loss."""

_EXACT, _LOWER, _UPPER = 0, 1, 2
_MAX_QUIESCENCE = 8
_TT_MAX = 2_000_000


class AlphaBetaError(AgentError):
    """The game is not one alpha-beta can play (it needs two roles taking turns)."""


class _OutOfTime(Exception):
    """The clock ran out; the current depth is abandoned."""


class AlphaBetaAgent(Agent):
    """Negamax alpha-beta with iterative deepening, a transposition table and move ordering."""

    name = "alphabeta"

    def __init__(
        self,
        limit: Limit | None = None,
        seed: int | None = None,
        *,
        compiled: bool = True,
        evaluation: Evaluation | None = None,
    ) -> None:
        """``compiled=False`` and ``evaluation`` force the generic search (tests compare them)."""
        self.limit = limit or Limit()
        self.seed = seed
        self.compiled = compiled
        self.evaluation = evaluation
        self._game: Game[Any] | None = None
        self._eval: Evaluation = GenericEvaluation()
        self._tt: dict[Hashable, tuple[int, float, int, Term | None]] = {}
        self._history: dict[Term, int] = {}
        self._deadline = math.inf
        self._nodes = 0
        self._searcher: Searcher | None = None
        self.last_depth = 0
        """Deepest completed depth of the last :meth:`select` (for tests and benchmarks)."""
        self.last_value = 0.0
        """Value of the last :meth:`select`'s move for the agent, in goal points."""

    def start(self, game: Game[Any], role: str) -> None:
        """Fresh tables for a new match; one evaluation warms up any compiled kernel it uses."""
        self._setup(game)
        self._eval.value(game, game.initial_state(), 0)

    def stop(self) -> None:
        """Drop the tables."""
        self._game = None
        self._tt = {}
        self._history = {}
        self._searcher = None

    def _setup(self, game: Game[Any]) -> None:
        if len(game.roles) != 2 or not game.info.turn_taking:
            raise AlphaBetaError(
                f"alphabeta plays two-player turn-taking games; {game.name} has "
                f"{len(game.roles)} role(s){'' if game.info.turn_taking else ' moving at once'}"
            )
        self.stop()
        self._game = game
        declared = game.info.capabilities
        self._eval = self.evaluation or (
            declared.evaluation() if declared.evaluation is not None else GenericEvaluation()
        )
        if self.compiled and self.evaluation is None and declared.search is not None:
            self._searcher = declared.search()
            # one shallow search loads (or compiles) the kernels before the clock runs
            state = game.initial_state()
            self._searcher.search(game, state, _mover(game, state), None, 2)

    # ---- the search ----------------------------------------------------------------

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        """The best move of the last completed depth, within the stricter of the limits."""
        started = time.perf_counter()
        limit = self.limit.stricter(limit)
        if limit.time is None and limit.depth is None:
            limit = limit.stricter(DEFAULT_LIMIT)
        if game is not self._game:
            self._setup(game)
        if len(self._tt) > _TT_MAX:
            self._tt = {}
        me = game.role_index(role)
        legal = game.legal_moves(state, role)
        if not legal:
            raise GameError(f"no legal move for {role}: the state is terminal")
        self._deadline = math.inf if limit.time is None else started + limit.time - 0.01
        best = legal[0]
        self.last_depth = 0
        if len(legal) == 1:
            return best
        if self._searcher is not None:
            return self._select_compiled(game, state, role, limit, started)
        max_depth = limit.depth if limit.depth is not None else 200
        for depth in range(1, max_depth + 1):
            try:
                value, move = self._root(game, state, me, depth)
            except _OutOfTime:
                break
            if move is not None:
                best = move
            self.last_depth = depth
            self.last_value = value
            if abs(value) >= _PROVEN:  # a proven win or loss: deeper search changes nothing
                break
        return best

    def _select_compiled(
        self, game: Game[Any], state: Hashable, role: str, limit: Limit, started: float
    ) -> Term:
        """The move of the game's own compiled search (declared in its capabilities)."""
        assert self._searcher is not None
        seconds = None
        if limit.time is not None:
            seconds = max(0.0, limit.time - (time.perf_counter() - started))
        result = self._searcher.search(game, state, role, seconds, limit.depth)
        self.last_depth = result.depth
        self.last_value = result.value
        return result.move

    def _root(self, game: Game[Any], state: Hashable, me: int, depth: int) -> tuple[float, Term]:
        moves = self._ordered(game, state, me, self._legal(game, state, me))
        alpha, beta = -math.inf, math.inf
        best_move = moves[0]
        for move in moves:
            child = self._child(game, state, me, move)
            value = self._child_value(game, child, me, depth - 1, alpha, beta, 1)
            if value > alpha:
                alpha, best_move = value, move
        self._tt[state] = (depth, alpha, _EXACT, best_move)
        return alpha, best_move

    def _legal(self, game: Game[Any], state: Hashable, mover: int) -> list[Term]:
        return game._legal(state, mover)

    def _child(self, game: Game[Any], state: Hashable, mover: int, move: Term) -> Hashable:
        joint = [move, move]
        joint[1 - mover] = game._legal(state, 1 - mover)[0]
        child: Hashable = game._next(state, joint)
        return child

    def _mover(self, game: Game[Any], state: Hashable, expected: int) -> int:
        """The role to move; usually the expected one (control alternates), checked cheaply."""
        mover = game.to_move(state)
        if mover is None:
            raise AlphaBetaError(f"{game.name}: no single role is to move in a state")
        return game.role_index(mover)

    def _terminal_value(self, game: Game[Any], state: Hashable, role: int, ply: int) -> float:
        """Goal difference, a little more for the winner the sooner it comes."""
        goals = game.goals(state)
        diff = goals[game.roles[role]] - goals[game.roles[1 - role]]
        shade = 0.5 - min(ply, 400) / 1000.0
        return diff + shade if diff > 0 else diff - shade if diff < 0 else 0.0

    def _child_value(
        self,
        game: Game[Any],
        child: Hashable,
        parent_mover: int,
        depth: int,
        alpha: float,
        beta: float,
        ply: int,
    ) -> float:
        """The value of ``child`` for the role that moved into it (negated if the turn passed)."""
        if game.is_terminal(child):
            return self._terminal_value(game, child, parent_mover, ply)
        nxt = self._mover_fast(game, child, 1 - parent_mover)
        if nxt == parent_mover:
            return self._negamax(game, child, nxt, depth, alpha, beta, ply)
        return -self._negamax(game, child, nxt, depth, -beta, -alpha, ply)

    def _tick(self) -> None:
        self._nodes += 1
        if self._nodes & 15 == 0 and time.perf_counter() >= self._deadline:
            raise _OutOfTime

    def _negamax(
        self,
        game: Game[Any],
        state: Hashable,
        mover: int,
        depth: int,
        alpha: float,
        beta: float,
        ply: int,
    ) -> float:
        """The value of the non-terminal ``state`` for ``mover``, the role to move there."""
        self._tick()
        moves = self._legal(game, state, mover)
        if depth <= 0:
            return self._quiescence(game, state, mover, moves, alpha, beta, ply, 0)
        alpha0 = alpha
        entry = self._tt.get(state)
        tt_move: Term | None = None
        if entry is not None:
            e_depth, e_value, e_flag, tt_move = entry
            if e_depth >= depth:
                if e_flag == _EXACT:
                    return e_value
                if e_flag == _LOWER and e_value >= beta:
                    return e_value
                if e_flag == _UPPER and e_value <= alpha:
                    return e_value
        best_value = -math.inf
        best_move: Term | None = None
        for move in self._ordered(game, state, mover, moves, tt_move):
            child = self._child(game, state, mover, move)
            value = self._child_value(game, child, mover, depth - 1, alpha, beta, ply + 1)
            if value > best_value:
                best_value, best_move = value, move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        self._history[move] = self._history.get(move, 0) + depth * depth
                        break
        flag = _UPPER if best_value <= alpha0 else _LOWER if best_value >= beta else _EXACT
        self._tt[state] = (depth, best_value, flag, best_move)
        return best_value

    def _mover_fast(self, game: Game[Any], state: Hashable, expected: int) -> int:
        """The role to move: ``expected`` when its moves are real, else ask the game."""
        other = game._legal(state, 1 - expected)
        if len(other) == 1 and other[0].name == "noop":
            return expected
        return self._mover(game, state, expected)

    def _quiescence(
        self,
        game: Game[Any],
        state: Hashable,
        mover: int,
        moves: list[Term],
        alpha: float,
        beta: float,
        ply: int,
        qdepth: int,
    ) -> float:
        """Resolve pending captures before trusting the static value."""
        ev = self._eval
        noisy = qdepth < _MAX_QUIESCENCE and ev.noisy(game, state, moves, mover)
        stand = ev.value(game, state, mover)
        if not noisy:
            return stand
        if ev.forced_tactics:
            best = -math.inf
            tactical = moves
        else:
            if stand >= beta:
                return stand
            alpha = max(alpha, stand)
            best = stand
            tactical = [m for m in moves if ev.priority(game, state, m, mover) >= 10]
        for move in sorted(tactical, key=lambda m: -ev.priority(game, state, m, mover)):
            self._tick()
            child = self._child(game, state, mover, move)
            if game.is_terminal(child):
                value = -self._terminal_value(game, child, 1 - mover, ply + 1)
            else:
                nxt = self._mover_fast(game, child, 1 - mover)
                child_moves = self._legal(game, child, nxt)
                if nxt == mover:
                    value = self._quiescence(
                        game, child, nxt, child_moves, alpha, beta, ply + 1, qdepth + 1
                    )
                else:
                    value = -self._quiescence(
                        game, child, nxt, child_moves, -beta, -alpha, ply + 1, qdepth + 1
                    )
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        return best

    def _ordered(
        self,
        game: Game[Any],
        state: Hashable,
        mover: int,
        moves: list[Term],
        tt_move: Term | None = None,
    ) -> list[Term]:
        """TT move first, then by the evaluation's priority, then by history."""
        if tt_move is None:
            entry = self._tt.get(state)
            tt_move = entry[3] if entry is not None else None
        ev = self._eval
        history = self._history

        def key(move: Term) -> tuple[int, int, int]:
            return (
                0 if move == tt_move else 1,
                -ev.priority(game, state, move, mover),
                -history.get(move, 0),
            )

        return sorted(moves, key=key)


def _mover(game: Game[Any], state: Hashable) -> str:
    """The role with a choice in ``state`` (the first role when none has one)."""
    for role in game.roles:
        if len(game.legal_moves(state, role)) > 1:
            return role
    return game.roles[0]
