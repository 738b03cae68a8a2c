"""GDL-II over HTTP: the GameController's PLAY and STOP, a referee and player servers.

The Dresden GameController (the manager of the GDL-II competitions) tells a player
``(PLAY <matchid> <turn> <lastmove> <percepts>)``: the number of joint moves so far,
the player's own move as played and what it perceived of the last joint move, ``NIL
NIL`` at turn 0 and ``()`` for no percepts; STOP alike. Everything is upper case and
lists end with a space, as its printer writes them. The messages here are written by
hand in that style, not by ggpkit's printer.

A referee (``Referee`` with ``HttpPlayer``s) and ggpkit player servers then play Monty
Hall and every public GDL-II game that loads over HTTP: no errors, and the records
(the referee's, and each player's record of its own view) replay.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

import httpx
import pytest
from games.gdl2_support import MONTY_HALL, gdl2_dir

from ggpkit.agents.base import Agent
from ggpkit.agents.random_agent import RandomAgent
from ggpkit.agents.specs import make_agent
from ggpkit.games.api import Game
from ggpkit.games.filtering import Frontier
from ggpkit.games.gdl.game import load_kif_file, load_kif_text, rules_of_file
from ggpkit.games.information import InformationSetError, views_agree
from ggpkit.games.repair import repair_line
from ggpkit.games.sampling import DeadStates, sample_history
from ggpkit.games.views import RoleView
from ggpkit.gdl.kif import parse_term
from ggpkit.gdl.terms import Const, Func
from ggpkit.match import player_server
from ggpkit.match.clock import Clocks
from ggpkit.match.player_server import GameLoader, PlayerService, prover_loader
from ggpkit.match.players import HttpPlayer, Player
from ggpkit.match.protocol import (
    Play,
    PlayII,
    ProtocolError,
    Stop,
    StopII,
    format_play_ii,
    format_stop_ii,
    parse_message,
    strip_comments,
)
from ggpkit.match.records import UNKNOWN_STATE, MatchRecord
from ggpkit.match.referee import Referee
from ggpkit.match.replay import open_replay, replay, view_role
from ggpkit.match.scramble import Scrambler
from match.support import TINY_GDL, FirstAgent, ListRecorder, ServerThread, stub_loader

# ---- the messages -------------------------------------------------------------------------

D1, D3 = Func("PICK", (Const("D1"),)), Func("OPENED", (Const("D3"),))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(PLAY MATCH.7 0 NIL NIL)", PlayII("MATCH.7", 0, None, None)),
        ("( play m 0 nil nil )", PlayII("m", 0, None, None)),
        ("(PLAY MATCH.7 1 (PICK D1) ( ))", PlayII("MATCH.7", 1, D1, ())),
        ("(PLAY MATCH.7 1 (PICK D1) NIL)", PlayII("MATCH.7", 1, D1, ())),
        ("(PLAY MATCH.7 2 WAIT ((OPENED D3) ))", PlayII("MATCH.7", 2, Const("WAIT"), (D3,))),
        (
            "(STOP MATCH.7 3 SWITCH ((CAR D2) SEEN ))",
            StopII("MATCH.7", 3, Const("SWITCH"), (Func("CAR", (Const("D2"),)), Const("SEEN"))),
        ),
        ("(STOP m 0 NIL NIL)", StopII("m", 0, None, None)),
        # GDL's forms are unchanged
        ("(PLAY m NIL)", Play("m", None)),
        ("(STOP m ((PICK D1) WAIT))", Stop("m", (D1, Const("WAIT")))),
    ],
)
def test_gamecontroller_messages_are_read(text: str, message: object) -> None:
    assert parse_message(text) == message


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("(PLAY m 1 (PICK D1))", "PLAY takes 2 arguments .* or 4 .* found 3"),
        ("(STOP m 1 a b c)", "STOP takes 2 arguments .* found 5"),
        ("(PLAY m)", "found 1"),
        ("(PLAY m one WAIT ())", "turn must be a count of joint moves, found 'one'"),
        ("(PLAY m -1 NIL NIL)", "found '-1'"),
        ("(PLAY m 2.5 WAIT ())", "found '2.5'"),
        ("(PLAY m 0 WAIT NIL)", "at turn 0 the last move and the percepts must be NIL"),
        ("(PLAY m 0 NIL ((OPENED D3)))", "at turn 0 the last move and the percepts"),
        ("(PLAY m 2 NIL ())", "at turn 2 the last move must be a move, found NIL"),
        ("(PLAY m 2 WAIT SEEN)", "the percepts must be a list, found 'SEEN'"),
        ("(PLAY (m) 2 WAIT ())", "the match id must be a symbol"),
        ("(PLAY m 2 (WAIT ?) ())", "the last move is not a GDL term"),
    ],
)
def test_malformed_gdl2_messages_say_why(text: str, reason: str) -> None:
    with pytest.raises(ProtocolError, match=reason):
        parse_message(text)


def test_printed_gdl2_messages_are_the_gamecontrollers_and_read_back() -> None:
    assert format_play_ii("M", 0, None, None) == "(PLAY M 0 NIL NIL)"
    assert format_play_ii("M", 1, D1, []) == "(PLAY M 1 (PICK D1) ())"
    assert format_stop_ii("M", 2, "WAIT", [D3, "SEEN"]) == "(STOP M 2 WAIT ((OPENED D3) SEEN))"
    for turn, move, seen in [(0, None, None), (1, D1, ()), (4, Const("WAIT"), (D3, D1))]:
        play = parse_message(format_play_ii("M", turn, move, seen))
        stop = parse_message(format_stop_ii("M", turn, move, seen))
        assert play == PlayII("M", turn, move, seen) and stop == StopII("M", turn, move, seen)
    with pytest.raises(ValueError, match="needs the last move"):
        format_play_ii("M", 1, None, None)


class _Capture:
    """A stand-in for the HTTP transport: keeps each message, answers like a player."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send(self, message: str, clock: float, grace: float | None = None) -> str:
        self.sent.append(message)
        return "done" if message.startswith("(STOP") else "(pick d1)"


