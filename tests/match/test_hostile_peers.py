"""The referee against players that misbehave on purpose: long replies, refused STARTs,
silent INFO; and the HTTP client it keeps for each player over a whole match."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest

from ggpkit.match.clock import Clocks
from ggpkit.match.players import HttpPlayer, LocalPlayer, RefereedPlayer
from ggpkit.match.records import MatchRecord
from ggpkit.match.referee import Referee
from ggpkit.match.remote import REPLY_LIMIT, PlayerFault, RemotePlayer
from match.support import (
    TINY_GDL,
    FirstAgent,
    LastAgent,
    ServerThread,
    TinyGame,
    good_reply,
    http_reply,
    keyword,
    raw_player,
    until_closed,
)


async def _match(white: RefereedPlayer, black: RefereedPlayer, clocks: Clocks) -> MatchRecord:
    return await Referee(TinyGame(), TINY_GDL, [white, black], clocks, seed=1).run()


# ---- one HTTP client per player and match -------------------------------------------------


def test_one_http_client_per_player_made_before_start_and_closed_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Building a client costs tens of ms; made per message, it came out of every clock."""
    events: list[str] = []

    class CountedClient(httpx.AsyncClient):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            events.append("client")
            super().__init__(*args, **kwargs)

        async def aclose(self) -> None:
            events.append("closed")
            await super().aclose()

    monkeypatch.setattr(httpx, "AsyncClient", CountedClient)

    async def player(message: str, reader: Any, writer: asyncio.StreamWriter) -> None:
        events.append(keyword(message))
        writer.write(http_reply(good_reply(message)))

    async def run() -> MatchRecord:
        async with raw_player(player) as url:
            return await _match(HttpPlayer(url), LocalPlayer(LastAgent()), Clocks(5, 2))

    record = asyncio.run(run())
    assert record.is_completed and record.errors == [["", ""]] * 3
    # white: INFO, START, a PLAY every step (asked or not), STOP; one client around them all.
    assert events == ["client", "INFO", "START", "PLAY", "PLAY", "PLAY", "STOP", "closed"]


def test_the_client_is_closed_when_the_match_is_cancelled() -> None:
    closed: list[bool] = []

    async def player(message: str, reader: Any, writer: asyncio.StreamWriter) -> None:
        if keyword(message) == "PLAY":
            await until_closed(reader)  # thinks forever
        writer.write(http_reply(good_reply(message)))

    async def run() -> None:
        async with raw_player(player) as url:
            white = HttpPlayer(url)
            task = asyncio.create_task(_match(white, LocalPlayer(LastAgent()), Clocks(5, 30)))
            while not white.remote.is_open:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.5)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            closed.append(not white.remote.is_open)

    asyncio.run(run())
    assert closed == [True]


# ---- replies are read up to a limit -----------------------------------------------------------


