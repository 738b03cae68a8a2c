"""The GGP player server: any agent served over HTTP in the protocol's dialect.

:class:`PlayerService` holds the protocol logic (one match at a time, clocks,
fallback moves) and answers message texts; :func:`make_app` wraps it in a
Starlette ASGI app that speaks the transport exactly as ggp-base's GamePlayer:
POST (with or without Content-Length) or GET with the message URL-encoded in
the path, ``text/acl`` replies with the CORS headers, OPTIONS preflights.
:func:`serve` runs it under uvicorn.

Rules arrive as GDL text and are loaded with the GDL engine (or an injected
loader); the agent never sees symbol names it could rely on, since managers
scramble them.

Peers may be hostile or broken, so:

- a message is read only up to a size limit (rules in START are allowed more than
  the other messages), and its keyword and match id are read from its first
  characters: a message for another match is answered ``busy`` without parsing;
  parsing and every game computation run in threads, never on the event loop;
- clocks count from the message's arrival, and must be finite and positive;
- a START whose rules do not load within the start clock falls back to the
  reference prover (no grounding), and is answered ``busy`` in time if even that
  does not load; the late load goes on, a propnet that was late goes on compiling
  in its child for :data:`LATE_COMPILE_SECONDS`, and the match moves onto either
  at the first move it is ready by (:meth:`PlayerService._take_late_propnet`);
- a match the manager stops talking about (three play clocks of silence) gives way
  to the next START, and is ended as aborted after a long silence even without one;
- the player's record of a match has its own id (the manager's id, the player's
  name and a random tag): it never replaces another record in a shared store.

A GDL-II game (``game.info.imperfect``: its rules use ``sees``) is played from the role's
view alone (:class:`~ggpkit.games.views.RoleView`): each GDL-II PLAY and STOP adds the
player's own move as played and its percepts, the agent (wrapped by
:func:`~ggpkit.agents.hidden.for_imperfect_information` unless it plays from views) is
asked with the view, and the server never computes a true state. Its fallback, when
the agent is late or fails, is a move legal in a state sampled from the information set
(:func:`~ggpkit.games.sampling.sample_history`); where none is found in time, a move
legal in the last state of a line the server walks on a step each turn, by the role's
own moves and the joint moves nearest its percepts (:func:`_walk_own_line`): cheap
enough to be there on every turn, it is wrong at most about what was perceived, never
about what the role did. A GDL-II game spoken to in GDL's
messages (a joint move, which a GDL-II player must never be shown), or a GDL game in
GDL-II's, is refused with a clear error (HTTP 400) and the match ended. The player's
record of a GDL-II match holds only what it knew: the initial state, its own moves
and percepts; the other roles' moves and percepts and the later states are left empty
(:data:`~ggpkit.match.records.UNKNOWN_STATE`), and no goals.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import math
import random
import re
import secrets
import threading
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from urllib.parse import unquote_plus

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from uvicorn.protocols.http.h11_impl import H11Protocol

from ggpkit.agents.base import Agent
from ggpkit.agents.hidden import for_imperfect_information
from ggpkit.errors import GgpkitError
from ggpkit.games.api import Game, GameError, Information
from ggpkit.games.gdl.game import GdlGame
from ggpkit.games.gdl.pending_propnet import PendingPropnet
from ggpkit.games.information import History, Hypothesis
from ggpkit.games.sampling import DeadStates, greedy_history, sample_history
from ggpkit.games.views import RoleView
from ggpkit.gdl.terms import Term, facts_text
from ggpkit.match.agent_runner import AgentRunner, in_daemon_thread, within_time_limit
from ggpkit.match.clock import safety_margin
from ggpkit.match.protocol import (
    Abort,
    Info,
    Message,
    Play,
    PlayII,
    Preview,
    ProtocolError,
    Start,
    Stop,
    StopII,
    format_info_reply,
    format_play,
    format_play_ii,
    format_stop,
    format_stop_ii,
    parse_message,
)
from ggpkit.match.recorder import MatchRecorder, NullRecorder
from ggpkit.match.records import UNKNOWN_STATE, MatchRecord
from ggpkit.match.remote import PlayerFault

log = logging.getLogger("ggpkit.player")

GameLoader = Callable[[str, float], Game[Any]]
"""Turns the GDL text of the rules into a game."""

MAX_START_BYTES = 5_000_000
"""Largest START message read (it carries the rules; chess is about 100 KB)."""

MAX_MESSAGE_BYTES = 65_536
"""Largest message of any other kind read (PLAY and STOP carry one joint move)."""

MAX_CLOCK_SECONDS = 24 * 3600.0
"""Longest start or play clock accepted."""

SILENT_PLAY_CLOCKS = 3
"""A match silent for this many play clocks gives way to a START of another match (its
manager may have crashed); one that is merely slow goes on while no other match wants
the player: ggp-base's manager, on its own prover, takes longer than that between two
messages of a big game (alexChess)."""
ABANDONED_PLAY_CLOCKS = 100
"""A match silent for this many play clocks (and at least :data:`ABANDONED_SECONDS`) is
ended as aborted even when no other match comes, so that its agent stops thinking."""
ABANDONED_SECONDS = 300.0

READY_RESERVE = 0.5
"""Seconds of the start clock kept for the prover fallback when the full load is late."""
COMPILE_SHARE = 0.8
"""Share of its time a loader gives the propnet's compilation (the rest: the prover's)."""
LATE_COMPILE_SECONDS = 120.0
"""How long past the start clock a late propnet may go on compiling, on one core."""
SWITCH_DEFER_LIMIT = 2
"""Moves a ready propnet waits for a turn where the player has no choice to make (its
agent then restarts on the propnet in a whole play clock); after that it takes half
of a clock with a choice."""
RECOGNITION_SECONDS = 5.0
"""Most a START spends checking a native engine against the rules' GDL engine."""
AGENT_HEAD_START = 0.5
"""Share of a GDL-II move's time the agent has alone before the fallback starts sampling
a state of its own: both sample the view, and in one process they would halve each
other's speed; an agent that fails early starts the fallback at once."""
FALLBACK_BUDGET = 2_000
"""Expanded steps the fallback of a GDL-II move may spend sampling a history of the view."""
OWN_LINE_SHARE = 0.1
"""Share of a GDL-II play clock each walk of :attr:`_Match.own_line` may take (the
greedy one, then where it fails the one that backs up); the player waits at most that
long before it asks its agent (the walks go on meanwhile where they are slower)."""
BLIND_WALKS = 8
"""Most walks from each line the last resort of a GDL-II turn tries (``_blind_move``)."""
BLIND_MARGIN_SHARE = 0.5
"""Share of the clock's safety margin the last resort's walks may take: its answer is
past the agent's deadline already, and must still reach the referee in time."""
BLIND_SHARE = 0.25
"""Share of the fallback's time kept for a walk that heeds the role's own moves only,
when no history of the whole view was found: its state may be wrong about what was
just perceived but is right about what the role did (a cell it cleared is not cleared
again), which the last move again is not."""

