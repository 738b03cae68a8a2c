"""Shared helpers of the tournament tests: configs and stored slots made by hand."""

from __future__ import annotations

from collections.abc import Sequence

from ggpkit.store.tournaments import SlotRow
from ggpkit.tournament.config import PlayerEntry, TournamentConfig
from ggpkit.tournament.games import GameRef


def config(
    names: Sequence[str], schedule: str = "round-robin", matches: int = 2, **more: object
) -> TournamentConfig:
    players = tuple(PlayerEntry(n, "agent", "random") for n in names)
    return TournamentConfig(
        games=("g",),
        players=players,
        schedule=schedule,
        matches_per_pairing=matches,
        **more,  # type: ignore[arg-type]
    )


def ref(label: str, roles: int) -> GameRef:
    return GameRef(label, "", tuple(f"r{i}" for i in range(roles)), True)


def result(players: Sequence[str], goals: Sequence[int], at: int = 0, game: str = "g") -> SlotRow:
    """A played slot (as the store reads it back) with these goals, written at ``at`` ms."""
    key = f"{at}/{game}/{'+'.join(players)}"
    return SlotRow(key, 1, game, tuple(players), 0, f"m{key}", at, None, tuple(goals))
