"""The referee against ggpkit player servers and against faulty players, over loopback."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from ggpkit.match.clock import Clocks
from ggpkit.match.player_server import PlayerService
from ggpkit.match.players import HttpPlayer, LocalPlayer, Player
from ggpkit.match.records import MatchRecord
from ggpkit.match.referee import Referee, StepEvent
from match.support import (
    TINY_GDL,
    CrashingAgent,
    FirstAgent,
    LastAgent,
    ListRecorder,
    ServerThread,
    SleepyAgent,
    TinyGame,
    free_port,
    good_reply,
    http_reply,
    keyword,
    raw_player,
    stub_loader,
)


def replay_ok(record: MatchRecord, game: TinyGame) -> None:
    """The recorded states are exactly those the recorded moves lead to."""
    from ggpkit.gdl.terms import facts_text

    state = game.initial_state()
    assert record.states[0] == facts_text(game.facts(state))
    for moves, after in zip(record.moves, record.states[1:], strict=True):
        state = game.next_state(state, moves)
        assert after == facts_text(game.facts(state))
    assert game.is_terminal(state)
    assert record.goal_values == [game.goals(state)[r] for r in game.roles]


def test_referee_against_two_player_servers() -> None:
    game = TinyGame()
    white_view, black_view = ListRecorder(), ListRecorder()
    white = PlayerService(FirstAgent, name="w", loader=stub_loader, recorder=white_view)
    black = PlayerService(LastAgent, name="b", loader=stub_loader, recorder=black_view)
    events: list[StepEvent] = []
    referee_view = ListRecorder()
    with ServerThread(white) as ws, ServerThread(black) as bs:
        players: list[Player] = [HttpPlayer(ws.url, "w"), HttpPlayer(bs.url, "b")]
        referee = Referee(
            game, TINY_GDL, players, Clocks(5, 2), referee_view, events.append, seed=3
        )
        record = asyncio.run(referee.run())
    # white adds 1, black adds 2, white adds 1: 4 reached by white.
    assert record.moves == [["(add 1)", "noop"], ["noop", "(add 2)"], ["(add 1)", "noop"]]
    assert record.errors == [["", ""]] * 3
    assert record.goal_values == [100, 0]
    assert record.is_completed and not record.is_aborted
    replay_ok(record, game)
    assert [e.step for e in events] == [0, 1, 2, 3]
    assert referee_view.events == [
        ("started", 0),
        ("step", 1),
        ("step", 2),
        ("step", 3),
        ("ended", 3),
    ]
    # Each player server recorded the same match from its side, and is free again.
    for view in (white_view, black_view):
        seen = view.records[0]
        assert seen.match_id.startswith(record.match_id + ".")  # its own record, same match
        assert seen.moves == record.moves and seen.states == record.states
        assert seen.goal_values == [100, 0]
    assert white.current is None and black.current is None


# ---- faulty remote players --------------------------------------------------------------------


@contextlib.asynccontextmanager
async def faulty_player(mode: str) -> AsyncIterator[str]:
    """A raw player that answers START/STOP properly and every PLAY with the fault ``mode``."""

    async def handle(
        message: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        if keyword(message) != "PLAY":
            writer.write(http_reply(good_reply(message)))
        elif mode == "slow":
            await asyncio.sleep(4)
            writer.write(http_reply("(add 1)"))
        elif mode == "garbage":
            writer.write(http_reply("%%% ((("))
        elif mode == "illegal":
            writer.write(http_reply("(add 7)"))
        elif mode == "http500":
            writer.write(http_reply("oops", "500 Internal Server Error"))
        elif mode == "half-reply":
            writer.write(b"HTTP/1.0 200 OK\r\nContent-Length: 50\r\n\r\n(add")
        # "disconnect": close without a word

    async with raw_player(handle) as url:
        yield url


FAULTS = [
    ("slow", "TO"),
    ("garbage", "IL %%% ((("),
    ("illegal", "IL (add 7)"),
    ("http500", "CE"),
    ("disconnect", "CE"),
    ("half-reply", "CE"),
]


@pytest.mark.parametrize(("mode", "code"), FAULTS)
def test_faulty_remote_player_is_replaced_and_recorded(mode: str, code: str) -> None:
    game = TinyGame()

    async def run() -> MatchRecord:
        async with faulty_player(mode) as url:
            players: list[Player] = [HttpPlayer(url, "faulty"), LocalPlayer(LastAgent())]
            return await Referee(game, TINY_GDL, players, Clocks(2, 1), seed=5).run()

    record = asyncio.run(run())
    assert record.is_completed
    assert sorted(record.goal_values or []) == [0, 100]
    # The faulty player is white: its error is recorded on every step it had a real choice.
    assert record.errors[0][0] == code
    assert all(e[1] == "" for e in record.errors)
    replay_ok(record, game)


def test_unreachable_player_is_a_connection_error() -> None:
    game = TinyGame()
    url = f"http://127.0.0.1:{free_port()}/"  # nothing listens there
    players: list[Player] = [LocalPlayer(FirstAgent()), HttpPlayer(url)]
    record = asyncio.run(Referee(game, TINY_GDL, players, Clocks(1, 1), seed=2).run())
    assert record.is_completed
    # Black is asked only when it has a choice (odd steps); a lone noop is never asked for.
    # Its failed START is its error of the first step.
    assert [e[1] for e in record.errors] == [
        "" if i % 2 == 0 and i > 0 else "CE" for i in range(record.steps)
    ]
    assert any(e[1] == "CE" for e in record.errors)
    replay_ok(record, game)


@pytest.mark.parametrize(("agent", "code"), [(SleepyAgent, "TO"), (CrashingAgent, "CE")])
def test_faulty_local_agent_under_the_same_clock(agent: type[FirstAgent], code: str) -> None:
    game = TinyGame()
    players: list[Player] = [LocalPlayer(agent()), LocalPlayer(FirstAgent())]
    record = asyncio.run(Referee(game, TINY_GDL, players, Clocks(1, 1), seed=4).run())
    assert record.is_completed
    assert record.errors[0] == [code, ""]
    replay_ok(record, game)


def test_wrong_number_of_players_is_refused() -> None:
    from ggpkit.games.api import GameError

    with pytest.raises(GameError, match="2 roles"):
        Referee(TinyGame(), TINY_GDL, [LocalPlayer(FirstAgent())], Clocks(1, 1))


# ---- scrambled names, real GDL engines on both sides -------------------------------------------


def test_scrambled_match_between_gdl_player_servers() -> None:
    """The players see only scrambled names; the referee records the real ones."""
    from ggpkit.games.registry import load_kif
    from ggpkit.match.scramble import Scrambler

    game = load_kif(TINY_GDL, "tiny")
    scrambler = Scrambler(TINY_GDL, seed=11)
    views = [ListRecorder(), ListRecorder()]
    services = [
        PlayerService(FirstAgent, name="w", recorder=views[0]),
        PlayerService(LastAgent, name="b", recorder=views[1]),
    ]
    with ServerThread(services[0]) as ws, ServerThread(services[1]) as bs:
        players: list[Player] = [
            HttpPlayer(ws.url, "w", scrambler),
            HttpPlayer(bs.url, "b", scrambler),
        ]
        record = asyncio.run(Referee(game, TINY_GDL, players, Clocks(20, 3)).run())
    assert record.moves == [["(add 1)", "noop"], ["noop", "(add 2)"], ["(add 1)", "noop"]]
    assert record.errors == [["", ""]] * 3 and record.goal_values == [100, 0]
    seen = views[0].records[0]
    add, noop = scrambler.name("add"), scrambler.name("noop")
    assert add != "add" and seen.moves[0] == [f"({add} 1)", noop]
    assert "white" not in seen.rules and "count" not in seen.rules
    assert seen.goal_values == [100, 0]


GAMES_DIR = Path(
    os.environ.get("GGPKIT_GAMES_DIR")
    or Path(__file__).resolve().parents[2] / ".." / "shared" / "ggp-games"
)


def test_tic_tac_toe_from_the_shared_games_over_http() -> None:
    """A real GGP game, scrambled, between an MCTS player server and a random one."""
    path = GAMES_DIR / "ticTacToe.kif"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    from ggpkit.agents.specs import make_agent
    from ggpkit.games.registry import load
    from ggpkit.match.protocol import strip_comments
    from ggpkit.match.scramble import Scrambler

    rules = strip_comments(path.read_text(encoding="utf-8"))
    game = load(str(path))
    scrambler = Scrambler(rules, seed=5)
    services = [
        PlayerService(lambda: make_agent("mcts:playouts=200", seed=1), name="mcts"),
        PlayerService(lambda: make_agent("random", seed=2), name="random"),
    ]
    with ServerThread(services[0]) as a, ServerThread(services[1]) as b:
        players: list[Player] = [
            HttpPlayer(a.url, "a", scrambler),
            HttpPlayer(b.url, "b", scrambler),
        ]
        record = asyncio.run(Referee(game, rules, players, Clocks(20, 3), seed=1).run())
    assert record.is_completed and sum(record.goal_values or []) == 100
    assert all(e == ["", ""] for e in record.errors)


def test_a_match_past_its_step_limit_is_aborted_and_the_players_told() -> None:
    game = TinyGame()
    aborted: list[str] = []

    class Told(LocalPlayer):
        async def abort(self, match_id: str) -> None:
            aborted.append(match_id)

    players: list[Player] = [Told(FirstAgent()), Told(FirstAgent())]
    record = asyncio.run(Referee(game, TINY_GDL, players, Clocks(1, 1), max_steps=2).run())
    assert record.is_aborted and not record.is_completed
    assert record.steps == 2 and not record.goal_values
    assert aborted == [record.match_id] * 2
    unlimited = asyncio.run(Referee(game, TINY_GDL, players, Clocks(1, 1)).run())
    assert unlimited.is_completed and unlimited.steps > 2
