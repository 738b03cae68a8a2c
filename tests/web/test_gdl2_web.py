"""GDL-II in the web app: nature is no seat, a person sees only their role's view, an agent
is given views, the replay shows the true state or a role's view, and a session of
imperfect information survives a restart with its percepts."""

from __future__ import annotations

import json
import time
from collections.abc import Hashable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from fastapi.testclient import TestClient
from games.gdl2_support import MONTY_HALL

from ggpkit.agents.base import Agent, Limit
from ggpkit.games.api import Game
from ggpkit.games.views import RoleView
from ggpkit.gdl.kif import parse_term
from ggpkit.gdl.terms import Term
from ggpkit.store.sqlite import MatchStore
from ggpkit.web import app as web_app
from ggpkit.web.app import TOKEN_HEADER, create_app

from .test_api import TEST_HOSTS

CARD = """
; nature deals alice a high or low card, which she sees; she raises or checks, which bob
; sees; bob calls or folds. A fold gives alice the pot; a call shows whose card wins.
(role random) (role alice) (role bob)
(card hi) (card lo)
(init (phase deal))
(<= (legal random (deal ?c)) (true (phase deal)) (card ?c))
(<= (legal random wait) (not (true (phase deal))))
(<= (legal alice wait) (not (true (phase bet))))
(<= (legal alice raise) (true (phase bet)))
(<= (legal alice check) (true (phase bet)))
(<= (legal bob wait) (not (true (phase call))))
(<= (legal bob call) (true (phase call)))
(<= (legal bob fold) (true (phase call)))
(<= (sees alice (card ?c)) (does random (deal ?c)))
(<= (sees bob (alice ?m)) (does alice ?m) (distinct ?m wait))
(<= (next (holds ?c)) (does random (deal ?c)))
(<= (next (holds ?c)) (true (holds ?c)))
(<= (next (answer ?m)) (does bob ?m) (distinct ?m wait))
(<= (next (phase bet)) (true (phase deal)))
(<= (next (phase call)) (true (phase bet)))
(<= (next (phase over)) (true (phase call)))
(<= terminal (true (phase over)))
(<= (goal alice 100) (true (answer fold)))
(<= (goal alice 100) (true (answer call)) (true (holds hi)))
(<= (goal alice 0) (true (answer call)) (true (holds lo)))
(<= (goal bob 0) (true (answer fold)))
(<= (goal bob 0) (true (answer call)) (true (holds hi)))
(<= (goal bob 100) (true (answer call)) (true (holds lo)))
"""
"""A two-seat game of hidden information written here: alice knows her card, bob never
does (he sees only what alice did)."""

STATE_WORDS = ("(phase", "(holds", "(car ", "(pick ", "(opened ", "(place", "(reveal", "(deal")
"""Texts of the state's facts and of nature's moves in the two games."""


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "web.sqlite3", tmp_path, TEST_HOSTS)) as c:
        yield c


def _upload(client: TestClient, text: str, name: str) -> dict[str, Any]:
    r = client.post("/api/kif/games", json={"text": text, "name": name})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def _start(client: TestClient, text: str, seats: dict[str, str]) -> dict[str, Any]:
    kif = _upload(client, text, "game.kif")
    r = client.post("/api/sessions", json={"kif_id": kif["kif_id"], "seats": seats,
                                           "agent_time": 0.2})  # fmt: skip
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    client.headers[TOKEN_HEADER] = body["token"]
    return body


def _move(client: TestClient, sid: str, role: str, move: str) -> dict[str, Any]:
    r = client.post(f"/api/sessions/{sid}/move", json={"role": role, "move": move})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _shown(body: dict[str, Any], *words: str) -> list[str]:
    text = json.dumps(body)
    return [w for w in words if w in text]


def test_nature_is_no_seat(client: TestClient) -> None:
    kif = _upload(client, MONTY_HALL, "monty.kif")
    assert kif["roles"] == ["contestant"]
    assert kif["chance_role"] == "random"
    r = client.post("/api/sessions", json={"kif_id": kif["kif_id"], "seats": {"random": "human"}})
    assert r.status_code == 400
    assert "nature" in r.json()["error"]
    s = client.post("/api/sessions", json={"kif_id": kif["kif_id"], "seats": {}}).json()
    assert s["seats"] == {"contestant": "human"}
    assert s["to_move"] == ["contestant"]


