"""Exact play over information sets, for one seat against nature (Monty Hall, number guessing).

With one seat, the only other mover is nature, whose moves are uniformly random: the
game is a one-player decision problem under uncertainty, solved exactly by expectimax
over the seat's information sets. A node is a *belief*: the states the seat's view
allows, each with its posterior probability (:func:`~ggpkit.games.information.
weighted_states`). A move's value is the expected goal over the belief and nature's
replies, the replies grouped by the percepts they give: each group is the belief of the
next information set, valued the same way. A belief is worth its best move; beliefs are
memoised, so a game whose information sets recur is solved once.

Why not the perfect-information solver: in Monty Hall it would open the car's door
knowing where the car is. Why not for two seats: an opponent is no uniform nature, and
mixed strategies are beyond expectimax; :class:`InfosetSolverAgent` then plays by its
fallback. It refuses, too, a game too big for ``nodes`` beliefs (tried at the start,
within the start clock), and then plays by the fallback, which the default player is
(:func:`~ggpkit.agents.hidden.for_imperfect_information`).
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Hashable
from typing import Any

from ggpkit.agents.base import Agent, AgentError, Limit, Thoughts, start_seconds_left
from ggpkit.agents.hidden.common import candidate_moves
from ggpkit.games.api import Game
from ggpkit.games.information import InformationSetError, weighted_states
from ggpkit.games.views import RoleView
from ggpkit.gdl.terms import Term

Belief = dict[Hashable, float]

SOLVE_SECONDS = 5.0
"""Most seconds the start's trial solve may take before the game counts as too big."""

TRIAL_SHARE = 0.5
"""Share of what is left of a start clock the trial solve may take: the rest is the
fallback's, which starts where the trial fails."""


def trial_seconds() -> float:
    """How long the start's trial solve may take: :data:`SOLVE_SECONDS`, or less under a
    start clock (:func:`~ggpkit.agents.base.start_seconds_left`) that leaves less."""
    left = start_seconds_left()
    return SOLVE_SECONDS if left is None else min(SOLVE_SECONDS, TRIAL_SHARE * left)


class TooBigError(AgentError):
    """The game has more beliefs, or takes longer, than the exact solver allows."""


def one_seat_against_nature(game: Game[Any]) -> bool:
    """Whether ``role``'s only other mover is nature: the games solved here."""
    return len(game.seats) == 1


class InfosetExpectimax:
    """Expected goals of one seat's moves over its information sets, memoised per belief."""

    def __init__(self, game: Game[Any], role: str, nodes: int = 20_000,
                 deadline: float | None = None) -> None:  # fmt: skip
        self.game, self.role = game, role
        self.nodes, self.deadline = nodes, deadline
        self.memo: dict[frozenset[tuple[Hashable, float]], float] = {}

    def value(self, belief: Belief) -> float:
        """The belief's expected goal (0..100) under best play: terminal states score
        their goal, the rest the best move's value."""
        key = frozenset((s, round(p, 12)) for s, p in belief.items())
        known = self.memo.get(key)
        if known is not None:
            return known
        self._count()
        game = self.game
        ended = sum(p * game.goals(s)[self.role] for s, p in belief.items() if game.is_terminal(s))
        live = {s: p for s, p in belief.items() if not game.is_terminal(s)}
        best = max((self.move_value(live, m) for m in self.moves(live)), default=0.0)
        self.memo[key] = ended + best
        return ended + best

    def moves(self, belief: Belief) -> list[Term]:
        """The seat's moves to weigh in ``belief`` (see :func:`candidate_moves`)."""
        return candidate_moves(self.game, belief, self.role) if belief else []

    def move_value(self, belief: Belief, move: Term) -> float:
        """The expected goal, weighted by the belief's mass, of playing ``move`` in
        ``belief`` (states where it is not legal count 0)."""
        game, role = self.game, self.role
        groups: dict[frozenset[Term], Belief] = {}
        for state, mass in belief.items():
            self._check_time()
            if move not in game.legal_moves(state, role):
                continue
            options = [[move] if r == role else game.legal_moves(state, r) for r in game.roles]
            joints = list(itertools.product(*options))
            for joint in joints:
                seen = game._percepts(state, joint)[role]
                after = game._next(state, joint)
                group = groups.setdefault(seen, {})
                group[after] = group.get(after, 0.0) + mass / len(joints)
        total = 0.0
        for group in groups.values():
            mass = sum(group.values())
            total += mass * self.value({s: p / mass for s, p in group.items()})
        return total

    def _count(self) -> None:
        if len(self.memo) >= self.nodes:
            raise TooBigError(f"{self.game.name}: more than {self.nodes} information sets")
        self._check_time()

    def _check_time(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise TooBigError(f"{self.game.name}: no exact solution in the time the start allows")


class InfosetSolverAgent(Agent):
    """Exact expectimax over information sets for a seat alone against nature; any
    other game (or one beyond ``nodes`` beliefs) is played by ``fallback``, or refused
    with :class:`AgentError` where there is none."""

    name = "infoset-solver"
    plays_from_views = True

    def __init__(self, nodes: int = 20_000, seed: int | None = None,
                 fallback: Agent | None = None) -> None:  # fmt: skip
        self.nodes = nodes
        self.rng = random.Random(seed)
        self.fallback = fallback
        self.solver: InfosetExpectimax | None = None
        self.refusal: str | None = None
        """Why this match is played by the fallback (None: it is solved)."""
        self._thoughts: Thoughts | None = None

    def start(self, game: Game[Any], role: str) -> None:
        """Solve the start (within :func:`trial_seconds`), or hand the match over."""
        self.solver, self.refusal, self._thoughts = None, None, None
        if not one_seat_against_nature(game):
            self.refusal = f"{game.name} has {len(game.seats)} seats: not one against nature"
        else:
            deadline = time.perf_counter() + trial_seconds()
            solver = InfosetExpectimax(game, role, self.nodes, deadline)
            try:
                solver.value(weighted_states(game, RoleView(role)))
                solver.deadline = None
                self.solver = solver
            except (TooBigError, InformationSetError) as e:
                self.refusal = str(e)
        if self.refusal is not None and self.fallback is not None:
            self.fallback.start(game, role)

    def stop(self) -> None:
        self.solver = None
        if self.fallback is not None:
            self.fallback.stop()

    def thoughts(self, role: str) -> Thoughts | None:
        if self.solver is None and self.fallback is not None:
            return self.fallback.thoughts(role)
        return self._thoughts

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        """The move of best expected goal over the view's information set."""
        if self.solver is None and self.refusal is None:
            self.start(game, role)
        if self.solver is None:
            if self.fallback is None:
                raise AgentError(f"no exact solution: {self.refusal}")
            return self.fallback.select(game, state, role, limit)
        view = state if isinstance(state, RoleView) else None
        belief = {state: 1.0} if view is None else weighted_states(game, view)
        live = {s: p for s, p in belief.items() if not game.is_terminal(s)}
        values = {m: self.solver.move_value(live, m) for m in self.solver.moves(live)}
        if not values:
            raise AgentError(f"{role} has no legal move in any state its view allows")
        top = max(values.values())
        best = [m for m, v in values.items() if v >= top - 1e-9]
        move = self.rng.choice(best)
        mass = sum(live.values()) or 1.0
        self._thoughts = Thoughts(top / mass, ((move, 1.0),), f"expected goal {top / mass:.1f}")
        return move
