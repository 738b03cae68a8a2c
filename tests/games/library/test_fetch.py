"""Fetching into the cache: named games, every game, offline use, refresh, and killed fetches."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ggpkit.games.library import (
    FetchOutcome,
    FetchRequest,
    GameCache,
    GameNotFoundError,
    Limits,
    RepositoryUnreachableError,
    fetch_games,
    find_game,
    library_games,
)
from ggpkit.games.library.storage import TEMP_PREFIX, write_atomic
from ggpkit.games.registry import load

from .repository import (
    TIC_TAC_TOE,
    RepositoryServer,
    closed_port_url,
    send,
    stalling,
    write_version,
)


def test_named_games_are_fetched_into_their_own_folders(
    server: RepositoryServer, data_dir: Path
) -> None:
    report = fetch_games(FetchRequest(["ticTacToe", "countdown"], server.url))
    assert not report.failed
    assert sorted((o.key, o.status, o.version) for o in report.outcomes) == [
        ("countdown", "fetched", 0),
        ("ticTacToe", "fetched", 0),
    ]
    game = GameCache().get("ticTacToe")
    assert game is not None and game.repository == server.url and game.version == 0
    assert game.rules_path.read_text() == TIC_TAC_TOE
    assert game.rules_path.is_relative_to(data_dir / "games" / "cache" / "ticTacToe")
    assert game.sha256 == hashlib.sha256(TIC_TAC_TOE.encode()).hexdigest()
    assert game.description_path is not None
    entry = json.loads((game.folder / "entry.json").read_text())
    assert entry["stylesheet"] == "ticTacToe.xsl" and entry["rulesheet"] == "ticTacToe.kif"


def test_every_game_is_fetched_with_a_total_then_each_outcome(server: RepositoryServer) -> None:
    totals: list[int] = []
    heard: list[FetchOutcome] = []
    request = FetchRequest(None, server.url)
    report = fetch_games(request, on_total=totals.append, on_outcome=heard.append)
    assert totals == [2] and heard == report.outcomes
    assert {o.key for o in heard} == {"ticTacToe", "countdown"}
    assert [g.name for g in library_games().games] == ["countdown", "ticTacToe"]


def test_a_fetched_game_is_used_offline(server: RepositoryServer) -> None:
    fetch_games(FetchRequest(["ticTacToe"], server.url))
    url = server.url
    server.stop()  # the repository is gone
    report = fetch_games(FetchRequest(["ticTacToe"], url))
    assert [(o.status, o.version) for o in report.outcomes] == [("cached", 0)]
    assert not report.failed
    assert tuple(load("ticTacToe").roles) == ("xplayer", "oplayer")


def test_refresh_picks_a_new_version_and_drops_the_old(
    server: RepositoryServer, repo_folder: Path
) -> None:
    fetch_games(FetchRequest(["ticTacToe"], server.url))
    old = GameCache().get("ticTacToe")
    assert old is not None
    write_version(repo_folder, "ticTacToe", 1, TIC_TAC_TOE + "; version 1\n")
    again = fetch_games(FetchRequest(["ticTacToe"], server.url))
    assert [o.status for o in again.outcomes] == ["cached"]  # no refresh: not asked
    refreshed = fetch_games(FetchRequest(["ticTacToe"], server.url, refresh=True))
    assert [(o.status, o.version) for o in refreshed.outcomes] == [("fetched", 1)]
    new = GameCache().get("ticTacToe")
    assert new is not None and new.version == 1
    assert new.rules_path.read_text().endswith("; version 1\n")
    assert not old.version_folder.exists()
    assert sorted(p.name for p in new.folder.iterdir()) == ["entry.json", new.version_folder.name]
    same = fetch_games(FetchRequest(["ticTacToe"], server.url, refresh=True))
    assert [(o.status, o.version) for o in same.outcomes] == [("up to date", 1)]


def test_a_game_fetched_from_another_repository_is_fetched_again(
    server: RepositoryServer, tmp_path: Path
) -> None:
    from .repository import build, serving

    fetch_games(FetchRequest(["ticTacToe"], server.url))
    other = build(tmp_path / "other", {"ticTacToe": TIC_TAC_TOE + "; the other one\n"})
    with serving(other) as second:
        report = fetch_games(FetchRequest(["ticTacToe"], second.url))
        assert [o.status for o in report.outcomes] == ["fetched"]
        game = find_game("ticTacToe")
        assert game is not None and game.where == second.url


def test_per_game_failures_do_not_stop_the_others(server: RepositoryServer) -> None:
    server.overrides["/games/countdown/"] = lambda h: send(h, b"{broken")
    report = fetch_games(FetchRequest(["countdown", "nothere", "ticTacToe"], server.url))
    by_key = {o.key: o for o in report.outcomes}
    assert by_key["ticTacToe"].status == "fetched"
    assert by_key["countdown"].status == "failed" and by_key["nothere"].status == "failed"
    assert isinstance(by_key["nothere"].error, GameNotFoundError)
    assert report.failed and report.stopped is None


def test_an_unreachable_repository_stops_the_fetch() -> None:
    fast = Limits(connect_seconds=2, read_seconds=1, request_seconds=2)
    report = fetch_games(FetchRequest(["a", "b", "c"], closed_port_url(), limits=fast))
    assert isinstance(report.stopped, RepositoryUnreachableError)
    assert report.failed and report.outcomes == []
    every = fetch_games(FetchRequest(None, closed_port_url(), limits=fast))
    assert isinstance(every.stopped, RepositoryUnreachableError)


def test_a_damaged_cache_entry_is_reported_not_loaded(server: RepositoryServer) -> None:
    fetch_games(FetchRequest(["ticTacToe", "countdown"], server.url))
    game = GameCache().get("ticTacToe")
    assert game is not None
    game.rules_path.write_text("(role someone_else)")  # not the file its entry records
    entry = GameCache().root / "countdown" / "entry.json"
    entry.write_text(entry.read_text().replace('"version": 0', '"version": "zero"'))
    listing = library_games()
    assert listing.games == []
    assert len(listing.problems) == 2
    assert any("not the rulesheet its entry records" in p for p in listing.problems)
    assert all("--refresh" in p for p in listing.problems)
    assert find_game("ticTacToe") is None
    refreshed = fetch_games(FetchRequest(["ticTacToe"], server.url))  # damaged: fetched again
    assert [o.status for o in refreshed.outcomes] == ["fetched"]
    assert find_game("ticTacToe") is not None


def test_an_atomic_write_that_fails_leaves_the_old_file_and_no_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "f.json"
    write_atomic(path, b"old")

    def broken(src: object, dst: object) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        write_atomic(path, b"new")
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.json"]


def test_a_killed_fetch_leaves_the_previous_version_whole(
    server: RepositoryServer, repo_folder: Path, data_dir: Path
) -> None:
    fetch_games(FetchRequest(["ticTacToe"], server.url))
    newer = TIC_TAC_TOE + "; version 1, never fully sent\n" + ";" * 200_000 + "\n"
    write_version(repo_folder, "ticTacToe", 1, newer)
    half_sent, release = threading.Event(), threading.Event()
    server.overrides["/games/ticTacToe/v1/ticTacToe.kif"] = stalling(
        newer.encode(), half_sent, release
    )
    env = {**os.environ, "GGPKIT_DATA_DIR": str(data_dir)}
    command = [sys.executable, "-m", "ggpkit", "games", "fetch", "ticTacToe", "--refresh"]
    proc = subprocess.Popen(
        [*command, "--repo", server.url],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert half_sent.wait(120), "the fetch never asked for the new rulesheet"
        proc.kill()
        proc.wait(30)
    finally:
        release.set()
        if proc.poll() is None:
            proc.kill()
    game = GameCache().get("ticTacToe")
    assert game is not None and game.version == 0
    assert game.rules_path.read_text() == TIC_TAC_TOE
    left = [p.name for p in (data_dir / "games" / "cache" / "ticTacToe").rglob("*")]
    assert not [name for name in left if name.startswith(TEMP_PREFIX)]
    assert tuple(load("ticTacToe").roles) == ("xplayer", "oplayer")
