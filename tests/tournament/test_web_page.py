"""The tournament page of the web app: standings, cross-table, rating SVG, replay links."""

from __future__ import annotations

import re
from collections.abc import Hashable
from pathlib import Path

from fastapi.testclient import TestClient
from match.support import TINY_GDL

from ggpkit.match.records import MatchRecord
from ggpkit.store.sqlite import MatchStore
from ggpkit.store.tournaments import TournamentStore
from ggpkit.tournament.config import load_config
from ggpkit.tournament.games import resolve_games
from ggpkit.tournament.play import MatchTask, play_task
from ggpkit.tournament.runner import create_tournament, run_tournament
from ggpkit.web.app import create_app
from ggpkit.web.guards import LOCAL_HOSTS


class InlineExecutor:
    """Plays each task in this process, through the same play_task a Ray worker runs."""

    def __init__(self) -> None:
        self.done: list[tuple[Hashable, MatchRecord | str]] = []

    def capacity(self) -> int:
        return 1

    def submit(self, task: MatchTask, handle: Hashable) -> None:
        self.done.append((handle, play_task(task)))

    def wait(self, timeout: float) -> list[tuple[Hashable, MatchRecord | str]]:
        done, self.done = self.done, []
        return done


def played_tournament(tmp_path: Path) -> tuple[Path, str]:
    (tmp_path / "tiny.kif").write_text(TINY_GDL)
    config_path = tmp_path / "t.toml"
    config_path.write_text(
        'name = "<b>cup</b>"\ngames = ["tiny.kif"]\nmatches_per_pairing = 2\nplayclock = 1\n'
        '[players]\nfirst = "random"\nsecond = "random"\nthird = "mcts:playouts=20"\n'
    )
    config = load_config(config_path)
    db = tmp_path / "m.sqlite3"
    with MatchStore(db) as store:
        tstore = TournamentStore(store)
        tid = create_tournament(tstore, config, resolve_games(config))
        state = run_tournament(tstore, tid, InlineExecutor())
    assert not state.failed, state.failed  # every match played, or why not
    return db, tid


def test_the_page_shows_standings_cross_table_plot_and_links_every_match(tmp_path: Path) -> None:
    db, tid = played_tournament(tmp_path)
    with TestClient(create_app(db, tmp_path, [*LOCAL_HOSTS, "testserver"])) as client:
        page = client.get(f"/tournaments/{tid}")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        text = page.text
        assert "&lt;b&gt;cup&lt;/b&gt;" in text and "<b>cup" not in text  # escaped
        standings = text.split("class='t standings'")[1].split("</table>")[0]
        assert all(f"<td>{name}</td>" in standings for name in ("first", "second", "third"))
        assert "class='t cross'" in text
        svg = text.split("<svg")[1].split("</svg>")[0]
        assert svg.count("<polyline") == 3
        links = re.findall(r"href='/#/replay/([^']+)'", text)
        data = client.get(f"/api/tournaments/{tid}").json()
        assert sorted(links) == sorted(m["match_id"] for m in data["matches"])
        assert len(links) == 3 * 2
        replay = client.get(f"/api/matches/{links[0]}")
        assert replay.status_code == 200 and replay.json()["summary"]["source"] == "tournament"
        assert data["played"] == data["scheduled"] == 6
        assert sum(r["points"] for r in data["standings"]) == 6
        assert client.get("/tournaments/nosuch").status_code == 404
        listing = client.get("/tournaments").text
        assert f"href='/tournaments/{tid}'" in listing and "&lt;b&gt;cup&lt;/b&gt;" in listing
        assert "6/6" in listing