def test_the_contestant_sees_its_percepts_and_never_the_car(client: TestClient) -> None:
    s = _start(client, MONTY_HALL, {"contestant": "human"})
    sid = s["id"]
    public = client.get(f"/api/sessions/{sid}").json()
    assert public["view"] is None
    assert not {"board", "facts", "moves", "moves_short", "states"} & set(public)
    after_pick = _move(client, sid, "contestant", "(pick d1)")
    # the pick and nature's reveal were played: the contestant was told which door opened
    view = after_pick["view"]
    assert view["role"] == "contestant" and view["turn"] == 2
    assert [st["move"] for st in view["steps"]] == ["(pick d1)", "wait"]
    opened = view["steps"][1]["percepts"]
    assert len(opened) == 1 and opened[0].startswith("(opened d")
    assert opened[0] != "(opened d1)"
    assert {m["move"] for m in view["legal"]} == {"stay", "switch"}
    assert all(st["unseen"] == ["random"] for st in view["steps"])
    assert _shown(after_pick, "(car ", "(place", "(reveal", "(phase") == []
    end = _move(client, sid, "contestant", "stay")
    assert end["finished"] and end["goals"] is not None and set(end["goals"]) == {"contestant"}
    assert end["view"]["steps"][-1]["percepts"][0].startswith("(car d")


def test_an_agent_plays_from_views_and_the_replay_shows_nature(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = _start(client, MONTY_HALL, {"contestant": "random"})
    sid = s["id"]
    for _ in range(10):
        body = client.post(f"/api/sessions/{sid}/agent").json()
        assert body["view"] is None and _shown(body, *STATE_WORDS) == []
        if body["finished"]:
            break
    assert body["finished"]
    true = client.get(f"/api/matches/{sid}").json()
    nature = [joint[0] for joint in true["moves"]]
    assert nature[0].startswith("(place d") and nature[1].startswith("(reveal d")
    assert len(true["states"]) == 4 and true["chance_role"] == "random"
    seen = client.get(f"/api/matches/{sid}", params={"view": "contestant"}).json()
    assert "states" not in seen and "moves" not in seen
    assert _shown(seen, "(place", "(reveal", "(phase") == []
    assert [st["percepts"] for st in seen["steps"]] == [p[1] for p in true["percepts"]]


class _ViewSpy(Agent):
    """Plays Monty Hall from its view alone, noting everything it is given as its state."""

    name = "spy"
    plays_from_views = True
    given: ClassVar[list[object]] = []

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        _ViewSpy.given.append(state)
        turn = state.turn if isinstance(state, RoleView) else -1
        return parse_term("(pick d2)" if turn == 0 else "switch")


def test_an_agents_thinking_is_given_its_view_never_the_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_app, "make_agent", lambda spec, seed=None: _ViewSpy())
    monkeypatch.setattr(_ViewSpy, "given", [])
    with TestClient(create_app(tmp_path / "w.sqlite3", tmp_path, TEST_HOSTS)) as c:
        s = _start(c, MONTY_HALL, {"contestant": "spy"})
        for _ in range(5):
            if c.post(f"/api/sessions/{s['id']}/agent").json()["finished"]:
                break
        record = c.get(f"/api/matches/{s['id']}").json()
    assert len(_ViewSpy.given) == 2  # asked to pick and to decide, not at the reveal
    assert all(isinstance(v, RoleView) and v.role == "contestant" for v in _ViewSpy.given)
    assert [v.turn for v in _ViewSpy.given] == [0, 2]
    assert [joint[1] for joint in record["moves"]] == ["(pick d2)", "wait", "switch"]


def test_two_people_at_one_screen_each_get_their_own_view(client: TestClient) -> None:
    s = _start(client, CARD, {"alice": "human", "bob": "human"})
    sid = s["id"]
    assert s["roles"] == ["alice", "bob"] and s["turn"] == 1  # nature's deal was played
    assert s["humans_to_move"] == ["alice"]
    alice = client.get(f"/api/sessions/{sid}/view/alice").json()["view"]
    card = alice["steps"][0]["percepts"]
    assert len(card) == 1 and card[0].startswith("(card ")
    after = _move(client, sid, "alice", "raise")
    assert after["view"]["role"] == "alice" and after["humans_to_move"] == ["bob"]
    bob = client.get(f"/api/sessions/{sid}/view/bob").json()
    assert [st["percepts"] for st in bob["view"]["steps"]] == [[], ["(alice raise)"]]
    assert {m["move"] for m in bob["view"]["legal"]} == {"call", "fold"}
    assert _shown(bob, "(card ", "(holds", "(deal") == []
    assert client.get(f"/api/sessions/{sid}/view/random").status_code == 400
    no_token = client.get(f"/api/sessions/{sid}/view/bob", headers={TOKEN_HEADER: "x"})
    assert no_token.status_code == 403
    assert client.post(f"/api/sessions/{sid}/undo").status_code == 400


