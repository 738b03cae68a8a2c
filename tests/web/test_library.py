"""The web app over the game library: the Play page offers its games beside the registered
ones, a library game is loaded as uploaded rules are and then played, and the GDL page
lists the library."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from games.library.repository import COUNTDOWN, TIC_TAC_TOE  # tests/ is the import root

from ggpkit.games.library import GameCache, GameMetadata, add_folder
from ggpkit.games.registry import games
from ggpkit.web.app import TOKEN_HEADER, create_app
from ggpkit.web.guards import LOCAL_HOSTS
from ggpkit.web.kif_upload import MAX_KIF_CHARS

TEST_HOSTS = [*LOCAL_HOSTS, "testserver"]
REPOSITORY = "http://127.0.0.1:9/base"  # recorded in the cache entry, never asked


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty data folder of its own, and a folder of games added to the library."""
    monkeypatch.setenv("GGPKIT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("GGPKIT_GAMES_DIR", raising=False)
    games_folder = tmp_path / "games"
    games_folder.mkdir()
    (games_folder / "ticTacToe.kif").write_text(TIC_TAC_TOE)
    (games_folder / "broken.kif").write_text("(role a) (<= terminal (true (x ?y)))")
    (games_folder / "peg.kif").write_text(TIC_TAC_TOE)  # hidden by the registered peg
    add_folder(games_folder)
    return games_folder


@pytest.fixture
def client(tmp_path: Path, folder: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "web.sqlite3", allowed_hosts=TEST_HOSTS)) as c:
        yield c


def _loaded(client: TestClient, name: str) -> dict[str, Any]:
    """Load a library game as the Play page does: the finished load job."""
    r = client.post(f"/api/games/{name}/load")
    assert r.status_code == 202, r.text
    view: dict[str, Any] = r.json()
    for _ in range(600):
        if view["finished"]:
            break
        time.sleep(0.1)
        view = client.get(f"/api/kif/loads/{view['id']}").json()
    assert view["error"] is None, view["error"]
    return view


def test_the_play_page_offers_library_games_after_the_registered_ones(
    client: TestClient, folder: Path
) -> None:
    listed = client.get("/api/games").json()
    names = [g["name"] for g in listed]
    assert names[: len(games())] == list(games())
    assert names.count("peg") == 1  # a registered game hides a library game of its name
    assert "broken" not in names  # rules ggpkit cannot play are not offered
    (ttt,) = [g for g in listed if g["name"] == "ticTacToe"]
    assert ttt["library"] is True and ttt["roles"] == ["xplayer", "oplayer"]
    assert ttt["source"] == "folder" and str(folder.resolve()) in ttt["origin"]
    assert all(g["library"] is False for g in listed if g["name"] in games())


def test_a_library_game_is_loaded_started_and_played(client: TestClient) -> None:
    job = _loaded(client, "ticTacToe")
    assert job["name"] == "ticTacToe" and job["result"]["roles"] == ["xplayer", "oplayer"]
    assert [d["stage"] for d in job["done"]] == ["parse", "check", "compile", "try", "probe"]
    body = {"kif_id": job["result"]["kif_id"], "seats": {"oplayer": "random"}}
    r = client.post("/api/sessions", json=body)
    assert r.status_code == 201, r.text
    session = r.json()
    assert session["game"] == "ticTacToe" and session["humans_to_move"] == ["xplayer"]
    assert session["board"] is not None  # a grid inferred from the cells
    moved = client.post(
        f"/api/sessions/{session['id']}/move",
        json={"role": "xplayer", "move": "(mark 2 2)", "version": session["version"]},
        headers={TOKEN_HEADER: session["token"]},
    )
    assert moved.status_code == 200, moved.text
    assert moved.json()["moves"][0][0] == "(mark 2 2)"
    stored = client.get(f"/api/matches/{session['id']}/json").json()
    assert "xplayer" in stored["gameRulesheet"] and stored["gameName"] == "ticTacToe"