_HEAD = re.compile(r"\s*\(\s*([A-Za-z]+)(?:\s+([^\s()]+))?")


def rules_name(rules: str) -> str:
    """A name for a game known only by its rules: ``gdl-`` and a hash of their tokens.

    Managers do not name the game in START; the hash groups a player's matches of
    the same rules (same scrambling) under one name, whatever the whitespace.
    """
    tokens = " ".join(rules.replace("(", " ( ").replace(")", " ) ").split())
    return "gdl-" + hashlib.sha1(tokens.encode("utf-8")).hexdigest()[:10]


def gdl_loader(rules: str, seconds: float) -> Game[Any]:
    """Load rules with ggpkit's GDL engine, the propnet's compilation bounded by ``seconds``.

    The compilation runs in a child process that is killed at its limit, so nothing
    of a late START keeps working (and taking a core) during the match; a fraction
    of the time is kept for the prover that then runs the game.
    """
    from ggpkit.games.registry import load_kif

    return load_kif(
        rules, "<START>", timeout=max(0.1, seconds * COMPILE_SHARE),
        keep_compiling=LATE_COMPILE_SECONDS,
    )  # fmt: skip


def prover_loader(rules: str, seconds: float) -> Game[Any]:
    """Load rules on the join-code prover: no grounding, ready in the time it takes to read."""
    from ggpkit.games.gdl.game import load_kif_text

    return load_kif_text(rules, "<START>", reasoner="joincode")


def message_head(text: str) -> tuple[str, str | None] | None:
    """The keyword (upper case) and match id of a message, read from its first characters.

    Cheap on any input: a regular expression over at most 1,000 characters, so a
    message for another match is answered without parsing the rest of it.
    """
    found = _HEAD.match(text[:1000])
    if found is None:
        return None
    return found.group(1).upper(), found.group(2)


def valid_clock(seconds: float) -> bool:
    """A start or play clock a player can keep: finite, positive, at most a day."""
    return math.isfinite(seconds) and 0 < seconds <= MAX_CLOCK_SECONDS


def default_loader(rules: str, seconds: float) -> Game[Any]:
    """The GDL engine on the rules; a registered native engine if it plays them identically.

    Recognition (:mod:`ggpkit.games.recognition.recognise`) checks the native engine against the
    GDL one on random lines before trusting it, within half of the time the GDL load
    left (at most :data:`RECOGNITION_SECONDS`); any difference keeps the GDL engine.
    """
    from ggpkit.games.recognition.recognise import recognise

    started = time.monotonic()
    game = gdl_loader(rules, seconds)
    left = seconds - (time.monotonic() - started)
    if left <= 0:
        return game
    native = recognise(game, seconds=min(RECOGNITION_SECONDS, left / 2))
    if native is None:
        return game
    pending = pending_propnet(game)
    if pending is not None:
        pending.cancel()
    return native


def pending_propnet(game: Game[Any]) -> PendingPropnet[GdlGame] | None:
    """The propnet still compiling for ``game``, if it is a GDL game that started without."""
    return game.pending_propnet if isinstance(game, GdlGame) else None


class _DroppableLoad:
    """A load that START may give up on: the game it makes then compiles nothing more.

    The load runs on in its thread after a timeout; whichever of :meth:`drop` and the
    load's end comes second cancels the game's late propnet, so no child compiles on
    for a match that never was. A load late for START but kept for the match (the
    fallback plays meanwhile) is a successor instead: :meth:`ready` gives its faster
    engine once it has one.
    """

    def __init__(self, load: Callable[[], Game[Any]]) -> None:
        self._load = load
        self._made: list[Game[Any]] = []
        self._dropped = threading.Event()

    def __call__(self) -> Game[Any]:
        game = self._load()
        self._made.append(game)
        if self._dropped.is_set():
            self.drop()
        return game

    def drop(self) -> None:
        self._dropped.set()
        for game in self._made:
            pending = pending_propnet(game)
            if pending is not None:
                pending.cancel()

    cancel = drop

    @property
    def failed(self) -> bool:
        """Whether the load ended without an engine faster than the fallback's, or was
        dropped: nothing will come of it."""
        return self._dropped.is_set() or (bool(self._made) and self._faster() is None)

    def ready(self) -> Game[Any] | None:
        """The game on the faster engine the load made, once made (its propnet, where
        that was still compiling when the load ended); None until then, or ever."""
        faster = self._faster()
        if isinstance(faster, PendingPropnet):
            return faster.ready()
        return faster

    def _faster(self) -> Game[Any] | PendingPropnet[GdlGame] | None:
        if not self._made or self._dropped.is_set():
            return None
        game = self._made[0]
        pending = pending_propnet(game)
        if pending is not None:
            return None if pending.failed else pending
        slow = isinstance(game, GdlGame) and game.reasoner_name in ("prover", "joincode")
        return None if slow else game


