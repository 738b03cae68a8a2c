"""The player server against hostile or broken managers: huge messages, bad clocks, rules
that do not load in time, late messages, silence, reused match ids, slow games."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Hashable
from typing import Any

import pytest
from starlette.testclient import TestClient

from ggpkit.games.api import Game, GameInfo
from ggpkit.games.gdl.game import GdlGame, load_kif_text
from ggpkit.gdl.terms import Term
from ggpkit.match import player_server
from ggpkit.match.player_server import (
    MAX_MESSAGE_BYTES,
    PlayerService,
    make_app,
    message_head,
)
from match.support import TINY_GDL, FirstAgent, ListRecorder, TinyGame, stub_loader

START = f"(START m1 white ({TINY_GDL}) 10 2)"

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _service(**kwargs: Any) -> PlayerService:
    kwargs.setdefault("loader", stub_loader)
    return PlayerService(FirstAgent, **kwargs)


def test_the_head_of_a_message_is_read_without_parsing_it() -> None:
    assert message_head("( play  m7 ((move 1 2) noop))") == ("PLAY", "m7")
    assert message_head("(info)") == ("INFO", None)
    assert message_head("garbage") is None


async def test_a_message_for_another_match_is_answered_without_parsing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    service = _service()
    assert await service.handle_text(START) == "ready"
    parsed: list[str] = []
    real = player_server.parse_message
    monkeypatch.setattr(player_server, "parse_message", lambda t: parsed.append(t) or real(t))
    big = "(PLAY other (" + "(add 1) " * 6000 + "))"
    assert await service.handle_text(big) == "busy"
    assert await service.handle_text(f"(START m2 white ({TINY_GDL}) 10 2)") == "busy"
    assert parsed == []


def test_oversized_messages_are_refused_before_they_are_read_whole() -> None:
    client = TestClient(make_app(_service()))
    huge_info = "(INFO " + "x" * (10 * MAX_MESSAGE_BYTES) + ")"
    assert client.post("/", content=huge_info).status_code == 413
    huge_play = "(PLAY m1 (" + "(add 1) " * MAX_MESSAGE_BYTES + "))"
    assert client.post("/", content=huge_play).status_code == 413
    padding = " " * (3 * MAX_MESSAGE_BYTES)  # START may be larger than other messages
    start = f"(START m1 white ({TINY_GDL}\n{padding}) 10 2)"
    assert client.post("/", content=start).text == "ready"


@pytest.mark.parametrize("clocks", ["nan 2", "inf 2", "-5 2", "0 2", "10 0", "10 nan"])
async def test_clocks_a_player_cannot_keep_are_refused(clocks: str) -> None:
    service = _service()
    assert await service.handle_text(f"(START m1 white ({TINY_GDL}) {clocks})") == "busy"
    assert service.current is None


def _slow_loader(seconds: float) -> Any:
    def load(rules: str, limit: float) -> Game[Any]:
        time.sleep(seconds)
        return stub_loader(rules, limit)

    return load


async def test_a_start_whose_rules_load_too_slowly_is_answered_within_its_clock() -> None:
    service = _service(loader=_slow_loader(30), fallback_loader=stub_loader)
    began = time.monotonic()
    assert await service.handle_text(f"(START m1 white ({TINY_GDL}) 3 2)") == "ready"
    assert time.monotonic() - began < 3
    assert await service.handle_text("(PLAY m1 NIL)") in ("(add 1)", "(add 2)")


async def test_the_fallback_loads_while_the_slow_loader_runs_not_after_it() -> None:
    """A fallback that needs more than the reserve the loader leaves it (rules read on a
    busy core) is ready all the same: it started with the loader."""
    service = _service(loader=_slow_loader(30), fallback_loader=_slow_loader(1.5))
    began = time.monotonic()
    assert await service.handle_text(f"(START m1 white ({TINY_GDL}) 3 2)") == "ready"
    assert time.monotonic() - began < 3
    assert await service.handle_text("(PLAY m1 NIL)") in ("(add 1)", "(add 2)")


def _slow_to_probe(rules: str, seconds: float) -> Game[Any]:
    """The rules' GDL game, whose ``info`` takes 2 s on first access, like a probe by
    random playouts on rules that do not ground."""
    game = load_kif_text(rules, "<START>", reasoner="joincode")
    probe = game._probe_info

    def slow_probe() -> GameInfo:
        time.sleep(2.0)
        return probe()

    game._probe_info = slow_probe  # type: ignore[method-assign]
    return game


async def test_a_game_s_slow_probe_never_stalls_the_event_loop() -> None:
    """START reads what the rules declare, never the probed ``info`` (the agent's
    metagaming probes it, in its thread): other messages are answered meanwhile."""
    service = _service(loader=_slow_to_probe, fallback_loader=stub_loader)
    began = time.monotonic()
    start = asyncio.ensure_future(service.handle_text(f"(START m1 white ({TINY_GDL}) 10 2)"))
    await asyncio.sleep(0.3)  # a stalled loop wakes this only when the probe is over
    assert await service.handle_text("(INFO)") != ""
    assert time.monotonic() - began < 1.3  # not after the probe's 2 s
    assert await start == "ready"


async def test_a_start_nothing_can_load_in_time_is_refused_in_time() -> None:
    service = _service(loader=_slow_loader(30), fallback_loader=_slow_loader(30))
    began = time.monotonic()
    assert await service.handle_text(f"(START m1 white ({TINY_GDL}) 3 2)") == "busy"
    assert time.monotonic() - began < 3
    assert service.current is None


class _PatientAgent(FirstAgent):
    """Uses all the time it is given."""

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Any) -> Term:
        time.sleep(limit.time or 0)
        return game.legal_moves(state, role)[0]


async def test_a_play_clock_counts_from_the_messages_arrival() -> None:
    service = PlayerService(_PatientAgent, loader=stub_loader)
    assert await service.handle_text(f"(START m1 white ({TINY_GDL}) 10 4)") == "ready"
    loop = asyncio.get_running_loop()
    began = loop.time()
    reply = await service.handle_text("(PLAY m1 NIL)", arrived=began - 3.0)  # waited 3 s in line
    assert reply in ("(add 1)", "(add 2)")
    assert loop.time() - began < 1.5  # not the 3.6 s a full clock would give


async def test_a_silent_match_gives_way_to_another_start_but_a_slow_one_goes_on() -> None:
    """A manager slow between two messages (ggp-base's prover on a big game) keeps its
    match: nothing ends it after three play clocks of silence. A START of another match
    then ends it (its manager may have crashed), and is served."""
    recorder = ListRecorder()
    service = _service(recorder=recorder)
    assert await service.handle_text(f"(START m1 white ({TINY_GDL}) 1 1)") == "ready"
    assert await service.handle_text("(PLAY m1 NIL)") in ("(add 1)", "(add 2)")
    assert await service.handle_text(f"(START m2 white ({TINY_GDL}) 10 2)") == "busy"
    await asyncio.sleep(3.5)
    assert service.current is not None and service.current.match_id == "m1"
    assert await service.handle_text("(PLAY m1 ((add 1) noop))") in ("(add 1)", "(add 2)", "noop")
    await asyncio.sleep(3.5)
    assert await service.handle_text(f"(START m2 white ({TINY_GDL}) 10 2)") == "ready"
    assert recorder.records[0].match_id.startswith("m1") and recorder.records[0].is_aborted
    assert service.current is not None and service.current.match_id == "m2"


async def test_a_match_silent_for_long_is_ended_without_another_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(player_server, "ABANDONED_PLAY_CLOCKS", 3)
    monkeypatch.setattr(player_server, "ABANDONED_SECONDS", 0.0)
    recorder = ListRecorder()
    service = _service(recorder=recorder)
    assert await service.handle_text(f"(START m1 white ({TINY_GDL}) 1 1)") == "ready"
    assert await service.handle_text("(PLAY m1 NIL)") in ("(add 1)", "(add 2)")
    await asyncio.sleep(4.5)
    assert service.current is None
    assert recorder.events[-1][0] == "ended" and recorder.records[-1].is_aborted


async def test_a_reused_match_id_gets_a_record_of_its_own() -> None:
    recorder = ListRecorder()
    service = _service(recorder=recorder)
    for _ in range(2):
        assert await service.handle_text(START) == "ready"
        assert await service.handle_text("(ABORT m1)") == "aborted"
    first, second = (r.match_id for r in recorder.records)
    assert first != second and first.startswith("m1") and second.startswith("m1")


class _SlowRulesGame(TinyGame):
    """A game whose rules take a second per question (a large game on the prover)."""

    def _legal(self, state: tuple[int, int], role_index: int) -> list[Term]:
        time.sleep(1.0)
        return super()._legal(state, role_index)


async def test_a_slow_game_never_blocks_the_event_loop() -> None:
    service = _service(loader=lambda rules, seconds: _SlowRulesGame())
    assert await service.handle_text(f"(START m1 white ({TINY_GDL}) 30 10)") == "ready"
    playing = asyncio.create_task(service.handle_text("(PLAY m1 NIL)"))
    await asyncio.sleep(0.2)
    loop = asyncio.get_running_loop()
    began = loop.time()
    assert (await service.handle_text("(INFO)")).startswith("((name")
    assert loop.time() - began < 0.5
    assert not playing.done()
    await playing


TRIPLES_GDL = "\n".join(
    [
        "(role p) (init (c 0))",
        " ".join(f"(n {i})" for i in range(50)),
        "(<= (legal p (put ?a)) (n ?a) (not (true (c ?a))))",
        "(<= (next (c ?a)) (does p (put ?a))) (<= (next (c ?a)) (true (c ?a)))",
        "(<= (s ?a ?b ?d) (n ?a) (n ?b) (n ?d) (distinct ?a ?b) (distinct ?b ?d) (distinct ?a ?d))",
        "(<= win (true (c ?a)) (true (c ?b)) (true (c ?d)) (s ?a ?b ?d))",
        "(<= terminal win) (<= (goal p 100) win) (<= (goal p 0) (not win))",
    ]
)
"""50 facts, 235,000 ground rules: a propnet that takes a few seconds to build (its
estimate, a tenth of a second, lets it through)."""


def _gone(live_children: Callable[[], set[int]], before: set[int]) -> bool:
    """Whether the children beyond ``before`` have ended (within a few seconds)."""
    deadline = time.monotonic() + 5
    while live_children() != before and time.monotonic() < deadline:
        time.sleep(0.05)
    return live_children() == before


def test_a_compilation_past_the_start_clock_goes_on_in_one_child_until_cancelled(
    live_children: Callable[[], set[int]],
) -> None:
    before = live_children()
    game = player_server.gdl_loader(TRIPLES_GDL, 0.01)
    assert len(live_children() - before) == 1  # the propnet compiles on
    assert isinstance(game, GdlGame)
    assert game.reasoner_name == "joincode"  # the prover plays meanwhile
    assert any("still compiling" in note for note in game.notes)
    pending = player_server.pending_propnet(game)
    assert pending is not None
    pending.cancel()
    assert _gone(live_children, before)


async def test_a_match_that_ends_ends_its_late_compilation(
    live_children: Callable[[], set[int]],
) -> None:
    before = live_children()
    service = _service(loader=lambda rules, seconds: player_server.gdl_loader(rules, 0.01))
    assert await service.handle_text(f"(START m9 p ({TRIPLES_GDL}) 5 5)") == "ready"
    assert len(live_children() - before) == 1
    assert await service.handle_text("(ABORT m9)") == "aborted"
    assert _gone(live_children, before)
