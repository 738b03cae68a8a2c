"""The player server over loopback, spoken to byte by byte as ggp-base's GameServer does."""

from __future__ import annotations

import socket
from urllib.parse import quote

import pytest

from ggpkit.match.player_server import PlayerService
from match.support import (
    TINY_GDL,
    CrashingAgent,
    FirstAgent,
    PonderingAgent,
    ServerThread,
    SleepyAgent,
    TinyGame,
    scramble,
    scramble_map,
    stub_loader,
)

CORS = [
    ("Access-Control-Allow-Origin", "*"),
    ("Access-Control-Allow-Methods", "POST, GET, OPTIONS"),
    ("Access-Control-Allow-Headers", "Content-Type"),
    ("Access-Control-Allow-Age", "86400"),
]


def raw_exchange(port: int, request: bytes, half_close: bool = False, timeout: float = 10) -> bytes:
    """Send raw bytes on a new connection and read the reply until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        if half_close:
            s.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            data = s.recv(65536)
            if not data:
                break
            chunks.append(data)
    return b"".join(chunks)


def gameserver_post(port: int, body: str, receiver: str = "tester", timeout: float = 10) -> bytes:
    """Exactly the request a ggp-base GameServer sends."""
    payload = body.encode()
    head = (
        "POST / HTTP/1.0\r\n"
        "Accept: text/delim\r\n"
        "Sender: GAMESERVER\r\n"
        f"Receiver: {receiver}\r\n"
        "Content-Type: text/acl\r\n"
        f"Content-Length: {len(payload)}\r\n"
        "\r\n"
    )
    return raw_exchange(port, head.encode() + payload, timeout=timeout)


def split_reply(raw: bytes) -> tuple[str, list[tuple[str, str]], bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = [tuple(part.strip() for part in line.split(":", 1)) for line in lines[1:]]
    return lines[0], [(h[0], h[1]) for h in headers], body


def assert_acl_reply(raw: bytes, body: str) -> None:
    """200, ggp-base's headers (in its order, with its values), and the exact body.

    The HTTP layer may add ``Connection: close`` (it closes after an HTTP/1.0
    request, one message per connection as GGP does); nothing else.
    """
    status, headers, got = split_reply(raw)
    assert [v for h, v in headers if h.lower() == "connection"] in ([], ["close"])
    headers = [(h, v) for h, v in headers if h.lower() != "connection"]
    assert status.split(" ", 1)[1] == "200 OK"
    expected = [("Content-Type", "text/acl"), ("Content-Length", str(len(body.encode()))), *CORS]
    assert headers == expected
    assert got == body.encode()


def test_info_and_ping_replies_are_exact(tiny_server: ServerThread) -> None:
    assert_acl_reply(
        gameserver_post(tiny_server.port, "( INFO )"), "((name tester) (status available))"
    )
    assert_acl_reply(
        gameserver_post(tiny_server.port, "(ping)"), "((name tester) (status available))"
    )


def test_scrambled_match_as_ggp_base_plays_it(tiny_server: ServerThread) -> None:
    names = scramble_map(TINY_GDL)
    rules = scramble(TINY_GDL, names)
    white, black, add = names["white"], names["black"], names["add"]
    noop = names["noop"]
    port = tiny_server.port
    start = f"( START Base.m1 {black} ( {rules} ) 5 3 )"
    assert_acl_reply(gameserver_post(port, start), "ready")
    assert_acl_reply(gameserver_post(port, "( INFO )"), "((name tester) (status busy))")
    assert_acl_reply(gameserver_post(port, start.replace("Base.m1", "Base.m2")), "busy")
    assert_acl_reply(gameserver_post(port, "( PLAY Base.m1 NIL )"), noop)
    # white added 2; now black moves: FirstAgent takes the first legal move, (add 1).
    played = gameserver_post(port, f"( PLAY Base.m1 ( ( {add} 2 ) {noop} ) )")
    assert_acl_reply(played, f"({add} 1)")
    assert_acl_reply(gameserver_post(port, f"( PLAY Base.m1 ( {noop} ( {add} 1 ) ) )"), noop)
    assert_acl_reply(gameserver_post(port, f"( STOP Base.m1 ( ( {add} 1 ) {noop} ) )"), "done")
    assert_acl_reply(gameserver_post(port, "( INFO )"), "((name tester) (status available))")
    assert white != "white"


def test_unknown_match_id_gets_busy(tiny_server: ServerThread) -> None:
    port = tiny_server.port
    assert_acl_reply(gameserver_post(port, "( PLAY nosuch NIL )"), "busy")
    assert_acl_reply(gameserver_post(port, "( STOP nosuch NIL )"), "busy")
    assert_acl_reply(gameserver_post(port, "( ABORT nosuch )"), "busy")


def test_lower_case_keywords_preview_and_abort(tiny_server: ServerThread) -> None:
    port = tiny_server.port
    assert_acl_reply(gameserver_post(port, f"(preview ({TINY_GDL}) 5)"), "ready")
    assert_acl_reply(gameserver_post(port, f"(start m3 white ({TINY_GDL}) 5 3)"), "ready")
    assert_acl_reply(gameserver_post(port, "(play m3 nil)"), "(add 1)")
    assert_acl_reply(gameserver_post(port, "(abort m3)"), "aborted")
    assert_acl_reply(gameserver_post(port, "(play m3 nil)"), "busy")


def test_get_form_with_url_encoded_message(tiny_server: ServerThread) -> None:
    request = f"GET /{quote('( INFO )')} HTTP/1.0\r\n\r\n".encode()
    assert_acl_reply(raw_exchange(tiny_server.port, request), "((name tester) (status available))")
    plus_form = b"GET /(+PING+) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    assert_acl_reply(
        raw_exchange(tiny_server.port, plus_form), "((name tester) (status available))"
    )


def test_options_preflight_has_cors_headers(tiny_server: ServerThread) -> None:
    request = (
        b"OPTIONS / HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://example.org\r\n"
        b"Access-Control-Request-Method: POST\r\nConnection: close\r\n\r\n"
    )
    assert_acl_reply(raw_exchange(tiny_server.port, request), "")


def test_post_without_content_length_reads_to_end_of_stream(tiny_server: ServerThread) -> None:
    request = b"POST / HTTP/1.0\r\nContent-Type: text/acl\r\n\r\n( INFO )"
    raw = raw_exchange(tiny_server.port, request, half_close=True)
    assert_acl_reply(raw, "((name tester) (status available))")


def test_post_with_content_length_then_half_close_is_answered(tiny_server: ServerThread) -> None:
    request = b"POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: 8\r\n\r\n( INFO )"
    raw = raw_exchange(tiny_server.port, request, half_close=True)
    assert_acl_reply(raw, "((name tester) (status available))")


def test_http_1_1_keep_alive_serves_several_messages(tiny_server: ServerThread) -> None:
    one = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\n(INFO)"
    raw = raw_exchange(tiny_server.port, one + one, half_close=True)
    assert raw.count(b"((name tester) (status available))") == 2


def test_garbage_message_is_a_400_not_a_crash(tiny_server: ServerThread) -> None:
    status, headers, _ = split_reply(gameserver_post(tiny_server.port, "((( nonsense"))
    assert status.split(" ", 1)[1] == "400 Bad Request"
    assert ("Access-Control-Allow-Origin", "*") in headers
    assert_acl_reply(
        gameserver_post(tiny_server.port, "(INFO)"), "((name tester) (status available))"
    )


@pytest.mark.parametrize("agent", [SleepyAgent, CrashingAgent])
def test_late_or_crashing_agent_still_answers_a_legal_move(agent: type[FirstAgent]) -> None:
    service = PlayerService(agent, name="tester", loader=stub_loader, seed=1)
    with ServerThread(service) as server:
        port = server.port
        assert_acl_reply(gameserver_post(port, f"(START m4 white ({TINY_GDL}) 5 1)"), "ready")
        # The manager allows the play clock plus about a second.
        _, _, body = split_reply(gameserver_post(port, "(PLAY m4 NIL)", timeout=2.0))
        assert body.decode() in {"(add 1)", "(add 2)"}
        assert_acl_reply(gameserver_post(port, "(ABORT m4)"), "aborted")


def test_a_pondering_agent_thinks_through_the_start_clock_and_its_forced_moves() -> None:
    agents: list[PonderingAgent] = []

    def make() -> PonderingAgent:
        agents.append(PonderingAgent())
        return agents[-1]

    game = TinyGame()
    opening = game.initial_state()
    after = game.next_state(opening, ["(add 1)", "noop"])
    with ServerThread(PlayerService(make, name="tester", loader=stub_loader, seed=1)) as server:
        port = server.port
        assert_acl_reply(gameserver_post(port, f"(START m6 white ({TINY_GDL}) 3 1)"), "ready")
        assert_acl_reply(gameserver_post(port, "(PLAY m6 NIL)", timeout=2.0), "(add 1)")
        assert_acl_reply(gameserver_post(port, "(PLAY m6 ((add 1) noop))", timeout=2.0), "noop")
        assert_acl_reply(gameserver_post(port, "(ABORT m6)"), "aborted")
    (agent,) = agents
    assert [s for s, _ in agent.asked] == [opening, opening, after]
    start_time, first_time, forced_time = (t or 0.0 for _, t in agent.asked)
    assert 1.0 < start_time < 3.0  # the rest of the start clock, less the margins
    assert 0.0 < first_time < 1.0 and 0.0 < forced_time < 1.0


def test_rules_are_loaded_with_the_gdl_engine() -> None:
    """Scrambled rules, the real GDL engine: moves come back in the scrambled names."""
    names = scramble_map(TINY_GDL)
    rules = scramble(TINY_GDL, names)
    with ServerThread(PlayerService(FirstAgent, name="tester")) as server:
        port = server.port
        start = f"(START g1 {names['white']} ({rules}) 30 5)"
        assert_acl_reply(gameserver_post(port, start, timeout=35), "ready")
        assert_acl_reply(gameserver_post(port, "(PLAY g1 NIL)", timeout=6), f"({names['add']} 1)")
        assert_acl_reply(gameserver_post(port, "(ABORT g1)"), "aborted")


def test_rules_that_do_not_load_refuse_the_match(tiny_server: ServerThread) -> None:
    assert_acl_reply(gameserver_post(tiny_server.port, "(START m5 white ((role x)) 5 1)"), "busy")
    assert_acl_reply(
        gameserver_post(tiny_server.port, "(INFO)"), "((name tester) (status available))"
    )