@dataclass
class _Match:
    match_id: str
    role: str
    game: Game[Any]
    state: Hashable
    runner: AgentRunner
    play_clock: float
    record: MatchRecord
    heard: float = 0.0
    """Loop time of the last message about this match (for the silence limit)."""
    deferred: int = 0
    """Moves a ready late propnet has waited for (see :data:`SWITCH_DEFER_LIMIT`)."""
    successor: _DroppableLoad | None = None
    """The loader's load, late for START and going on while the fallback plays: its
    engine takes over once ready, as a late propnet does (:func:`_upgrade`)."""
    watcher: asyncio.Task[None] | None = None
    """The task that ends the match after too long a silence."""
    view: RoleView | None = None
    """The role's view in a GDL-II match (None in a GDL one); ``state`` is then that view,
    never a true state, which the player does not know."""
    line: History | None = None
    """The last history sampled for the fallback move of a GDL-II match (extended each turn)."""
    dead: DeadStates = field(default_factory=DeadStates)
    """States of ``game`` that no line of the view goes through (kept for the fallback)."""
    own_line: History | None = None
    """A line whose every step gives the role its own move (the other roles' moves those
    nearest its percepts), walked on a step each turn (:func:`_walk_own_line`); where
    the fallback finds a history of the whole view, that one. The last resort's state: it may be
    wrong about what was perceived, never about what the role did (a cell it cleared is
    not cleared again), and it costs a step a turn, so it is there when every search of
    the turn ran out of time."""


