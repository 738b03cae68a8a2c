"""One tournament match as a worker plays it: the game warmed before any clock runs."""

from __future__ import annotations

from typing import Any

import pytest

from ggpkit.tournament import play
from ggpkit.tournament.config import PlayerEntry
from ggpkit.tournament.games import GameRef
from ggpkit.tournament.play import MatchTask, play_task

PEG = GameRef("peg", "", ("jumper",), True)


def task(match_id: str) -> MatchTask:
    seat = (PlayerEntry("r", "agent", "random"),)
    return MatchTask(match_id, match_id, PEG, seat, startclock=5, playclock=1, seed=3)


def test_a_game_is_warmed_once_per_process_before_its_first_clock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    events: list[str] = []
    monkeypatch.setattr(play, "_WARMED", set())
    monkeypatch.setattr(play, "warm_up_game", lambda game: events.append(f"warm {game.name}"))

    class Referee(play.Referee):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            events.append("clocks start")
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(play, "Referee", Referee)
    first, second = play_task(task("m1")), play_task(task("m2"))
    assert events == ["warm peg", "clocks start", "clocks start"]
    assert first.is_completed and second.is_completed
