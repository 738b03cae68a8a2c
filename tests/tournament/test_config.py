"""Tournament configs: what is accepted, and errors that name the file, the line and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from ggpkit.tournament.config import ConfigError, config_from_options, load_config
from ggpkit.tournament.games import resolve_games
from ggpkit.tournament.schedule import check_games, pairings

GOOD = """\
games = ["breakthrough-holes"]
schedule = "round-robin"
matches_per_pairing = 4
startclock = 10
playclock = 2
[players]
fast = "mcts:time=0.5"
rand = "random"
base = "http://127.0.0.1:9147"
java = "run.sh PlayerRunner {port} SampleMonteCarloGamer"
big = { spec = "mcts", cpus = 2 }
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(text)
    return path


def test_the_issue_example_is_read(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD))
    assert config.games == ("breakthrough-holes",)
    assert (config.matches_per_pairing, config.startclock, config.playclock) == (4, 10, 2)
    kinds = {p.name: (p.kind, p.cpus) for p in config.players}
    assert kinds == {
        "fast": ("agent", 1),
        "rand": ("agent", 1),
        "base": ("url", 1),
        "java": ("command", 1),
        "big": ("agent", 2),
    }
    assert [p.name for p in config.players if p.exclusive] == ["base"]


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (('schedule = "round-robin"', 'schedule = "knockout"'), ":2: schedule:"),
        (("matches_per_pairing = 4", "matches_per_pairing = 0"), ":3: matches_per_pairing:"),
        (("playclock = 2", "playclock = 1.5"), ":5: playclock:"),
        (('rand = "random"', 'rand = "randm"'), ":8: players.rand: unknown agent"),
        (('big = { spec = "mcts", cpus = 2 }', 'big = { spec = "mcts", cpus = 0 }'), ":11:"),
        (("startclock = 10", "startclok = 10"), ":4: startclok: unknown key"),
        (('games = ["breakthrough-holes"]', "games = []"), ":1: games:"),
        (('fast = "mcts:time=0.5"', 'fast = "human"'), ":7: players.fast:"),
    ],
)
def test_each_mistake_names_file_line_and_key(
    tmp_path: Path, change: tuple[str, str], where: str
) -> None:
    path = write(tmp_path, GOOD.replace(*change))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).startswith(str(path) + where), str(caught.value)


def test_toml_syntax_errors_name_the_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("playclock = 2", "playclock = = 2"))
    with pytest.raises(ConfigError, match=rf"{path}: not valid TOML: .*line 5"):
        load_config(path)


def test_a_gauntlet_needs_a_champion_among_the_players(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace("round-robin", "gauntlet"))
    with pytest.raises(ConfigError, match=r":2: schedule: a gauntlet needs champion"):
        load_config(path)
    path = write(tmp_path, 'champion = "nobody"\n' + GOOD.replace("round-robin", "gauntlet"))
    with pytest.raises(ConfigError, match=r":1: champion: 'nobody' is not in \[players\]"):
        load_config(path)


def test_a_game_that_does_not_load_is_named_with_the_games_line(tmp_path: Path) -> None:
    text = "seed = 1\n" + GOOD.replace('["breakthrough-holes"]', '["nosuchgame.kif"]')
    config = load_config(write(tmp_path, text))
    with pytest.raises(ConfigError, match=r"t.toml:2: games: 'nosuchgame.kif': .*no such file"):
        resolve_games(config)


def test_relative_kif_paths_are_read_beside_the_config(tmp_path: Path) -> None:
    from match.support import TINY_GDL

    (tmp_path / "tiny.kif").write_text(TINY_GDL)
    config = load_config(write(tmp_path, GOOD.replace('"breakthrough-holes"', '"tiny.kif"')))
    (ref,) = resolve_games(config)
    assert ref.label == "tiny" and not ref.registered and ref.rules == TINY_GDL


def test_swiss_refuses_games_of_more_than_two_roles(tmp_path: Path) -> None:
    text = GOOD.replace('"breakthrough-holes"', '"peg"').replace("round-robin", "swiss")
    config = load_config(write(tmp_path, text))
    with pytest.raises(ConfigError, match=r":2: schedule: swiss needs two-role games; peg has 1"):
        check_games(config, resolve_games(config))


def test_options_override_the_file_and_their_errors_name_the_option(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD)
    config = load_config(path, {"playclock": 7, "games": ["peg"]})
    assert (config.playclock, config.games, config.startclock) == (7, ("peg",), 10)
    with pytest.raises(ConfigError, match=r"^--playclock: must be a whole number >= 1 \(got 0\)"):
        load_config(path, {"playclock": 0})
    with pytest.raises(ConfigError, match=r"^--player: players.x: unknown agent 'rndom'"):
        config_from_options({"games": ["peg"], "players": {"x": "rndom", "y": "random"}})
    options = config_from_options(
        {"games": ["nosuch.kif"], "players": {"x": "random", "y": "random"}}
    )
    with pytest.raises(ConfigError, match=r"^--game: 'nosuch.kif': .*no such file"):
        resolve_games(options)


def test_a_tournament_too_big_to_schedule_is_refused_before_any_slot(tmp_path: Path) -> None:
    text = GOOD.replace("matches_per_pairing = 4", "matches_per_pairing = 100001")
    config = load_config(write(tmp_path, text))
    with pytest.raises(
        ConfigError, match=r":3: matches_per_pairing: 1,000,010 matches; at most 1,000,000"
    ):
        check_games(config, resolve_games(config))  # 5 players: 10 pairs x 100,001
    assert len(pairings(config, 2)) == 10
