"""The web app's JSON API through the ASGI test client."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ggpkit.web.app import TOKEN_HEADER, create_app
from ggpkit.web.guards import LOCAL_HOSTS

TEST_HOSTS = [*LOCAL_HOSTS, "testserver"]
"""The test client's requests say ``Host: testserver``."""

TINY_GAME = """
; a two-cell race: each turn the mover marks a cell; the first to mark cell 2 wins
(role left) (role right)
(init (control left))
(<= (legal ?r (mark ?c)) (true (control ?r)) (cellname ?c) (not (true (marked ?c))))
(<= (legal left noop) (true (control right)))
(<= (legal right noop) (true (control left)))
(cellname 1) (cellname 2)
(<= (next (marked ?c)) (does ?r (mark ?c)))
(<= (next (marked ?c)) (true (marked ?c)))
(<= (next (owner ?r ?c)) (does ?r (mark ?c)))
(<= (next (owner ?r ?c)) (true (owner ?r ?c)))
(<= (next (control right)) (true (control left)))
(<= (next (control left)) (true (control right)))
(<= terminal (true (marked 2)))
(<= (goal ?r 100) (role ?r) (true (owner ?r 2)))
(<= (goal ?r 0) (role ?r) (not (true (owner ?r 2))))
"""


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "web.sqlite3", tmp_path, TEST_HOSTS)) as c:
        yield c


def _started(client: TestClient, request: dict[str, Any]) -> dict[str, Any]:
    """A new session; the client carries its token from now on, as the browser does."""
    r = client.post("/api/sessions", json=request)
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    client.headers[TOKEN_HEADER] = body["token"]
    return body


def _new(client: TestClient, game: str, seats: dict[str, str]) -> dict[str, Any]:
    return _started(client, {"game": game, "seats": seats, "agent_time": 0.1})


def test_games_are_listed_with_roles(client: TestClient) -> None:
    names = {g["name"]: g["roles"] for g in client.get("/api/games").json()}
    assert names["breakthrough-holes"] == ["white", "black"]
    assert names["peg"] == ["jumper"]


def test_illegal_move_is_a_400_with_the_reason_and_changes_nothing(client: TestClient) -> None:
    s = _new(client, "breakthrough-holes", {"white": "human", "black": "random"})
    r = client.post(
        f"/api/sessions/{s['id']}/move", json={"role": "white", "move": "(move 1 1 1 2)"}
    )
    assert r.status_code == 400
    assert "(move 1 1 1 2)" in r.json()["error"]
    after = client.get(f"/api/sessions/{s['id']}").json()
    assert after["version"] == 0 and after["moves"] == []


def test_stale_version_is_a_409(client: TestClient) -> None:
    s = _new(client, "breakthrough-holes", {"white": "human", "black": "human"})
    move = s["legal"]["white"][0]["move"]
    ok = client.post(
        f"/api/sessions/{s['id']}/move", json={"role": "white", "move": move, "version": 0}
    )
    assert ok.status_code == 200
    stale = client.post(
        f"/api/sessions/{s['id']}/move",
        json={"role": "black", "move": ok.json()["legal"]["black"][0]["move"], "version": 0},
    )
    assert stale.status_code == 409


def test_unknown_ids_and_games_are_404(client: TestClient) -> None:
    assert client.get("/api/sessions/nope").status_code == 404
    assert client.post("/api/sessions", json={"game": "chess"}).status_code == 404
    assert client.get("/api/matches/nope").status_code == 404


def test_board_cells_and_move_clicks_are_inferred(client: TestClient) -> None:
    s = _new(client, "breakthrough-holes", {"white": "human", "black": "random"})
    board = s["board"]
    assert len(board["cells"]) == 36
    # rules.md 3: holes at (2,3), (3,4), (4,3), (5,4); cells are keyed "x,y" as in the facts
    void = {c["key"] for c in board["cells"] if c["void"]}
    assert void == {"2,3", "3,4", "4,3", "5,4"}
    whites = [c for c in board["cells"] if c["content"] == "white"]
    assert len(whites) == 12
    for m in s["legal"]["white"]:
        assert len(m["cells"]) == 2


