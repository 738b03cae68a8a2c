"""``ggpkit games`` (list, fetch, add, remove), and ``corpus``/``play`` over the library."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from games.library.repository import (
    COUNTDOWN,
    RepositoryServer,
    build,
    closed_port_url,
    send,
    serving,
)
from typer.testing import CliRunner

from cli.test_progress import run_on_a_terminal  # tests/ is the import root
from ggpkit.cli import _load_commands, app
from ggpkit.games.api import GameError
from ggpkit.games.registry import games

_load_commands()
RUNNER = CliRunner()
WIDE = {"COLUMNS": "250"}


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("GGPKIT_DATA_DIR", str(folder))
    monkeypatch.delenv("GGPKIT_GAMES_DIR", raising=False)
    return folder


@pytest.fixture
def server(tmp_path: Path) -> Iterator[RepositoryServer]:
    with serving(build(tmp_path / "repo")) as running:
        yield running


def test_fetch_then_list_shows_where_each_game_is_from(server: RepositoryServer) -> None:
    result = RUNNER.invoke(app, ["games", "fetch", "ticTacToe", "countdown", "--repo", server.url])
    assert result.exit_code == 0, result.output
    assert f"ticTacToe: fetched version 0 from {server.url}" in result.output
    again = RUNNER.invoke(app, ["games", "fetch", "ticTacToe", "--repo", server.url])
    assert "ticTacToe: version 0 already fetched" in again.output
    listing = RUNNER.invoke(app, ["games"], env=WIDE)
    assert listing.exit_code == 0, listing.output
    (row,) = [line for line in listing.output.splitlines() if "│ ticTacToe " in line]
    assert "xplayer, oplayer" in row and "GDL" in row and f"{server.url} v0" in row
    for name in games():  # the registered games are listed as before
        assert any(f"│ {name} " in line for line in listing.output.splitlines())


def test_the_listing_as_json(server: RepositoryServer) -> None:
    RUNNER.invoke(app, ["games", "fetch", "countdown", "--repo", server.url])
    rows = json.loads(RUNNER.invoke(app, ["games", "--json"]).output)
    by_name = {r["name"]: r for r in rows}
    assert by_name["countdown"]["roles"] == ["first", "second"]
    assert by_name["countdown"]["source"] == "repository" and by_name["countdown"]["version"] == 0
    assert by_name["peg"]["source"] == "registered" and by_name["peg"]["roles"] == ["jumper"]


def test_fetch_all_shows_progress_on_a_terminal(server: RepositoryServer) -> None:
    code, out, terminal = run_on_a_terminal("games", "fetch", "--all", "--repo", server.url)
    assert code == 0, terminal
    assert out.strip() == f"2 games from {server.url}: 2 fetched"
    assert "2/2" in terminal


def test_a_failed_fetch_is_one_line_and_status_1(server: RepositoryServer) -> None:
    url = closed_port_url()
    unreachable = RUNNER.invoke(app, ["games", "fetch", "ticTacToe", "--repo", url])
    assert unreachable.exit_code == 1
    (line,) = unreachable.stderr.strip().splitlines()
    assert line.startswith(f"ggpkit: error: {url}/games/ticTacToe/: unreachable")
    missing = RUNNER.invoke(app, ["games", "fetch", "chess", "--repo", server.url])
    assert missing.exit_code == 1
    assert missing.stderr.strip() == (
        f"ggpkit: error: {server.url}/games/chess/: no game 'chess' in the repository (HTTP 404)"
    )
    server.overrides["/games/"] = lambda h: send(h, b"<html>")
    malformed = RUNNER.invoke(app, ["games", "fetch", "--all", "--repo", server.url])
    assert malformed.exit_code == 1 and "not a JSON document" in malformed.stderr


def test_a_slow_repository_meets_the_timeout_option(server: RepositoryServer) -> None:
    from games.library.repository import sleeping

    server.overrides["/games/ticTacToe/"] = sleeping(3.0)
    result = RUNNER.invoke(
        app, ["games", "fetch", "ticTacToe", "--repo", server.url, "--timeout", "0.5"]
    )
    assert result.exit_code == 1
    assert result.stderr.strip().endswith("no answer within 0.5 s")


def test_fetch_needs_names_or_all() -> None:
    for args in ([], ["ticTacToe", "--all"]):
        result = RUNNER.invoke(app, ["games", "fetch", *args])
        assert result.exit_code == 2 and "give game names or --all" in result.stderr
    bad = RUNNER.invoke(app, ["games", "fetch", "x", "--repo", "ftp://example/"])
    assert bad.exit_code == 2 and "not an http(s) URL" in bad.stderr


def test_add_and_remove_a_folder(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "countdown.kif").write_text(COUNTDOWN)
    added = RUNNER.invoke(app, ["games", "add", str(folder)])
    assert added.exit_code == 0 and added.output.strip() == f"added {folder}: 1 game"
    listing = json.loads(RUNNER.invoke(app, ["games", "--json"]).stdout)
    (row,) = [r for r in listing if r["name"] == "countdown"]
    assert row["from"] == f"folder {folder}"  # the table shows the same text, if it fits
    removed = RUNNER.invoke(app, ["games", "remove", str(folder)])
    assert removed.exit_code == 0 and "countdown" not in RUNNER.invoke(app, ["games"]).output
    nothing = RUNNER.invoke(app, ["games", "add", str(tmp_path / "none")])
    assert nothing.exit_code == 2 and "not a folder" in nothing.stderr


def test_remove_a_fetched_game(server: RepositoryServer) -> None:
    RUNNER.invoke(app, ["games", "fetch", "countdown", "--repo", server.url])
    assert RUNNER.invoke(app, ["games", "remove", "countdown"]).exit_code == 0
    assert "countdown" not in RUNNER.invoke(app, ["games"]).output
    assert RUNNER.invoke(app, ["games", "remove", "countdown"]).exit_code == 2


def test_the_environment_folder_is_listed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "env"
    folder.mkdir()
    (folder / "countdown.kif").write_text(COUNTDOWN)
    monkeypatch.setenv("GGPKIT_GAMES_DIR", str(folder))
    rows = json.loads(RUNNER.invoke(app, ["games", "--json"]).output)
    (row,) = [r for r in rows if r["name"] == "countdown"]
    assert row["from"] == f"$GGPKIT_GAMES_DIR {folder}" and row["source"] == "environment"


def test_corpus_runs_the_library_games_by_name(server: RepositoryServer) -> None:
    empty = RUNNER.invoke(app, ["corpus"])  # CliRunner: the error as it leaves the command
    assert isinstance(empty.exception, GameError) and "ggpkit games fetch" in str(empty.exception)
    RUNNER.invoke(app, ["games", "fetch", "ticTacToe", "countdown", "--repo", server.url])
    result = RUNNER.invoke(app, ["corpus", "--json", "--timeout", "60"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["folder"] == "library" and data["counts"] == {"played": 2}
    assert sorted(r["name"] for r in data["results"]) == ["countdown", "ticTacToe"]
    only = json.loads(RUNNER.invoke(app, ["corpus", "--json", "--only", "countdown"]).output)
    assert [r["name"] for r in only["results"]] == ["countdown"]


def test_play_a_fetched_game(server: RepositoryServer) -> None:
    RUNNER.invoke(app, ["games", "fetch", "ticTacToe", "--repo", server.url])
    result = RUNNER.invoke(app, ["play", "ticTacToe", "--seed", "1"], input="1\n" * 9)
    assert result.exit_code == 0, result.output
    assert "ticTacToe: you play xplayer" in result.output


def test_match_sends_a_library_games_rules_to_remote_players(tmp_path: Path) -> None:
    from ggpkit.cli.match_cmd import rules_text

    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "countdown.kif").write_text("; how many are left\n" + COUNTDOWN)
    assert rules_text("countdown") == ""  # not in the library yet
    assert RUNNER.invoke(app, ["games", "add", str(folder)]).exit_code == 0
    sent = rules_text("countdown")
    assert "(role first)" in sent and "how many" not in sent  # comments stripped
    assert "(role jumper)" in rules_text("peg")  # a registered game sends its twin
