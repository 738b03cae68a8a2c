"""A game seen through a one-to-one renaming of its symbols and an order of its roles.

When rules sent by a game manager turn out to be a registered native game under
other names (see :mod:`ggpkit.games.recognition.recognise`), the native engine plays in the
manager's names and in the manager's order of roles through :class:`RenamedGame`:
states stay the engine's own, terms are renamed on the way in and out.
"""

from __future__ import annotations

import random
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from ggpkit.games.api import Game, GameError
from ggpkit.games.capabilities import Capabilities, Solution, Solver
from ggpkit.games.recognition.symbol_match import rename_term, symbols_of
from ggpkit.gdl.terms import Term
from ggpkit.reasoning.base import PlayoutStats
from ggpkit.search.contract import TreeReport, TreeSearch
from ggpkit.search.options import SearchLimit, SearchOptions

_T = TypeVar("_T")


class UnknownNameError(GameError):
    """A native term holds a symbol whose name in the rules is not known (yet)."""


Transition = tuple[Hashable, tuple[Term, ...]]
"""How a native state was reached: the state before and the joint move (inner names and
role order)."""

Learner = Callable[[Hashable, Mapping[str, str], Transition | None], Mapping[str, str] | None]
"""Given a native state showing unknown symbols, the renaming so far and, when known, how
the state was reached, a renaming that also names them (found against the rules' own
engine), or None when none is certain."""

TRANSITIONS_KEPT = 4096
"""Most recent states whose transition is kept for learning names (a bounded memory)."""


class RenamedGame(Game[Hashable]):
    """``inner`` with its symbols renamed by ``forward`` (own -> seen), roles in ``roles`` order.

    ``roles`` are seen names; by default the inner order, renamed. A state that shows a
    symbol without a name asks ``learn`` for one (the renaming only grows; a lock keeps
    threads from learning at once); without ``learn``, or when it finds none, the
    state's facts or moves raise :class:`UnknownNameError` rather than show a name the
    rules do not use. One state alone cannot name a counter's value (step 90 shows what
    step 95 shows), so the last :data:`TRANSITIONS_KEPT` states made by
    :meth:`next_state` keep how they were reached, and learning replays that line.
    """

    def __init__(
        self,
        inner: Game[Any],
        forward: Mapping[str, str],
        roles: Sequence[str] | None = None,
        learn: Learner | None = None,
    ) -> None:
        self.inner = inner
        self.forward = dict(forward)
        self.backward = {v: k for k, v in self.forward.items()}
        self.name = inner.name
        self.description = inner.description
        seen_inner_roles = tuple(self.forward.get(r, r) for r in inner.roles)
        self.roles = tuple(roles) if roles is not None else seen_inner_roles
        if sorted(self.roles) != sorted(seen_inner_roles):
            raise ValueError(f"roles {self.roles} are not the renamed {inner.roles}")
        # _order[i]: the inner index of role i (seen order).
        self._order = tuple(seen_inner_roles.index(r) for r in self.roles)
        # The extras that read or write names (notation, board, evaluation, solvers,
        # search) speak the inner game's names: only the nameless ones carry over.
        caps = inner.info.capabilities
        self.info = replace(
            inner.info,
            capabilities=Capabilities(
                compiled_playouts=caps.compiled_playouts,
                compiled_perft=caps.compiled_perft,
                hint=None if caps.hint is None else _RenamedSolvers(caps.hint, self),
                tree_search=None
                if caps.tree_search is None
                else _RenamedTrees(caps.tree_search, self),
            ),
        )
        self._out: dict[Term, Term] = {}
        self._in: dict[Term, Term] = {}
        self._learn = learn
        self._learning = threading.Lock()
        self._came_from: OrderedDict[Hashable, Transition] = OrderedDict()
        self._came_from_lock = threading.Lock()

    def _seen(self, term: Term) -> Term:
        got = self._out.get(term)
        if got is None:
            unknown = symbols_of({("term", (term,))}) - self.forward.keys()
            if unknown:
                raise UnknownNameError(
                    f"{self.name}: no name in the rules is known for {sorted(unknown)} "
                    f"(in {term}): no state checked against the rules showed it"
                )
            got = self._out[term] = rename_term(term, self.forward)
        return got

    def _named(self, state: Hashable, show: Callable[[], _T]) -> _T:
        """``show()``, after learning the names of the state's unknown symbols if it must."""
        try:
            return show()
        except UnknownNameError:
            if self._learn is None:
                raise
        with self._learning:
            for step, came_from in self._line_to(state):
                found = self._learn(step, dict(self.forward), came_from)
                if found is None:
                    break
                self.forward = dict(found)
                self.backward = {v: k for k, v in self.forward.items()}
                self._in.clear()
        return show()

    def _line_to(self, state: Hashable) -> list[tuple[Hashable, Transition | None]]:
        """``state`` and the kept states before it, back to the first whose facts all have
        names (exclusive), oldest first, each with how it was reached (None: not kept).
        A line that comes back to a state it passed (a game with cycles) stops there."""
        line: list[tuple[Hashable, Transition | None]] = []
        passed: set[Hashable] = set()
        while state not in passed:
            passed.add(state)
            with self._came_from_lock:
                came_from = self._came_from.get(state)
            line.append((state, came_from))
            if came_from is None or self._all_named(came_from[0]):
                break
            state = came_from[0]
        return line[::-1]

    def _all_named(self, state: Hashable) -> bool:
        symbols = symbols_of({("fact", (f,)) for f in self.inner.facts(state)})
        return symbols <= self.forward.keys()

    def _remember(self, state: Hashable, came_from: Transition) -> None:
        kept = self._came_from
        with self._came_from_lock:
            kept[state] = came_from
            if len(kept) > TRANSITIONS_KEPT:
                kept.popitem(last=False)

    def _own(self, term: Term) -> Term:
        got = self._in.get(term)
        if got is None:
            got = self._in[term] = rename_term(term, self.backward)
        return got

    def _seen_goals(self, own: Mapping[str, int]) -> dict[str, int]:
        return {r: own[self.inner.roles[i]] for r, i in zip(self.roles, self._order, strict=True)}

    def initial_state(self) -> Hashable:
        state: Hashable = self.inner.initial_state()
        return state

    def _legal(self, state: Hashable, role_index: int) -> list[Term]:
        own = self.inner._legal(state, self._order[role_index])
        return self._named(state, lambda: [self._seen(m) for m in own])

    def _next(self, state: Hashable, moves: Sequence[Term]) -> Hashable:
        own: list[Term] = [moves[0]] * len(moves)
        for seen_index, inner_index in enumerate(self._order):
            own[inner_index] = self._own(moves[seen_index])
        nxt: Hashable = self.inner._next(state, own)
        if self._learn is not None:
            self._remember(nxt, (state, tuple(own)))
        return nxt

    def is_terminal(self, state: Hashable) -> bool:
        return self.inner.is_terminal(state)

    def goals(self, state: Hashable) -> dict[str, int]:
        return self._seen_goals(self.inner.goals(state))

    def facts(self, state: Hashable) -> frozenset[Term]:
        own = self.inner.facts(state)
        return self._named(state, lambda: frozenset(self._seen(f) for f in own))

    def random_playout(self, state: Hashable, rng: random.Random) -> tuple[dict[str, int], int]:
        goals, steps = self.inner.random_playout(state, rng)
        return self._seen_goals(goals), steps

    def playout_stats(self, state: Hashable, count: int, seed: int) -> PlayoutStats:
        stats = self.inner.playout_stats(state, count, seed)
        sums = tuple(stats.goal_sums[i] for i in self._order)
        return replace(stats, goal_sums=sums)

    def perft_compiled(self, state: Hashable, depth: int) -> int:
        return self.inner.perft_compiled(state, depth)

    def state_from_facts(self, facts: Iterable[Term]) -> Hashable:
        made: Hashable = self.inner.state_from_facts(self._own(f) for f in facts)
        return made

    def render(self, state: Hashable) -> str:
        return self.inner.render(state)


