"""A tournament of GDL-II games: only the seats are scheduled and scored (nature is no
entrant), every match is really played (in this process) and stored."""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path

import pytest
from envs.hidden_card import hidden_card_file
from games.gdl2_support import MONTY_HALL

from ggpkit.match.players import NATURE
from ggpkit.match.records import MatchRecord
from ggpkit.store.sqlite import MatchStore
from ggpkit.store.tournaments import TournamentStore
from ggpkit.tournament.config import ConfigError, load_config
from ggpkit.tournament.games import resolve_games
from ggpkit.tournament.play import MatchTask, play_task
from ggpkit.tournament.runner import create_tournament, run_tournament
from ggpkit.tournament.schedule import check_games
from ggpkit.tournament.standings import cross_table, standings

CONFIG = """\
games = ["MontyHall.kif", "HiddenCard.kif"]
schedule = "round-robin"
matches_per_pairing = 2
startclock = 5
playclock = 2
seed = 11
[players]
a = "random"
b = "random"
c = "random"
"""


class InProcess:
    """Plays each task at once, here (the tournament's own match code, no Ray)."""

    def __init__(self) -> None:
        self.done: list[tuple[Hashable, MatchRecord | str]] = []
        self.tasks: list[MatchTask] = []

    def capacity(self) -> int:
        return 1

    def submit(self, task: MatchTask, handle: Hashable) -> None:
        self.tasks.append(task)
        self.done.append((handle, play_task(task)))

    def wait(self, timeout: float) -> list[tuple[Hashable, MatchRecord | str]]:
        done, self.done = self.done, []
        return done


@pytest.fixture
def config_path(tmp_path: Path) -> Path:
    (tmp_path / "MontyHall.kif").write_text(MONTY_HALL, encoding="utf-8")
    hidden_card_file(tmp_path)
    path = tmp_path / "t.toml"
    path.write_text(CONFIG, encoding="utf-8")
    return path


def test_only_seats_are_scheduled_played_and_scored(config_path: Path, tmp_path: Path) -> None:
    config = load_config(config_path)
    refs = resolve_games(config)
    check_games(config, refs)
    assert [(r.label, r.seats, r.chance_role) for r in refs] == [
        ("MontyHall", ("contestant",), "random"),
        ("HiddenCard", ("alice", "bob"), "random"),
    ]
    tstore = TournamentStore(MatchStore(tmp_path / "m.sqlite3"))
    tid = create_tournament(tstore, config, refs)
    executor = InProcess()
    state = run_tournament(tstore, tid, executor)
    assert not state.failed
    slots = tstore.slots(tid)
    monty = [s for s in slots if s.game == "MontyHall"]
    cards = [s for s in slots if s.game == "HiddenCard"]
    assert len(monty) == 3 * 2 and len(cards) == 3 * 2  # one-seat groups; pairs
    assert all(s.players[0] == NATURE and s.goals is not None for s in slots)
    assert all(len(t.players) == len(t.game.seats) for t in executor.tasks)  # nature: no player
    record = tstore.store.load(cards[0].match_id or "")
    assert record.player_names == list(cards[0].players)  # nature's name at nature's role
    assert record.chance_role == "random" and len(record.percepts) == record.steps
    rows = standings(slots, ["a", "b", "c"], samples=0)
    assert {r.player for r in rows} == {"a", "b", "c"}
    assert sum(r.matches for r in rows) == len(monty) + 2 * len(cards)  # seats, not roles
    table = cross_table(slots, ["a", "b", "c"])
    assert sum(count for _, count in table.values()) == 2 * len(cards)
    assert all(NATURE not in pair for pair in table)


def test_nature_is_no_player_name(config_path: Path) -> None:
    config_path.write_text(CONFIG.replace('c = "random"', 'nature = "random"'), encoding="utf-8")
    with pytest.raises(ConfigError, match="names the chance role's seat"):
        load_config(config_path)


def test_matches_past_max_steps_are_kept_aborted_and_scored_for_nobody(tmp_path: Path) -> None:
    from match.support import TINY_GDL

    (tmp_path / "tiny.kif").write_text(TINY_GDL, encoding="utf-8")
    path = tmp_path / "t.toml"
    lines = CONFIG.replace('["MontyHall.kif", "HiddenCard.kif"]', '["tiny.kif"]').splitlines()
    path.write_text("\n".join([*lines[:5], "max_steps = 1", *lines[5:]]), encoding="utf-8")
    config = load_config(path)
    assert config.max_steps == 1
    tstore = TournamentStore(MatchStore(tmp_path / "m.sqlite3"))
    tid = create_tournament(tstore, config, resolve_games(config))
    state = run_tournament(tstore, tid, InProcess())
    assert not state.failed
    slots = tstore.slots(tid)
    assert slots and all(s.match_id is not None and s.goals is None for s in slots)
    with MatchStore(tmp_path / "m.sqlite3") as store:
        records = [store.load(s.match_id) for s in slots if s.match_id is not None]
    assert all(r.is_aborted and r.steps == 1 for r in records)
    assert all(row.matches == 0 for row in standings(slots, ["a", "b", "c"]))
