"""The reasoner contract: what a GDL-backed game needs from any reasoner.

Two families implement it: the slow, simple reference prover (the oracle) and
the fast grounded propositional network. ``ggpkit.games.gdl.game`` wraps a
reasoner into the game API; the differential tests play them side by side.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, TypeVar

from ggpkit.errors import GgpkitError
from ggpkit.gdl.terms import Term

RS = TypeVar("RS", bound=Hashable)
RS_in = TypeVar("RS_in", bound=Hashable, contravariant=True)
R = TypeVar("R")

if TYPE_CHECKING:  # numpy is for the batch types only: ``ggpkit --help`` must not load it
    import numpy as np
    import numpy.typing as npt

U8: TypeAlias = "npt.NDArray[np.uint8]"
I32: TypeAlias = "npt.NDArray[np.int32]"


class ReasonerError(GgpkitError):
    """The rules do not define a proper game here (e.g. no goal value, or two, for a role)."""


class GroundingError(ReasonerError):
    """The rules cannot be grounded here: too big, too slow, or not a well-formed GDL program."""


class QueryTimeLimitError(ReasonerError):
    """A query ran past the limit a caller set with :func:`time_limit`."""


_limits = threading.local()


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Queries made by this thread inside the block end with QueryTimeLimitError after ``seconds``.

    Why: a query can take forever on hostile rules (one rule joining ten domains),
    and a thread cannot be stopped from outside. The prover checks the limit as it
    works; the propnet's queries are bounded by its size and never need to. Limits
    nest: the earliest deadline holds.
    """
    previous: tuple[float, float] | None = getattr(_limits, "deadline", None)
    mine = (time.monotonic() + seconds, seconds)
    _limits.deadline = mine if previous is None else min(previous, mine)
    try:
        yield
    finally:
        _limits.deadline = previous


def call_with_default_limit(seconds: float, fn: Callable[..., R], *args: Any) -> R:
    """``fn(*args)`` under a :func:`time_limit` of ``seconds``, unless the caller set one.

    For reasoners whose single queries can run for ever on hostile rules: a caller
    that sets no limit still gets an answer or an error, never a thread stuck for
    good. A plain function, not a context manager: it wraps every prover query.
    """
    if getattr(_limits, "deadline", None) is not None:
        return fn(*args)
    _limits.deadline = (time.monotonic() + seconds, seconds)
    try:
        return fn(*args)
    finally:
        _limits.deadline = None


def current_time_limit() -> tuple[float, float] | None:
    """This thread's current limit: (monotonic deadline, seconds it was set for), or None."""
    limit: tuple[float, float] | None = getattr(_limits, "deadline", None)
    return limit


def check_time_limit() -> None:
    """Raise QueryTimeLimitError if this thread's :func:`time_limit` has passed."""
    limit = current_time_limit()
    if limit is not None and time.monotonic() > limit[0]:
        raise QueryTimeLimitError(f"a query of the rules took longer than {limit[1]:g} s")


@dataclass(frozen=True, slots=True)
class PlayoutStats:
    """Totals over a batch of random playouts (a reasoner's compiled ones, or a game's)."""

    playouts: int
    moves: int
    """Joint moves played, summed over all playouts."""
    goal_sums: tuple[int, ...]
    """Sum of each role's final goal, in role order."""


@dataclass(frozen=True, slots=True)
class Propositions:
    """A game's fixed vocabulary (GDL's base and input propositions), each in a fixed order.

    Learning environments need it: an observation is a vector over ``base`` and an
    action space is a role's ``moves``, so both must be known before any state is seen.
    """

    base: tuple[Term, ...]
    """Every fact a state may hold (a superset of the reachable ones)."""
    moves: tuple[tuple[Term, ...], ...]
    """Per role, in role order, every move that may ever be legal for it."""


@dataclass(frozen=True, slots=True)
class BatchStep:
    """What one step (or a reset) left in every match; arrays are reused by the next step."""

    bits: U8
    """``(count, base)``: each match's state over ``Propnet.base``."""
    legal: U8
    """``(count, moves)``: legal mask over all roles' moves, role after role."""
    ended: U8
    """``(count,)``: 1 where the match ended at this step (terminal) and was restarted."""
    cut: U8
    """``(count,)``: 1 where the match reached ``max_steps`` and was restarted."""
    goals: I32
    """``(count, roles)``: the final goals where ``ended``, else 0."""
    final: U8
    """``(count, base)``: where ``ended`` or ``cut``, the last state before the restart."""


class BatchStepper(Protocol):
    """Many matches of one game stepped together in compiled code, restarting as they end."""

    count: int
    """Matches stepped together."""

    def reset(self) -> BatchStep:
        """Every match back at the initial state."""
        ...

    def step(self, actions: npt.NDArray[np.int32]) -> BatchStep:
        """One joint move in every match: ``actions[i, r]`` is the index of role ``r``'s move
        in ``propositions().moves[r]``, or -1 for its only legal move."""
        ...


class BatchPlayouts(Protocol[RS_in]):
    """A reasoner's compiled playouts: whole random games without returning to Python."""

    def playout_stats(self, state: RS_in, count: int, seed: int) -> PlayoutStats:
        """Totals of ``count`` uniformly random playouts from ``state``, seeded by ``seed``."""
        ...

    def stepper(self, count: int, max_steps: int) -> BatchStepper:
        """``count`` matches to step together, each cut (and restarted) after ``max_steps``."""
        ...


class Reasoner(Protocol[RS]):
    """A state machine computed from GDL rules. States are immutable and hashable.

    Any number of threads may call one reasoner at once and get the answers of a
    serial run: working memory is per call or per thread, never shared.
    """

    name: str
    """``prover`` or ``propnet``: shown in ``GameInfo.reasoner``."""
    roles: tuple[str, ...]
    batch: BatchPlayouts[RS] | None
    """Compiled playouts, where the reasoner has them."""

    def initial(self) -> RS:
        """The state described by ``init``."""
        ...

    def legal(self, state: RS, role_index: int) -> list[Term]:
        """The legal moves of one role, in a deterministic order."""
        ...

    def next(self, state: RS, moves: Sequence[Term]) -> RS:
        """The state after a joint move in role order."""
        ...

    def percepts(self, state: RS, moves: Sequence[Term]) -> tuple[frozenset[Term], ...]:
        """What each role perceives after a joint move in role order, in role order.

        GDL-II's ``(sees ?role ?percept)``, asked like ``next``: of the current state
        with the moves asserted, so a percept never depends on the next state. Rules
        without ``sees`` give every role the empty set.
        """
        ...

    def terminal(self, state: RS) -> bool:
        """True in a terminal state."""
        ...

    def goal(self, state: RS, role_index: int) -> int:
        """The goal value of one role; ReasonerError unless exactly one is defined."""
        ...

    def facts(self, state: RS) -> frozenset[Term]:
        """The state as the set of its true facts."""
        ...

    def state_from_facts(self, facts: Iterable[Term]) -> RS:
        """The state whose true facts are ``facts``; ReasonerError for an impossible fact."""
        ...

    def propositions(self) -> Propositions:
        """The possible facts and moves; ReasonerError when the reasoner cannot list them."""
        ...