def test_an_endless_reply_is_cut_at_the_limit_and_is_an_unreadable_reply() -> None:
    """A reply without Content-Length that never ends: read to the limit, not to the clock."""

    async def player(message: str, reader: Any, writer: asyncio.StreamWriter) -> None:
        writer.write(b"HTTP/1.0 200 OK\r\nContent-Type: text/acl\r\n\r\n")
        chunk = b"(add 1) " * 8192
        for _ in range(10 * 1024 * 1024 // len(chunk)):  # 10 MB, then hang
            writer.write(chunk)
            await writer.drain()
        await until_closed(reader)

    async def run() -> PlayerFault:
        async with raw_player(player) as url, RemotePlayer(url) as remote:
            with pytest.raises(PlayerFault) as fault:
                await remote.send("(PLAY m NIL)", 5.0)
            return fault.value

    fault = asyncio.run(run())
    assert fault.code == "IL"
    assert fault.detail.startswith("(add 1) (add 1)") and len(fault.detail) <= 200


def test_a_long_reply_is_a_fault_even_when_it_starts_with_a_legal_move() -> None:
    """Over the limit is never parsed (the old referee parsed 10 MB: 40 CPU-s a step)."""
    padded = "(add 1)" + " " * (2 * REPLY_LIMIT)

    async def player(message: str, reader: Any, writer: asyncio.StreamWriter) -> None:
        reply = padded if keyword(message) == "PLAY" else good_reply(message)
        writer.write(http_reply(reply))

    async def run() -> MatchRecord:
        async with raw_player(player) as url:
            return await _match(HttpPlayer(url), LocalPlayer(LastAgent()), Clocks(5, 2))

    record = asyncio.run(run())
    assert record.is_completed
    # white is asked on steps 1 and 3; each over-long reply is recorded as unreadable, cut.
    assert [e[0] for e in record.errors] == ["IL (add 1)", "", "IL (add 1)"]


def test_a_reply_just_under_the_limit_is_read() -> None:
    async def player(message: str, reader: Any, writer: asyncio.StreamWriter) -> None:
        writer.write(http_reply("(add 1)" + " " * (REPLY_LIMIT - 10)))

    async def run() -> str:
        async with raw_player(player) as url, RemotePlayer(url) as remote:
            return await remote.send("(PLAY m NIL)", 5.0)

    assert asyncio.run(run()) == "(add 1)"


# ---- START failures are recorded --------------------------------------------------------------


@pytest.mark.parametrize(("fault", "code"), [("busy", "CE"), ("slow", "TO"), ("http500", "CE")])
@pytest.mark.parametrize("seat", [0, 1])
def test_a_failed_start_is_the_roles_error_of_the_first_step(
    fault: str, code: str, seat: int
) -> None:
    """White is asked at step 1 (and answers well), black is not: both get START's error."""

    async def player(message: str, reader: Any, writer: asyncio.StreamWriter) -> None:
        if keyword(message) != "START":
            writer.write(http_reply(good_reply(message)))
        elif fault == "busy":
            writer.write(http_reply("busy"))
        elif fault == "http500":
            writer.write(http_reply("oops", "500 Internal Server Error"))
        else:
            await until_closed(reader, 5.0)

    async def run() -> MatchRecord:
        async with raw_player(player) as url:
            seats: list[RefereedPlayer] = [LocalPlayer(FirstAgent()), LocalPlayer(LastAgent())]
            seats[seat] = HttpPlayer(url)
            return await _match(seats[0], seats[1], Clocks(1, 2))

    record = asyncio.run(run())
    assert record.is_completed
    expected = ["", ""]
    expected[seat] = code
    assert record.errors[0] == expected
    assert all(e == ["", ""] for e in record.errors[1:])


def test_a_step_error_of_its_own_is_kept_over_starts() -> None:
    async def player(message: str, reader: Any, writer: asyncio.StreamWriter) -> None:
        reply = {"START": "busy", "PLAY": "(add 9)"}.get(keyword(message))
        writer.write(http_reply(reply or good_reply(message)))

    async def run() -> MatchRecord:
        async with raw_player(player) as url:
            return await _match(HttpPlayer(url), LocalPlayer(LastAgent()), Clocks(1, 2))

    assert asyncio.run(run()).errors[0] == ["IL (add 9)", ""]


# ---- players are named by their INFO reply ------------------------------------------------------


def test_a_remote_player_is_stored_by_the_name_its_info_gives(tiny_server: ServerThread) -> None:
    record = asyncio.run(
        _match(HttpPlayer(tiny_server.url), LocalPlayer(LastAgent()), Clocks(5, 2))
    )
    assert record.player_names == ["tester", "last"]
    assert record.errors == [["", ""]] * 3


@pytest.mark.parametrize("info", ["silent", "available", "garbage"])
def test_without_a_name_from_info_a_remote_player_is_stored_by_its_url(info: str) -> None:
    """INFO is asked with a short timeout and is no part of the match: no error recorded."""

    async def player(message: str, reader: Any, writer: asyncio.StreamWriter) -> None:
        if keyword(message) != "INFO":
            writer.write(http_reply(good_reply(message)))
        elif info == "silent":
            await until_closed(reader)
        else:
            writer.write(http_reply("available" if info == "available" else "%%% ((("))

    async def run() -> tuple[MatchRecord, str, float]:
        async with raw_player(player) as url:
            began = time.monotonic()
            record = await _match(HttpPlayer(url), LocalPlayer(LastAgent()), Clocks(5, 2))
            return record, url, time.monotonic() - began

    record, url, seconds = asyncio.run(run())
    assert record.player_names == [url, "last"]
    assert record.errors == [["", ""]] * 3
    assert seconds < 20  # a silent INFO costs ~2 s, never the 30 s the player would hang
