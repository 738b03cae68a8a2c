"""Shared pieces of the match tests: a tiny game (GDL text and a native twin), scrambling,
simple agents, player servers on free loopback ports, raw HTTP players that misbehave on
purpose, and a ggp-base style match record."""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable, Sequence
from typing import Any

import uvicorn

from ggpkit.agents.base import Agent, Limit
from ggpkit.games.api import Dynamics, Game, GameInfo, Utility
from ggpkit.gdl.terms import Const, Func, Term
from ggpkit.match.player_server import PlayerService, make_app, server_config
from ggpkit.match.records import MatchRecord

# Two players add 1 or 2 to a counter in turn; whoever reaches 4 or more wins.
TINY_GDL = """
(role white) (role black)
(init (count 0)) (init (control white))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
(<= (legal ?r (add 1)) (true (control ?r)))
(<= (legal ?r (add 2)) (true (control ?r)))
(<= (legal white noop) (true (control black)))
(<= (legal black noop) (true (control white)))
(<= (next (count ?y)) (does ?r (add 1)) (true (count ?x)) (succ ?x ?y))
(<= (next (count ?z)) (does ?r (add 2)) (true (count ?x)) (succ ?x ?y) (succ ?y ?z))
(<= (next (control black)) (true (control white)))
(<= (next (control white)) (true (control black)))
(<= terminal (true (count 4)))
(<= terminal (true (count 5)))
(<= (goal ?r 100) (role ?r) (true (control ?s)) (distinct ?r ?s) terminal)
(<= (goal ?r 0) (true (control ?r)) terminal)
(<= (goal ?r 50) (role ?r) (not terminal))
"""

_KEYWORDS = {"role", "init", "true", "does", "next", "legal", "goal", "terminal", "distinct",
             "not", "or", "base", "input", "<="}  # fmt: skip


def scramble_map(text: str) -> dict[str, str]:
    """A ggp-base style renaming of every non-keyword, non-number symbol of ``text``."""
    names: dict[str, str] = {}
    for token in re.findall(r"[^\s()]+", text):
        if token.lower() in _KEYWORDS or token.startswith("?") or token.isdigit():
            continue
        names.setdefault(token, f"Sym{len(names) * 7 + 13}x")
    return names


def scramble(text: str, names: dict[str, str]) -> str:
    return re.sub(r"[^\s()]+", lambda m: names.get(m.group(), m.group()), text)


class TinyGame(Game[tuple[int, int]]):
    """The native twin of TINY_GDL, under any renaming of its symbols.

    ``target`` other than 4 gives a longer game (no GDL twin) for tests that need many steps.
    """

    def __init__(self, names: dict[str, str] | None = None, target: int = 4) -> None:
        n = names or {}
        self.target = target
        self.sym = {k: n.get(k, k) for k in ("white", "black", "count", "control", "add", "noop")}
        self.name = "tiny"
        self.description = "count to four"
        self.roles = (self.sym["white"], self.sym["black"])
        self.info = GameInfo(Dynamics.TURN_TAKING, Utility.ZERO_SUM)

    def initial_state(self) -> tuple[int, int]:
        return (0, 0)

    def _legal(self, state: tuple[int, int], role_index: int) -> list[Term]:
        if role_index != state[1]:
            return [Const(self.sym["noop"])]
        return [Func(self.sym["add"], (Const("1"),)), Func(self.sym["add"], (Const("2"),))]

    def _next(self, state: tuple[int, int], moves: Sequence[Term]) -> tuple[int, int]:
        move = moves[state[1]]
        assert isinstance(move, Func)
        return (state[0] + int(move.args[0].name), 1 - state[1])

    def is_terminal(self, state: tuple[int, int]) -> bool:
        return state[0] >= self.target

    def goals(self, state: tuple[int, int]) -> dict[str, int]:
        if not self.is_terminal(state):
            return {r: 50 for r in self.roles}
        winner = 1 - state[1]
        return {r: 100 if i == winner else 0 for i, r in enumerate(self.roles)}

    def facts(self, state: tuple[int, int]) -> frozenset[Term]:
        return frozenset(
            {
                Func(self.sym["count"], (Const(str(state[0])),)),
                Func(self.sym["control"], (Const(self.roles[state[1]]),)),
            }
        )


def stub_loader(rules: str, seconds: float = 0.0) -> Game[Any]:
    """A loader for TINY_GDL under any scrambling: recovers the renaming by aligning tokens."""
    original = re.findall(r"[^\s()]+", TINY_GDL)
    received = re.findall(r"[^\s()]+", rules)
    if len(original) != len(received):
        raise ValueError("not the tiny game")
    return TinyGame(dict(zip(original, received, strict=True)))


class FirstAgent(Agent):
    """Always the first legal move: deterministic, so a match's moves are predictable."""

    name = "first"

    def __init__(self) -> None:
        self.started: list[str] = []
        self.stopped = 0

    def start(self, game: Game[Any], role: str) -> None:
        self.started.append(role)

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        return game.legal_moves(state, role)[0]

    def stop(self) -> None:
        self.stopped += 1


