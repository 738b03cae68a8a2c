"""A generic exact solver for small games of any kind, through the game API only.

It walks the whole graph of states reachable from a position (depth first, with
a memo of every solved state, so each state is expanded once: a retrograde
analysis of the reachable graph) and gives each state a vector of goals, one per
role, by this rule:

* terminal state: its goals;
* a state where one role has a choice (the others have one move each, usually
  ``noop``): the value of the child that is best for that role; among children
  equally good for it, the one with the lowest total for the other roles (the
  "paranoid" tie-break: a rival is assumed to hurt the others when it costs him
  nothing);
* a state where no role has a choice: the value of its only child.

For one role this maximises its goal. For two roles taking turns it is minimax
on each mover's own goal: in a zero-sum game (goals summing to a constant) that is
exactly minimax, and the values are the game's value; in a general-sum game it is
the subgame-perfect outcome under the tie-break above (other tie-breaks can give
other values, and the module says so rather than hiding it). With more roles it
is the max-n rule with the same tie-break.

Simultaneous moves (two roles with a choice in one state) are refused with
:class:`~ggpkit.search.contract.SimultaneousMovesError` (the search layer's error for
a state with more than one mover, so not a :class:`SolverError`: callers that stop
on a solver's refusal catch both): their value needs mixed strategies. A game graph
with a cycle is refused too (no finite value by this rule), and the search stops
with :class:`NodeLimitError` after ``node_limit`` states.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from ggpkit.agents.base import AgentError
from ggpkit.games.api import Game
from ggpkit.games.capabilities import Solution
from ggpkit.gdl.terms import Term
from ggpkit.search.contract import SimultaneousMovesError

Goals = tuple[int, ...]


class SolverError(AgentError):
    """A solver cannot answer for this game or position; the message says why."""


class NodeLimitError(SolverError):
    """The search expanded more states than its limit allows."""

    def __init__(self, game: str, limit: int) -> None:
        super().__init__(
            f"game {game!r} is too big for the generic solver: more than {limit} states "
            "(raise the node limit, or use a dedicated solver)"
        )
        self.limit = limit


class CycleError(SolverError):
    """The state graph has a cycle, so the game has no finite value by backward induction."""


def _simultaneous(game: str, roles: list[str]) -> SimultaneousMovesError:
    """The error for a state where ``roles`` of ``game`` have a real choice at once."""
    return SimultaneousMovesError(
        f"game {game!r} has simultaneous moves ({' and '.join(roles)} both choose in "
        "one state): the generic solver only solves turn-taking games",
        game,
        roles,
    )


@dataclass(slots=True)
class _Frame:
    """One state on the search path: its children, the next to look at, the best so far."""

    state: Hashable
    mover: int
    children: list[Hashable]
    next: int = 0
    best: Goals | None = None


class GenericSolver:
    """Solves a small game exactly; keeps the memo of solved states between queries."""

    def __init__(self, game: Game[Any], node_limit: int = 2_000_000) -> None:
        self.game = game
        self.node_limit = node_limit
        self.nodes = 0
        """States expanded so far (each state at most once)."""
        self._memo: dict[Hashable, Goals] = {}

    # ---- public ---------------------------------------------------------------------

    def value(self, state: Hashable) -> dict[str, int]:
        """The goal of every role under perfect play from ``state`` (see the module doc)."""
        return dict(zip(self.game.roles, self._solve(state), strict=True))

    def solve(self, game: Game[Any], state: Hashable, role: str) -> Solution:
        """The ``Solver`` protocol: the exact goals and a best move of ``role``."""
        goals = self.value(state)
        move = None if game.is_terminal(state) else self.best_moves(state, role)[0]
        return Solution(goals, move, notes=(f"generic solver: {self.nodes} states expanded",))

    def move_values(self, state: Hashable, role: str) -> dict[Term, dict[str, int]]:
        """For each legal move of ``role``, the goals under perfect play after it.

        ``role`` must be the role with the choice (or any role when none has one); the
        other roles play their only move.
        """
        game = self.game
        index = game.role_index(role)
        legal = game.all_legal_moves(state)
        out: dict[Term, dict[str, int]] = {}
        for move in legal[index]:
            joint = [move if i == index else self._only(ms, i) for i, ms in enumerate(legal)]
            child = game.next_state(state, joint)
            out[move] = self.value(child)
        return out

    def best_moves(self, state: Hashable, role: str) -> list[Term]:
        """The legal moves of ``role`` that keep its value, by the module's rule."""
        values = self.move_values(state, role)
        index = self.game.role_index(role)
        keys = {m: self._key(tuple(v.values()), index) for m, v in values.items()}
        top = max(keys.values())
        return [m for m, k in keys.items() if k == top]

    # ---- the search -----------------------------------------------------------------

    def _only(self, moves: list[Term], index: int) -> Term:
        if len(moves) != 1:
            raise _simultaneous(self.game.name, [self.game.roles[index]])
        return moves[0]

    def _key(self, goals: Goals, mover: int) -> tuple[int, int]:
        """Order of preference of the mover: own goal first, then the others' total, lowest."""
        return goals[mover], -(sum(goals) - goals[mover])

    def _open(self, state: Hashable) -> _Frame | None:
        """A frame for a state to expand, or None when it is terminal (then memoised)."""
        game = self.game
        if game.is_terminal(state):
            goals = game.goals(state)
            self._memo[state] = tuple(goals[r] for r in game.roles)
            return None
        self.nodes += 1
        if self.nodes > self.node_limit:
            raise NodeLimitError(game.name, self.node_limit)
        legal = game.all_legal_moves(state)
        choosers = [i for i, ms in enumerate(legal) if len(ms) > 1]
        if len(choosers) > 1:
            raise _simultaneous(game.name, [game.roles[i] for i in choosers])
        mover = choosers[0] if choosers else 0
        children: list[Hashable] = []
        for move in legal[mover]:
            joint = [move if i == mover else ms[0] for i, ms in enumerate(legal)]
            children.append(game.next_state(state, joint))
        return _Frame(state, mover, children)

    def _solve(self, root: Hashable) -> Goals:
        if root in self._memo:
            return self._memo[root]
        first = self._open(root)
        if first is None:
            return self._memo[root]
        stack = [first]
        on_path = {root}
        while stack:
            frame = stack[-1]
            if frame.next < len(frame.children):
                child = frame.children[frame.next]
                frame.next += 1
                known = self._memo.get(child)
                if known is None:
                    if child in on_path:
                        raise CycleError(
                            f"game {self.game.name!r} can return to a state it has left: "
                            "the generic solver needs a game whose state graph has no cycle"
                        )
                    opened = self._open(child)
                    if opened is not None:
                        stack.append(opened)
                        on_path.add(child)
                        continue
                    known = self._memo[child]
                if frame.best is None or self._key(known, frame.mover) > self._key(
                    frame.best, frame.mover
                ):
                    frame.best = known
                continue
            assert frame.best is not None  # a non-terminal state has a child
            self._memo[frame.state] = frame.best
            on_path.discard(frame.state)
            stack.pop()
            if stack:
                parent = stack[-1]
                if parent.best is None or self._key(frame.best, parent.mover) > self._key(
                    parent.best, parent.mover
                ):
                    parent.best = frame.best
        return self._memo[root]
