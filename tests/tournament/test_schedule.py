"""Schedules: how many slots, who meets whom, roles rotated, keys unique, Swiss pairing."""

from __future__ import annotations

from collections import Counter
from math import comb

import pytest

from ggpkit.tournament.schedule import first_slots, swiss_pairs, swiss_rounds
from tournament.support import config, ref


@pytest.mark.parametrize(("players", "roles", "matches"), [(4, 2, 10), (5, 2, 3), (4, 3, 3)])
def test_round_robin_meets_every_group_in_every_game(
    players: int, roles: int, matches: int
) -> None:
    names = [f"p{i}" for i in range(players)]
    games = [ref("a", roles), ref("b", roles)]
    slots = first_slots(config(names, matches=matches), games)
    assert len(slots) == 2 * comb(players, roles) * matches
    assert len({s.key for s in slots}) == len(slots)
    groups = Counter(frozenset(s.players) for s in slots)
    assert set(groups.values()) == {2 * matches}  # every group, equally often
    assert len(groups) == comb(players, roles)


def test_roles_rotate_so_each_player_plays_each_role_equally() -> None:
    slots = first_slots(config(["x", "y", "z"], matches=6), [ref("g", 3)])
    seats = Counter((s.players[j], j) for s in slots for j in range(3))
    assert set(seats.values()) == {2}
    assert len(seats) == 9


def test_a_gauntlet_pits_the_champion_against_the_field() -> None:
    names = ["champ", "a", "b", "c"]
    slots = first_slots(config(names, "gauntlet", 4, champion="champ"), [ref("g", 2)])
    assert len(slots) == 3 * 4
    assert all("champ" in s.players for s in slots)
    assert {p for s in slots for p in s.players} == set(names)


def test_seeds_and_keys_are_fixed_by_the_config() -> None:
    a = first_slots(config(["x", "y"], seed=5), [ref("g", 2)])
    b = first_slots(config(["x", "y"], seed=5), [ref("g", 2)])
    c = first_slots(config(["x", "y"], seed=6), [ref("g", 2)])
    assert a == b
    assert [s.key for s in a] == [s.key for s in c]
    assert [s.seed for s in a] != [s.seed for s in c]


def test_swiss_pairs_equal_points_and_avoids_repeats() -> None:
    names = ["a", "b", "c", "d"]
    points = {"a": 2.0, "b": 0.0, "c": 2.0, "d": 0.0}
    assert swiss_pairs(names, points, set()) == [("a", "c"), ("b", "d")]
    met = {frozenset(("a", "c"))}
    assert swiss_pairs(names, points, met) == [("a", "b"), ("c", "d")]


def test_swiss_leaves_the_last_player_out_of_an_odd_field() -> None:
    pairs = swiss_pairs(["a", "b", "c"], {"a": 1.0, "b": 3.0, "c": 2.0}, set())
    assert pairs == [("b", "c")]


def test_swiss_first_round_and_round_count() -> None:
    names = ["a", "b", "c", "d", "e"]
    slots = first_slots(config(names, "swiss", 2), [ref("g", 2), ref("h", 2)])
    assert len(slots) == 2 * 2 * 2  # two pairs, two games, two matches
    assert {s.round for s in slots} == {1}
    assert swiss_rounds(config(names, "swiss")) == 4  # ceil(log2 5) + 1
    assert swiss_rounds(config(names, "swiss", rounds=7)) == 7