class LastAgent(FirstAgent):
    name = "last"

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        return game.legal_moves(state, role)[-1]


class RecordingAgent(FirstAgent):
    """The first legal move, keeping every state it is asked about and the time it is given."""

    name = "recording"

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[tuple[Hashable, float | None]] = []

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        self.asked.append((state, limit.time))
        return super().select(game, state, role, limit)


class PonderingAgent(RecordingAgent):
    """A recording agent that asks to think where it has no choice (see Agent.ponders)."""

    name = "pondering"
    ponders = True


class SleepyAgent(FirstAgent):
    """Thinks far longer than any clock."""

    name = "sleepy"

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        time.sleep(5)
        return game.legal_moves(state, role)[-1]


class CrashingAgent(FirstAgent):
    name = "crash"

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        raise RuntimeError("agent bug")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerThread:
    """A player server (uvicorn) in a daemon thread on a free loopback port."""

    def __init__(self, service: PlayerService) -> None:
        self.service = service
        self.port = free_port()
        self.server = uvicorn.Server(
            server_config(make_app(service), "127.0.0.1", self.port, "critical")
        )
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("player server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(5)


class ListRecorder:
    """A recorder that keeps what it was told, for assertions."""

    def __init__(self) -> None:
        self.events: list[tuple[str, int]] = []
        self.records: list[MatchRecord] = []

    def match_started(self, record: MatchRecord) -> None:
        self.events.append(("started", record.steps))
        self.records.append(record)

    def step_played(self, record: MatchRecord) -> None:
        self.events.append(("step", record.steps))

    def match_ended(self, record: MatchRecord) -> None:
        self.events.append(("ended", record.steps))


# ---- raw HTTP players, in the test's event loop ---------------------------------------------


async def read_request(reader: asyncio.StreamReader) -> str:
    """The body of one HTTP request (the GGP message), by its Content-Length."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.decode("latin-1").split("\r\n"):
        if line.lower().startswith("content-length:"):
            length = int(line.split(":", 1)[1])
    return (await reader.readexactly(length)).decode()


def http_reply(body: str | bytes, status: str = "200 OK") -> bytes:
    """A whole HTTP/1.0 response with Content-Length."""
    data = body.encode() if isinstance(body, str) else body
    head = f"HTTP/1.0 {status}\r\nContent-Type: text/acl\r\nContent-Length: {len(data)}\r\n\r\n"
    return head.encode() + data


def keyword(message: str) -> str:
    """A message's keyword, upper-case: ``INFO``, ``START``, ``PLAY``..."""
    found = re.match(r"\s*\(\s*([^\s()]+)", message)
    return found.group(1).upper() if found else ""


def good_reply(message: str) -> str:
    """What a well-behaved player of the tiny game answers (``(add 1)`` is legal whenever
    the role has a choice)."""
    return {
        "INFO": "((name raw) (status available))",
        "START": "ready",
        "PLAY": "(add 1)",
        "STOP": "done",
        "ABORT": "aborted",
    }.get(keyword(message), "busy")


RawHandler = Callable[[str, asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@contextlib.asynccontextmanager
async def raw_player(handler: RawHandler) -> AsyncIterator[str]:
    """A player speaking raw HTTP on a free loopback port; its URL.

    ``handler`` gets each message and the connection, and writes whatever it likes
    (or nothing); the connection is closed after it returns.
    """

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await handler(await read_request(reader), reader, writer)
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.close()


async def until_closed(reader: asyncio.StreamReader, seconds: float = 30.0) -> None:
    """Wait for the referee to close the connection (a hanging player), at most ``seconds``."""
    with contextlib.suppress(TimeoutError, ConnectionError):
        async with asyncio.timeout(seconds):
            while await reader.read(65536):
                pass


# ---- a ggp-base record ------------------------------------------------------------------------

# The shape of a ggp-base record (Tiltyard style); ggp-base writes no rules, ggpkit adds
# them as gameRulesheet.
GGP_BASE_RECORD: dict[str, Any] = {
    "matchId": "Base.tiny.1",
    "randomToken": "abc",
    "startTime": 1400000000000,
    "gameMetaURL": "http://games.ggp.org/base/games/tiny/v0/",
    "isCompleted": True,
    "isAborted": False,
    "states": [
        "( ( count 0 ) ( control white ) )",
        "( ( count 2 ) ( control black ) )",
        "( ( count 4 ) ( control white ) )",
    ],
    "moves": [["( add 2 )", "noop"], ["noop", "( add 2 )"]],
    "stateTimes": [1400000000000, 1400000001000, 1400000002000],
    "errors": [["", ""], ["", "TO"]],
    "goalValues": [0, 100],
    "previewClock": -1,
    "startClock": 30,
    "playClock": 15,
    "playerNamesFromHost": ["a", "b"],
    "isPlayerHuman": [False, False],
    "scrambled": False,
    "gameRulesheet": TINY_GDL,
}
