"""Tournaments in the match store: their config, their schedule slots, one result per slot.

Kept in the same SQLite file as the matches (schema migration 4), so a slot and the
match that fills it are written in one transaction: after ``kill -9`` at any moment a
slot either has its whole match or has none. A slot takes a result only while it has
none (``match_id IS NULL``), so a match delivered twice (a retried task) counts once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ggpkit.match.records import MatchRecord, now_ms
from ggpkit.store.sqlite import MatchStore, StoreError


@dataclass(frozen=True, slots=True)
class SlotRow:
    """A stored slot: one match of the schedule, with its result's match id once played."""

    key: str
    round: int
    game: str
    players: tuple[str, ...]
    seed: int
    match_id: str | None = None
    finished: int | None = None
    """Epoch milliseconds when the result was written (orders the rating-over-time plot)."""
    error: str | None = None
    goals: tuple[int, ...] | None = None
    """The match's goals in role order, when read with :meth:`TournamentStore.slots`."""


@dataclass(frozen=True, slots=True)
class TournamentSummary:
    """One line of a list of tournaments."""

    tournament_id: str
    name: str
    created: int
    slots: int
    played: int


class TournamentStore:
    """Tournament tables over an open :class:`MatchStore` (same file, same lock)."""

    def __init__(self, store: MatchStore) -> None:
        self.store = store

    def create(self, tournament_id: str, config: dict[str, Any]) -> None:
        with self.store.transaction() as db:
            db.execute(
                "INSERT INTO tournaments (tournament_id, config, created) VALUES (?,?,?)",
                (tournament_id, json.dumps(config), now_ms()),
            )

    def add_slots(self, tournament_id: str, slots: list[SlotRow]) -> None:
        """Add slots; a key already there is kept as it is (adding is idempotent)."""
        with self.store.transaction() as db:
            db.executemany(
                "INSERT OR IGNORE INTO tournament_slots "
                "(tournament_id, slot_key, round, game, players, seed) VALUES (?,?,?,?,?,?)",
                [
                    (tournament_id, s.key, s.round, s.game, json.dumps(s.players), s.seed)
                    for s in slots
                ],
            )

    def config(self, tournament_id: str) -> dict[str, Any]:
        """The stored config; StoreError naming the id when there is no such tournament."""
        rows = self.store.read(
            "SELECT config FROM tournaments WHERE tournament_id=?", (tournament_id,)
        )
        if not rows:
            raise StoreError(f"no tournament {tournament_id!r} in {self.store.path}")
        config: dict[str, Any] = json.loads(rows[0][0])
        return config

    def slots(self, tournament_id: str) -> list[SlotRow]:
        """Every slot in schedule order, with the goals of the played ones."""
        rows = self.store.read(
            "SELECT s.slot_key, s.round, s.game, s.players, s.seed, s.match_id, s.finished, "
            "s.error, m.goal_values FROM tournament_slots s "
            "LEFT JOIN matches m ON m.match_id = s.match_id "
            "WHERE s.tournament_id=? ORDER BY s.rowid",
            (tournament_id,),
        )
        return [
            SlotRow(
                key=r[0],
                round=r[1],
                game=r[2],
                players=tuple(json.loads(r[3])),
                seed=r[4],
                match_id=r[5],
                finished=r[6],
                error=r[7],
                goals=None if r[8] is None else tuple(json.loads(r[8])),
            )
            for r in rows
        ]

    def record_result(self, tournament_id: str, key: str, record: MatchRecord) -> bool:
        """Write ``record`` as the slot's result, both or neither; False if it had one already."""
        with self.store.transaction() as db:
            row = db.execute(
                "SELECT match_id FROM tournament_slots WHERE tournament_id=? AND slot_key=?",
                (tournament_id, key),
            ).fetchone()
            if row is None:
                raise StoreError(f"tournament {tournament_id!r} has no slot {key!r}")
            if row[0] is not None:
                return False
            self.store.write_record(db, record)
            db.execute(
                "UPDATE tournament_slots SET match_id=?, finished=?, error=NULL "
                "WHERE tournament_id=? AND slot_key=?",
                (record.match_id, now_ms(), tournament_id, key),
            )
        return True

    def record_error(self, tournament_id: str, key: str, error: str) -> None:
        """Note why a slot's match failed; it stays unplayed, so ``resume`` tries it again."""
        with self.store.transaction() as db:
            db.execute(
                "UPDATE tournament_slots SET error=? WHERE tournament_id=? AND slot_key=? "
                "AND match_id IS NULL",
                (error[:500], tournament_id, key),
            )

    def tournaments(self) -> list[TournamentSummary]:
        """Every stored tournament, newest first, with its slots played and scheduled."""
        rows = self.store.read(
            "SELECT t.tournament_id, t.config, t.created, count(s.slot_key), count(s.match_id) "
            "FROM tournaments t LEFT JOIN tournament_slots s ON s.tournament_id = t.tournament_id "
            "GROUP BY t.tournament_id ORDER BY t.created DESC"
        )
        return [
            TournamentSummary(r[0], str(json.loads(r[1]).get("name", "")), r[2], r[3], r[4])
            for r in rows
        ]
