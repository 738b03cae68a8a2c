"""The agent interface: an agent chooses a move for one role in one state within a limit.

Modelled on python-chess's engine API: a :class:`Limit` says how long or how far
to think; an agent may keep state between the moves of one match (tree reuse),
told by :meth:`Agent.start` and :meth:`Agent.stop`. Agents see games only through
the game API, so they play native and GDL games alike.
"""

from __future__ import annotations

import contextlib
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from typing import Any

from ggpkit.errors import GgpkitError
from ggpkit.games.api import Game
from ggpkit.gdl.terms import Term


class AgentError(GgpkitError):
    """An agent that cannot play this game or position (alpha-beta on a game that is not
    two roles taking turns, a solver past its limits); the message says why."""


class QuitGame(GgpkitError):
    """The person at a human seat asked to stop (``quit``, or the end of input)."""

    def __init__(self) -> None:
        super().__init__("the game was abandoned by the human player")


@dataclass(frozen=True, slots=True)
class Limit:
    """How much an agent may think for one move; ``None`` means no limit of that kind.

    ``time`` is in seconds of wall clock, ``playouts`` counts simulations (MCTS),
    ``depth`` counts plies (alpha-beta).
    """

    time: float | None = None
    playouts: int | None = None
    depth: int | None = None

    def stricter(self, other: Limit) -> Limit:
        """Both limits at once: per kind, the smaller bound where both set one.

        Agents made from a spec (``mcts:time=2``) have their own limit; the caller's
        limit (a match clock) must still hold, so the two combine this way.
        """

        def pick(a: float | None, b: float | None) -> float | None:
            return b if a is None else a if b is None else min(a, b)

        playouts = pick(self.playouts, other.playouts)
        depth = pick(self.depth, other.depth)
        return Limit(
            time=pick(self.time, other.time),
            playouts=None if playouts is None else int(playouts),
            depth=None if depth is None else int(depth),
        )


@dataclass(frozen=True, slots=True)
class Thoughts:
    """What an agent concluded in its last search, for a person watching it think."""

    value: float | None
    """The role's expected goal (0..100) in the searched position, as the agent sees it."""
    moves: tuple[tuple[Term, float], ...] = ()
    """Its best moves, best first, with their share of the search (0..1)."""
    verdict: str | None = None
    """An exact result where the agent has proved one (``black gets 100 in 7 moves``)."""


_start_clock = threading.local()


@contextlib.contextmanager
def start_clock(seconds: float) -> Iterator[None]:
    """:meth:`Agent.start` calls this thread makes inside the block may take ``seconds``.

    Why a context and not an argument of ``start``: ``start(game, role)`` is what every
    agent implements, and most agents do nothing there that takes long; the few whose
    metagaming is open-ended (a trial solve) ask :func:`start_seconds_left` and fit it
    to the clock. Blocks nest: the earliest end holds.
    """
    previous: float | None = getattr(_start_clock, "ends", None)
    ends = time.monotonic() + max(seconds, 0.0)
    _start_clock.ends = ends if previous is None else min(previous, ends)
    try:
        yield
    finally:
        _start_clock.ends = previous


def start_seconds_left() -> float | None:
    """Seconds left of the start clock this thread is under (:func:`start_clock`), or
    None outside one: no clock, so metagaming takes what it takes."""
    ends: float | None = getattr(_start_clock, "ends", None)
    return None if ends is None else max(ends - time.monotonic(), 0.0)


class Agent(ABC):
    """Chooses moves. Subclasses implement :meth:`select`; the rest is optional."""

    name: str = "agent"

    ponders: bool = False
    """Whether :meth:`select` on a state where the role has no choice to make still helps
    the agent (its search there is kept for its next move): the GGP player then spends
    those play clocks, and what is left of the start clock, in :meth:`select`, as the
    champion players do, instead of answering at once."""

    plays_from_views: bool = False
    """Whether :meth:`select` takes a :class:`~ggpkit.games.views.RoleView` as its state in
    a game of imperfect information (``game.info.imperfect``), where no player is shown
    the true state. An agent that does not is wrapped, for such a game, by one that
    searches the states its view leaves possible
    (:func:`ggpkit.agents.hidden.for_imperfect_information`)."""

    def start(self, game: Game[Any], role: str) -> None:  # noqa: B027 - optional hook
        """A match begins: the agent plays ``role`` in ``game``. Under a start clock,
        :func:`start_seconds_left` says how long this may take."""

    @abstractmethod
    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        """A legal move for ``role`` in the non-terminal ``state``, found within ``limit``."""

    def stop(self) -> None:  # noqa: B027 - optional hook
        """The match is over; drop per-match memory."""

    def thoughts(self, role: str) -> Thoughts | None:
        """What the last :meth:`select` for ``role`` concluded; None for agents that do not say."""
        return None