def test_short_notation_is_shown_and_accepted(client: TestClient) -> None:
    s = _new(client, "pawn-checkers", {"black": "human", "red": "human"})
    shorts = {m["short"]: m["move"] for m in s["legal"]["black"]}
    assert shorts["a3-b4"] == "(move 1 3 2 4)"  # x=1 is file a, y=3 the row
    after = client.post(
        f"/api/sessions/{s['id']}/move", json={"role": "black", "move": "c3-d4"}
    ).json()
    assert after["moves"][0][0] == "(move 3 3 4 4)"
    assert after["moves_short"][0][0] == {"move": "(move 3 3 4 4)", "short": "c3-d4"}


def test_agent_replies_and_undo_returns_to_the_human_turn(client: TestClient) -> None:
    s = _new(client, "breakthrough-holes", {"white": "human", "black": "random"})
    move = s["legal"]["white"][0]["move"]
    after = client.post(f"/api/sessions/{s['id']}/move", json={"role": "white", "move": move})
    assert after.json()["to_move"] == ["black"]
    replied = client.post(f"/api/sessions/{s['id']}/agent").json()
    assert len(replied["moves"]) == 2 and replied["humans_to_move"] == ["white"]
    undone = client.post(f"/api/sessions/{s['id']}/undo").json()
    assert undone["moves"] == [] and undone["can_redo"]
    redone = client.post(f"/api/sessions/{s['id']}/redo").json()
    assert redone["moves"][0][0] == move


def test_peg_hint_gives_a_legal_best_move_and_score(client: TestClient) -> None:
    s = _new(client, "peg", {})
    hint = client.get(f"/api/sessions/{s['id']}/hint").json()
    assert hint["score"] == 100
    assert hint["move"] in [m["move"] for m in s["legal"]["jumper"]]


def test_finished_game_is_stored_and_downloadable(client: TestClient) -> None:
    s = _new(client, "breakthrough-holes", {"white": "random", "black": "random"})
    view = s
    for _ in range(200):
        if view["finished"]:
            break
        view = client.post(f"/api/sessions/{s['id']}/agent").json()
    assert view["finished"]
    assert sorted(view["goals"].values()) == [0, 100]
    listed = client.get("/api/matches", params={"source": "web"}).json()
    assert any(m["id"] == s["id"] and m["completed"] for m in listed)
    replay = client.get(f"/api/matches/{s['id']}").json()
    assert len(replay["boards"]) == len(view["moves"]) + 1
    doc = client.get(f"/api/matches/{s['id']}/json").json()
    assert doc["matchId"] == s["id"] and doc["goalValues"] == [
        view["goals"]["white"],
        view["goals"]["black"],
    ]
    assert "gameRulesheet" in doc


def test_kif_check_reports_line_and_column(client: TestClient) -> None:
    r = client.post("/api/kif/check", json={"text": "(role a)\n(init (cell 1", "name": "x.kif"})
    body = r.json()
    assert r.status_code == 200 and not body["ok"]
    assert body["problems"][0]["line"] == 2


def test_oversized_kif_is_rejected(client: TestClient) -> None:
    r = client.post("/api/kif/check", json={"text": "(role a)" * 40_000})
    assert r.status_code == 422


def test_uploaded_game_is_played_to_the_end(client: TestClient) -> None:
    up = client.post("/api/kif/games", json={"text": TINY_GAME, "name": "race.kif"})
    assert up.status_code == 201, up.text
    s = _started(
        client, {"kif_id": up.json()["kif_id"], "seats": {"left": "human", "right": "human"}}
    )
    moves = [m["move"] for m in s["legal"]["left"]]
    assert sorted(moves) == ["(mark 1)", "(mark 2)"]
    done = client.post(
        f"/api/sessions/{s['id']}/move", json={"role": "left", "move": "(mark 2)"}
    ).json()
    assert done["finished"] and done["goals"] == {"left": 100, "right": 0}


def test_sessions_survive_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "restart.sqlite3"
    with TestClient(create_app(db, allowed_hosts=TEST_HOSTS)) as c:
        s = _new(c, "breakthrough-holes", {"white": "human", "black": "human"})
        move = s["legal"]["white"][0]["move"]
        c.post(f"/api/sessions/{s['id']}/move", json={"role": "white", "move": move})
    with TestClient(create_app(db, allowed_hosts=TEST_HOSTS)) as c:
        again = c.get(f"/api/sessions/{s['id']}").json()
        assert again["moves"][0][0] == move and again["humans_to_move"] == ["black"]


