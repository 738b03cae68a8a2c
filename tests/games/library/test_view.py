"""The library as one list: folders added, ``$GGPKIT_GAMES_DIR``, the cache; and ``load(name)``."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from ggpkit.games.library import (
    FetchRequest,
    LibraryFolderError,
    add_folder,
    added_folders,
    fetch_games,
    find_game,
    game_files,
    library_dir,
    library_games,
    outlines,
    remove_folder,
)
from ggpkit.games.library.outline import CHECK_ERRORS, GDL, GDL2, SYNTAX_ERROR
from ggpkit.games.registry import UnknownGameError, load

from .repository import COUNTDOWN, TIC_TAC_TOE, RepositoryServer, build, write_version


def plain_folder(path: Path, **games: str) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name, text in games.items():
        (path / f"{name}.kif").write_text(text)
    return path


def test_an_added_folder_is_kept_and_read_at_every_look_up(tmp_path: Path) -> None:
    folder = plain_folder(tmp_path / "mine", countdown=COUNTDOWN)
    assert add_folder(folder) == folder.resolve()
    add_folder(folder)  # twice is once
    assert added_folders() == [folder.resolve()]
    assert json.loads((library_dir() / "folders.json").read_text()) == {
        "folders": [str(folder.resolve())]
    }
    (folder / "later.kif").write_text(TIC_TAC_TOE)
    games = library_games().games
    assert [(g.name, g.source, g.where) for g in games] == [
        ("countdown", "folder", str(folder.resolve())),
        ("later", "folder", str(folder.resolve())),
    ]
    assert remove_folder(folder) and added_folders() == []
    assert not remove_folder(folder)


def test_adding_what_is_not_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LibraryFolderError, match="not a folder"):
        add_folder(tmp_path / "nowhere")


def test_a_broken_list_of_folders_is_one_clear_error(tmp_path: Path) -> None:
    library_dir().mkdir(parents=True)
    (library_dir() / "folders.json").write_text('{"folders": "not a list"}')
    with pytest.raises(LibraryFolderError, match=r"folders\.json"):
        library_games()


def test_the_environment_folder_comes_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: RepositoryServer
) -> None:
    fetch_games(FetchRequest(["ticTacToe", "countdown"], server.url))
    env = plain_folder(tmp_path / "env", ticTacToe=TIC_TAC_TOE + "; mine\n")
    monkeypatch.setenv("GGPKIT_GAMES_DIR", str(env))
    listing = library_games()
    by_name = {g.name: g for g in listing.games}
    assert by_name["ticTacToe"].source == "environment"
    assert by_name["ticTacToe"].origin == f"$GGPKIT_GAMES_DIR {env}"
    assert by_name["countdown"].source == "repository"
    assert by_name["countdown"].origin == f"{server.url} v0"
    assert [(g.name, g.source) for g in listing.hidden] == [("ticTacToe", "repository")]
    found = find_game("ticTacToe")
    assert found is not None and found.path == env / "ticTacToe.kif"
    assert game_files() == {"countdown": by_name["countdown"].path, "ticTacToe": found.path}


def test_a_missing_environment_folder_is_a_problem_not_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GGPKIT_GAMES_DIR", str(tmp_path / "gone"))
    listing = library_games()
    assert listing.games == [] and "GGPKIT_GAMES_DIR" in listing.problems[0]
    assert find_game("anything") is None


def test_a_repository_checkout_is_a_folder_of_games(tmp_path: Path) -> None:
    checkout = tmp_path / "ggp-repository"
    build(checkout / "war" / "root")
    write_version(checkout / "war" / "root", "ticTacToe", 3, TIC_TAC_TOE + "; v3\n")
    # a game whose rulesheet is not named after its key, as some of the repository's are
    from .repository import write_game

    write_game(checkout / "war" / "root", "countdown5", COUNTDOWN, "Countdown", "countdown.kif")
    broken = checkout / "war" / "root" / "games" / "broken"
    broken.mkdir()
    (broken / "METADATA").write_text('{"rulesheet": "missing.kif"}')
    add_folder(checkout)
    listing = library_games()
    by_name = {g.name: g for g in listing.games}
    assert sorted(by_name) == ["countdown", "countdown5", "ticTacToe"]
    assert by_name["ticTacToe"].version == 3
    assert by_name["ticTacToe"].path.read_text().endswith("; v3\n")
    assert by_name["ticTacToe"].description() == "The game ticTacToe, for the tests. A second line."
    assert by_name["countdown5"].title == "Countdown"
    assert by_name["countdown5"].path.name == "countdown.kif"
    assert len(listing.problems) == 1 and "missing.kif" in listing.problems[0]
    assert find_game("broken") is None
    game = load("countdown5")
    assert game.name == "countdown5"


def test_outlines_say_roles_and_kind_and_are_kept_by_content(tmp_path: Path) -> None:
    folder = plain_folder(
        tmp_path / "g",
        good=TIC_TAC_TOE,
        gdl2=COUNTDOWN + "(<= (sees first ?m) (does second ?m))",
        unsafe=COUNTDOWN + "(<= (p ?x) (succ 1 2))",
        syntax="(role a",
    )
    paths = [folder / f"{n}.kif" for n in ("good", "gdl2", "unsafe", "syntax")]
    read = outlines(paths)
    assert [o.kind for o in read] == [GDL, GDL2, CHECK_ERRORS, SYNTAX_ERROR]
    assert read[0].roles == ("xplayer", "oplayer") and read[1].roles == ("first", "second")
    index = library_dir() / "outlines.json"
    assert len(json.loads(index.read_text())["outlines"]) == 4
    computed: list[int] = []
    assert outlines(paths, on_compute=computed.append) == read and computed == []
    index.write_text('{"format": 1, "outlines": {"x": {"roles": 3, "kind": "odd"}}}')
    assert outlines(paths, on_compute=computed.append) == read and computed == [4]


def test_load_finds_a_fetched_game_and_plays_a_random_match(server: RepositoryServer) -> None:
    fetch_games(FetchRequest(["ticTacToe"], server.url))
    game = load("ticTacToe")
    assert game.name == "ticTacToe"
    assert game.description == "The game ticTacToe, for the tests. A second line."
    rng = random.Random(3)
    state = game.initial_state()
    steps = 0
    while not game.is_terminal(state):
        joint = [rng.choice(game.legal_moves(state, r)) for r in game.roles]
        state = game.next_state(state, joint)
        steps += 1
    assert 5 <= steps <= 9
    assert sorted(game.goals(state).values()) in ([0, 100], [50, 50])


def test_an_unknown_name_says_how_to_fetch_it() -> None:
    with pytest.raises(UnknownGameError) as e:
        load("chess")
    message = str(e.value)
    assert message.startswith("unknown game 'chess'") and "ggpkit games fetch chess" in message
    assert "\n" not in message


def test_a_registered_name_wins_over_a_library_game(tmp_path: Path) -> None:
    add_folder(plain_folder(tmp_path / "f", peg=COUNTDOWN))
    assert tuple(load("peg").roles) == ("jumper",)
    assert find_game("peg") is not None  # the library has it; load prefers the registry