@dataclass(frozen=True, slots=True)
class _RenamedSolvers:
    """The inner game's hint, answering in the renamed game's names."""

    make: Callable[[], Solver]
    game: RenamedGame = field(compare=False)

    def __call__(self) -> Solver:
        return _RenamedSolver(self.make(), self.game)


class _RenamedSolver:
    """A solver of the inner game, asked and answering through the renaming."""

    def __init__(self, solver: Solver, game: RenamedGame) -> None:
        self.solver = solver
        self.game = game

    def solve(self, game: Game[Any], state: Hashable, role: str) -> Solution:
        """See :class:`~ggpkit.games.capabilities.Solver`; ``game`` is the renamed game."""
        renamed = self.game
        own = self.solver.solve(renamed.inner, state, renamed.backward[role])
        move = None if own.move is None else renamed._seen(own.move)
        goals = {renamed.forward[r]: v for r, v in own.goals.items()}
        return replace(own, goals=goals, move=move)


@dataclass(frozen=True, slots=True)
class _RenamedTrees:
    """The inner game's compiled trees, answering in the renamed game's names."""

    make: Callable[[int | None], TreeSearch]
    game: RenamedGame = field(compare=False)

    def __call__(self, max_nodes: int | None = None) -> TreeSearch:
        return _RenamedTree(self.make(max_nodes), self.game)


class _RenamedTree:
    """A compiled tree of the inner game (whose states the renamed game shares)."""

    def __init__(self, tree: TreeSearch, game: RenamedGame) -> None:
        self.tree = tree
        self.game = game

    def search(
        self, state: Hashable, limit: SearchLimit, options: SearchOptions, role: str | None = None
    ) -> TreeReport:
        """See :class:`~ggpkit.search.contract.TreeSearch`, in the renamed game's names."""
        g = self.game
        inner_role = None if role is None else g.backward.get(role, role)
        own_pieces: tuple[frozenset[Term], ...] = ()
        if options.pieces:  # in the inner game's role order and names
            by_inner = sorted(zip(g._order, options.pieces, strict=True))
            own_pieces = tuple(frozenset(map(g._own, facts)) for _, facts in by_inner)
        own = self.tree.search(state, limit, replace(options, pieces=own_pieces), inner_role)
        moves = g._named(state, lambda: tuple(g._seen(m) for m in own.moves))
        line = g._named(state, lambda: tuple(g._seen(m) for m in own.best_line))
        seen = g.forward
        proven = None if own.proven is None else {seen.get(r, r): v for r, v in own.proven.items()}
        return replace(own, mover=seen.get(own.mover, own.mover), moves=moves, proven=proven,
                       best_line=line)  # fmt: skip