def test_piece_looks_match_whole_words_before_parts() -> None:
    from ggpkit.games.board.pieces import piece_looks

    looks = piece_looks(["hole", "o", "x", "blackPawn", "redPawn", "b"])
    assert looks["hole"]["shape"] == "hole"
    assert looks["blackPawn"]["color"] != looks["redPawn"]["color"]
    assert (looks["o"]["shape"], looks["o"]["label"]) == ("mark", "O")
    assert "b" not in looks  # blank: nothing is drawn


def test_an_agent_seat_says_what_it_thinks_until_the_next_move(client: TestClient) -> None:
    seats = {"white": "human", "black": "mcts"}
    # 3 s: a short clock overrun on a busy machine replaces the move and loses the thoughts
    s = _started(client, {"game": "breakthrough-holes", "seats": seats, "agent_time": 3})
    assert s["thoughts"] == {}
    move = s["legal"]["white"][0]["move"]
    client.post(f"/api/sessions/{s['id']}/move", json={"role": "white", "move": move})
    before = client.get(f"/api/sessions/{s['id']}").json()
    replied = client.post(f"/api/sessions/{s['id']}/agent").json()
    thought = replied["thoughts"]["black"]
    assert thought["agent"] == "mcts" and 0 <= thought["value"] <= 100
    assert thought["best"][0]["move"] == replied["moves"][1][1]  # the move it played comes first
    considered = {m["move"] for m in thought["best"]}
    assert considered <= set(_legal_of(client, before, "black"))
    assert all(len(m["cells"]) == 2 and m["short"] for m in thought["best"])
    after = client.post(
        f"/api/sessions/{s['id']}/move",
        json={"role": "white", "move": replied["legal"]["white"][0]["move"]},
    ).json()
    assert after["thoughts"] == {}  # about a position that is gone


def _legal_of(client: TestClient, view: dict[str, Any], role: str) -> list[str]:
    """Legal moves of ``role`` in a view's position, from the rules (not from the view)."""
    from ggpkit.games.registry import load
    from ggpkit.gdl.kif import parse_terms

    game = load(view["game"])
    state = game.state_from_facts(parse_terms(" ".join(view["facts"])))
    return [str(m) for m in game.legal_moves(state, role)]


def test_rules_load_in_stages_and_the_game_is_kept(client: TestClient) -> None:
    job = client.post("/api/kif/loads", json={"text": TINY_GAME, "name": "race.kif"})
    assert job.status_code == 202
    view = job.json()
    for _ in range(300):
        if view["finished"]:
            break
        time.sleep(0.1)
        view = client.get(f"/api/kif/loads/{view['id']}").json()
    assert view["error"] is None, view["error"]
    assert [d["stage"] for d in view["done"]] == ["parse", "check", "compile", "try", "probe"]
    result = view["result"]
    assert result["roles"] == ["left", "right"] and result["reasoner"] in ("propnet", "joincode")
    s = _started(client, {"kif_id": result["kif_id"], "seats": {}})
    assert sorted(m["move"] for m in s["legal"]["left"]) == ["(mark 1)", "(mark 2)"]


def test_a_load_of_broken_rules_ends_with_every_problem(client: TestClient) -> None:
    broken = TINY_GAME.replace("(<= terminal (true (marked 2)))", "(<= terminal (true (marked ?x))")
    view = client.post("/api/kif/loads", json={"text": broken, "name": "bad.kif"}).json()
    for _ in range(300):
        if view["finished"]:
            break
        time.sleep(0.1)
        view = client.get(f"/api/kif/loads/{view['id']}").json()
    assert view["result"] is None and view["error"]
    assert view["problems"] and view["problems"][0]["line"] >= 1


def test_too_many_loads_at_once_are_refused(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from ggpkit.web import kif_jobs

    release = threading.Event()

    def stuck(text: str, name: str, progress: Any) -> Any:  # a load that takes until released
        release.wait(30)
        raise kif_jobs.KifRejected(f"{name}: stopped by the test")

    monkeypatch.setattr(kif_jobs, "load_checked_kif", stuck)
    try:
        started = [client.post("/api/kif/loads", json={"text": TINY_GAME, "name": f"g{i}.kif"})
                   for i in range(kif_jobs.MAX_UNFINISHED + 2)]  # fmt: skip
        codes = [r.status_code for r in started]
        assert codes == [202] * kif_jobs.MAX_UNFINISHED + [429, 429]
        assert "loading already" in started[-1].json()["error"]
    finally:
        release.set()
