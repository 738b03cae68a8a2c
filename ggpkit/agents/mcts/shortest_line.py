"""A breadth-first search for a one-role game's shortest line, over the game contract.

Why: a game on a propnet has its one-role searches compiled (``search/puzzles/``),
but a game whose rules do not ground runs on the join code, where the agent's tree is
Python and sees a few hundred playouts a move: a maze with a pursuer (mummymaze1p)
scores 50 by surviving while its exit is 43 moves away. Its positions are few once the
step counter is left out; a breadth-first walk over them meets the shortest line to
the top goal after the positions no farther away, whatever the tree would sample.

The step counter is found by random matches as the propnet's search finds it: a
functor of which exactly one fact holds in every state, changing at every step and
never coming back in a match. Positions are told apart by their other facts, and each
is kept once, at its first (shallowest) arrival; lines are replayed from the real
states, so their goals are real. The search is resumable while its root stays the
same; elsewhere it starts again (the agent keeps a line to the top once found and
plays it: see :mod:`~ggpkit.agents.mcts.best_line`).
"""

from __future__ import annotations

import random
import time
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from ggpkit.games.api import Game
from ggpkit.gdl.terms import Term, functor

TOP = 100
"""The top goal GDL allows (a line reaching it ends the search)."""
MOST_POSITIONS = 50_000
"""Positions the table keeps before the search gives up for the match: each keeps its
state and its facts as Python sets (kilobytes each in a big game), and the join code
expands a few hundred positions a second, so more would not be reached in a match."""
COUNTER_MATCHES = 20
"""Random matches that look for a step counter."""
COUNTER_STEPS = 2_000
"""Most states of those matches in all."""
MIN_STEPS = 10
"""Steps a counter must be seen taking."""
CPU_SECONDS = 0.5
"""Safety limit on those matches' CPU time (slow rules: fewer matches)."""


@dataclass
class _Table:
    """The walk from one root: per position, the position it was first reached from and
    the move, and the positions still to expand in order."""

    root: Hashable
    parents: dict[frozenset[Term], tuple[frozenset[Term] | None, Term | None]]
    states: dict[frozenset[Term], Hashable]
    todo: deque[frozenset[Term]] = field(default_factory=deque)
    best: tuple[int, frozenset[Term] | None] = (-1, None)
    done: bool = False


class BreadthFirstLine:
    """The search over one game for role 0 (one match; one thread)."""

    def __init__(
        self, game: Game[Any], rng: random.Random, counter_seconds: float = CPU_SECONDS
    ) -> None:
        self.game = game
        self._counters = step_counters(game, rng, counter_seconds)
        self._table: _Table | None = None
        self._full = False

    def search(self, state: Hashable, deadline: float) -> tuple[float, tuple[Term, ...]]:
        """The best line from ``state`` the walk has found by ``deadline``: its goal
        (0..1; -1: none yet) and moves; a line to the top once found."""
        table = self._table
        if table is None or table.root != state:
            if self._full:  # too big from one state: given up for the match
                return -1.0, ()
            table = self._table = self._start(state)
        while table.todo and not table.done and time.perf_counter() < deadline:
            self._expand(table, table.todo.popleft())
        return self._line(table)

    def _start(self, state: Hashable) -> _Table:
        key = self._key(state)
        return _Table(state, {key: (None, None)}, {key: state}, deque([key]))

    def _expand(self, table: _Table, key: frozenset[Term]) -> None:
        game, state = self.game, table.states[key]
        if game.is_terminal(state):
            goal = game.goals(state)[game.roles[0]]
            if goal > table.best[0]:
                table.best = (goal, key)
            table.done = goal >= TOP
            return
        for move in game.legal_moves(state, game.roles[0]):
            after = game._next(state, [move])
            child = self._key(after)
            if child not in table.parents:
                table.parents[child] = (key, move)
                table.states[child] = after
                table.todo.append(child)
        if len(table.parents) > MOST_POSITIONS:
            table.todo.clear()
            self._full = True

    def _line(self, table: _Table) -> tuple[float, tuple[Term, ...]]:
        goal, key = table.best
        moves: list[Term] = []
        while key is not None:
            key, move = table.parents[key]
            if move is not None:
                moves.append(move)
        return (goal / 100 if goal >= 0 else -1.0), tuple(reversed(moves))

    def _key(self, state: Hashable) -> frozenset[Term]:
        """The position: the state's facts but the step counters'."""
        return frozenset(f for f in self.game.facts(state) if functor(f) not in self._counters)


def step_counters(
    game: Game[Any], rng: random.Random, seconds: float = CPU_SECONDS
) -> frozenset[str]:
    """The functors random matches show to be step counters (see the module docstring),
    within ``seconds`` of CPU time."""
    role = game.roles[0]
    seen: dict[str, set[Term]] = {}
    broken: set[str] = set()
    steps: dict[str, int] = {}
    start = game.initial_state()
    if not game.is_terminal(start):  # the first step loads the rules' code: not timed
        game.facts(game._next(start, [game.legal_moves(start, role)[0]]))
    states, cpu_limit = 0, time.process_time() + seconds
    for _ in range(COUNTER_MATCHES):
        state = game.initial_state()
        seen.clear()
        while not game.is_terminal(state) and states < COUNTER_STEPS:
            if time.process_time() > cpu_limit:
                break
            before = _single_facts(game.facts(state))
            state = game._next(state, [rng.choice(game.legal_moves(state, role))])
            states += 1
            after = _single_facts(game.facts(state))
            for name in set(before) | set(after):
                was, fact = before.get(name), after.get(name)
                if was is None or fact is None or fact == was or fact in seen.get(name, ()):
                    broken.add(name)  # (a counter holds once in every state, and moves on)
                    continue
                seen.setdefault(name, {was}).add(fact)
                steps[name] = steps.get(name, 0) + 1
    return frozenset(n for n, k in steps.items() if k >= MIN_STEPS and n not in broken)


def _single_facts(facts: frozenset[Term]) -> dict[str, Term]:
    """Per functor with exactly one fact in ``facts``, that fact (others left out, so a
    functor with two facts in a state reads as missing there)."""
    by: dict[str, list[Term]] = {}
    for fact in facts:
        by.setdefault(functor(fact), []).append(fact)
    return {name: group[0] for name, group in by.items() if len(group) == 1}