def test_http_player_sends_its_view_scrambled() -> None:
    """Given a view, PLAY and STOP carry the turn, the own move and the percepts, in the
    scrambled names (``random`` and ``sees`` stay: GDL-II keywords)."""
    scrambler = Scrambler(MONTY_HALL, seed=3)
    player = HttpPlayer("http://unused/", scrambler=scrambler)
    capture = _Capture()
    player.remote = capture  # type: ignore[assignment]
    first = RoleView("contestant")
    pick = Func("pick", (Const("d1"),))
    later = first.then(pick, frozenset()).then(
        Const("wait"), frozenset({Func("opened", (Const("d3"),)), Const("x")})
    )

    async def run() -> None:
        await player.play("m", first, first, 1.0)
        await player.play("m", later, later, 1.0)
        await player.stop("m", later.then(Const("stay"), frozenset()), 1.0)

    asyncio.run(run())
    s = scrambler.name
    assert capture.sent == [
        "(PLAY m 0 NIL NIL)",
        f"(PLAY m 2 {s('wait')} (({s('opened')} {s('d3')}) {s('x')}))",
        f"(STOP m 3 {s('stay')} ())",
    ]
    assert s("wait") != "wait" and s("random") == "random" and s("sees") == "sees"


# ---- the player server ---------------------------------------------------------------------


def _start(rules: str, role: str, match_id: str = "gc.1") -> str:
    return f"(START {match_id} {role} ({strip_comments(rules)}) 10 2)"


def test_a_gdl2_game_in_gdl_messages_is_refused_with_a_clear_error() -> None:
    recorder = ListRecorder()
    service = PlayerService(
        lambda: RandomAgent(seed=1), name="p", loader=prover_loader, recorder=recorder
    )
    with ServerThread(service) as server:
        assert httpx.post(server.url, content=_start(MONTY_HALL, "contestant")).text == "ready"
        reply = httpx.post(server.url, content="(PLAY gc.1 NIL)")
        assert reply.status_code == 400
        assert "match gc.1 is a GDL-II game (its rules use sees)" in reply.text
        assert "(PLAY <matchid> <turn> <lastmove> <percepts>)" in reply.text
        assert service.current is None and recorder.records[0].is_aborted  # ended, free again
        assert httpx.post(server.url, content="(PLAY gc.1 0 NIL NIL)").text == "busy"


def test_a_gdl_game_in_gdl2_messages_is_refused() -> None:
    service = PlayerService(FirstAgent, name="p", loader=stub_loader)

    async def run() -> None:
        assert await service.handle_text(_start(TINY_GDL, "white")) == "ready"
        with pytest.raises(ProtocolError, match="is a GDL game, but the manager sent GDL-II"):
            await service.handle_text("(PLAY gc.1 0 NIL NIL)")
        assert service.current is None

    asyncio.run(run())


