"""What the searches over a bag of histories share: the clock, the bag, the moves to weigh.

A searcher from views (:class:`BagSearcher`) spends part of each move bringing its bag
up to date (:mod:`~ggpkit.agents.hidden.bag`) and the rest searching the bag's states;
subclasses write the search. The moves it weighs must be legal in the sampled states:
in a well-formed game a role's legal moves are the same in every state of its
information set, but where they are not (rules that let a role's options hang on what
it cannot see), it weighs the moves legal in every sampled state, else those legal in
the most of them by weight.
"""

from __future__ import annotations

import contextlib
import math
import random
import time
from abc import abstractmethod
from collections.abc import Hashable, Iterator
from typing import Any

from ggpkit.agents.base import Agent, AgentError, Limit
from ggpkit.agents.hidden.bag import HistoryBag
from ggpkit.games.api import Game, time_limit
from ggpkit.games.views import RoleView
from ggpkit.gdl.terms import Term

DEFAULT_LIMIT = Limit(time=1.0)
"""Used when neither the spec nor the caller limits the search (as the MCTS agent)."""
BAG_SHARE = 0.5
"""Most of a move's time the bag's update may take; the search has the rest."""
PATIENT_SHARE = 0.85
"""Most of a move's time an empty bag may take looking for a history of the whole view
before it settles for states that heed the role's own moves only: a search over a few
states its view allows beats a longer one over states it does not (a ship placed where
the player saw it is not)."""
MARGIN = 0.01
"""Seconds kept back from a move's time for answering."""


PACE_CARRIED = 0.5
"""Share of the slowest iteration of the last search that the next one starts out
expecting: a slow iteration early in a match (a reasoner whose caches were cold: on
the join code small Dominion's first playouts list every deal of nature, later ones
find them kept) should not keep every later search from starting at all."""


class Pace:
    """How long one iteration of a search takes, learned as the match goes: a search
    stops before an iteration that would end past its deadline, not after it. Where an
    iteration is a playout on a slow reasoner (the join code on a big game), starting one
    just before the deadline makes the move late by that second, and the player's
    fallback then answers in its place."""

    def __init__(self) -> None:
        self.slowest = 0.0

    def begin(self) -> None:
        """A new search: what the last one learned, discounted by :data:`PACE_CARRIED`."""
        self.slowest *= PACE_CARRIED

    def another(self, deadline: float) -> bool:
        """Whether an iteration started now should end by ``deadline``."""
        return time.perf_counter() + self.slowest < deadline

    def took(self, seconds: float) -> None:
        """An iteration took ``seconds``."""
        self.slowest = max(self.slowest, seconds)


@contextlib.contextmanager
def queries_end_at(deadline: float) -> Iterator[None]:
    """Rules queries made by this thread inside the block stop at ``deadline`` (a
    ``perf_counter`` time) with :class:`~ggpkit.games.api.QueryTimeLimitError`.

    A search's iterations are not equally long: on the join code one that meets a new
    deal of nature lists thousands of moves, and a search that starts it just before its
    deadline ends late (small Dominion). Stopped inside the query, the iteration is
    dropped and the search answers from the ones it finished."""
    with time_limit(max(deadline - time.perf_counter(), 0.0)):
        yield


CANDIDATE_STATES = 256
"""Most states of a belief whose legal moves :func:`candidate_moves` lists; a larger
belief (a particle filter keeps thousands) is represented by that many drawn by weight.
Listing every state's moves took most of a short move in Krieg tic-tac-toe, and the
search that was left lost to the player that ignores its percepts (docs/results.md)."""


def candidate_moves(
    game: Game[Any],
    belief: dict[Hashable, float],
    role: str,
    rng: random.Random | None = None,
) -> list[Term]:
    """The moves of ``role`` legal in every state of ``belief``, else those legal in the
    largest share of it (by weight), in a fixed order. Over a belief of more than
    :data:`CANDIDATE_STATES` states, over that many drawn by weight (with ``rng``, else
    the heaviest): a move legal in the draw may be illegal in a rare state left out,
    which the referee replaces, where listing them all would leave no time to search."""
    weight: dict[Term, float] = {}
    total = 0.0
    for state, share in _represented(belief, rng).items():
        if game.is_terminal(state):
            continue
        total += share
        for move in game.legal_moves(state, role):
            weight[move] = weight.get(move, 0.0) + share
    if not weight:
        return []
    best = max(weight.values())
    everywhere = [m for m, w in weight.items() if w >= total * (1 - 1e-9)]
    return everywhere or [m for m, w in weight.items() if w >= best * (1 - 1e-9)]