def test_an_agents_view_is_not_shown_while_it_plays(client: TestClient) -> None:
    s = _start(client, CARD, {"alice": "random", "bob": "human"})
    sid = s["id"]
    assert client.get(f"/api/sessions/{sid}/view/alice").status_code == 403
    body = client.post(f"/api/sessions/{sid}/agent", params={"role": "bob"}).json()
    assert body["view"]["role"] == "bob" and body["humans_to_move"] == ["bob"]
    assert _shown(body, "(card ", "(holds", "(deal") == []


def test_the_replay_opens_when_the_match_ends_with_a_view_per_role(client: TestClient) -> None:
    s = _start(client, CARD, {"alice": "human", "bob": "human"})
    sid = s["id"]
    assert client.get(f"/api/matches/{sid}").status_code == 403
    assert client.get(f"/api/matches/{sid}", params={"view": "bob"}).status_code == 403
    assert client.get(f"/api/matches/{sid}/json").status_code == 403
    _move(client, sid, "alice", "check")
    _move(client, sid, "bob", "call")
    true = client.get(f"/api/matches/{sid}").json()
    alice = client.get(f"/api/matches/{sid}", params={"view": "alice"}).json()
    bob = client.get(f"/api/matches/{sid}", params={"view": "bob"}).json()
    dealt = true["moves"][0][0]
    assert dealt.startswith("(deal ") and true["seats"] == ["alice", "bob"]
    assert alice["steps"][0]["percepts"] == [dealt.replace("(deal", "(card")]
    assert bob["steps"][0]["percepts"] == []
    assert [st["move"] for st in bob["steps"]] == ["wait", "wait", "call"]
    assert [st["move"] for st in alice["steps"]] == ["wait", "check", "wait"]
    assert client.get(f"/api/matches/{sid}/json").status_code == 200


def _restored(client: TestClient, path: str, seconds: float = 60) -> dict[str, Any]:
    """``path`` once the session is back: uploaded rules are restored in the background."""
    deadline = time.monotonic() + seconds
    while (r := client.get(path)).status_code == 404 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def test_a_session_of_hidden_information_is_restored_with_its_percepts(tmp_path: Path) -> None:
    db = tmp_path / "w.sqlite3"
    with TestClient(create_app(db, tmp_path, TEST_HOSTS)) as c:
        s = _start(c, CARD, {"alice": "human", "bob": "human"})
        sid, token = s["id"], s["token"]
        before = _move(c, sid, "alice", "raise")["view"]
    with MatchStore(db) as store:
        record = store.load(sid)
    assert record.chance_role == "random"
    assert [p[1] for p in record.percepts] == [st["percepts"] for st in before["steps"]]
    with TestClient(create_app(db, tmp_path, TEST_HOSTS)) as c:
        c.headers[TOKEN_HEADER] = token
        assert _restored(c, f"/api/sessions/{sid}/view/alice")["view"]["steps"] == before["steps"]
        end = _move(c, sid, "bob", "fold")
    assert end["finished"] and end["goals"] == {"alice": 100, "bob": 0}


MATCHING = """
; Both players show a coin at once; each is told only whether the coins matched.
(role even)
(role odd)
(side heads) (side tails)
(init (round 1))
(<= (legal ?p (show ?s)) (role ?p) (side ?s) (not (true (round 3))))
(<= (sees ?p matched) (role ?p) (does even (show ?s)) (does odd (show ?s)))
(<= (next (shown ?p ?s)) (does ?p (show ?s)))
(<= (next (round 2)) (true (round 1)))
(<= (next (round 3)) (true (round 2)))
(<= (next (score ?n)) (true (score ?n)) (not matches))
(<= matches (does even (show ?s)) (does odd (show ?s)))
(<= (next (score 1)) matches)
(<= terminal (true (round 3)))
(<= (goal even 100) (true (score 1)))
(<= (goal even 0) (not (true (score 1))))
(<= (goal odd 0) (true (score 1)))
(<= (goal odd 100) (not (true (score 1))))
"""