class PlayerService:
    """The protocol logic of a player: message text in, reply text out."""

    def __init__(
        self,
        agent_factory: Callable[[], Agent],
        name: str = "ggpkit",
        loader: GameLoader = default_loader,
        recorder: MatchRecorder | None = None,
        seed: int | None = None,
        fallback_loader: GameLoader = prover_loader,
    ) -> None:
        self.agent_factory = agent_factory
        self.name = name
        self.loader = loader
        self.fallback_loader = fallback_loader
        self.recorder: MatchRecorder = recorder or NullRecorder()
        self.rng = random.Random(seed)
        self.current: _Match | None = None
        self._lock = asyncio.Lock()

    async def handle_text(self, text: str, arrived: float | None = None) -> str:
        """The reply to one message text; raises ProtocolError for an unreadable message.

        ``arrived`` is the loop time the message arrived (its clocks count from then);
        now when not given.
        """
        arrived = asyncio.get_running_loop().time() if arrived is None else arrived
        quick = self._without_parsing(message_head(text), arrived)
        if quick is not None:
            return quick
        message = await in_daemon_thread(lambda: parse_message(text))
        return await self.handle(message, arrived)

    def _without_parsing(self, head: tuple[str, str | None] | None, arrived: float) -> str | None:
        """The reply to a message that needs no parsing: INFO, or one for another match."""
        if head is None:
            return None
        keyword, match_id = head
        current = self.current
        if keyword == "INFO":
            return format_info_reply(self.name, busy=current is not None)
        if keyword == "START" and current is not None and not _silent(current, arrived):
            return "busy"
        if keyword in ("PLAY", "STOP", "ABORT") and (
            current is None or current.match_id != match_id
        ):
            return "busy"
        return None

    async def handle(self, message: Message, arrived: float | None = None) -> str:
        arrived = asyncio.get_running_loop().time() if arrived is None else arrived
        if isinstance(message, Info):
            return format_info_reply(self.name, busy=self.current is not None)
        if isinstance(message, Preview):
            return "ready"
        if isinstance(message, Abort):
            return await self._abort(message)
        async with self._lock:
            if isinstance(message, Start):
                return await self._start(message, arrived)
            await self._refuse_other_dialect(message)
            if isinstance(message, Play):
                return await self._play(message, arrived)
            if isinstance(message, PlayII):
                return await self._play_ii(message, arrived)
            if isinstance(message, StopII):
                return await self._stop_ii(message)
            return await self._stop(message)

    async def _refuse_other_dialect(self, message: Play | Stop | PlayII | StopII) -> None:
        """End the current match and raise ProtocolError when ``message`` is in the other
        dialect than its game: GDL's joint move for a GDL-II game (playing on would show
        the player what it must not know, and leave its view a step short), GDL-II's
        view for a GDL game (the other roles' moves are missing)."""
        match = self.current
        if match is None or match.match_id != message.match_id:
            return
        gdl2 = isinstance(message, PlayII | StopII)
        if gdl2 == (match.view is not None):
            return
        if gdl2:
            reason = (f"match {match.match_id} is a GDL game, but the manager sent GDL-II's "
                      "message (turn, own move, percepts); GDL needs the joint move")  # fmt: skip
        else:
            reason = (f"match {match.match_id} is a GDL-II game (its rules use sees): PLAY "
                      "and STOP must be (PLAY <matchid> <turn> <lastmove> <percepts>), not "
                      "GDL's joint move")  # fmt: skip
        log.warning("%s; the match is ended", reason)
        await self._end(match, aborted=True)
        raise ProtocolError(_message_text(message), reason)

    # ---- messages -------------------------------------------------------------------------

    async def _start(self, msg: Start, arrived: float) -> str:
        current = self.current
        if current is not None:
            if not _silent(current, arrived):
                return "busy"
            log.warning("match %s: no message for %.0f s; ended as aborted for START %s",
                        current.match_id, arrived - current.heard, msg.match_id)  # fmt: skip
            await self._end(current, aborted=True)
        if not (valid_clock(msg.start_clock) and valid_clock(msg.play_clock)):
            log.warning("START %s refused: clocks %s, %s", msg.match_id, msg.start_clock,
                        msg.play_clock)  # fmt: skip
            return "busy"
        loop = asyncio.get_running_loop()
        deadline = arrived + msg.start_clock - safety_margin(msg.start_clock)
        loaded = await self._load(msg, deadline)
        if loaded is None:
            return "busy"
        game, successor = loaded
        log.info("START %s: %s plays %s, %.1f s after START", msg.match_id,
                 type(game).__name__, msg.role, loop.time() - arrived)  # fmt: skip
        agent = self.agent_factory()
        imperfect, _ = _declared(game)
        if imperfect and not agent.plays_from_views:
            agent = for_imperfect_information(agent)  # as LocalPlayer does
        runner = AgentRunner(agent, random.Random(self.rng.random()))
        problem = await runner.start(game, msg.role, deadline - loop.time())
        if problem:
            log.warning("START %s: %s", msg.match_id, problem)
        await _warm_up(game, deadline - loop.time())
        record, state = await in_daemon_thread(
            lambda: (self._new_record(msg, game), game.initial_state())
        )
        match = _Match(msg.match_id, msg.role, game, state, runner, msg.play_clock, record,
                       heard=arrived + msg.start_clock, successor=successor)  # fmt: skip
        if imperfect:  # played from the view: no true state is ever kept
            match.view = match.state = RoleView(msg.role)
        self.current = match
        self._record(self.recorder.match_started, record)
        match.watcher = asyncio.create_task(self._end_when_silent(match))
        if _upgrade(match) is None:  # a late propnet's compile needs the core more
            await runner.ponder(game, match.state, msg.role, deadline - loop.time())
        return "ready"

    async def _load(
        self, msg: Start, deadline: float
    ) -> tuple[Game[Any], _DroppableLoad | None] | None:
        """The game of ``msg``'s rules by ``deadline``: the loader's, else the prover's,
        then with the loader's load going on as its successor; or None.

        The prover's load starts with the loader's, not after it gives up: it is cheap,
        but a core busy with the last match's leftovers can leave the event loop past
        the deadline by the time the loader is given up, and a player that answered
        ``busy`` loses every move of a match its manager plays all the same (ggp-base's
        does; docs/results.md, amazonsTorus in the sweep). A late loader is not dropped
        but kept: its propnet, compiling, takes over at a later move (dropped, every
        game whose propnet is not built within the start clock was played on the prover
        to its end: chess_200 in the sweep)."""
        loop = asyncio.get_running_loop()
        spare_load = _DroppableLoad(
            partial(self.fallback_loader, msg.rules, max(deadline - loop.time(), 0.0))
        )
        spare = asyncio.ensure_future(in_daemon_thread(spare_load))
        seconds = deadline - READY_RESERVE - loop.time()
        load = _DroppableLoad(partial(self.loader, msg.rules, seconds))
        try:
            game = await _ready(msg, load, in_daemon_thread(load), seconds)
            if game is not None:
                spare_load.drop()
                spare.cancel()
                return game, None
            fallback = await _ready(msg, spare_load, spare, deadline - loop.time())
            if fallback is None:
                load.drop()
                return None
            return fallback, load
        except _Unplayable as e:  # rules we cannot play: refuse the match, stay available
            load.drop()
            spare_load.drop()
            spare.cancel()
            log.warning("START %s refused: %s", msg.match_id, e.__cause__)
            return None

    def _new_record(self, msg: Start, game: Game[Any]) -> MatchRecord:
        record = MatchRecord(
            match_id=f"{msg.match_id}.{self.name}.{secrets.token_hex(3)}",
            game_name=game.name if game.name not in ("", "<START>") else rules_name(msg.rules),
            rules=msg.rules,
            roles=list(game.roles),
            start_clock=msg.start_clock,
            play_clock=msg.play_clock,
            player_names=[self.name if r == msg.role else "" for r in game.roles],
            is_human=[False for _ in game.roles],
            source="player",
            chance_role=_declared(game)[1],
        )
        record.add_state(facts_text(game.facts(game.initial_state())))  # known to every role
        return record

    async def _end_when_silent(self, match: _Match) -> None:
        """Abort ``match`` once the manager has said nothing about it for long (see
        :data:`ABANDONED_PLAY_CLOCKS`; a START of another match ends it sooner)."""
        loop = asyncio.get_running_loop()
        limit = max(ABANDONED_PLAY_CLOCKS * match.play_clock, ABANDONED_SECONDS)
        while self.current is match:
            wait = match.heard + limit - loop.time()
            if wait <= 0:
                log.warning("match %s: no message for %.0f s; ended as aborted",
                            match.match_id, limit)  # fmt: skip
                await self._end(match, aborted=True)
                return
            await asyncio.sleep(wait)

    def _advance(self, match: _Match, moves: tuple[Any, ...]) -> bool:
        """Apply the manager's joint move; False (state kept) if it cannot be applied."""
        try:
            match.state = match.game.next_state(match.state, list(moves))
        except (GameError, ValueError) as e:
            log.warning("match %s: cannot apply joint move %s: %s", match.match_id, moves, e)
            return False
        match.record.add_step(
            [str(m) for m in moves],
            ["" for _ in moves],
            facts_text(match.game.facts(match.state)),
        )
        self._record(self.recorder.step_played, match.record)
        return True

    async def _play(self, msg: Play, arrived: float) -> str:
        match = self.current
        if match is None or match.match_id != msg.match_id:
            return "busy"
        match.heard = arrived
        loop = asyncio.get_running_loop()
        deadline = arrived + match.play_clock - safety_margin(match.play_clock)
        moves = msg.moves
        game = match.game

        def apply_last_moves() -> bool:
            """Play the manager's joint move; whether the game is over after it."""
            if moves is not None:
                self._advance(match, moves)
            return game.is_terminal(match.state)

        if await in_daemon_thread(within_time_limit(match.play_clock, apply_last_moves)):
            return "noop"  # nothing is legal; the manager should have sent STOP
        await self._take_late_propnet(match, deadline)
        game = match.game
        ponder = _upgrade(match) is None  # a late propnet's compile needs the core more
        choice = await match.runner.select(
            game, match.state, match.role, deadline - loop.time(), ponder=ponder
        )
        if choice.problem:
            log.warning("match %s: %s; playing %s", match.match_id, choice.problem, choice.move)
        return str(choice.move)

    async def _take_late_propnet(self, match: _Match, deadline: float) -> None:
        """Move the match onto its late propnet (or the late load's engine) once built:
        the state by its facts, and the agent restarted on it, in a whole play clock
        where the player has no choice to make, else (after :data:`SWITCH_DEFER_LIMIT`
        moves) in half of one. An engine that cannot take the state is given up."""
        pending = _upgrade(match)
        twin = None if pending is None else pending.ready()
        if pending is None or twin is None:
            return
        loop = asyncio.get_running_loop()
        old, state = match.game, match.state
        free = False  # with a view, whether a move is forced is unknown
        if match.view is None:
            try:
                state = await in_daemon_thread(lambda: twin.state_from_facts(old.facts(state)))
            except GameError as e:
                log.warning("match %s: the late engine is given up: %s", match.match_id, e)
                pending.cancel()
                match.successor = None
                return
            free = len(await in_daemon_thread(lambda: twin.legal_moves(state, match.role))) == 1
        if not free and match.deferred < SWITCH_DEFER_LIMIT:
            match.deferred += 1
            return
        if match.view is not None:  # a view holds for any engine; its lines do not
            match.line, match.own_line, match.dead = None, None, DeadStates()
        seconds = deadline - loop.time()
        problem = await match.runner.start(twin, match.role, seconds if free else seconds / 2)
        match.game, match.state, match.successor = twin, state, None
        log.info("match %s: now on the %s built during the match", match.match_id,
                 twin.reasoner_name if isinstance(twin, GdlGame) else "native engine")  # fmt: skip
        if problem:
            log.warning("match %s: restarting on the faster engine: %s", match.match_id, problem)

    async def _stop(self, msg: Stop) -> str:
        match = self.current
        if match is None or match.match_id != msg.match_id:
            return "busy"
        moves = msg.moves
        game = match.game

        def finish() -> bool:
            if moves is not None and not game.is_terminal(match.state):
                self._advance(match, moves)
            if not game.is_terminal(match.state):
                return False
            goals = game.goals(match.state)
            match.record.finish([goals[r] for r in game.roles])
            return True

        try:
            completed = await in_daemon_thread(within_time_limit(match.play_clock, finish))
        except GgpkitError as e:  # rules that fail (or never end) on the last step
            log.warning("match %s: the last step failed: %s", match.match_id, e)
            completed = False
        await self._end(match, aborted=not completed)
        return "done"

    # ---- GDL-II: playing from the view ------------------------------------------------------

    async def _play_ii(self, msg: PlayII, arrived: float) -> str:
        """The agent's move for the role's view after this message's move and percepts;
        when it is late or fails, a move legal in a state the view allows."""
        match = self.current
        if match is None or match.match_id != msg.match_id:
            return "busy"
        match.heard = arrived
        loop = asyncio.get_running_loop()
        deadline = arrived + match.play_clock - safety_margin(match.play_clock)
        view = self._see(match, msg)
        await self._take_late_propnet(match, deadline)
        game = match.game
        walk = in_daemon_thread(
            within_time_limit(
                match.play_clock,
                partial(_walk_own_line, match, game, view, random.Random(self.rng.random())),
            )
        )
        with contextlib.suppress(Exception):  # late or failing: it walks on, or stays None
            await asyncio.wait_for(asyncio.shield(walk), OWN_LINE_SHARE * match.play_clock)
        asked = asyncio.ensure_future(
            match.runner.from_view(game, view, match.role, deadline - loop.time())
        )
        await asyncio.wait({asked}, timeout=max(deadline - loop.time(), 0) * AGENT_HEAD_START)
        if asked.done() and asked.exception() is None:
            return str(asked.result())
        until = time.perf_counter() + max(deadline - loop.time(), 0)
        fallback = in_daemon_thread(
            within_time_limit(
                match.play_clock,
                partial(_sampled_move, match, game, view, random.Random(self.rng.random()), until),
            )
        )
        try:
            return str(await asked)
        except PlayerFault as e:
            log.warning("match %s: %s; playing a move of a sampled state", match.match_id, e)
        try:
            wait = max(deadline - loop.time(), 0.05)
            move = await asyncio.wait_for(asyncio.shield(fallback), wait)
        except Exception as e:  # no sample in time (or the rules failed): a blind guess
            log.warning("match %s: no state sampled for the fallback: %s", match.match_id, e)
            move = None
        if move is None:
            until = time.perf_counter() + BLIND_MARGIN_SHARE * safety_margin(match.play_clock)
            move = _blind_move(match, game, view, until)
        return str(move)

    def _see(self, match: _Match, msg: PlayII | StopII) -> RoleView:
        """The match's view with ``msg``'s move and percepts added (and recorded).

        ProtocolError when the message's turn does not follow the view's: a step the
        player was not told of cannot be made up, and a view without it is wrong.
        """
        view = match.view
        assert view is not None, "a GDL-II message for a GDL-II match"
        expected = 0 if msg.turn == 0 else view.turn + 1
        if msg.turn != expected or (msg.turn == 0 and view.turn != 0):
            raise ProtocolError(
                _message_text(msg),
                f"turn {msg.turn} does not follow the {view.turn} joint moves seen so far",
            )
        if msg.move is None or msg.percepts is None:
            return view
        view = view.then(msg.move, frozenset(msg.percepts))
        match.view = match.state = view
        roles, role = match.game.roles, match.role
        seen = sorted(str(p) for p in msg.percepts)
        match.record.add_step(
            [str(msg.move) if r == role else "" for r in roles],
            ["" for _ in roles],
            UNKNOWN_STATE,
            None,
            [seen if r == role else [] for r in roles],
        )
        self._record(self.recorder.step_played, match.record)
        return view

    async def _stop_ii(self, msg: StopII) -> str:
        """The match is over: the last step goes into the view and the record, which keeps
        no goals (they are the true state's, which the player does not know)."""
        match = self.current
        if match is None or match.match_id != msg.match_id:
            return "busy"
        try:
            self._see(match, msg)
        except ProtocolError as e:
            log.warning("match %s: %s", match.match_id, e.reason)
            await self._end(match, aborted=True)
            raise
        match.record.is_completed = True
        await self._end(match, aborted=False)
        return "done"

    async def _abort(self, msg: Abort) -> str:
        match = self.current
        if match is None or match.match_id != msg.match_id:
            return "busy"
        await self._end(match, aborted=True)
        return "aborted"

    async def _end(self, match: _Match, aborted: bool) -> None:
        """Free the player of ``match`` and record how it ended."""
        if self.current is not match:
            return
        self.current = None
        for pending in (pending_propnet(match.game), match.successor):
            if pending is not None:
                pending.cancel()
        match.record.is_aborted = aborted
        self._record(self.recorder.match_ended, match.record)
        await match.runner.stop()

    def _record(self, method: Callable[[MatchRecord], None], record: MatchRecord) -> None:
        """Report to the recorder; a failing store must never cost a move."""
        try:
            method(record)
        except Exception as e:
            log.error("recording match %s failed: %s", record.match_id, e)