class _Watching(RandomAgent):
    """Plays from views (any legal move of the initial state) and keeps every one shown."""

    plays_from_views = True

    def __init__(self) -> None:
        super().__init__(seed=4)
        self.shown: list[object] = []

    def select(self, game: Game[Any], state: object, role: str, limit: Any) -> Any:
        self.shown.append(state)
        assert isinstance(state, RoleView)
        if state.turn == 0:
            return super().select(game, game.initial_state(), role, limit)
        return {1: Const("wait"), 2: Const("switch")}[state.turn]


def test_the_server_plays_from_the_view_the_gamecontroller_sends() -> None:
    """Monty Hall as the GameController speaks it, by hand: the agent is shown the view
    built from the messages, and the player's record holds that view and nothing else."""
    agent = _Watching()
    recorder = ListRecorder()
    service = PlayerService(lambda: agent, name="p", loader=prover_loader, recorder=recorder)
    messages = [
        "(PLAY gc.1 0 NIL NIL)",
        "(PLAY gc.1 1 (pick d2) ( ))",
        "(PLAY gc.1 2 wait ((opened d3) ))",
        "(STOP gc.1 3 switch ((car d1) ))",
    ]

    async def run() -> list[str]:
        assert await service.handle_text(_start(MONTY_HALL, "contestant")) == "ready"
        return [await service.handle_text(m) for m in messages]

    replies = asyncio.run(run())
    assert replies[0].startswith("(pick d") and replies[1:] == ["wait", "switch", "done"]
    assert [v.turn for v in agent.shown if isinstance(v, RoleView)] == [0, 1, 2]
    last = agent.shown[-1]
    assert isinstance(last, RoleView)
    assert last.last_percepts == frozenset({Func("opened", (Const("d3"),))})
    record = recorder.records[0]
    assert record.moves == [["", "(pick d2)"], ["", "wait"], ["", "switch"]]
    assert record.percepts == [[[], []], [[], ["(opened d3)"]], [[], ["(car d1)"]]]
    assert record.states[0] == "( (phase hide) )" and record.states[1:] == [UNKNOWN_STATE] * 3
    assert record.is_completed and record.goal_values is None and not record.is_aborted
    again = MatchRecord.loads(record.dumps())
    assert view_role(again) == "contestant"
    game = load_kif_text(MONTY_HALL, "monty", reasoner="joincode")
    line = replay(again, game)
    assert len(line) == 4 and game.is_terminal(line[-1])
    assert game.goals(line[-1])["contestant"] == 100  # switched from d2 to d1, the car's door


def test_a_turn_out_of_order_is_an_error() -> None:
    service = PlayerService(lambda: RandomAgent(seed=1), name="p", loader=prover_loader)

    async def run() -> None:
        assert await service.handle_text(_start(MONTY_HALL, "contestant")) == "ready"
        await service.handle_text("(PLAY gc.1 0 NIL NIL)")
        with pytest.raises(ProtocolError, match="turn 2 does not follow the 0 joint moves"):
            await service.handle_text("(PLAY gc.1 2 wait ())")

    asyncio.run(run())


class _Late(RandomAgent):
    plays_from_views = True

    def select(self, game: Game[Any], state: object, role: str, limit: Any) -> Any:
        time.sleep(3)
        raise AssertionError("too late to count")


def test_a_late_agent_is_replaced_by_a_move_of_a_sampled_state() -> None:
    service = PlayerService(_Late, name="p", loader=prover_loader)

    async def run() -> list[str]:
        assert await service.handle_text(_start(MONTY_HALL, "contestant")) == "ready"
        first = await service.handle_text("(PLAY gc.1 0 NIL NIL)")
        second = await service.handle_text("(PLAY gc.1 1 (pick d2) ())")
        return [first, second]

    first, second = asyncio.run(run())
    assert first in ("(pick d1)", "(pick d2)", "(pick d3)") and second == "wait"


CLEAR_THREE = """
(role p) (role random)
(cell 1) (cell 2) (cell 3) (side heads) (side tails)
(succ 0 1) (succ 1 2) (succ 2 3)
(init (step 0))
(<= (legal p (clear ?c)) (cell ?c) (not (true (cleared ?c))))
(<= (legal random (toss ?s)) (side ?s))
(<= (sees p (coin ?s)) (does random (toss ?s)))
(<= (next (cleared ?c)) (does p (clear ?c)))
(<= (next (cleared ?c)) (true (cleared ?c)))
(<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
(<= terminal (true (step 3)))
(goal p 50)
"""