def test_a_library_game_loaded_before_is_not_compiled_again(client: TestClient) -> None:
    first = _loaded(client, "ticTacToe")
    again = client.post("/api/games/ticTacToe/load").json()
    assert again["finished"] and again["result"] == first["result"]
    assert client.get(f"/api/kif/loads/{again['id']}").json()["result"] == first["result"]


def test_a_fetched_game_is_offered_with_its_repository(client: TestClient) -> None:
    metadata = GameMetadata("countdown", 3, "countdown.kif", "Countdown")
    GameCache().store(REPOSITORY, metadata, COUNTDOWN.encode(), "Take one or two; last wins.")
    (entry,) = [g for g in client.get("/api/games").json() if g["name"] == "countdown"]
    assert entry["source"] == "repository" and entry["origin"] == f"{REPOSITORY} v3"
    assert entry["description"] == "Take one or two; last wins."
    assert _loaded(client, "countdown")["result"]["roles"] == ["first", "second"]


def test_what_is_not_a_library_game_is_refused(client: TestClient) -> None:
    assert client.post("/api/games/nosuchgame/load").status_code == 404
    assert client.post("/api/games/peg/load").status_code == 400  # registered: started by name
    direct = client.post("/api/sessions", json={"game": "ticTacToe"})
    assert direct.status_code == 404 and "/api/games/NAME/load" in direct.json()["error"]


def test_the_gdl_page_lists_the_library(client: TestClient) -> None:
    public = client.get("/api/kif/public").json()
    assert {"ticTacToe.kif", "broken.kif", "peg.kif"} <= set(public)
    doc = client.get("/api/kif/public/ticTacToe.kif").json()
    assert doc["name"] == "ticTacToe.kif" and "(role xplayer)" in doc["text"]
    assert client.get("/api/kif/public/ticTacToe").json()["text"] == doc["text"]
    for name in ("nosuchgame.kif", "..%2F..%2Fetc%2Fpasswd", ".hidden.kif"):
        assert client.get(f"/api/kif/public/{name}").status_code == 404, name


def test_rules_larger_than_an_upload_are_refused(client: TestClient, folder: Path) -> None:
    (folder / "huge.kif").write_text(";" * (MAX_KIF_CHARS * 4 + 10))
    assert client.get("/api/kif/public/huge.kif").status_code == 413
    assert client.post("/api/games/huge/load").status_code == 413


def test_a_damaged_library_leaves_the_registered_games(client: TestClient, tmp_path: Path) -> None:
    (tmp_path / "data" / "games" / "folders.json").write_text(json.dumps({"folders": 3}))
    listed = client.get("/api/games")
    assert listed.status_code == 200
    assert [g["name"] for g in listed.json()] == list(games())
    assert client.get("/api/kif/public").json() == []
    failed = client.post("/api/games/ticTacToe/load")
    assert failed.status_code == 404 and "folders.json" in failed.json()["error"]


def test_a_library_session_survives_a_restart(tmp_path: Path, folder: Path) -> None:
    db = tmp_path / "restart.sqlite3"
    with TestClient(create_app(db, allowed_hosts=TEST_HOSTS)) as c:
        kif_id = _loaded(c, "ticTacToe")["result"]["kif_id"]
        s = c.post("/api/sessions", json={"kif_id": kif_id, "seats": {}}).json()
        c.post(f"/api/sessions/{s['id']}/move", json={"role": "xplayer", "move": "(mark 1 1)"},
               headers={TOKEN_HEADER: s["token"]})  # fmt: skip
    with TestClient(create_app(db, allowed_hosts=TEST_HOSTS)) as c:
        for _ in range(600):  # sessions of rules are restored in the background
            again = c.get(f"/api/sessions/{s['id']}")
            if again.status_code == 200:
                break
            time.sleep(0.1)
        assert again.json()["moves"] == [["(mark 1 1)", "noop"]]