def _declared(game: Game[Any]) -> tuple[bool, str | None]:
    """Whether ``game`` is of imperfect information, and its chance role, as its rules
    declare them: START must not read a GDL game's ``info``, which it probes on first
    access by random playouts (seconds on rules that do not ground; on the event loop
    they stalled every deadline of the START, docs/results.md: checkers-mustjump-torus
    in the sweep). The agent's metagaming, in its thread and on its clock, probes it."""
    if isinstance(game, GdlGame):
        return game.information is Information.IMPERFECT, game.chance_role
    return game.info.imperfect, game.info.chance_role


def _upgrade(match: _Match) -> PendingPropnet[GdlGame] | _DroppableLoad | None:
    """What the match will move onto once it is ready: its game's late propnet, else the
    load that was late for START; None where nothing is coming."""
    pending = pending_propnet(match.game)
    if pending is not None:
        return pending
    successor = match.successor
    return None if successor is None or successor.failed else successor


class _Unplayable(Exception):
    """A START's rules failed to load or lack its role (the cause is the loader's error)."""


async def _ready(
    msg: Start, load: _DroppableLoad, running: Awaitable[Game[Any]], seconds: float
) -> Game[Any] | None:
    """The game ``running`` loads if it is ready within ``seconds`` and has ``msg``'s role;
    None when it is late (the load goes on: the caller keeps or drops it);
    :class:`_Unplayable` when it failed."""
    try:
        game = await asyncio.wait_for(running, max(seconds, 0.0))
        game.role_index(msg.role)
        return game
    except TimeoutError:
        log.warning("START %s: rules not loaded in %.1f s", msg.match_id, seconds)
        return None
    except Exception as e:
        load.drop()
        raise _Unplayable from e