class _Failing(RandomAgent):
    plays_from_views = True

    def select(self, game: Game[Any], state: object, role: str, limit: Any) -> Any:
        raise RuntimeError("an agent that fails at once")


async def _third_move_of_a_failing_agent(coin: str) -> str:
    """The server's move at turn 2 of CLEAR_THREE for an agent that always fails, the
    role having cleared cells 1 and 2 and seen the coin land ``coin`` last."""
    service = PlayerService(_Failing, name="p", loader=prover_loader)
    assert await service.handle_text(_start(CLEAR_THREE, "p")) == "ready"
    await service.handle_text("(PLAY gc.1 0 NIL NIL)")
    await service.handle_text("(PLAY gc.1 1 (clear 1) ((coin heads)))")
    return await service.handle_text(f"(PLAY gc.1 2 (clear 2) ((coin {coin})))")


def test_a_fallback_without_a_history_of_the_view_heeds_the_roles_own_moves() -> None:
    """A percept no history gives (the manager's mistake, or a sampler out of time): the
    fallback's state still has the cells the role cleared cleared, and the one move left
    is the one legal move. The last move again, the old last resort, is illegal here."""
    assert asyncio.run(_third_move_of_a_failing_agent("edge")) == "(clear 3)"


def test_a_fallback_out_of_time_plays_a_move_of_its_last_history_walked_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the fallback's walks find nothing in time (here: none ever finishes after
    turn 1), its last resort is a move legal in the last history found, walked on by the
    role's own moves (cells 1 and 2 cleared: only cell 3 is left), not the last move
    again, which is illegal here."""
    service = PlayerService(_Failing, name="p", loader=prover_loader)
    real = player_server.sample_history

    def out_of_time_after_turn_one(game: Any, view: RoleView, *args: Any, **kw: Any) -> Any:
        return real(game, view, *args, **kw) if view.turn <= 1 else None

    async def run() -> str:
        assert await service.handle_text(_start(CLEAR_THREE, "p")) == "ready"
        await service.handle_text("(PLAY gc.1 0 NIL NIL)")
        await service.handle_text("(PLAY gc.1 1 (clear 1) ((coin heads)))")
        monkeypatch.setattr(player_server, "sample_history", out_of_time_after_turn_one)
        return await service.handle_text("(PLAY gc.1 2 (clear 2) ((coin tails)))")

    assert asyncio.run(run()) == "(clear 3)"


class _FailingFromTurnTwo(RandomAgent):
    """Clears cell 1, then cell 2, then fails."""

    plays_from_views = True

    def select(self, game: Game[Any], state: object, role: str, limit: Any) -> Any:
        assert isinstance(state, RoleView)
        if state.turn >= 2:
            raise RuntimeError("an agent that fails at turn 2")
        return parse_term(f"(clear {state.turn + 1})")


def test_the_last_resort_walks_on_every_turn_even_where_the_agent_answered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An agent that answered every turn left the fallback no history to walk on; where
    it then fails and no sampled walk finishes (here: none ever does), the last resort
    is a move of the line the server walked a step each turn by the role's own moves
    (cells 1 and 2 cleared: only cell 3 is left), not the last move again."""
    monkeypatch.setattr(player_server, "sample_history", lambda *args, **kw: None)
    service = PlayerService(_FailingFromTurnTwo, name="p", loader=prover_loader)

    async def run() -> list[str]:
        assert await service.handle_text(_start(CLEAR_THREE, "p")) == "ready"
        first = await service.handle_text("(PLAY gc.1 0 NIL NIL)")
        second = await service.handle_text("(PLAY gc.1 1 (clear 1) ((coin heads)))")
        third = await service.handle_text("(PLAY gc.1 2 (clear 2) ((coin tails)))")
        return [first, second, third]

    assert asyncio.run(run()) == ["(clear 1)", "(clear 2)", "(clear 3)"]


