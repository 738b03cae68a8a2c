"""The players a referee talks to: local agents, remote HTTP players, humans at the terminal.

All three answer the same four calls (start, play, stop, abort) so the referee
treats them alike; a player that fails raises :class:`PlayerFault` with the
ggp.org error code and the referee substitutes a random legal move. Around a
refereed match they are also connected (before any clock runs: a remote player's
HTTP client is made and its name asked with INFO) and closed
(:class:`RefereedPlayer`).

In a game of chance nobody takes the chance role (GDL-II's ``random``): players are
given for the seats, and :func:`seat_players` puts :class:`Nature`, a seat that is
never asked, at the chance role (the match driver draws nature's moves). A player
of a game of imperfect information is never shown the state: where ``play``,
``observe`` and ``stop`` take the last joint move and the state, it is given its role's
:class:`~ggpkit.games.views.RoleView` for both (see :data:`Told`).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Hashable, Sequence
from typing import Any, Protocol, TypeVar

from ggpkit.agents.base import Agent, Limit
from ggpkit.agents.hidden import for_imperfect_information
from ggpkit.agents.human import HumanAgent
from ggpkit.agents.specs import make_agent
from ggpkit.errors import GgpkitError
from ggpkit.games.api import Game
from ggpkit.games.views import RoleView
from ggpkit.gdl.terms import Term
from ggpkit.match.agent_runner import AgentRunner, in_daemon_thread
from ggpkit.match.clock import thinking_time
from ggpkit.match.protocol import (
    format_abort,
    format_info,
    format_play,
    format_play_ii,
    format_start,
    format_stop,
    format_stop_ii,
    parse_info_reply,
)
from ggpkit.match.remote import PlayerFault, RemotePlayer
from ggpkit.match.scramble import Scrambler

log = logging.getLogger("ggpkit.match")


Told = Sequence[Term] | RoleView | None
"""What a player is told of the match at a step: the last joint move (None before the
first) in a game of perfect information; its role's view in one of imperfect information.
A remote player is sent the protocol's form of each: GDL's ``(PLAY <id> <joint move>)``
for the first, GDL-II's ``(PLAY <id> <turn> <own move> <percepts>)`` (the view's last
entry) for the second, and the same forms of STOP."""


class Player(Protocol):
    """What the referee needs of a player."""

    name: str
    is_human: bool

    async def start(
        self, match_id: str, role: str, game: Game[Any], rules: str, start: float, play: float
    ) -> None:
        """Get ready within ``start`` seconds; PlayerFault if the player did not."""

    async def play(self, match_id: str, last: Told, state: Hashable, clock: float | None) -> str:
        """The player's move text for ``state`` (after joint move ``last``); or PlayerFault.

        ``clock`` is the play clock in seconds; None for an untimed match. In a game of
        imperfect information ``last`` and ``state`` are both the role's view.
        """

    async def observe(
        self, match_id: str, last: Told, state: Hashable, clock: float | None
    ) -> None:
        """A step in which this player's role has a single legal move and is not asked.

        Local players need nothing; a remote player is still sent the protocol's
        message (it learns the last joint move from it) and its reply is ignored.
        """

    async def stop(self, match_id: str, last: Told, clock: float) -> None:
        """The match is over; ``last`` is the final joint move (or the role's final view)."""

    async def abort(self, match_id: str) -> None:
        """The match ends without a result."""


class RefereedPlayer(Player, Protocol):
    """A player for a whole refereed match: connected before the clocks start, closed after.

    Kept apart from :class:`Player` because interfaces that only drive steps (the
    web sessions) have nothing to connect.
    """

    async def connect(self) -> None:
        """Get ready to talk, outside any clock; may update ``name`` (a remote player's INFO)."""

    async def close(self) -> None:
        """The match is over (or failed): release what :meth:`connect` took. Never raises."""


class SeatingError(GgpkitError, ValueError):
    """Players that fit neither the game's roles nor its seats (every role but nature)."""


NATURE = "nature"
"""The name a match record gives the chance role's seat."""


class InProcessSeat:
    """What a seat in this process does by default at each message: nothing. It has no
    connection to open or close and is told nothing it does not ask for; a subclass
    overrides the messages it acts on (and :meth:`play`, which every seat answers)."""

    name: str
    is_human = False

    async def start(
        self, match_id: str, role: str, game: Game[Any], rules: str, start: float, play: float
    ) -> None:
        pass

    async def play(self, match_id: str, last: Told, state: Hashable, clock: float | None) -> str:
        raise NotImplementedError

    async def observe(
        self, match_id: str, last: Told, state: Hashable, clock: float | None
    ) -> None:
        pass

    async def stop(self, match_id: str, last: Told, clock: float) -> None:
        pass

    async def abort(self, match_id: str) -> None:
        pass

    async def connect(self) -> None:
        pass

    async def close(self) -> None:
        pass


class Nature(InProcessSeat):
    """The chance role's seat: never asked, since the match driver draws nature's moves."""

    name = NATURE

    async def play(self, match_id: str, last: Told, state: Hashable, clock: float | None) -> str:
        raise PlayerFault("CE", "nature is never asked for a move: the match driver draws it")


P = TypeVar("P", bound=Player)


def seat_players(game: Game[Any], players: Sequence[P], nature: P) -> list[P]:
    """One player per role: ``players`` given for every seat (``nature`` then takes the
    chance role) or already for every role (whatever stands at the chance role is never
    asked). SeatingError when ``players`` fits neither."""
    roles, seats = game.roles, game.seats
    if len(players) == len(roles):
        return list(players)
    if len(players) == len(seats):
        given = iter(players)
        return [next(given) if role in seats else nature for role in roles]
    count = f"{len(seats)} seat{'' if len(seats) == 1 else 's'} ({', '.join(seats)})"
    raise SeatingError(f"{game.name} has {count}: got {len(players)} players")


INFO_CLOCK = 1.0
"""Seconds a remote player has to answer INFO (plus the usual grace), as ggp-base allows."""


class LocalPlayer(InProcessSeat):
    """An agent in this process, under the same clocks as a remote player."""

    def __init__(self, agent: Agent, name: str | None = None, seed: int | None = None) -> None:
        self.name: str = name or agent.name
        self.runner = AgentRunner(agent, random.Random(seed))
        self.game: Game[Any] | None = None
        self.role = ""

    async def start(
        self, match_id: str, role: str, game: Game[Any], rules: str, start: float, play: float
    ) -> None:
        self.game, self.role = game, role
        if game.info.imperfect and not self.runner.agent.plays_from_views:
            self.runner.agent = for_imperfect_information(self.runner.agent)
        fault = await self.runner.start(game, role, thinking_time(start))
        if fault is not None:
            raise fault

    async def play(self, match_id: str, last: Told, state: Hashable, clock: float | None) -> str:
        """The agent's own move (legal or not: the match driver judges it), or PlayerFault."""
        assert self.game is not None, "play before start"
        seconds = None if clock is None else thinking_time(clock)
        if isinstance(state, RoleView):
            return str(await self.runner.from_view(self.game, state, self.role, seconds))
        choice = await self.runner.select(self.game, state, self.role, seconds)
        if choice.chosen is not None:
            return str(choice.chosen)
        raise PlayerFault(choice.code, choice.problem)

    async def stop(self, match_id: str, last: Told, clock: float) -> None:
        await self.runner.stop(clock)

    async def abort(self, match_id: str) -> None:
        await self.runner.stop(1.0)


class HttpPlayer:
    """A remote player spoken to over the GGP HTTP protocol.

    With a :class:`Scrambler`, the player sees only scrambled names (rules, role,
    moves, percepts) and its replies are read back into the real ones. Given its role's
    view (a game of imperfect information), it is sent GDL-II's PLAY and STOP.
    """

    is_human = False

    def __init__(
        self, url: str, name: str | None = None, scrambler: Scrambler | None = None
    ) -> None:
        self.remote = RemotePlayer(url, name)
        self.name = name or url
        """The name in records: the one the player gives in its INFO reply, once connected."""
        self.scrambler = scrambler

    async def connect(self) -> None:
        """Make the HTTP client for the match, then ask the player's name with INFO.

        A player that does not answer INFO in time, or answers without a name, keeps
        the name it was given (its URL by default): INFO is no part of the match.
        """
        await self.remote.open()
        try:
            reply = await self.remote.send(format_info(), INFO_CLOCK)
        except PlayerFault as e:
            log.info("%s did not answer INFO: %s", self.name, e)
            return
        self.name = parse_info_reply(reply) or self.name

    async def close(self) -> None:
        await self.remote.close()

    def _moves(self, moves: Sequence[Term] | None) -> Sequence[Term] | None:
        if moves is None or self.scrambler is None:
            return moves
        return [self.scrambler.term(m) for m in moves]

    def _message(self, keyword: str, match_id: str, last: Told) -> str:
        """PLAY or STOP in the form ``last`` calls for: GDL's joint move, or GDL-II's turn,
        own move and percepts (sorted, so a message does not depend on set order), every
        symbol scrambled as the rules were."""
        if not isinstance(last, RoleView):
            fmt = format_play if keyword == "PLAY" else format_stop
            return fmt(match_id, self._moves(last))
        move, seen = last.last_move, last.last_percepts
        percepts = None if seen is None else sorted(seen, key=str)
        if self.scrambler is not None:
            move = None if move is None else self.scrambler.term(move)
            percepts = None if percepts is None else [self.scrambler.term(p) for p in percepts]
        fmt_ii = format_play_ii if keyword == "PLAY" else format_stop_ii
        return fmt_ii(match_id, last.turn, move, percepts)

    async def start(
        self, match_id: str, role: str, game: Game[Any], rules: str, start: float, play: float
    ) -> None:
        if self.scrambler is not None:
            rules, role = self.scrambler.rules, self.scrambler.name(role)
        reply = await self.remote.send(format_start(match_id, role, rules, start, play), start, 0.0)
        if reply.strip().lower() != "ready":
            raise PlayerFault("CE", f"START answered {reply[:60]!r} instead of ready")

    async def play(self, match_id: str, last: Told, state: Hashable, clock: float | None) -> str:
        assert clock is not None, "remote players are always timed"
        reply = await self.remote.send(self._message("PLAY", match_id, last), clock)
        return reply if self.scrambler is None else self.scrambler.unscramble(reply)

    async def observe(
        self, match_id: str, last: Told, state: Hashable, clock: float | None
    ) -> None:
        """Send PLAY (the protocol's step message) and ignore whatever comes back."""
        try:
            await self.play(match_id, last, state, clock)
        except PlayerFault as e:
            log.info("%s on a step without choice: %s", self.name, e)

    async def stop(self, match_id: str, last: Told, clock: float) -> None:
        await self.remote.send(self._message("STOP", match_id, last), clock)

    async def abort(self, match_id: str) -> None:
        await self.remote.send(format_abort(match_id), 1.0, 0.0)


class HumanPlayer(InProcessSeat):
    """A person at the terminal (ggpkit's human agent) with no clock: people are not timed.

    The person sees the board and the legal moves; ``quit`` raises ``QuitGame``,
    which ends the match as aborted.
    """

    is_human = True

    def __init__(self, agent: Agent | None = None, name: str = "human") -> None:
        self.agent: Agent = agent if agent is not None else HumanAgent()
        self.name = name
        self.game: Game[Any] | None = None
        self.role = ""

    async def start(
        self, match_id: str, role: str, game: Game[Any], rules: str, start: float, play: float
    ) -> None:
        self.game, self.role = game, role

    async def play(self, match_id: str, last: Told, state: Hashable, clock: float | None) -> str:
        """The person's move: the human agent asks again until the input is a legal move."""
        game = self.game
        assert game is not None, "play before start"
        move = await in_daemon_thread(lambda: self.agent.select(game, state, self.role, Limit()))
        return str(move)


def player_from_spec(
    spec: str, seed: int | None = None, scrambler: Scrambler | None = None
) -> RefereedPlayer:
    """A player from a command-line spec: ``human``, an ``http(s)://`` URL, or an agent spec.

    Raises ``SpecError`` (from ``ggpkit.agents.specs``) for an unknown agent spec.
    """
    if spec == "human":
        return HumanPlayer()
    if spec.startswith(("http://", "https://")):
        return HttpPlayer(spec, scrambler=scrambler)
    return LocalPlayer(make_agent(spec, seed), name=spec, seed=seed)