def _message_text(message: Play | Stop | PlayII | StopII) -> str:
    """A PLAY or STOP printed back (for the errors that name the message)."""
    if isinstance(message, Play | Stop):
        fmt = format_play if isinstance(message, Play) else format_stop
        return fmt(message.match_id, message.moves)
    fmt_ii = format_play_ii if isinstance(message, PlayII) else format_stop_ii
    return fmt_ii(message.match_id, message.turn, message.move, message.percepts)


def _silent(match: _Match, now: float) -> bool:
    """Whether ``match`` has been silent long enough to give way to another START."""
    return now - match.heard > SILENT_PLAY_CLOCKS * match.play_clock


def _sampled_move(
    match: _Match, game: Game[Any], view: RoleView, rng: random.Random, until: float
) -> Term | None:
    """A move legal in a state ``view`` allows: the last state of a history sampled by
    extending the one of the last turn, before ``until`` (``time.perf_counter()``) less
    :data:`BLIND_SHARE` of the time; else one legal in the last state of a line that
    heeds the role's own moves (:attr:`_Match.own_line`, walked again where it does not
    reach the turn); None when no walk found a state. What it finds is kept only while
    the turn is still the match's: an agent that answered late leaves this walk running
    into the next turn, whose lines it must not replace."""
    own = match.game is game  # else the engine was switched: its states are of another kind
    dead, start = (match.dead, match.line) if own else (DeadStates(), None)
    now = time.perf_counter()
    heeding = until - BLIND_SHARE * max(until - now, 0)
    line = sample_history(game, view, rng, FALLBACK_BUDGET, start=start, dead=dead,
                          deadline=heeding)  # fmt: skip
    if line is not None:
        if own and match.view is view:
            match.line = match.own_line = line
        return _move_in(game, line, match.role, rng)
    own_line = match.own_line if own else None
    if not _reaches(own_line, view):
        own_line = _greedy_on(game, view, rng, own_line, until)
    if not _reaches(own_line, view):
        own_line = _deaf_line(game, view, rng, start, until)
    if own_line is not None and own and match.view is view:
        match.own_line = own_line  # never None: a walk on its way is not lost
    return None if own_line is None else _move_in(game, own_line, match.role, rng)


def _greedy_on(
    game: Game[Any], view: RoleView, rng: random.Random, line: History | None, until: float
) -> History | None:
    """``line`` (:attr:`_Match.own_line`, often a step or two short of the turn: its walk
    has a small share of each turn) walked on greedily to ``view``'s turn before
    ``until``; None where it cannot be (no line, the role's move not legal on the way,
    or out of time). A step led by the percepts beats a random one: the hand nature
    dealt decides which buys are legal next turn."""
    if line is None:
        return None
    walked = greedy_history(game, view, rng, Hypothesis(line), until)
    return walked.line if walked is not None and _reaches(walked.line, view) else None