def test_the_last_resort_without_any_line_walks_from_the_start_by_the_roles_moves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No walk of the server ever finishes (a machine under load: not the greedy one,
    not the sampled ones) and the agent fails: the last resort walks from the initial
    state by the role's own moves, so cells 1 and 2 are cleared and only cell 3 is left.
    The last move again, (clear 2), is illegal here."""
    monkeypatch.setattr(player_server, "sample_history", lambda *args, **kw: None)
    monkeypatch.setattr(player_server, "greedy_history", lambda *args, **kw: None)
    assert asyncio.run(_third_move_of_a_failing_agent("tails")) == "(clear 3)"


# ---- a referee and player servers over HTTP ------------------------------------------------


def _play_over_http(
    game: Game[Any],
    rules: str,
    agents: Callable[[int], Agent],
    clocks: Clocks,
    scrambler: Scrambler | None = None,
    loader: GameLoader = prover_loader,
) -> tuple[MatchRecord, list[MatchRecord]]:
    """A match of ``game`` refereed over HTTP, one player server per seat (at most two,
    taking turns); the referee's record and the servers' own."""
    recorders = [ListRecorder(), ListRecorder()]
    services = [
        PlayerService(
            lambda i=i: agents(i), name=f"p{i}", loader=loader, recorder=recorders[i], seed=i
        )
        for i in range(2)
    ]
    with ServerThread(services[0]) as first, ServerThread(services[1]) as second:
        urls = [first.url, second.url]
        players: list[Player] = [
            HttpPlayer(urls[k % 2], f"p{k % 2}", scrambler) for k in range(len(game.seats))
        ]
        record = asyncio.run(Referee(game, rules, players, clocks, seed=7).run())
    return record, [r for rec in recorders for r in rec.records]


def _unknowable(game: Game[Any], record: MatchRecord, step: int, index: int) -> bool:
    """Whether the move a role was refused at ``step`` is legal in some state its view
    allowed then: in some GDL-II games legality depends on what the role cannot see (a
    column filled by a move it was not shown, a capture of a pawn that may have come, a
    pawn of its own taken unseen, a cell that may hide a mine), and no player can avoid
    such a move. Found for up to a minute, first by local search from the true line
    (which gives the view) among the lines that give it too, then by sampling: walks of
    the sampler (a pawn on the captured cell may be in one history of thirty), and the
    local search that mends a random line until it gives the view (minesweeper's late
    counts, which walks rarely meet, speak of many mines at once), then among the states
    of a particle filter over the view (:mod:`~ggpkit.games.filtering`), each witness's
    line checked to give the view by :func:`~ggpkit.games.information.views_agree`."""
    move = record.errors[step][index].removeprefix("IL ")
    role = game.roles[index]
    moves = tuple(parse_term(m[index]) for m in record.moves[:step])
    seen = tuple(frozenset(map(parse_term, p[index])) for p in record.percepts[:step])
    view, rng, dead = RoleView(role, moves, seen), random.Random(step), DeadStates()
    give_up = time.perf_counter() + 60
    start = (game.initial_state(),)

    def legal_there(state: Hashable) -> bool:
        return not game.is_terminal(state) and move in {
            str(m) for m in game.legal_moves(state, role)
        }

    true_line = [[parse_term(m) for m in joint] for joint in record.moves[:step]]
    nearby = time.perf_counter() + 20
    if repair_line(game, view, rng, start, 10**9, nearby, true_line, legal_there) is not None:
        return True
    for keep in (4_000, 16_000):  # a particle filter's states, each line checked apart
        frontier = Frontier.start(game, keep)
        far = time.perf_counter() + 15
        try:
            frontier.advance(game, view, rng, far, far)
        except InformationSetError:
            continue
        for state, line in frontier.lines.items():
            if legal_there(state) and views_agree(game, line, view):
                return True
    for attempt in range(400):  # states the view allows, until one where the move is legal
        if time.perf_counter() > give_up:
            break
        line = (
            sample_history(game, view, rng, 3_000, dead=dead, deadline=give_up)
            if attempt % 2 == 0
            else repair_line(game, view, rng, start, 20_000, deadline=give_up)
        )
        if line is not None and legal_there(line[-1]):
            return True
    return False


def _check(record: MatchRecord, own: list[MatchRecord], game: Game[Any]) -> None:
    """No error but an unknowably illegal move (GDL-II), and records that replay: the
    referee's, and each player's own (its view alone in a GDL-II game)."""
    assert record.is_completed and not record.is_aborted
    for step, errors in enumerate(record.errors):
        for index, error in enumerate(errors):
            assert error == "" or (
                game.info.imperfect
                and error.startswith("IL ")
                and _unknowable(game, record, step, index)
            ), (step, errors)
    assert len(record.percepts) == (record.steps if game.info.imperfect else 0)
    again = MatchRecord.loads(record.dumps())
    assert open_replay(again).record is again
    replay(again, game)
    for seen in own if game.info.imperfect else ():
        assert seen.source == "player" and not seen.is_aborted
        assert seen.steps == record.steps and seen.goal_values is None
        role = view_role(seen)
        assert role is not None and seen.states[1:] == [UNKNOWN_STATE] * seen.steps
        index = game.role_index(role)
        assert [m[index] for m in seen.moves] == [m[index] for m in record.moves]
        assert [p[index] for p in seen.percepts] == [p[index] for p in record.percepts]
        assert all(not m for step in seen.moves for k, m in enumerate(step) if k != index)
        assert all(not p for step in seen.percepts for k, p in enumerate(step) if k != index)
        line = replay(MatchRecord.loads(seen.dumps()), game)
        assert len(line) == seen.steps + 1


def test_monty_hall_over_http_with_mcts_scrambled() -> None:
    game = load_kif_text(MONTY_HALL, "monty", reasoner="joincode")
    scrambler = Scrambler(strip_comments(MONTY_HALL), seed=2)
    record, own = _play_over_http(
        game,
        strip_comments(MONTY_HALL),
        lambda i: make_agent("mcts", seed=i),
        Clocks(10, 1),
        scrambler,
    )
    assert record.steps == 3 and record.player_names[0] == "nature"
    assert len(own) == 1 and own[0].roles != game.roles  # the player knew scrambled names
    unscrambled = [[scrambler.unscramble(m) if m else "" for m in step] for step in own[0].moves]
    assert [s[1] for s in unscrambled] == [s[1] for s in record.moves]
    assert record.is_completed and all(e == ["", ""] for e in record.errors)
    replay(MatchRecord.loads(record.dumps()), game)


def _public_games() -> list[str]:
    try:
        folder = gdl2_dir()
    except pytest.skip.Exception:
        return []
    return sorted(p.name for p in folder.glob("*.kif"))


def _rules_sent(path: Path) -> str:
    """The rules a game manager sends for a public file: a fragment's with the game it
    extends (as :func:`~ggpkit.games.gdl.game.load_kif_file` loads it) in front."""
    return strip_comments(rules_of_file(path))


JOIN_CODE_PLAY_CLOCK = 4
"""The play clock (seconds) of a game on the join code in the test below; 2 s on a propnet.
The referee and both player servers run in this one interpreter (one lock for all their
threads) with the other core busy in CI, and on the join code a step of a walk over a
view costs far more: small Dominion's nature deals from decks of twenty cards and more,
and late in a match a player that must find the hand it was dealt in 2 s of a shared
interpreter sometimes did not (docs/results.md, twelfth stop)."""


@pytest.mark.parametrize("name", _public_games() or ["(no public GDL-II games)"])
def test_public_games_over_http(name: str) -> None:
    """Each public game that loads, once, between random player servers on short clocks."""
    path = gdl2_dir() / name
    game = load_kif_file(path)
    rules = _rules_sent(path)
    play_clock = 2 if game.reasoner_name == "propnet" else JOIN_CODE_PLAY_CLOCK
    record, own = _play_over_http(
        game,
        rules,
        lambda i: RandomAgent(seed=i),
        Clocks(5, play_clock),
        None,
        lambda *_: game,
    )  # the players get the game loaded here: the protocol is under test, not loading
    _check(record, own, game)


def test_the_fallback_walks_its_own_line_on_to_the_turn() -> None:
    """The own line, steps short of the turn (its walk has a small share of each turn),
    is walked on to the turn, not dropped: by the role's own moves always, by its
    percepts where the line allows (a greedy walk does not back up: where nature hid the
    car behind door 2, no host can open it), and not past the deadline."""
    game = load_kif_text(MONTY_HALL, "monty", reasoner="propnet")
    picked = RoleView("contestant").then(parse_term("(pick d1)"), frozenset())
    view = picked.then(parse_term("wait"), frozenset({parse_term("(opened d2)")}))
    start = (game.initial_state(),)
    assert player_server._greedy_on(game, view, random.Random(1), None, math.inf) is None
    lines = [player_server._greedy_on(game, view, random.Random(s), start, math.inf)
             for s in range(30)]  # fmt: skip
    assert all(line is not None and views_agree(game, line, view, False) for line in lines)
    true_to_it = sum(views_agree(game, line, view) for line in lines if line is not None)
    assert 10 <= true_to_it < 30
    late = time.perf_counter() - 1
    assert player_server._greedy_on(game, view, random.Random(1), start, late) is None
