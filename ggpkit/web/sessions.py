"""Play sessions of the web app: a game in progress, its seats, history and undo stack.

A session is a match record that grows as people click and agents think. Every
step goes to the match store as it happens (the same SQLite store as the CLI's
matches), so a restarted server finds its sessions again: :meth:`SessionManager.restore`
replays the stored moves. Undo shortens the record and rewrites it; redo replays a
move that undo took back.

Thread-safety: the web app calls these methods from worker threads, and awaits
:meth:`SessionManager.agent_step` on its event loop while the agents think in threads
of their own; each session has its own lock, and ``version`` grows with every change
so that clients can detect a stale view (and a late agent step is dropped).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ggpkit.agents.base import Agent, Thoughts
from ggpkit.errors import GgpkitError
from ggpkit.games.api import Game, IllegalMoveError
from ggpkit.gdl.terms import Term
from ggpkit.match.clock import UNTIMED_START
from ggpkit.match.driver import MatchDriver
from ggpkit.match.players import LocalPlayer, Player
from ggpkit.match.records import MatchRecord, new_match_id

HUMAN = "human"


class SessionError(GgpkitError):
    """A request that does not fit the session (unknown id, stale version, not your turn)."""


class NotFoundError(SessionError):
    """No session (or uploaded game) has the id asked for."""


class StaleVersionError(SessionError):
    """The client acted on a view of the session that is no longer current."""


class ForbiddenError(SessionError):
    """A request to change a session without that session's token."""


class SessionStore(Protocol):
    """What sessions need of the match store (the SQLite store implements it)."""

    def match_started(self, record: MatchRecord) -> None: ...
    def step_played(self, record: MatchRecord) -> None: ...
    def match_ended(self, record: MatchRecord) -> None: ...
    def save(self, record: MatchRecord) -> None: ...


@dataclass
class Session:
    """One game being played or watched in the browser."""

    id: str
    game: Game[Any]
    seats: dict[str, str]
    """Role -> ``"human"`` or an agent spec (``"mcts:time=1"``)."""
    agent_time: float
    record: MatchRecord
    states: list[Hashable]
    players: dict[str, Player] = field(default_factory=dict)
    """The agent seats' players (role -> player), started for this session's game."""
    agents: dict[str, Agent] = field(default_factory=dict)
    """The agent behind each agent seat, asked what it thinks after it moves."""
    thoughts: dict[str, Thoughts] = field(default_factory=dict)
    """What the agents that chose the last move concluded (role -> their thoughts)."""
    redo: list[list[str]] = field(default_factory=list)
    version: int = 0
    lock: threading.RLock = field(default_factory=threading.RLock)

    @property
    def state(self) -> Hashable:
        return self.states[-1]

    @property
    def finished(self) -> bool:
        return self.game.is_terminal(self.state)

    def whose_turn(self) -> list[str]:
        """Roles that have a real choice now (one in a turn-taking game)."""
        if self.finished:
            return []
        mover = self.game.to_move(self.state)
        if mover is not None:
            return [mover]
        return [r for r in self.game.roles if len(self.game.legal_moves(self.state, r)) > 1]

    def humans_to_move(self) -> list[str]:
        return [r for r in self.whose_turn() if self.seats[r] == HUMAN]

    def driver(self, store: SessionStore) -> MatchDriver:
        """The match driver for the next step of this session, from its current state."""
        return MatchDriver(self.game, self.record, store, state=self.state)


class _PersonInBrowser:
    """A human seat as a match player: never asked, since people move by requests."""

    is_human = True
    name = HUMAN

    async def start(
        self, match_id: str, role: str, game: Game[Any], rules: str, start: float, play: float
    ) -> None:
        pass

    async def play(
        self, match_id: str, last: Sequence[Term] | None, state: Hashable, clock: float | None
    ) -> str:
        raise SessionError("a person moves by a request, not by being asked")

    async def observe(
        self, match_id: str, last: Sequence[Term] | None, state: Hashable, clock: float | None
    ) -> None:
        pass

    async def stop(self, match_id: str, last: Sequence[Term] | None, clock: float) -> None:
        pass

    async def abort(self, match_id: str) -> None:
        pass


AgentFactory = Callable[[str, int | None], Agent]