def _walk_own_line(match: _Match, game: Game[Any], view: RoleView, rng: random.Random) -> None:
    """:attr:`_Match.own_line` walked on to ``view``'s turn without backing up
    (:func:`~ggpkit.games.sampling.greedy_history`: each step by the role's own move and
    the joint move that gives its percepts, where one of the first few does, else the
    nearest), from the last history of the whole view where the line was lost. Where
    that walk cannot go on (the role's move is not legal in the line's state, or the
    line is over: a cell the role cleared was a mine there), a walk deaf to the
    percepts that backs up. Each walk has at most :data:`OWN_LINE_SHARE` of the clock; a
    greedy walk out of time is kept as far as it went, and the next turn's goes on."""
    share = OWN_LINE_SHARE * match.play_clock
    line = match.own_line or match.line or (game.initial_state(),)
    walked = greedy_history(game, view, rng, Hypothesis(line), time.perf_counter() + share)
    found = None if walked is None else walked.line
    late = found is not None and not _reaches(found, view)  # kept: the next walk goes on
    if not late and (found is None or game.is_terminal(found[-1])):
        found = _deaf_line(game, view, rng, match.line, time.perf_counter() + share)
    if match.game is game and match.view is view:
        match.own_line = found


def _deaf_line(
    game: Game[Any], view: RoleView, rng: random.Random, start: History | None, until: float
) -> History | None:
    """A line that gives the role its own moves, whatever it perceived, from ``start``
    (backing up as far as it takes) before ``until``, to a state where the match goes
    on (the role is asked to move: a line where its last cleared cell was a mine is
    not the truth); None where none was found."""
    while time.perf_counter() < until:
        line = sample_history(game, view, rng, FALLBACK_BUDGET, start=start,
                              use_percepts=False, deadline=until)  # fmt: skip
        if line is None or not game.is_terminal(line[-1]):
            return line
    return None


def _reaches(line: History | None, view: RoleView) -> bool:
    """Whether ``line`` ends at ``view``'s turn."""
    return line is not None and len(line) == view.turn + 1


def _move_in(game: Game[Any], line: History, role: str, rng: random.Random) -> Term | None:
    """A random move of ``role`` legal in ``line``'s last state (None where it is over)."""
    if game.is_terminal(line[-1]):
        return None
    return rng.choice(game.legal_moves(line[-1], role))


def _blind_move(match: _Match, game: Game[Any], view: RoleView, until: float) -> Term:
    """The last resort of a GDL-II turn without any sampled state: a move legal at the
    end of a quick walk from the longest line the server holds (:attr:`_Match.own_line`,
    else :attr:`_Match.line`, else the initial state) on by the role's own moves since,
    every other role playing a random legal move and the percepts not heeded (no
    search: up to :data:`BLIND_WALKS` tries from each line, none backing up, until
    ``until``, a ``perf_counter`` time, inside the clock's safety margin). Its state may
    be wrong about what the role perceived, but is right about what it did (a cell it
    cleared is not cleared again), which its last move again, the resort where every
    walk ends the game or breaks the role's moves, is not."""
    rng = random.Random(view.turn)
    held = (match.own_line, match.line) if match.game is game else ()
    lines = [line for line in held if line is not None and len(line) <= view.turn + 1]
    for line in [*lines, (game.initial_state(),)]:
        for _ in range(BLIND_WALKS):
            with contextlib.suppress(Exception):  # rules that fail on a line that broke them
                state = _walked_blind(game, line, view, rng, until)
                moves = game.legal_moves(state, match.role)
                if moves:
                    return rng.choice(moves)
    if view.last_move is not None:
        return view.last_move
    return game.legal_moves(game.initial_state(), match.role)[0]


def _walked_blind(
    game: Game[Any], line: History, view: RoleView, rng: random.Random, until: float
) -> Hashable:
    """The last state of ``line`` walked on to ``view``'s turn by the role's moves of the
    view and random legal moves of the other roles (IllegalMoveError where the role's
    move is not legal on the way, IndexError where another role has none, TimeoutError
    past ``until``)."""
    state = line[-1]
    for step in range(len(line) - 1, view.turn):
        if time.perf_counter() > until:
            raise TimeoutError("the last resort's walk is out of time")
        joint = [
            view.moves[step] if other == view.role else rng.choice(game.legal_moves(state, other))
            for other in game.roles
        ]
        state = game.next_state(state, joint)
    return state


async def _warm_up(game: Game[Any], seconds: float) -> None:
    """One playout within the start clock, so compiled kernels are ready before the first PLAY.

    Native games compile their playout kernels on first use; doing that during
    START keeps the first move inside the play clock.
    """
    if seconds <= 0:
        return
    with contextlib.suppress(Exception):
        await asyncio.wait_for(
            in_daemon_thread(lambda: game.playout_stats(game.initial_state(), 1, 0)), seconds
        )


# ---- HTTP ------------------------------------------------------------------------------------

CORS_HEADERS = (
    (b"Access-Control-Allow-Origin", b"*"),
    (b"Access-Control-Allow-Methods", b"POST, GET, OPTIONS"),
    (b"Access-Control-Allow-Headers", b"Content-Type"),
    (b"Access-Control-Allow-Age", b"86400"),
)


