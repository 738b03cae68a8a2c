"""The game API: the GGP contract every game implements, native or GDL-defined.

A game is a state machine in the sense of ggp-base's ``StateMachine``:

* ``roles``: the role names, in the game's own order;
* ``initial_state()``: an immutable, hashable state;
* ``legal_moves(state, role)``: the moves (GDL terms) open to a role;
* ``next_state(state, joint)``: the state after a joint move, one move per role;
* ``is_terminal(state)`` and ``goals(state)``: the end test and the goal values
  (ints 0..100, one per role; defined in non-terminal states too);
* ``facts(state)``: the state as its canonical set of GDL facts, the common
  language in which a native engine and its GDL twin are compared, and in which
  match records store states;
* ``percepts(state, joint)``: what each role perceives of a joint move (GDL-II's
  ``sees``); empty sets in a game of perfect information, where every role sees all.

A game of chance names its nature role in ``info.chance_role`` (GDL-II's ``random``):
it is a role of the joint move, but no player takes it; ``seats`` are the others.

Every game is simultaneous underneath; a turn-taking game gives the role without
control the single move ``noop``. ``to_move`` and ``play`` are the conveniences
for such games. A move may be given as a term or as its text anywhere a move is
accepted.

Subclasses implement the abstract methods; the public checked methods here
validate input and raise :class:`IllegalMoveError` with the move, the role and
the reason, so an illegal move never corrupts a state (states are immutable).
"""

from __future__ import annotations

import itertools
import math
import random
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Generic, TypeVar

from ggpkit.errors import GgpkitError
from ggpkit.games.capabilities import Capabilities
from ggpkit.gdl.kif import GdlSyntaxError, parse_term
from ggpkit.gdl.terms import Term
from ggpkit.reasoning.base import BatchStepper as BatchStepper  # part of the contract
from ggpkit.reasoning.base import PlayoutStats
from ggpkit.reasoning.base import Propositions as Propositions
from ggpkit.reasoning.base import QueryTimeLimitError as QueryTimeLimitError  # part of the contract
from ggpkit.reasoning.base import time_limit as time_limit  # part of the contract

S = TypeVar("S", bound=Hashable)
MoveLike = Term | str


class GameError(GgpkitError):
    """Base class of the errors a game raises."""


class UnknownRoleError(GameError, KeyError):
    """A role name that the game does not have."""

    def __init__(self, role: str, roles: Sequence[str]) -> None:
        super().__init__(f"unknown role {role!r}; the roles are {', '.join(roles)}")
        self.role = role

    def __str__(self) -> str:
        return str(self.args[0])


class MoveError(GameError, ValueError):
    """A move that cannot be played: ``move`` as given, the ``role``, and the ``reason``."""

    def __init__(self, move: MoveLike, role: str, reason: str) -> None:
        super().__init__(f"{self.what} {move} for {role}: {reason}")
        self.move = move
        self.role = role
        self.reason = reason

    what = "bad move"


class InvalidMoveError(MoveError):
    """Text that is no move at all (not a GDL term, or a term of the wrong shape)."""

    what = "invalid move"


class IllegalMoveError(MoveError):
    """A move that is not legal for a role in a state.

    ``reason`` is a sentence a person understands (``"it is red's turn: black may only
    play noop"``).
    """

    what = "illegal move"


class GameOverError(GameError):
    """A move was asked of a terminal state."""


class Dynamics(Enum):
    """How roles move (OpenSpiel's ``Dynamics``)."""

    TURN_TAKING = "turn-taking"
    """At most one role has a real choice in every state; the others play their one move."""
    SIMULTANEOUS = "simultaneous"
    """Two or more roles may choose at once."""


class Utility(Enum):
    """How the roles' goals relate at the end of a game (OpenSpiel's ``Utility``)."""

    ZERO_SUM = "zero-sum"
    """Every terminal state's goals sum to 100: what one role wins, the others lose."""
    CONSTANT_SUM = "constant-sum"
    """Every terminal state's goals sum to one constant other than 100."""
    GENERAL_SUM = "general-sum"
    """Goal sums differ between terminal states (and every one-role game but constant ones)."""