class SessionManager:
    """Creates, finds, advances and persists sessions."""

    def __init__(self, store: SessionStore, make_agent: AgentFactory) -> None:
        self._store = store
        self._make_agent = make_agent
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    # ---- creation and lookup -------------------------------------------------------------

    def create(
        self, game: Game[Any], rules: str, seats: dict[str, str], agent_time: float = 1.0
    ) -> Session:
        """A new session of ``game``; every role gets a seat (missing ones: human)."""
        for role in seats:
            game.role_index(role)
        full = {r: seats.get(r, HUMAN) for r in game.roles}
        state = game.initial_state()
        record = MatchRecord(
            match_id=new_match_id(game.name),
            game_name=game.name,
            rules=rules,
            roles=list(game.roles),
            start_clock=0.0,
            play_clock=agent_time,
            player_names=[full[r] for r in game.roles],
            is_human=[full[r] == HUMAN for r in game.roles],
            source="web",
        )
        session = Session(record.match_id, game, full, agent_time, record, [state])
        self._start_agents(session)
        session.driver(self._store).begin()
        with self._lock:
            self._sessions[session.id] = session
        return session

    def adopt(self, session: Session) -> None:
        """Register a session rebuilt from the store."""
        self._start_agents(session)
        with self._lock:
            self._sessions[session.id] = session

    def get(self, session_id: str) -> Session:
        with self._lock:
            session = self._sessions.get(session_id)
        if session is None:
            raise NotFoundError(f"no session {session_id!r}")
        return session

    def is_live(self, session_id: str) -> bool:
        """True for a session this server runs and that has not ended: it can be continued."""
        with self._lock:
            session = self._sessions.get(session_id)
        return session is not None and not session.finished

    def _start_agents(self, session: Session) -> None:
        """A started player for every agent seat (each agent built once per session)."""
        for role, spec in session.seats.items():
            if spec != HUMAN:
                session.agents[role] = self._make_agent(spec, None)
                player = LocalPlayer(session.agents[role], spec)
                asyncio.run(player.start(session.id, role, session.game, "", UNTIMED_START, 0.0))
                session.players[role] = player

    # ---- moves ----------------------------------------------------------------------------

    def move(
        self, session: Session, role: str, move: str | Term, version: int | None = None
    ) -> None:
        """A person's move for ``role``; the other roles play their only move.

        ``version`` (the version the client saw) guards against stale clicks.
        """
        with session.lock:
            if version is not None and version != session.version:
                raise StaleVersionError(
                    f"stale state: the game has moved on (version {session.version}, "
                    f"you saw {version}); reload"
                )
            if session.finished:
                raise IllegalMoveError(move, role, "the game is over")
            if session.seats.get(role) != HUMAN:
                session.game.role_index(role)
                raise IllegalMoveError(move, role, f"{role} is played by {session.seats[role]}")
            driver = session.driver(self._store)
            joint = driver.joint_for(role, move)
            self._record(session, driver, joint, ["" for _ in joint])
            session.redo.clear()

    async def agent_step(self, session: Session) -> bool:
        """Let the agents whose turn it is move once; False when a human must move or it ended.

        The step is played by the match driver under the session's clock, as in any
        match: a late, failed or illegal agent move is replaced and its code recorded.
        The agents think while this coroutine awaits them, holding no worker thread
        and no lock; the step is committed only if the session has not changed in the
        meantime (a person's undo, another agent step), else it is dropped.
        """
        prepared = await asyncio.to_thread(self._agent_turn, session)
        if prepared is None:
            return False
        driver, players, version = prepared
        movers = session.whose_turn()
        joint, errors = await driver.ask(players, session.agent_time, session.id)
        said = _thoughts(session, movers)
        return await asyncio.to_thread(self._commit_if_current, session, driver, joint, errors,
                                       version, said)  # fmt: skip

    def _agent_turn(self, session: Session) -> tuple[MatchDriver, list[Player], int] | None:
        """The driver and players of the agents' step now, and the version it starts from."""
        with session.lock:
            if session.finished:
                return None
            movers = session.whose_turn()
            if not movers or any(session.seats[r] == HUMAN for r in movers):
                return None
            players: list[Player] = [
                session.players.get(role) or _PersonInBrowser() for role in session.game.roles
            ]
            return session.driver(self._store), players, session.version

    def _commit_if_current(
        self,
        session: Session,
        driver: MatchDriver,
        joint: Sequence[Term],
        errors: list[str],
        version: int,
        thoughts: dict[str, Thoughts],
    ) -> bool:
        with session.lock:
            if session.version != version:
                return False
            self._record(session, driver, joint, errors)
            session.thoughts = thoughts
            session.redo.clear()
            return True

    def _record(
        self, session: Session, driver: MatchDriver, joint: Sequence[Term], errors: list[str]
    ) -> None:
        driver.commit(joint, errors)
        session.states.append(driver.state)
        session.thoughts = {}  # they were about the position before this move
        session.version += 1

    # ---- undo / redo ----------------------------------------------------------------------

    def undo(self, session: Session) -> None:
        """Take back the last joint move, and the agents' moves before it, back to a human turn."""
        with session.lock:
            if len(session.states) == 1:
                raise SessionError("nothing to undo: this is the start of the game")
            while len(session.states) > 1:
                session.redo.append(session.record.moves[-1])
                session.states.pop()
                rec = session.record
                rec.moves.pop()
                rec.errors.pop()
                rec.states.pop()
                rec.state_times.pop()
                if session.humans_to_move():
                    break
            session.record.goal_values = None
            session.record.is_completed = False
            session.thoughts = {}
            session.version += 1
            self._store.save(session.record)

    def redo(self, session: Session) -> None:
        """Replay the joint move that the last undo took back."""
        with session.lock:
            if not session.redo:
                raise SessionError("nothing to redo")
            joint = session.redo.pop()
            driver = session.driver(self._store)
            moves = [session.game.parse_move(m) for m in joint]
            self._record(session, driver, moves, ["" for _ in moves])


def _thoughts(session: Session, movers: Sequence[str]) -> dict[str, Thoughts]:
    """What each agent that just chose a move says it concluded."""
    out = {}
    for role in movers:
        agent = session.agents.get(role)
        said = agent.thoughts(role) if agent is not None else None
        if said is not None:
            out[role] = said
    return out
