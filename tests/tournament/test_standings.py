"""Standings from stored results: points, W-D-L, cross-table and rating history."""

from __future__ import annotations

import pytest

from ggpkit.tournament.standings import (
    cross_table,
    match_points,
    points_by_player,
    rating_history,
    standings,
)
from tournament.support import result


@pytest.mark.parametrize(
    ("goals", "points"),
    [
        ((100, 0), [1.0, 0.0]),
        ((50, 50), [0.5, 0.5]),
        ((0, 100, 100), [0.0, 0.5, 0.5]),
        ((10, 20, 30), [0.0, 0.0, 1.0]),
        ((100,), [1.0]),
        ((99,), [0.0]),
    ],
)
def test_match_points(goals: tuple[int, ...], points: list[float]) -> None:
    assert match_points(goals) == points


def test_standings_count_points_and_results() -> None:
    slots = [
        result(("a", "b"), (100, 0), 1),
        result(("b", "a"), (50, 50), 2),
        result(("a", "c"), (0, 100), 3),
        result(("b", "c"), (100, 0), 4),
    ]
    rows = {s.player: s for s in standings(slots, ["a", "b", "c"], samples=20)}
    assert (rows["a"].points, rows["a"].wins, rows["a"].draws, rows["a"].losses) == (1.5, 1, 1, 1)
    assert (rows["b"].points, rows["b"].matches) == (1.5, 3)
    assert (rows["c"].points, rows["c"].matches) == (1.0, 2)
    assert points_by_player(slots, ["a", "b", "c"]) == {"a": 1.5, "b": 1.5, "c": 1.0}
    assert all(r.method == "bradley-terry" for r in rows.values())


def test_unplayed_slots_and_other_games_are_left_out() -> None:
    played = result(("a", "b"), (100, 0), 1, game="g")
    other = result(("a", "b"), (0, 100), 2, game="h")
    unplayed = result(("a", "b"), (0, 0), 3)
    unplayed = type(unplayed)(unplayed.key, 1, "g", ("a", "b"), 0)
    rows = {s.player: s for s in standings([played, other, unplayed], ["a", "b"], game="g")}
    assert (rows["a"].matches, rows["a"].points, rows["b"].points) == (1, 1.0, 0.0)


def test_cross_table_is_points_against_each_opponent() -> None:
    slots = [
        result(("a", "b"), (100, 0), 1),
        result(("b", "a"), (100, 0), 2),
        result(("b", "a"), (0, 100), 3),
        result(("a", "b", "c"), (0, 50, 50), 4),
    ]
    table = cross_table(slots, ["a", "b", "c"])
    assert table[("a", "b")] == (2.0, 4)
    assert table[("b", "a")] == (2.0, 4)
    assert table[("b", "c")] == (0.5, 1)
    assert table[("c", "a")] == (1.0, 1)


def test_more_than_two_roles_use_plackett_luce() -> None:
    slots = [result(("a", "b", "c"), (100, 50, 0), i) for i in range(6)]
    rows = standings(slots, ["a", "b", "c"])
    assert [r.player for r in rows] == ["a", "b", "c"]
    assert {r.method for r in rows} == {"plackett-luce"}


def test_rating_history_follows_the_order_results_were_written() -> None:
    slots = [result(("a", "b"), (100, 0), i) for i in range(5)]
    slots += [result(("a", "b"), (0, 100), 10 + i) for i in range(15)]
    history = rating_history(list(reversed(slots)), ["a", "b"], points=4)
    assert [k for k, _ in history] == [5, 10, 15, 20]
    assert history[0][1]["a"] > history[0][1]["b"]  # a won the first five
    assert history[-1][1]["a"] < history[-1][1]["b"]  # b won the fifteen after
