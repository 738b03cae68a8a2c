"""Ratings: Bradley-Terry against its closed form, bootstrap intervals, Plackett-Luce order."""

from __future__ import annotations

import math

import pytest

from ggpkit.tournament.ratings import ELO_SCALE, bradley_terry, bradley_terry_point, plackett_luce


def test_two_players_match_the_closed_form_of_bradley_terry() -> None:
    # With two players the maximum-likelihood strength gap is log(wins / losses):
    # 30 wins to 10 losses -> P(win) = 3/4 -> 400 * log10(3) = 190.8 Elo points.
    duels = [(0, 1, 1.0)] * 30 + [(0, 1, 0.0)] * 10
    a, b = bradley_terry_point(duels, 2)
    assert a - b == pytest.approx(400 * math.log10(3), abs=2.0)
    assert (a + b) / 2 == pytest.approx(1500)


def test_draws_count_half_a_win_each_way() -> None:
    # 10 wins, 10 draws, 0 losses = 15 of 20 points: the same 3:1 odds as above.
    duels = [(0, 1, 1.0)] * 10 + [(1, 0, 0.5)] * 10
    a, b = bradley_terry_point(duels, 2)
    assert a - b == pytest.approx(400 * math.log10(3), abs=2.0)


def test_a_transitive_field_is_ordered_and_a_cycle_is_level() -> None:
    chain = [(0, 1, 1.0)] * 8 + [(1, 2, 1.0)] * 8 + [(0, 1, 0.0), (1, 2, 0.0), (0, 2, 1.0)]
    a, b, c = bradley_terry_point(chain, 3)
    assert a > b > c
    cycle = [(0, 1, 1.0), (1, 2, 1.0), (2, 0, 1.0)] * 5
    ratings = bradley_terry_point(cycle, 3)
    assert max(ratings) - min(ratings) < 1.0


def test_bootstrap_intervals_hold_the_rating_and_shrink_with_more_matches() -> None:
    few = bradley_terry([(0, 1, 1.0), (0, 1, 1.0), (0, 1, 0.0)] * 3, 2, seed=1)
    many = bradley_terry([(0, 1, 1.0), (0, 1, 1.0), (0, 1, 0.0)] * 40, 2, seed=1)
    for ratings in (few, many):
        for r in ratings:
            assert r.low <= r.rating <= r.high
            assert r.method == "bradley-terry"
    assert many[0].high - many[0].low < few[0].high - few[0].low
    # 2:1 odds -> 120 Elo points between them
    assert many[0].rating - many[1].rating == pytest.approx(400 * math.log10(2), abs=3.0)


def test_an_unbeaten_player_stays_finite() -> None:
    (a, b) = bradley_terry([(0, 1, 1.0)] * 12, 2, seed=0)
    assert (
        math.isfinite(a.rating) and math.isfinite(a.high) and a.rating > b.rating + 400 / ELO_SCALE
    )


def test_plackett_luce_orders_players_by_their_rankings() -> None:
    matches = [[(0, 100.0), (1, 50.0), (2, 0.0)], [(2, 0.0), (0, 100.0), (1, 50.0)]] * 10
    a, b, c = plackett_luce(matches, 3)
    assert a.rating > b.rating > c.rating
    assert all(r.low < r.rating < r.high and r.method == "plackett-luce" for r in (a, b, c))
    fewer = plackett_luce(matches[:2], 3)
    assert fewer[0].high - fewer[0].low > a.high - a.low
