"""Conformance with ggp-base, replayed from recordings: no ggp-base needed.

``tests/match/conformance/`` holds HTTP exchanges recorded once against a local ggp-base
build (its README says how): ggp-base's GameServer refereeing ggpkit's player
(``gb_manager_*``), ggp-base's own HTTP client code sending GET and POST forms
(``gb_client_*``), and ggpkit's referee against ggp-base's GamePlayers
(``ggpkit_referee_*``). Here ggpkit's player answers the recorded requests again and
ggpkit's referee plays against the recorded replies. Where the protocol fixes the bytes
(status, headers, the INFO, PREVIEW, START, STOP and ABORT replies) they must be the
recorded ones, which ggp-base accepted; where it does not (a move, a scrambled name),
they are checked by meaning: a legal move in the recorded state, one consistent renaming.
Live tests against a ggp-base build stay elsewhere, skipped without one.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from ggpkit.agents.specs import make_agent
from ggpkit.games.api import Game
from ggpkit.games.gdl.game import load_kif_text
from ggpkit.gdl.kif import parse_term
from ggpkit.gdl.terms import Term
from ggpkit.match.clock import Clocks
from ggpkit.match.player_server import PlayerService, default_loader
from ggpkit.match.players import HttpPlayer
from ggpkit.match.records import MatchRecord
from ggpkit.match.referee import Referee, StepEvent
from ggpkit.match.scramble import Scrambler
from match.conformance_wire import (
    Exchange,
    RecordedPlayer,
    Recording,
    Renaming,
    exchange_raw,
    header_pairs,
    info_name,
    kind,
    message_text,
    move_list,
    recording,
    recording_names,
    reply_bytes,
    request_bytes,
    rules_text,
    seat_exchanges,
    split_reply,
    start_parts,
    tokens,
)
from match.support import ServerThread

FIXED_REPLIES = {"INFO", "PREVIEW", "START", "STOP", "ABORT"}
"""Messages whose reply the protocol fixes (a move is the player's choice)."""

MANAGER_HEADERS = ("content-type", "accept", "sender")
"""Request headers whose values ggp-base's GameServer fixes (Receiver names the player)."""


def seat_of(rec: Recording, who: str) -> str | None:
    return next((s for s, d in rec["seats"].items() if d.startswith(who)), None)


def the_game(rules: str) -> Game[Any]:
    """The rules on ggpkit's join-code prover: an engine apart from the player's own."""
    return load_kif_text(rules, "<recorded>", reasoner="joincode")


def move_terms(moves: list[str]) -> list[Term]:
    return [parse_term(m) for m in moves]


class Tracker:
    """The state of a recorded match, followed through its START and PLAY/STOP messages."""

    def __init__(self) -> None:
        self.game: Game[Any] | None = None
        self.role = ""
        self.state: Any = None

    def see(self, text: str) -> None:
        keyword = kind(text)
        if keyword == "START":
            _, self.role, rules, _ = start_parts(text)
            self.game = the_game(rules_text(rules))
            self.state = self.game.initial_state()
        elif keyword in ("PLAY", "STOP") and (moves := move_list(text)) is not None:
            assert self.game is not None
            self.state = self.game.next_state(self.state, move_terms(moves))

    def legal(self, reply: str) -> bool:
        assert self.game is not None
        return parse_term(reply) in self.game.legal_moves(self.state, self.role)


# ---- ggpkit's player, spoken to as ggp-base spoke to it ---------------------------------------


def ggp_base_reply(rec: Recording, keyword: str) -> Exchange | None:
    """A ggp-base GamePlayer's recorded reply to a message of ``keyword``, if any."""
    seat = seat_of(rec, "ggp-base")
    if seat is None:
        return None
    for ex in seat_exchanges(rec, seat):
        if ex["reply"] is not None and kind(message_text(ex)) == keyword:
            return ex
    return None


def assert_like_ggp_base(rec: Recording, keyword: str, headers: list[str], body: bytes) -> None:
    """ggpkit's reply has the form of ggp-base's own player's reply to the same message:
    the same headers in the same order (names ignore case; the length is the body's), and
    the same fixed body (INFO's up to the player's name)."""
    theirs = ggp_base_reply(rec, keyword)
    if theirs is None:
        return  # ggp-base's player gave none (it drops PREVIEW, see the README)
    _, their_headers, their_body = split_reply(reply_bytes(theirs))
    skip = ("content-length", "connection")
    ours = [(n, v) for n, v in header_pairs(headers) if n not in skip]
    assert ours == [(n, v) for n, v in header_pairs(their_headers) if n not in skip]
    if keyword == "INFO":
        mine, other = tokens(body.decode()), tokens(their_body.decode())
        assert len(mine) == len(other)
        assert [t for t in mine if t != info_name(body.decode())] == [
            t for t in other if t != info_name(their_body.decode())
        ]
    elif keyword in FIXED_REPLIES:
        assert body == their_body


@pytest.mark.parametrize("name", recording_names("gb_"))
def test_conformance_player_answers_ggp_base_requests_as_recorded(name: str) -> None:
    """Every request ggp-base sent ggpkit's player, replayed byte for byte: the same status,
    header lines and fixed bodies as recorded; a legal move for each PLAY."""
    rec = recording(name)
    seat = seat_of(rec, "ggpkit")
    assert seat is not None
    mine = seat_exchanges(rec, seat)
    names = [info_name(ex["reply"]["body"]) for ex in mine if kind(message_text(ex)) == "INFO"]
    name_given = (names[0] if names else None) or "ggpkit-mcts"  # INFO's name is configured
    service = PlayerService(lambda: make_agent("random"), name=name_given, loader=default_loader)
    track = Tracker()
    with ServerThread(service) as server:
        for ex in mine:
            text = message_text(ex)
            keyword = kind(text)
            track.see(text)
            status, headers, body = split_reply(exchange_raw(server.port, request_bytes(ex)))
            want_status, want_headers, want_body = split_reply(reply_bytes(ex))
            assert status.split(" ", 1)[1] == want_status.split(" ", 1)[1], (keyword, status)
            if keyword in FIXED_REPLIES:
                assert (headers, body) == (want_headers, want_body), keyword
            else:
                assert keyword == "PLAY"
                length = [h for h in headers if h.lower().startswith("content-length:")]
                assert length == [f"Content-Length: {len(body)}"]
                assert [h for h in headers if h not in length] == [
                    h for h in want_headers if not h.lower().startswith("content-length:")
                ]
                assert track.legal(body.decode()), body
            assert_like_ggp_base(rec, keyword, headers, body)


@pytest.mark.parametrize("name", recording_names("gb_manager_"))
def test_conformance_recorded_player_replies_were_accepted_by_ggp_base(name: str) -> None:
    """The recorded ggpkit replies are the bytes ggp-base accepted: its match record shows
    no error for ggpkit's seat, and the moves it then sent are the ones ggpkit chose."""
    rec = recording(name)
    seat = seat_of(rec, "ggpkit")
    roles = list(rec["seats"])
    index = roles.index(str(seat))
    record = rec["ggp_base_match"]
    assert all(step[index] == "" for step in record["errors"])
    texts = [message_text(ex) for ex in seat_exchanges(rec, str(seat))]
    plays = [ex for ex in seat_exchanges(rec, str(seat)) if kind(message_text(ex)) == "PLAY"]
    sent = [move_list(t) for t in texts if kind(t) in ("PLAY", "STOP")]
    joint = [m for m in sent if m is not None]
    wire = tokens(" ".join(" ".join(j) for j in joint))  # scrambled when the match was
    kept = tokens(" ".join(" ".join(m) for m in record["moves"][: len(joint)]))
    assert Renaming().align(kept, wire)
    for ex, chosen in zip(plays, joint, strict=False):
        assert tokens(ex["reply"]["body"]) == tokens(chosen[index])


# ---- ggpkit's referee, against ggp-base's recorded replies ------------------------------------


async def referee_against_recording(
    rec: Recording,
) -> tuple[MatchRecord, dict[str, RecordedPlayer]]:
    """The recorded match refereed again by ggpkit, each seat answered by its recorded
    ggp-base player; the record and what each seat heard."""
    cfg, rules, roles = rec["referee"], rec["rules"], list(rec["seats"])
    first = seat_exchanges(rec, roles[0])
    match_id = next(
        start_parts(message_text(e))[0] for e in first if "START" in e["request"]["body"]
    )
    scrambler = None if cfg["scramble_seed"] is None else Scrambler(rules, cfg["scramble_seed"])
    async with contextlib.AsyncExitStack() as stack:
        fakes = {
            r: await stack.enter_async_context(
                RecordedPlayer(seat_exchanges(rec, r), cfg["play_clock"])
            )
            for r in roles
        }
        players = [
            HttpPlayer(f"http://127.0.0.1:{fakes[r].port}/", scrambler=scrambler) for r in roles
        ]
        task: asyncio.Task[MatchRecord] | None = None

        def observe(event: StepEvent) -> None:
            if event.step == cfg["abort_after_step"] and task is not None:
                task.cancel()

        clocks = Clocks(cfg["start_clock"], cfg["play_clock"])
        referee = Referee(
            the_game(rules), rules, players, clocks, observer=observe, match_id=match_id,
            seed=cfg["seed"],
        )  # fmt: skip
        task = asyncio.ensure_future(referee.run())
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return referee.record, fakes


def ggp_base_start_rules(game_file: str) -> list[str]:
    """The tokens of the rules in a START that ggp-base itself built for ``game_file``."""
    for name in recording_names("gb_"):
        rec = recording(name)
        if rec["game"] != game_file:
            continue
        for ex in rec["exchanges"]:
            text = message_text(ex)
            if kind(text) == "START":
                return tokens(rules_text(start_parts(text)[2]))
    raise AssertionError(f"no ggp-base START recorded for {game_file}")


def ggp_base_manager_request() -> Exchange:
    """A request as ggp-base's GameServer sent it (the oracle for the manager's headers)."""
    rec = recording("gb_manager_tictactoe_preview")
    assert rec["manager"].startswith("ggp-base GameServer")
    exchange: Exchange = rec["exchanges"][0]
    return exchange


def assert_request_form(line: str, headers: list[str], body: str) -> None:
    """A POST to ``/`` with the headers ggp-base's GameServer sends (values from its recording)."""
    method, target, _ = line.split(" ", 2)
    assert (method, target) == ("POST", "/")
    theirs = dict(header_pairs(ggp_base_manager_request()["request"]["headers"]))
    ours = dict(header_pairs(headers))
    assert {h: ours.get(h) for h in MANAGER_HEADERS} == {h: theirs[h] for h in MANAGER_HEADERS}
    assert ours.get("receiver")
    assert int(ours["content-length"]) == len(body.encode())


@pytest.mark.parametrize("name", recording_names("ggpkit_referee_"))
def test_conformance_referee_speaks_to_ggp_base_players_as_recorded(name: str) -> None:
    """ggpkit's referee against ggp-base's recorded replies (their exact bytes): the same
    messages in the same order as recorded, by meaning; START's rules those ggp-base itself
    sends; each joint move the players' replies where legal, else a legal move with TO or IL
    recorded; ABORT when the match is cut short."""
    rec = recording(name)
    roles, cfg = list(rec["seats"]), rec["referee"]
    record, fakes = asyncio.run(referee_against_recording(rec))
    game = the_game(rec["rules"])
    names, to_rules = Renaming(), Renaming()  # recorded names -> this run's -> the rules'
    heard = {r: fakes[r].heard for r in roles}
    for r in roles:
        recorded = seat_exchanges(rec, r)
        assert [kind(h.body) for h in heard[r]] == [kind(message_text(e)) for e in recorded]
        for h, ex in zip(heard[r], recorded, strict=True):
            assert_request_form(h.line, h.headers, h.body)
            keyword = kind(h.body)
            if keyword == "START":
                assert names.align(tokens(message_text(ex)), tokens(h.body))
                _, role, rules, clocks = start_parts(h.body)
                assert to_rules.align(tokens(rules_text(rules)), tokens(rec["rules"]))
                assert to_rules.to_right(role) == r
                assert Renaming().align(
                    ggp_base_start_rules(rec["game"]), tokens(rules_text(rules))
                )
                assert clocks == [str(cfg["start_clock"]), str(cfg["play_clock"])]
            elif keyword in ("INFO", "ABORT"):
                assert tokens(h.body) == tokens(message_text(ex))
    assert record.player_names == [
        info_name(seat_exchanges(rec, r)[0]["reply"]["body"]) for r in roles
    ]
    check_joint_moves(rec, game, heard, to_rules, names, record)
    assert record.is_aborted == (cfg["abort_after_step"] is not None)


def check_joint_moves(
    rec: Recording,
    game: Game[Any],
    heard: dict[str, Any],
    to_rules: Renaming,
    names: Renaming,
    record: MatchRecord,
) -> None:
    """Step by step: every seat is told the same joint move; a role's move is its recorded
    reply when that was in time and legal, else a legal move, with TO or IL in the record."""
    roles = list(rec["seats"])
    steps = {r: [h.body for h in heard[r] if kind(h.body) in ("PLAY", "STOP")] for r in roles}
    replies = {
        r: [e for e in seat_exchanges(rec, r) if kind(message_text(e)) == "PLAY"] for r in roles
    }
    state, codes = game.initial_state(), []
    assert len(record.moves) == len(replies[roles[0]])  # one step per PLAY
    for k, played in enumerate(record.moves):
        joint = [parse_term(m) for m in played]
        if k + 1 < len(steps[roles[0]]):  # the seats were told it (not after an ABORT)
            told = {tuple(move_list(steps[r][k + 1]) or ()) for r in roles}
            assert len(told) == 1, f"seats told different joint moves at step {k}: {told}"
            assert [parse_term(to_rules.to_right(m)) for m in next(iter(told))] == joint
        legal = [game.legal_moves(state, r) for r in roles]
        assert all(m in moves for m, moves in zip(joint, legal, strict=True)), joint
        codes.append([reply_code(rec, replies[r][k], legal[i], joint[i], to_rules, names)
                      for i, r in enumerate(roles)])  # fmt: skip
        state = game.next_state(state, joint)
    assert [[e.split(" ")[0] for e in step] for step in record.errors] == codes
    if record.is_completed:
        assert game.is_terminal(state)
        assert record.goal_values == [game.goals(state)[r] for r in roles]


def reply_code(
    rec: Recording,
    ex: Exchange,
    legal: list[Term],
    played: Term,
    to_rules: Renaming,
    names: Renaming,
) -> str:
    """The error the referee must record for one recorded reply (and the move it must play:
    the reply itself when in time and legal)."""
    if ex["reply"] is None or ex.get("reply_after_s", 0) > rec["referee"]["play_clock"] + 1:
        return "TO"
    said = parse_term(to_rules.to_right(names.to_right(ex["reply"]["body"])))
    if said not in legal:
        return "IL"
    assert played == said
    return ""
