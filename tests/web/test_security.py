"""The web app against hostile input: paths, foreign hosts, cross-site posts, big bodies,
overwriting imports, other people's sessions and poisoned stored records."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from ggpkit.match.records import MatchRecord
from ggpkit.store.sqlite import MatchStore
from ggpkit.web.app import MAX_IMPORT_BYTES, TOKEN_HEADER, create_app
from ggpkit.web.guards import LOCAL_HOSTS, host_name

TEST_HOSTS = [*LOCAL_HOSTS, "testserver"]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    games = tmp_path / "games"
    games.mkdir()
    with TestClient(create_app(tmp_path / "web.sqlite3", games, TEST_HOSTS)) as c:
        yield c


def _session(client: TestClient, seats: dict[str, str]) -> tuple[str, str]:
    body = {"game": "breakthrough-holes", "seats": seats, "agent_time": 0.1}
    r = client.post("/api/sessions", json=body)
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["token"]


# ---- what the server loads -------------------------------------------------------------


@pytest.mark.parametrize("game", ["/etc/passwd", "/dev/zero", "../../etc/hostname"])
def test_a_session_is_never_started_from_a_path(client: TestClient, game: str) -> None:
    r = client.post("/api/sessions", json={"game": game})
    assert r.status_code == 404
    assert "registered" in r.json()["error"]


def test_public_games_are_files_of_the_folder_only(client: TestClient, tmp_path: Path) -> None:
    outside = tmp_path / "secret.kif"
    outside.write_text("(role secret)")
    (tmp_path / "games" / "link.kif").symlink_to(outside)
    assert client.get("/api/kif/public/link.kif").status_code == 404


# ---- host, content type, size ----------------------------------------------------------


def test_requests_for_a_foreign_host_name_are_refused(client: TestClient) -> None:
    assert client.get("/api/matches", headers={"Host": "attacker.example"}).status_code == 400
    assert client.get("/api/matches", headers={"Host": "localhost:8000"}).status_code == 200
    assert client.get("/api/matches", headers={"Host": "[::1]:8000"}).status_code == 200


def test_host_names_are_read_without_their_port() -> None:
    assert host_name("127.0.0.1:8000") == "127.0.0.1"
    assert host_name("[::1]:80") == "::1"
    assert host_name("LocalHost") == "localhost"


@pytest.mark.parametrize(
    "path", ["/api/matches/import", "/api/sessions", "/api/kif/check", "/api/kif/loads"]
)
def test_bodies_that_are_not_declared_json_are_refused(client: TestClient, path: str) -> None:
    body = json.dumps({"game": "peg", "text": "(role a)"})
    r = client.post(path, content=body, headers={"Content-Type": "text/plain"})
    assert r.status_code == 415


def test_an_oversized_import_is_refused_before_it_is_parsed(client: TestClient) -> None:
    big = b"[" * (MAX_IMPORT_BYTES + 1)  # would be a deep-nesting bomb if it were parsed

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit is counted as it streams
        for i in range(0, len(big), 65536):
            yield big[i : i + 65536]

    r = client.post(
        "/api/matches/import", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 413


# ---- imports ---------------------------------------------------------------------------


def test_an_import_never_replaces_a_stored_match_or_a_live_session(client: TestClient) -> None:
    sid, token = _session(client, {"white": "human", "black": "human"})
    before = client.get(f"/api/matches/{sid}/json").json()  # the live session's record
    move = client.get(f"/api/sessions/{sid}").json()["legal"]["white"][0]["move"]
    client.post(f"/api/sessions/{sid}/move", json={"role": "white", "move": move},
                headers={TOKEN_HEADER: token})  # fmt: skip
    r = client.post("/api/matches/import", json=before)
    assert r.status_code == 409
    assert client.get(f"/api/matches/{sid}").json()["moves"][0][0] == move
    assert client.get(f"/api/sessions/{sid}").json()["moves"][0][0] == move


def test_an_imported_web_record_never_becomes_a_live_session(tmp_path: Path) -> None:
    db = tmp_path / "w.sqlite3"
    with TestClient(create_app(db, allowed_hosts=TEST_HOSTS)) as c:
        sid, _ = _session(c, {"white": "human", "black": "human"})
        doc = c.get(f"/api/matches/{sid}/json").json()
    doc["matchId"] = "imported-" + sid
    with TestClient(create_app(db, allowed_hosts=TEST_HOSTS)) as c:
        assert c.post("/api/matches/import", json=doc).status_code == 201
    with TestClient(create_app(db, allowed_hosts=TEST_HOSTS)) as c:
        assert c.get(f"/api/sessions/{sid}").status_code == 200
        assert c.get(f"/api/sessions/imported-{sid}").status_code == 404


# ---- other people's sessions -------------------------------------------------------------


def test_only_the_sessions_creator_can_change_it(client: TestClient) -> None:
    sid, token = _session(client, {"white": "human", "black": "random"})
    _, other_token = _session(client, {"white": "human", "black": "random"})
    move = client.get(f"/api/sessions/{sid}").json()["legal"]["white"][0]["move"]
    url = f"/api/sessions/{sid}"
    for headers in ({}, {TOKEN_HEADER: other_token}):
        assert client.post(f"{url}/move", json={"role": "white", "move": move},
                           headers=headers).status_code == 403  # fmt: skip
        for action in ("agent", "undo", "redo"):
            assert client.post(f"{url}/{action}", headers=headers).status_code == 403
    assert client.get(url).json()["moves"] == []
    ok = client.post(f"{url}/move", json={"role": "white", "move": move},
                     headers={TOKEN_HEADER: token})  # fmt: skip
    assert ok.status_code == 200
    assert "token" not in client.get(url).json()


# ---- poisoned stored records ------------------------------------------------------------


def _unfinished_web_record(
    match_id: str, game: str, rules: str, moves: list[list[str]]
) -> MatchRecord:
    record = MatchRecord(
        match_id=match_id, game_name=game, rules=rules, roles=["a"], start_clock=0.0,
        play_clock=1.0, player_names=["human"], is_human=[True], source="web",
    )  # fmt: skip
    record.add_state("")
    for joint in moves:
        record.add_step(joint, ["" for _ in joint], "")
    return record


def test_broken_stored_sessions_never_stop_the_server_and_are_marked(tmp_path: Path) -> None:
    db = tmp_path / "poisoned.sqlite3"
    nested = "(role a) (init " + "(f " * 2000 + "x" + ")" * 2000 + ")"
    with MatchStore(db) as store:
        store.save(_unfinished_web_record("deep", "deep.kif", nested, []))
        store.save(_unfinished_web_record("illegal", "peg", "", [["(jump z z9 z z9)"]]))
    with TestClient(create_app(db, allowed_hosts=TEST_HOSTS)) as c:
        assert c.get("/api/games").status_code == 200
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            aborted = {m["id"] for m in c.get("/api/matches").json() if m["aborted"]}
            if aborted == {"deep", "illegal"}:
                break
            time.sleep(0.2)
        assert aborted == {"deep", "illegal"}
        assert c.get("/api/sessions/deep").status_code == 404
        assert c.get("/api/sessions/illegal").status_code == 404


@pytest.mark.parametrize(
    "body", ["[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000]
)
def test_an_import_nested_too_deep_is_a_400_not_a_crash(client: TestClient, body: str) -> None:
    r = client.post(
        "/api/matches/import", content=body, headers={"Content-Type": "application/json"}
    )
    assert r.status_code == 400
    assert "nested too deep" in r.json()["detail"]