class AclResponse(Response):
    """A ``text/acl`` reply with ggp-base's headers, in its order, with its values.

    Starlette would lower-case header names and add ``; charset=utf-8``; GGP
    clients compare the content type's value literally, so the raw headers are set
    here. ggp-base's own player spells the names ``Content-type`` and
    ``Content-length``; HTTP compares names without case, and ggp-base's manager reads
    these (``tests/match/test_conformance.py``).
    """

    def __init__(self, body: str, status_code: int = 200) -> None:
        super().__init__(content=body.encode("utf-8"), status_code=status_code)
        self.raw_headers = [
            (b"Content-Type", b"text/acl"),
            (b"Content-Length", str(len(self.body)).encode("ascii")),
            *CORS_HEADERS,
        ]


def _message_of(request: Request) -> str:
    if request.method == "GET":
        raw = request.scope.get("raw_path") or request.scope["path"].encode("utf-8")
        query = request.scope.get("query_string", b"")
        text = raw.decode("latin-1").lstrip("/")
        if query:
            text += "?" + query.decode("latin-1")
        return unquote_plus(text, encoding="utf-8", errors="replace")
    return ""


async def _read_capped(request: Request) -> bytes | None:
    """The POST body, or None once it is longer than its kind of message may be.

    Only START may carry more than :data:`MAX_MESSAGE_BYTES` (its rules); the kind
    is read from the first bytes, so an oversized message is refused while it
    streams in, before it is parsed or even read whole.
    """
    chunks: list[bytes] = []
    size = 0
    limit = MAX_MESSAGE_BYTES
    async for chunk in request.stream():
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_MESSAGE_BYTES and limit == MAX_MESSAGE_BYTES:
            head = message_head(b"".join(chunks)[:1000].decode("utf-8", errors="replace"))
            limit = MAX_START_BYTES if head is not None and head[0] == "START" else limit
        if size > limit:
            return None
    return b"".join(chunks)


def make_app(service: PlayerService) -> Starlette:
    """The ASGI app serving ``service``: every path, POST/GET/OPTIONS."""

    async def endpoint(request: Request) -> Response:
        arrived = asyncio.get_running_loop().time()
        if request.method == "OPTIONS":
            return AclResponse("")
        if request.method == "POST":
            body = await _read_capped(request)
            if body is None:
                return AclResponse("message too large", status_code=413)
            text = body.decode("utf-8", errors="replace")
        else:
            text = _message_of(request)
            if len(text) > MAX_MESSAGE_BYTES:
                return AclResponse("message too large", status_code=413)
        if not text.strip():
            text = "(INFO)"  # a browser opening the player's page
        try:
            reply = await service.handle_text(text, arrived)
        except ProtocolError as e:
            log.warning("%s", e)
            return AclResponse(str(e), status_code=400)
        except Exception as e:  # an agent or engine bug: report, keep serving
            log.exception("internal error on %r", text[:80])
            return AclResponse(f"internal error: {type(e).__name__}", status_code=500)
        return AclResponse(reply)

    routes = [Route("/{path:path}", endpoint, methods=["GET", "POST", "OPTIONS"])]
    return Starlette(routes=routes)


class GgpH11Protocol(H11Protocol):
    """uvicorn's HTTP/1 protocol, plus POST bodies without Content-Length read to end of stream.

    ggp-base's reader accepts a POST with no Content-Length whose body ends where
    the client half-closes the connection; plain HTTP/1.1 would read an empty
    body. Such a request is held back until EOF, then given its Content-Length.
    """

    _head: bytes = b""
    _held: bytes | None = None
    _passing: bool = False
    _eof: bool = False

    def data_received(self, data: bytes) -> None:
        if self._passing:
            super().data_received(data)
            return
        if self._held is not None:
            self._held += data
            return
        self._head += data
        end = self._head.find(b"\r\n\r\n")
        if end < 0 and len(self._head) < 65536:
            return
        head, self._head = self._head, b""
        if end >= 0 and _needs_eof_body(head[:end]):
            self._held = head
            return
        self._passing = True
        super().data_received(head)

    def eof_received(self) -> bool | None:  # type: ignore[override]
        """The client half-closed: finish a held request, and answer whatever is in flight."""
        self._eof = True
        if self._held is not None:
            held, self._held = self._held, None
            end = held.find(b"\r\n\r\n")
            body = held[end + 4 :]
            fixed = held[:end] + b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n"
            self._passing = True
            super().data_received(fixed + body)
            return True  # keep the connection open to write the reply
        if self._head:  # an unfinished request head: there is nothing to answer
            self._head = b""
            return None
        if self._passing and self.cycle is not None and not self.cycle.response_complete:
            return True  # a complete request, then a half-close: the reply is still owed
        return None

    def on_response_complete(self) -> None:
        self._passing = False
        super().on_response_complete()
        if self._eof and not self.transport.is_closing():
            self.transport.close()


def _needs_eof_body(head: bytes) -> bool:
    lines = head.split(b"\r\n")
    if not lines[0].upper().startswith(b"POST "):
        return False
    names = {line.split(b":", 1)[0].strip().lower() for line in lines[1:] if b":" in line}
    return b"content-length" not in names and b"transfer-encoding" not in names


SHUTDOWN_SECONDS = 1
"""On SIGTERM or Ctrl-C, requests still running after this long are cancelled (an
agent thinking does not hold the shutdown; see ``ggpkit.processes``)."""


def server_config(
    app: Starlette, host: str, port: int, log_level: str = "warning"
) -> uvicorn.Config:
    """uvicorn settings for a player: our HTTP protocol, no Server/Date headers.

    The event loop is asyncio's always: uvicorn takes uvloop wherever it is installed
    (the ``[learn]`` extra brings it), and on uvloop a client that sends two messages on
    one connection and half-closes got one answer, not two."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=GgpH11Protocol,
        loop="asyncio",  # not uvloop where some extra installs it: see the docstring
        log_level=log_level,
        server_header=False,
        date_header=False,
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=SHUTDOWN_SECONDS,
    )


def serve(service: PlayerService, host: str = "127.0.0.1", port: int = 9147) -> None:
    """Serve ``service`` until interrupted."""
    uvicorn.Server(server_config(make_app(service), host, port)).run()