class Information(Enum):
    """What each role sees of a match (OpenSpiel's ``GameType.Information``)."""

    PERFECT = "perfect"
    """Every role sees the whole state and every joint move."""
    IMPERFECT = "imperfect"
    """Each role is told only its percepts after each joint move (GDL-II's ``sees``)."""


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What a game is and can do, in one place (as OpenSpiel's ``GameType``).

    Agents and interfaces read this, and nothing else, to decide how to treat a game.
    Native games declare it; GDL games derive it from their rules and a bounded probe
    (see :class:`~ggpkit.games.gdl.game.GdlGame`).
    """

    dynamics: Dynamics
    utility: Utility
    goal_range: tuple[int, int] = (0, 100)
    """The lowest and highest goal any role can get (bounds, not necessarily reached)."""
    max_length: int | None = None
    """Most joint moves any match can last, where known."""
    capabilities: Capabilities = field(default_factory=Capabilities)
    reasoner: str = "native"
    """What computes the rules: ``native``, ``propnet`` or ``prover``."""
    notes: tuple[str, ...] = ()
    """Things a user should know, one sentence each (why the propnet was not used, ...)."""
    information: Information = Information.PERFECT
    chance_role: str | None = None
    """The role that is nature (GDL-II's ``random``), or None in a game without chance.

    No player takes it: the match driver draws its move uniformly at random among its
    legal moves. Its goal is never scored; utility and goal range speak of the seats.
    """

    @property
    def imperfect(self) -> bool:
        """True when roles see only their percepts, not the whole state."""
        return self.information is Information.IMPERFECT

    @property
    def turn_taking(self) -> bool:
        """True for turn-taking games."""
        return self.dynamics is Dynamics.TURN_TAKING

    @property
    def zero_sum(self) -> bool:
        """True when goals always sum to 100 (a win for one is a loss for the others)."""
        return self.utility is Utility.ZERO_SUM


def as_move(move: MoveLike) -> Term:
    """A move given as text or term, as a term (text is parsed as one GDL term)."""
    if isinstance(move, str):
        return parse_term(move)
    return move


class Game(ABC, Generic[S]):
    """A game: the GGP contract. See the module docstring."""

    name: str
    description: str
    roles: tuple[str, ...]
    info: GameInfo

    # ---- what each game implements -------------------------------------------------

    @abstractmethod
    def initial_state(self) -> S:
        """The state before any move."""

    @abstractmethod
    def _legal(self, state: S, role_index: int) -> list[Term]:
        """Legal moves of the role at ``role_index``; no validation of inputs."""

    @abstractmethod
    def _next(self, state: S, moves: Sequence[Term]) -> S:
        """The next state for a joint move in role order, already known to be legal."""

    @abstractmethod
    def is_terminal(self, state: S) -> bool:
        """True when the game is over."""

    @abstractmethod
    def goals(self, state: S) -> dict[str, int]:
        """Goal value (0..100) of every role, in role order."""

    @abstractmethod
    def facts(self, state: S) -> frozenset[Term]:
        """The state as a set of GDL facts (the contents of ``true``)."""

    def _percepts(self, state: S, moves: Sequence[Term]) -> dict[str, frozenset[Term]]:
        """What each role perceives of a legal joint move in role order; no validation.

        The default is a game of perfect information: no role is told anything apart,
        since every role sees the whole state and the joint move.
        """
        return {role: frozenset() for role in self.roles}

    def _seen_successors(
        self, states: Sequence[S], role: str, move: Term, seen: frozenset[Term] | None,
        widest: int,
    ) -> list[tuple[int, list[S]]]:  # fmt: skip
        """For each of ``states``, the joint moves in which ``role`` plays ``move``: how
        many there are (none in a terminal state or where ``move`` is not legal), and the
        next state of each that gives ``role`` exactly the percepts ``seen`` (each one
        where None), in joint order; only the count where there are more than
        ``widest``. No validation, like :meth:`_next`.

        The step of a particle filter over an information set
        (:mod:`~ggpkit.games.filtering`): a game whose reasoner can do it in compiled
        calls (a propnet) overrides this loop."""
        return [self._seen_successors_of(state, role, move, seen, widest) for state in states]

    def _seen_successors_of(
        self, state: S, role: str, move: Term, seen: frozenset[Term] | None, widest: int
    ) -> tuple[int, list[S]]:
        """:meth:`_seen_successors` of one state, joint move by joint move."""
        if self.is_terminal(state) or move not in self.legal_moves(state, role):
            return 0, []
        options = [[move] if other == role else self.legal_moves(state, other)
                   for other in self.roles]  # fmt: skip
        count = math.prod(len(moves) for moves in options)
        if count > widest:
            return count, []
        found: list[S] = []
        for joint in itertools.product(*options):
            if seen is None or self._percepts(state, list(joint))[role] == seen:
                found.append(self._next(state, list(joint)))
        return count, found

    def state_from_facts(self, facts: Iterable[Term]) -> S:
        """The state whose facts are exactly ``facts`` (the inverse of :meth:`facts`).

        Used to start from a given position, to read stored records back into states
        and by ``api_test`` to check that states round-trip. Raises :class:`GameError`
        when the facts describe no state of this game.
        """
        raise GameError(f"{self.name} cannot build a state from facts")

    def propositions(self) -> Propositions:
        """Every fact a state may hold and every move each role may ever play, in fixed orders.

        Learning environments build their observation and action spaces from it. GDL
        games read it from their grounded rules; native games from their GDL twin.
        Raises :class:`GameError` when the game cannot list them.
        """
        raise GameError(f"{self.name} cannot list its possible facts and moves")

    def batch_stepper(self, count: int, max_steps: int) -> BatchStepper:
        """``count`` matches stepped together in compiled code, restarting as they end.

        States are bit vectors over ``propositions().base`` and moves indices into
        ``propositions().moves``. GDL games on the propnet run it there; native games
        on their own engine. Raises :class:`GameError` when the game has none.
        """
        raise GameError(f"{self.name} cannot step matches in a batch")

    def _exactly(self, state: S, facts: Iterable[Term]) -> S:
        """``state`` if its facts are exactly ``facts``, else GameError saying what differs."""
        given = frozenset(facts)
        made = self.facts(state)
        if made != given:
            extra = sorted(map(str, given - made))[:3]
            missing = sorted(map(str, made - given))[:3]
            raise GameError(
                f"the facts are no {self.name} position (not expected: {', '.join(extra) or '-'};"
                f" missing: {', '.join(missing) or '-'})"
            )
        return state

    # ---- checked public API ---------------------------------------------------------

    @property
    def seats(self) -> tuple[str, ...]:
        """The roles that players take: every role but the chance role, in role order."""
        chance = self.info.chance_role
        return self.roles if chance is None else tuple(r for r in self.roles if r != chance)

    def role_index(self, role: str) -> int:
        """Position of ``role`` in :attr:`roles`; raises :class:`UnknownRoleError`."""
        try:
            return self.roles.index(role)
        except ValueError:
            raise UnknownRoleError(role, self.roles) from None

    def legal_moves(self, state: S, role: str) -> list[Term]:
        """The legal moves of ``role`` in ``state`` (empty in a terminal state)."""
        index = self.role_index(role)
        if self.is_terminal(state):
            return []
        return self._legal(state, index)

    def all_legal_moves(self, state: S) -> list[list[Term]]:
        """Legal moves of every role, in role order."""
        if self.is_terminal(state):
            return [[] for _ in self.roles]
        return [self._legal(state, i) for i in range(len(self.roles))]

    def parse_move(self, move: MoveLike, role: str | None = None) -> Term:
        """Read a move from text (or pass a term through); raise InvalidMoveError if unreadable."""
        try:
            return as_move(move)
        except GdlSyntaxError as e:
            raise InvalidMoveError(move, role or "?", f"not a GDL term ({e.message})") from None

    def why_illegal(self, state: S, role: str, move: Term) -> str:
        """Why ``move`` is not legal for ``role``; games override this to say more."""
        legal = self._legal(state, self.role_index(role))
        if len(legal) == 1:
            return f"the only legal move of {role} here is {legal[0]}"
        return f"it is not among the {len(legal)} legal moves of {role} here"

    def check_move(self, state: S, role: str, move: MoveLike) -> Term:
        """The move as a term if legal for ``role`` in ``state``; else IllegalMoveError."""
        index = self.role_index(role)
        term = self.parse_move(move, role)
        if self.is_terminal(state):
            raise IllegalMoveError(move, role, "the game is over (terminal state)")
        if term not in self._legal(state, index):
            raise IllegalMoveError(move, role, self.why_illegal(state, role, term))
        return term

    def next_state(self, state: S, joint: Mapping[str, MoveLike] | Sequence[MoveLike]) -> S:
        """The state after a joint move: a mapping role -> move, or a sequence in role order.

        Every role must have exactly one legal move in ``joint``.
        """
        return self._next(state, self._checked_joint(state, joint))

    def percepts(
        self, state: S, joint: Mapping[str, MoveLike] | Sequence[MoveLike]
    ) -> dict[str, frozenset[Term]]:
        """What each role perceives when ``joint`` is played in ``state``: GDL-II's ``sees``.

        One set of ground terms per role, in role order (the chance role's too); the
        same answer every time. In a game of perfect information (``info.information``)
        every set is empty: each role sees the whole state and joint move instead.
        ``joint`` is checked as :meth:`next_state` checks it.
        """
        return self._percepts(state, self._checked_joint(state, joint))

    def _checked_joint(
        self, state: S, joint: Mapping[str, MoveLike] | Sequence[MoveLike]
    ) -> list[Term]:
        """The joint move as terms in role order, each checked legal (see :meth:`next_state`)."""
        if isinstance(joint, Mapping):
            for role in joint:
                self.role_index(role)
            missing = [r for r in self.roles if r not in joint]
            if missing:
                raise IllegalMoveError(
                    "<none>", missing[0], "a joint move needs a move for every role"
                )
            given = [joint[r] for r in self.roles]
        else:
            given = list(joint)
            if len(given) != len(self.roles):
                raise GameError(
                    f"a joint move needs {len(self.roles)} moves (one per role), got {len(given)}"
                )
        return [self.check_move(state, r, m) for r, m in zip(self.roles, given, strict=True)]

    # ---- conveniences for turn-taking games -----------------------------------------

    def to_move(self, state: S) -> str | None:
        """The role whose turn it is, or None when the game is over or no single role moves.

        The default finds the one role with a choice (more than one legal move),
        or, when every role has exactly one move, the one whose move is not ``noop``.
        Native turn-taking games override this with their control fact.
        """
        if self.is_terminal(state):
            return None
        legal = [self._legal(state, i) for i in range(len(self.roles))]
        choosers = [i for i, ms in enumerate(legal) if len(ms) > 1]
        if len(choosers) == 1:
            return self.roles[choosers[0]]
        if not choosers:
            actors = [i for i, ms in enumerate(legal) if str(ms[0]) != "noop"]
            if len(actors) == 1:
                return self.roles[actors[0]]
            if len(self.roles) == 1:
                return self.roles[0]
        return None

    def play(self, state: S, move: MoveLike, role: str | None = None) -> S:
        """Play ``move`` for ``role`` (default: the role to move); the others play their only move.

        Raises IllegalMoveError when another role has a real choice (a simultaneous state).
        """
        if self.is_terminal(state):
            raise GameOverError("the game is over: no move can be played")
        mover = role if role is not None else self.to_move(state)
        if mover is None:
            raise GameError("no single role is to move here; give a full joint move to next_state")
        mover_index = self.role_index(mover)
        joint: list[MoveLike] = []
        for i, r in enumerate(self.roles):
            if i == mover_index:
                joint.append(move)
                continue
            others = self._legal(state, i)
            if len(others) != 1:
                own = self._legal(state, mover_index)
                if len(own) == 1 and self.to_move(state) == r:
                    raise IllegalMoveError(
                        move, mover, f"it is {r}'s turn: {mover} may only play {own[0]}"
                    )
                raise IllegalMoveError(
                    move, mover, f"{r} also has a choice here; give a full joint move to next_state"
                )
            joint.append(others[0])
        return self.next_state(state, joint)

    # ---- playouts ---------------------------------------------------------------------

    def random_playout(self, state: S, rng: random.Random) -> tuple[dict[str, int], int]:
        """Play uniformly random joint moves to the end; return (goals, number of joint moves).

        Native games override this with a compiled kernel.
        """
        steps = 0
        while not self.is_terminal(state):
            moves = [rng.choice(self._legal(state, i)) for i in range(len(self.roles))]
            state = self._next(state, moves)
            steps += 1
        return self.goals(state), steps

    def playout_stats(self, state: S, count: int, seed: int) -> PlayoutStats:
        """Run ``count`` random playouts from ``state``; the sums the benchmark and agents need.

        Native games override this with a compiled kernel that never returns to the
        interpreter between moves; the default loops over :meth:`random_playout`.
        """
        rng = random.Random(seed)
        total_moves = 0
        sums = [0] * len(self.roles)
        for _ in range(count):
            goals, steps = self.random_playout(state, rng)
            total_moves += steps
            for i, role in enumerate(self.roles):
                sums[i] += goals[role]
        return PlayoutStats(count, total_moves, tuple(sums))

    def perft_compiled(self, state: S, depth: int) -> int:
        """Perft in compiled code, for games that declare ``capabilities.compiled_perft``."""
        raise GameError(f"{self.name} has no compiled perft")

    def render(self, state: S) -> str:
        """A plain-text picture of the state for terminals; games with a board override it."""
        return "\n".join(sorted(str(f) for f in self.facts(state)))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} roles={self.roles}>"
