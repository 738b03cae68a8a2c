"""Standings, cross-table and rating history, read from a tournament's stored slots.

Scoring follows the arena: in a match a player *wins* with a strictly highest goal
(1 point), *draws* sharing the highest goal (1/2), and loses otherwise (0); alone in
a puzzle, only goal 100 is a win. The cross-table counts, for each pair of players,
one's points against the other in the matches they played together (decided by
their two goals). Ratings per game use Bradley-Terry for two-role games and
Plackett-Luce for more (``ratings``); overall, Bradley-Terry when every game has two
roles, else Plackett-Luce over all matches. Nature (GDL-II's ``random``) is no entrant:
its place in a slot, and its goal, are left out (:func:`~ggpkit.tournament.games.entrants`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ggpkit.store.tournaments import SlotRow
from ggpkit.tournament.games import entrants
from ggpkit.tournament.ratings import (
    BOOTSTRAP_SAMPLES,
    Duel,
    Ranking,
    Rating,
    bradley_terry,
    plackett_luce,
)


@dataclass(frozen=True, slots=True)
class Standing:
    """One row of the standings (``standings --json`` prints these)."""

    player: str
    rating: float
    low: float
    high: float
    points: float
    matches: int
    wins: int
    draws: int
    losses: int
    method: str

    def to_json(self) -> dict[str, Any]:
        row = asdict(self)
        for key in ("rating", "low", "high"):
            row[key] = round(row[key], 1)
        return row


def played(slots: Sequence[SlotRow], game: str | None = None) -> list[SlotRow]:
    """Slots with a result, in the order the results were written (optionally one game)."""
    done = [s for s in slots if s.goals is not None and (game is None or s.game == game)]
    return sorted(done, key=lambda s: (s.finished or 0, s.key))


def scored(slot: SlotRow) -> tuple[list[str], list[int]]:
    """A played slot's entrants and their goals, in role order (nature left out)."""
    pairs = [(p, g) for p, g in entrants(slot) if g is not None]
    return [p for p, _ in pairs], [g for _, g in pairs]


def match_points(goals: Sequence[int]) -> list[float]:
    """Each role's points in one match: 1 strictly highest, 1/2 sharing the top, else 0."""
    if len(goals) == 1:
        return [1.0 if goals[0] == 100 else 0.0]
    top = max(goals)
    shared = goals.count(top) > 1
    return [0.0 if g < top else 0.5 if shared else 1.0 for g in goals]


def points_by_player(slots: Sequence[SlotRow], names: Sequence[str]) -> dict[str, float]:
    """Total points of each player over the played slots."""
    points = dict.fromkeys(names, 0.0)
    for slot in played(slots):
        players, goals = scored(slot)
        for name, p in zip(players, match_points(goals), strict=True):
            points[name] += p
    return points


def cross_table(
    slots: Sequence[SlotRow], names: Sequence[str]
) -> dict[tuple[str, str], tuple[float, int]]:
    """(row player, column player) -> (row's points against column, matches together)."""
    table: dict[tuple[str, str], tuple[float, int]] = {}
    for slot in played(slots):
        players, goals = scored(slot)
        for a, goal_a in zip(players, goals, strict=True):
            for b, goal_b in zip(players, goals, strict=True):
                if a == b:
                    continue
                score = 1.0 if goal_a > goal_b else 0.5 if goal_a == goal_b else 0.0
                old_points, old_count = table.get((a, b), (0.0, 0))
                table[(a, b)] = (old_points + score, old_count + 1)
    return table


def cross_cell(table: dict[tuple[str, str], tuple[float, int]], a: str, b: str) -> str:
    """A cross-table cell as shown: ``points (matches)``, or ``-`` when they never met."""
    points, count = table.get((a, b), (0.0, 0))
    return "-" if a == b or not count else f"{points:g} ({count})"


def standings(
    slots: Sequence[SlotRow],
    names: Sequence[str],
    game: str | None = None,
    seed: int = 0,
    samples: int = BOOTSTRAP_SAMPLES,
) -> list[Standing]:
    """The standings over all games (``game=None``) or one, best rating first.

    ``samples=0`` skips the bootstrap (interval = the rating itself: a quick look).
    """
    done = played(slots, game)
    ratings = _ratings(done, names, seed, samples)
    out = []
    for i, name in enumerate(names):
        wins = draws = losses = 0
        points = 0.0
        for slot in done:
            players, goals = scored(slot)
            if name not in players:
                continue
            p = match_points(goals)[players.index(name)]
            points += p
            wins, draws, losses = wins + (p == 1.0), draws + (p == 0.5), losses + (p == 0.0)
        r = ratings[i]
        out.append(
            Standing(
                name,
                r.rating,
                r.low,
                r.high,
                points,
                wins + draws + losses,
                wins,
                draws,
                losses,
                r.method,
            )
        )
    return sorted(out, key=lambda s: (-s.rating, -s.points, s.player))


def rating_history(
    slots: Sequence[SlotRow], names: Sequence[str], points: int = 20
) -> list[tuple[int, dict[str, float]]]:
    """Ratings after the first k results, at up to ``points`` values of k (for a plot)."""
    done = played(slots)
    if not done:
        return []
    marks = sorted({max(1, round(len(done) * (i + 1) / points)) for i in range(points)})
    out = []
    for k in marks:
        ratings = _ratings(done[:k], names, seed=0, samples=0)
        out.append((k, {name: r.rating for name, r in zip(names, ratings, strict=True)}))
    return out


def _ratings(
    done: Sequence[SlotRow], names: Sequence[str], seed: int, samples: int
) -> list[Rating]:
    index = {name: i for i, name in enumerate(names)}
    if all(len(scored(s)[0]) <= 2 for s in done):
        duels = _duels(done, index)
        return bradley_terry(duels, len(names), samples=samples, seed=seed)
    return plackett_luce(_rankings(done, index), len(names))


def _duels(done: Sequence[SlotRow], index: dict[str, int]) -> list[Duel]:
    duels: list[Duel] = []
    for slot in done:
        players, goals = scored(slot)
        if len(players) != 2:
            continue  # a puzzle's matches count for points, not for ratings
        (a, b), (ga, gb) = players, goals
        duels.append((index[a], index[b], 1.0 if ga > gb else 0.5 if ga == gb else 0.0))
    return duels


def _rankings(done: Sequence[SlotRow], index: dict[str, int]) -> list[Ranking]:
    out: list[Ranking] = []
    for slot in done:
        players, goals = scored(slot)
        if len(players) < 2:
            continue
        out.append([(index[p], float(g)) for p, g in zip(players, goals, strict=True)])
    return out