def test_two_people_choose_in_the_same_step_unseen_by_each_other(client: TestClient) -> None:
    s = _start(client, MATCHING, {"even": "human", "odd": "human"})
    sid = s["id"]
    assert sorted(s["to_move"]) == ["even", "odd"]
    before = client.get(f"/api/sessions/{sid}/view/odd").json()
    first = _move(client, sid, "even", "(show heads)")
    assert first["turn"] == 0 and first["humans_to_move"] == ["odd"]  # even's move waits
    again = client.post(f"/api/sessions/{sid}/move", json={"role": "even", "move": "(show tails)"})
    assert again.status_code == 400 and "already" in again.json()["error"]
    odd = client.get(f"/api/sessions/{sid}/view/odd").json()
    assert odd["view"] == before["view"]  # odd is shown nothing of even's waiting move
    both = _move(client, sid, "odd", "(show heads)")
    assert both["turn"] == 1 and sorted(both["humans_to_move"]) == ["even", "odd"]
    assert both["view"]["steps"][0]["percepts"] == ["matched"]


def test_a_person_and_an_agent_choose_in_the_same_step(client: TestClient) -> None:
    s = _start(client, MATCHING, {"even": "human", "odd": "random"})
    sid = s["id"]
    waiting = _move(client, sid, "even", "(show tails)")
    assert waiting["turn"] == 0 and waiting["humans_to_move"] == []
    played = client.post(f"/api/sessions/{sid}/agent?role=even").json()
    assert played["turn"] == 1 and played["humans_to_move"] == ["even"]
    assert [st["move"] for st in played["view"]["steps"]] == ["(show tails)"]


def test_a_move_that_waits_for_the_other_person_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "w.sqlite3"
    with TestClient(create_app(db, tmp_path, TEST_HOSTS)) as c:
        s = _start(c, MATCHING, {"even": "human", "odd": "human"})
        sid, token = s["id"], s["token"]
        assert _move(c, sid, "even", "(show tails)")["humans_to_move"] == ["odd"]
        odd_before = c.get(f"/api/sessions/{sid}/view/odd").json()["view"]
    with TestClient(create_app(db, tmp_path, TEST_HOSTS)) as c:
        c.headers[TOKEN_HEADER] = token
        odd = _restored(c, f"/api/sessions/{sid}/view/odd")
        assert odd["view"] == odd_before and odd["humans_to_move"] == ["odd"]
        again = c.post(f"/api/sessions/{sid}/move", json={"role": "even", "move": "(show heads)"})
        assert again.status_code == 400 and "already" in again.json()["error"]
        both = _move(c, sid, "odd", "(show tails)")  # tails against the held tails: matched
    assert both["turn"] == 1 and both["view"]["steps"][0]["percepts"] == ["matched"]
    with MatchStore(db) as store:
        assert store.load(sid).moves[0] == ["(show tails)", "(show tails)"]


def test_a_held_move_the_rules_refuse_is_dropped_at_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "w.sqlite3"
    with TestClient(create_app(db, tmp_path, TEST_HOSTS)) as c:
        s = _start(c, MATCHING, {"even": "human", "odd": "human"})
        sid, token = s["id"], s["token"]
    with MatchStore(db) as store:  # the file edited by hand: moves no rule allows
        store.hold_move(sid, 0, "even", "(show edge)")
        store.hold_move(sid, 0, "nobody", "(show heads)")
        store.hold_move(sid, 0, "odd", "(show heads)")
    with TestClient(create_app(db, tmp_path, TEST_HOSTS)) as c:
        c.headers[TOKEN_HEADER] = token
        restored = _restored(c, f"/api/sessions/{sid}/view/even")
        assert restored["turn"] == 0 and restored["humans_to_move"] == ["even"]
        both = _move(c, sid, "even", "(show tails)")
    assert both["turn"] == 1 and both["view"]["steps"][0]["percepts"] == []


def test_a_restart_plays_the_step_every_person_had_chosen(tmp_path: Path) -> None:
    """A server killed between keeping the last person's move and playing the step."""
    db = tmp_path / "w.sqlite3"
    with TestClient(create_app(db, tmp_path, TEST_HOSTS)) as c:
        s = _start(c, MATCHING, {"even": "human", "odd": "human"})
        sid, token = s["id"], s["token"]
    with MatchStore(db) as store:
        store.hold_move(sid, 0, "even", "(show heads)")
        store.hold_move(sid, 0, "odd", "(show heads)")
    with TestClient(create_app(db, tmp_path, TEST_HOSTS)) as c:
        c.headers[TOKEN_HEADER] = token
        played = _restored(c, f"/api/sessions/{sid}/view/odd")
    assert played["turn"] == 1 and played["view"]["steps"][0]["percepts"] == ["matched"]
