"""The schedule: which players meet in which game, as slots with unique keys.

A slot is one match to play. Its key (``round/game/pairing/index``) is unique in the
tournament and the store keeps at most one result per key, so a tournament resumed
after a crash plays exactly the slots that have no result: none lost, none twice.

Within a pairing, match ``i`` seats the pairing's players rotated by ``i`` (as the
arena does), so over a multiple of the seat count each plays every seat equally often.
The seats are the roles but nature's (GDL-II's ``random``), whose moves are drawn: a
slot names nature there (see :mod:`ggpkit.tournament.games`), but it is no entrant.
Round robin meets every group of players (as many as the game has seats) in every
game; a gauntlet meets only the groups with the champion; Swiss plays rounds in
which players of equal points meet (two-role games only), each round made when the
last one is complete, from its results.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations

from ggpkit.match.arena import assignment, derive_seed
from ggpkit.store.tournaments import SlotRow
from ggpkit.tournament.config import TournamentConfig, config_error
from ggpkit.tournament.games import GameRef, entrants

MAX_SLOTS = 1_000_000
"""The most matches one tournament may schedule (its slots are made and stored up front)."""


def check_games(config: TournamentConfig, refs: Sequence[GameRef]) -> None:
    """ConfigError when a game cannot be scheduled with these players and this schedule."""
    total = sum(len(pairings(config, len(r.seats))) for r in refs) * config.matches_per_pairing
    if total > MAX_SLOTS:
        raise config_error(
            config,
            "matches_per_pairing",
            f"{total:,} matches; at most {MAX_SLOTS:,} per tournament",
        )
    for ref in refs:
        seats = len(ref.seats)
        kind = "roles" if ref.chance_role is None else "seats (roles but nature)"
        if seats > len(config.players):
            raise config_error(
                config, "games", f"{ref.label} has {seats} {kind}, more than the players"
            )
        if config.schedule == "swiss" and seats != 2:
            raise config_error(
                config, "schedule", f"swiss needs two-role games; {ref.label} has {seats}"
            )


def swiss_rounds(config: TournamentConfig) -> int:
    """The rounds of a Swiss tournament: as configured, else enough to rank (log2 + 1)."""
    if config.rounds is not None:
        return config.rounds
    return math.ceil(math.log2(len(config.players))) + 1


def pairings(config: TournamentConfig, size: int) -> list[tuple[str, ...]]:
    """The groups of ``size`` players that meet in a round robin or a gauntlet."""
    names = [p.name for p in config.players]
    groups = list(combinations(names, size))
    if config.schedule == "gauntlet" and size > 1:
        groups = [g for g in groups if config.champion in g]
    return groups


def slots_for(
    config: TournamentConfig, game: GameRef, group: Sequence[str], round_number: int
) -> list[SlotRow]:
    """The ``matches_per_pairing`` slots of one group in one game, seats rotated."""
    out = []
    n = len(group)
    for i in range(config.matches_per_pairing):
        key = f"{round_number}/{game.label}/{'+'.join(group)}/{i}"
        seats = game.with_nature([group[s] for s in assignment(i, n)])
        seed = derive_seed(config.seed, zlib.crc32(key.encode()))
        out.append(SlotRow(key, round_number, game.label, seats, seed))
    return out


def first_slots(config: TournamentConfig, refs: Sequence[GameRef]) -> list[SlotRow]:
    """Every slot of a round robin or gauntlet; the first round of a Swiss tournament."""
    if config.schedule == "swiss":
        return swiss_slots(config, refs, 1, {}, set())
    out = []
    for ref in refs:
        for group in pairings(config, len(ref.seats)):
            out += slots_for(config, ref, group, 1)
    return out


def swiss_slots(
    config: TournamentConfig,
    refs: Sequence[GameRef],
    round_number: int,
    points: Mapping[str, float],
    met: set[frozenset[str]],
) -> list[SlotRow]:
    """The slots of one Swiss round, pairing players of equal points (see :func:`swiss_pairs`)."""
    out = []
    for a, b in swiss_pairs([p.name for p in config.players], points, met):
        for ref in refs:
            out += slots_for(config, ref, (a, b), round_number)
    return out


def swiss_pairs(
    names: Sequence[str], points: Mapping[str, float], met: set[frozenset[str]]
) -> list[tuple[str, str]]:
    """Pairs for a Swiss round: best first, each with the best-placed player not yet met.

    Ties in points keep the configured order. With an odd number of players the
    last one left sits the round out (no points). When everyone left has been met,
    a repeat is allowed rather than leaving two players out.
    """
    order = sorted(names, key=lambda n: (-points.get(n, 0.0), names.index(n)))
    pairs = []
    while len(order) >= 2:
        first = order.pop(0)
        fresh = [n for n in order if frozenset((first, n)) not in met]
        second = (fresh or order)[0]
        order.remove(second)
        pairs.append((first, second))
    return pairs


def met_pairs(slots: Iterable[SlotRow]) -> set[frozenset[str]]:
    """The pairs of players that already have slots together."""
    return {frozenset(p for p, _ in entrants(s)) for s in slots}
