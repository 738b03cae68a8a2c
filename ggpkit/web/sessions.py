"""Play sessions of the web app: a game in progress, its seats, history and undo stack.

A session is a match record that grows as people click and agents think. Every
step goes to the match store as it happens (the same SQLite store as the CLI's
matches), so a restarted server finds its sessions again: :meth:`SessionManager.restore`
replays the stored moves, and takes back the moves people had chosen in a step still
waiting for others (held in the store apart from the record). Undo shortens the record
and rewrites it; redo replays a move that undo took back.

Thread-safety: the web app calls these methods from worker threads, and awaits
:meth:`SessionManager.agent_step` on its event loop while the agents think in threads
of their own; each session has its own lock, and ``version`` grows with every change
so that clients can detect a stale view (and a late agent step is dropped).

Games of chance and of imperfect information (GDL-II): nature (``game.info.chance_role``)
is never a seat; the match driver draws its moves, from a seed kept with the record (its
``random_token``), so a restored session draws as the first one would have. A step in
which no seat has a choice is played at once. Undo is refused where roles see only
their percepts: taking a move back and trying another would let a person probe what
is hidden (nature's draws stay the same), and an agent's thoughts are not kept, since
they would show a person what the agent knows.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
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
from ggpkit.match.players import NATURE, InProcessSeat, LocalPlayer, Player, Told
from ggpkit.match.records import MatchRecord, new_match_id

log = logging.getLogger("ggpkit.web")

HUMAN = "human"

MAX_FORCED_STEPS = 10_000
"""Steps in a row without a choice for any seat played at once; well past any real game."""


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
    def hold_move(self, match_id: str, step: int, role: str, move: str) -> None: ...
    def held_moves(self, match_id: str, step: int) -> dict[str, str]: ...


@dataclass
class Session:
    """One game being played or watched in the browser."""

    id: str
    game: Game[Any]
    seats: dict[str, str]
    """Seat (every role but nature) -> ``"human"`` or an agent spec (``"mcts:time=1"``)."""
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
    pending: dict[str, Term] = field(default_factory=dict)
    """People's moves of a step in which others also choose, kept (unseen by anyone)
    until every person of the step has chosen; the agents' moves are then asked. Each
    is also held in the store (never in the record), so a restart does not lose it."""
    version: int = 0
    lock: threading.RLock = field(default_factory=threading.RLock)

    @property
    def state(self) -> Hashable:
        return self.states[-1]

    @property
    def finished(self) -> bool:
        return self.game.is_terminal(self.state)

    @property
    def hidden(self) -> bool:
        """True when roles see only their percepts: nobody is shown the state in play."""
        return self.game.info.imperfect

    @property
    def chance_seed(self) -> int:
        """The seed of nature's draws: from the record's random token, which the store keeps."""
        return int.from_bytes(hashlib.sha256(self.record.random_token.encode()).digest()[:8])

    def whose_turn(self) -> list[str]:
        """Seats that have a real choice now (one in a turn-taking game); never nature."""
        if self.finished:
            return []
        mover = self.game.to_move(self.state)
        if mover is not None and mover in self.seats:
            return [mover]
        return [r for r in self.game.seats if len(self.game.legal_moves(self.state, r)) > 1]

    def humans_to_move(self) -> list[str]:
        """The people who still have to choose this step (not those whose move waits)."""
        return [r for r in self.whose_turn() if self.seats[r] == HUMAN and r not in self.pending]

    def driver(self, store: SessionStore) -> MatchDriver:
        """The match driver for the next step of this session, from its current state."""
        return MatchDriver(
            self.game, self.record, store, state=self.state, chance_seed=self.chance_seed
        )


class _PersonInBrowser(InProcessSeat):
    """A human seat as a match player: never asked, since people move by requests; in a
    step where others choose too, it answers the move the person already sent."""

    is_human = True
    name = HUMAN

    def __init__(self, chosen: Term | None = None) -> None:
        self.chosen = chosen

    async def play(self, match_id: str, last: Told, state: Hashable, clock: float | None) -> str:
        if self.chosen is not None:
            return str(self.chosen)
        raise SessionError("a person moves by a request, not by being asked")


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
        """A new session of ``game``; every seat gets a player (missing ones: human).

        Nature is no seat: a seat asked for it is refused.
        """
        for role in seats:
            game.role_index(role)
            if role == game.info.chance_role:
                raise SessionError(f"{role} is nature: the match draws its moves, nobody plays it")
        full = {r: seats.get(r, HUMAN) for r in game.seats}
        names = {r: full.get(r, NATURE) for r in game.roles}
        state = game.initial_state()
        record = MatchRecord(
            match_id=new_match_id(game.name),
            game_name=game.name,
            rules=rules,
            roles=list(game.roles),
            start_clock=0.0,
            play_clock=agent_time,
            player_names=[names[r] for r in game.roles],
            is_human=[names[r] == HUMAN for r in game.roles],
            source="web",
        )
        session = Session(record.match_id, game, full, agent_time, record, [state])
        self._start_agents(session)
        session.driver(self._store).begin()
        self._play_forced(session)
        with self._lock:
            self._sessions[session.id] = session
        return session

    def adopt(self, session: Session) -> None:
        """Register a session rebuilt from the store, with the people's held moves."""
        self._start_agents(session)
        self._play_forced(session)  # a record may stop where only nature was to move
        self._hold_again(session)
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
                who = session.seats.get(role, "nature (its moves are drawn)")
                raise IllegalMoveError(move, role, f"{role} is played by {who}")
            if len(session.whose_turn()) > 1:
                self._hold(session, role, move)
                return
            driver = session.driver(self._store)
            joint = driver.joint_for(role, move)
            self._record(session, driver, joint, ["" for _ in joint])
            self._play_forced(session)
            session.redo.clear()

    def _hold(self, session: Session, role: str, move: str | Term) -> None:
        """A person's move in a step where others choose too: kept (in the session and
        the store) until every person of the step has chosen, then the step is played."""
        if role not in session.humans_to_move():
            raise IllegalMoveError(move, role, f"{role} has chosen this step's move already")
        session.pending[role] = session.game.check_move(session.state, role, move)
        self._store.hold_move(session.id, session.record.steps, role, str(session.pending[role]))
        session.version += 1
        self._play_when_all_chose(session)

    def _hold_again(self, session: Session) -> None:
        """The moves people had chosen for the session's step before a restart. The
        store is untrusted (its file can be edited): a move that is not legal now, or of
        a role that has no choice to make, is dropped with a warning (the person chooses
        again)."""
        held = self._store.held_moves(session.id, session.record.steps)
        for role, text in sorted(held.items()):
            try:
                if role not in session.humans_to_move():
                    raise SessionError(f"{role} has no choice to make in this step")
                session.pending[role] = session.game.check_move(session.state, role, text)
            except Exception as e:  # whatever the store holds, the session goes on
                log.warning("session %s: held move %r of %s dropped: %s", session.id,
                            text[:80], role[:40], e)  # fmt: skip
        if session.pending:
            self._play_when_all_chose(session)

    def _play_when_all_chose(self, session: Session) -> None:
        """The step, once every person of it has chosen and no agent is to be asked (the
        agents, if any, are asked by the next agent step)."""
        if session.humans_to_move() or any(session.seats[r] != HUMAN for r in session.whose_turn()):
            return
        players: list[Player] = [
            _PersonInBrowser(session.pending.get(r)) for r in session.game.seats
        ]
        driver = session.driver(self._store)
        joint, errors = asyncio.run(driver.ask(players, None, session.id))
        self._record(session, driver, joint, errors)
        self._play_forced(session)
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
            if not session.whose_turn() or session.humans_to_move():
                return None
            players: list[Player] = [
                session.players.get(role) or _PersonInBrowser(session.pending.get(role))
                for role in session.game.seats
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
            session.thoughts = {} if session.hidden else thoughts
            self._play_forced(session)
            session.redo.clear()
            return True

    def _record(
        self, session: Session, driver: MatchDriver, joint: Sequence[Term], errors: list[str]
    ) -> None:
        driver.commit(joint, errors)
        session.states.append(driver.state)
        session.pending = {}
        session.thoughts = {}  # they were about the position before this move
        session.version += 1

    def _play_forced(self, session: Session) -> None:
        """Play the steps in which no seat has a choice (nature's alone, or all single
        moves) at once: nobody is to be asked, so nobody would play them."""
        for _ in range(MAX_FORCED_STEPS):
            if session.finished or session.whose_turn():
                return
            seat = session.game.seats[0]
            driver = session.driver(self._store)
            joint = driver.joint_for(seat, session.game.legal_moves(session.state, seat)[0])
            self._record(session, driver, joint, ["" for _ in joint])

    # ---- undo / redo ----------------------------------------------------------------------

    def undo(self, session: Session) -> None:
        """Take back the last joint move, and the agents' moves before it, back to a human turn."""
        with session.lock:
            if session.hidden:
                raise SessionError(
                    "no undo in a game of hidden information: trying a move again would "
                    "show what is hidden"
                )
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
                if rec.percepts:
                    rec.percepts.pop()
                if session.humans_to_move():
                    break
            session.record.goal_values = None
            session.record.is_completed = False
            session.thoughts = {}
            session.pending = {}
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