def _represented(belief: dict[Hashable, float], rng: random.Random | None) -> dict[Hashable, float]:
    """``belief`` itself where it is small, else :data:`CANDIDATE_STATES` of its states
    drawn by weight (repeats kept once, each weighing as much), or the heaviest."""
    if len(belief) <= CANDIDATE_STATES:
        return belief
    states = list(belief)
    if rng is None:
        heaviest = sorted(states, key=lambda s: -belief[s])[:CANDIDATE_STATES]
        return {s: belief[s] for s in heaviest}
    drawn = rng.choices(states, weights=[belief[s] for s in states], k=CANDIDATE_STATES)
    return dict.fromkeys(drawn, 1.0)


def playout_rewards(game: Game[Any], state: Hashable, rng: random.Random) -> list[float]:
    """Every role's goal (0..1, role order) at the end of a random playout from ``state``.

    Played by :meth:`~ggpkit.games.api.Game.playout_stats`, not ``random_playout``: on a
    propnet that is one compiled call (Battleships in fog: 8,000 playouts a second from
    the start against 180 stepped in Python, whose cost is listing nature's 2,000
    scans a step), and elsewhere the same loop. Seeded from ``rng``, so a search stays
    reproducible."""
    if game.is_terminal(state):
        goals = game.goals(state)
        return [goals[r] / 100 for r in game.roles]
    stats = game.playout_stats(state, 1, rng.getrandbits(63))
    return [total / (100 * stats.playouts) for total in stats.goal_sums]


def goal_of(game: Game[Any], state: Hashable, role: str, rng: random.Random) -> float:
    """``role``'s goal (0..1) at the end of a random playout from ``state``."""
    return playout_rewards(game, state, rng)[game.role_index(role)]


def random_joint(
    game: Game[Any], state: Hashable, role: str, move: Term, rng: random.Random
) -> list[Term]:
    """A joint move of ``state`` in which ``role`` plays ``move`` and every other role
    (nature and opponents) a uniformly random legal move."""
    return [
        move if other == role else rng.choice(game.legal_moves(state, other))
        for other in game.roles
    ]


class BagSearcher(Agent):
    """A player from views: a bag of ``bag`` histories and a search over their states.

    ``limit`` is the agent's own (the caller's still applies, the stricter winning);
    ``use_percepts=False`` makes the player ignore its percepts (the ``blind`` baseline).
    """

    plays_from_views = True

    def __init__(
        self,
        limit: Limit | None = None,
        seed: int | None = None,
        bag: int = 16,
        use_percepts: bool = True,
    ) -> None:
        self.limit = limit or Limit()
        self.rng = random.Random(seed)
        self.bag = HistoryBag(bag, self.rng, use_percepts)
        self.last_playouts = 0
        """Playouts (or iterations) of the last search, for tests and notes."""
        self.view: RoleView | None = None
        """The view of the move being chosen (None where a true state was handed)."""
        self.pace = Pace()

    def start(self, game: Game[Any], role: str) -> None:
        """A new match: an empty bag, and an iteration's pace to learn again."""
        self.bag.clear()
        self.pace = Pace()

    def stop(self) -> None:
        """The match is over: forget its histories."""
        self.bag.clear()

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        """The best move found for ``role`` from its view (or from a true state, where a
        game of perfect information hands one)."""
        started = time.perf_counter()
        limit = self.limit.stricter(limit)
        if limit.time is None and limit.playouts is None:
            limit = limit.stricter(DEFAULT_LIMIT)
        seconds = math.inf if limit.time is None else max(0.0, limit.time - MARGIN)
        deadline = started + seconds
        self.view = state if isinstance(state, RoleView) else None
        if isinstance(state, RoleView):
            bag_deadline = started + BAG_SHARE * seconds if seconds < math.inf else started + 5.0
            patience = started + PATIENT_SHARE * seconds if seconds < math.inf else None
            self.bag.update(game, state, bag_deadline, patience)
            belief = self.bag.belief()
        else:
            belief = {state: 1.0}
        if not belief:
            raise AgentError(f"no state of {game.name} fits {role}'s view")
        moves = candidate_moves(game, belief, role, self.rng)
        if not moves:
            raise AgentError(f"{role} has no legal move in any state its view allows")
        if len(moves) == 1:
            return moves[0]
        budget = limit.playouts if limit.playouts is not None else math.inf
        return self.search(game, belief, role, moves, (deadline, budget))

    @abstractmethod
    def search(
        self,
        game: Game[Any],
        belief: dict[Hashable, float],
        role: str,
        moves: list[Term],
        bounds: tuple[float, float],
    ) -> Term:
        """One of ``moves``, searched over the states of ``belief`` (state: weight) until
        ``bounds`` (a ``perf_counter`` deadline, and most playouts or iterations)."""
