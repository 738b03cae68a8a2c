"""The SQLite match store: every match, written step by step.

The store implements the match layer's recorder interface: the header and the
initial state when a match starts, one row per step as it is played, the goals
at the end, each in its own transaction. The database runs in WAL mode with
``synchronous=NORMAL``: killing the process (even ``kill -9``) loses at most the
step in flight and never corrupts the file; an operating-system crash or power cut
can lose the last steps written, never the file. (``FULL`` would also survive a
power cut, at an fsync per step: 3.6 ms here, under the store's one lock, which
capped the web app at a few hundred steps per second for all its users.) The
schema carries a version and is upgraded by numbered migrations when an older file
is opened. A game of imperfect information's records also keep what each role
perceived of each step and which role was nature (GDL-II; columns of migration 5).
A person's move in a step where others still choose is kept apart from the record
(:meth:`MatchStore.hold_move`, migration 6): it is no part of the match until the step is
played, and no export shows it, but a restarted web app must not lose it.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ggpkit.errors import GgpkitError
from ggpkit.match.records import MatchRecord


class StoreError(GgpkitError):
    """A store problem a user can act on (unknown match id, newer schema, bad file)."""


class MatchExistsError(StoreError):
    """A record would replace a stored match of the same id (imports never overwrite)."""


MIGRATIONS: list[str] = [
    # 1: matches and their steps
    """
    CREATE TABLE matches (
        match_id TEXT PRIMARY KEY,
        game_name TEXT NOT NULL,
        rules TEXT NOT NULL,
        roles TEXT NOT NULL,
        random_token TEXT NOT NULL,
        start_time INTEGER NOT NULL,
        game_meta_url TEXT NOT NULL,
        preview_clock REAL NOT NULL,
        start_clock REAL NOT NULL,
        play_clock REAL NOT NULL,
        player_names TEXT NOT NULL,
        is_human TEXT NOT NULL,
        source TEXT NOT NULL,
        initial_state TEXT NOT NULL,
        initial_time INTEGER NOT NULL,
        is_completed INTEGER NOT NULL DEFAULT 0,
        is_aborted INTEGER NOT NULL DEFAULT 0,
        goal_values TEXT
    );
    CREATE TABLE steps (
        match_id TEXT NOT NULL REFERENCES matches(match_id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        moves TEXT NOT NULL,
        errors TEXT NOT NULL,
        state TEXT NOT NULL,
        state_time INTEGER NOT NULL,
        PRIMARY KEY (match_id, step)
    );
    CREATE INDEX matches_by_game ON matches(game_name, start_time);
    """,
    # 2: the store's own secrets (the web app signs session tokens with one)
    """
    CREATE TABLE secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL);
    """,
    # 3: which process is writing each unfinished match (to end a dead writer's matches)
    """
    CREATE TABLE writers (
        match_id TEXT PRIMARY KEY REFERENCES matches(match_id) ON DELETE CASCADE,
        host TEXT NOT NULL,
        pid INTEGER NOT NULL,
        started TEXT NOT NULL
    );
    """,
    # 4: tournaments and their schedule slots (one result per slot key: resume never repeats)
    """
    CREATE TABLE tournaments (
        tournament_id TEXT PRIMARY KEY,
        config TEXT NOT NULL,
        created INTEGER NOT NULL
    );
    CREATE TABLE tournament_slots (
        tournament_id TEXT NOT NULL REFERENCES tournaments(tournament_id) ON DELETE CASCADE,
        slot_key TEXT NOT NULL,
        round INTEGER NOT NULL,
        game TEXT NOT NULL,
        players TEXT NOT NULL,
        seed INTEGER NOT NULL,
        match_id TEXT UNIQUE REFERENCES matches(match_id),
        finished INTEGER,
        error TEXT,
        PRIMARY KEY (tournament_id, slot_key)
    );
    CREATE INDEX slots_by_finish ON tournament_slots(tournament_id, finished);
    """,
    # 5: games of imperfect information: what each role perceived, and nature's role
    """
    ALTER TABLE matches ADD COLUMN chance_role TEXT;
    ALTER TABLE steps ADD COLUMN percepts TEXT
    """,
    # 6: a person's move held until every person of a simultaneous step has chosen (web)
    """
    CREATE TABLE held_moves (
        match_id TEXT NOT NULL REFERENCES matches(match_id) ON DELETE CASCADE,
        step INTEGER NOT NULL,
        role TEXT NOT NULL,
        move TEXT NOT NULL,
        PRIMARY KEY (match_id, role)
    )
    """,
]

RESTORED_SOURCES = frozenset({"web"})
"""Sources whose unfinished matches live on after their writer (the web app restores
its sessions), so they are never ended as abandoned."""
SCHEMA_VERSION = len(MIGRATIONS)


def default_db_path() -> Path:
    """``$GGPKIT_DB``, else ``$XDG_DATA_HOME/ggpkit/matches.sqlite3`` (``~/.local/share``)."""
    env = os.environ.get("GGPKIT_DB")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "ggpkit" / "matches.sqlite3"


@dataclass(frozen=True, slots=True)
class MatchSummary:
    """One line of ``ggpkit matches``."""

    match_id: str
    game_name: str
    start_time: int
    steps: int
    players: list[str]
    goal_values: list[int] | None
    is_completed: bool
    is_aborted: bool
    source: str

    @property
    def status(self) -> str:
        if self.is_completed:
            return "completed"
        return "aborted" if self.is_aborted else "unfinished"


class MatchStore:
    """A match database file; also a MatchRecorder. Safe to share between threads."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(
                str(path), isolation_level=None, check_same_thread=False, timeout=10.0
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{path}: not a usable match database ({e})") from None
        self._lock = threading.RLock()
        self._migrate()
        self.abandoned = self._end_abandoned()
        """Ids of the matches found abandoned (and ended as aborted) when the store opened."""

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> MatchStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, for a caller that writes a match and more at once (a
        tournament's slot and its result: both or neither)."""
        with self._transaction() as db:
            yield db

    def read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        """Rows of a read-only query, under the store's lock (for the store layer's readers)."""
        with self._lock:
            return list(self._db.execute(sql, params).fetchall())

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def schema_version(self) -> int:
        with self._lock:
            row = self._db.execute("SELECT max(version) FROM schema_version").fetchone()
        return int(row[0] or 0)

    def _migrate(self) -> None:
        with self._transaction() as db:
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = db.execute("SELECT max(version) FROM schema_version").fetchone()
            current = int(row[0] or 0)
            if current > SCHEMA_VERSION:
                raise StoreError(
                    f"{self.path} has schema version {current}; this ggpkit knows up to "
                    f"{SCHEMA_VERSION}: upgrade ggpkit"
                )
            for version in range(current + 1, SCHEMA_VERSION + 1):
                for statement in MIGRATIONS[version - 1].split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))

    # ---- the recorder interface ----------------------------------------------------------------

    def match_started(self, record: MatchRecord) -> None:
        """Write the header and initial state (replacing an earlier match of the same id).

        The writing process is noted with it, so that if it dies before the match ends,
        the next process to open the store ends the match as aborted.
        """
        with self._transaction() as db:
            self._write_header(db, record)
            db.execute(
                "INSERT OR REPLACE INTO writers (match_id, host, pid, started) VALUES (?,?,?,?)",
                (record.match_id, socket.gethostname(), os.getpid(), _process_start(os.getpid())),
            )

    def step_played(self, record: MatchRecord) -> None:
        """Write the record's last step."""
        step = record.steps
        with self._transaction() as db:
            self._write_step(db, record, step)

    def match_ended(self, record: MatchRecord) -> None:
        """Write the result (completed with goals, or aborted)."""
        with self._transaction() as db:
            self._write_result(db, record)

    def hold_move(self, match_id: str, step: int, role: str, move: str) -> None:
        """Keep ``role``'s move for ``step`` (the record's steps so far) until that step is
        written; writing any step or the whole record of a web match (the one kind that
        holds moves) drops its held moves."""
        with self._transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO held_moves (match_id, step, role, move) VALUES (?,?,?,?)",
                (match_id, step, role, move),
            )

    def held_moves(self, match_id: str, step: int) -> dict[str, str]:
        """The moves held for ``step`` of ``match_id`` (role -> move text)."""
        rows = self.read(
            "SELECT role, move FROM held_moves WHERE match_id=? AND step=?", (match_id, step)
        )
        return {str(role): str(move) for role, move in rows}

    # ---- whole records -------------------------------------------------------------------------

    def save(self, record: MatchRecord) -> None:
        """Write a whole record at once (import); replaces a match of the same id."""
        if not record.states:
            raise StoreError(f"match {record.match_id} has no states to store")
        with self._transaction() as db:
            self.write_record(db, record)

    def write_record(self, db: sqlite3.Connection, record: MatchRecord) -> None:
        """Write a whole record inside an open :meth:`transaction` (replacing the same id)."""
        if not record.states:
            raise StoreError(f"match {record.match_id} has no states to store")
        self._write_header(db, record)
        for step in range(1, record.steps + 1):
            self._write_step(db, record, step)
        self._write_result(db, record)

    def add(self, record: MatchRecord) -> None:
        """Write a whole record whose id is new; MatchExistsError when the id is taken."""
        if self.contains(record.match_id):
            raise MatchExistsError(
                f"a match with id {record.match_id!r} is already stored; it is not replaced"
            )
        self.save(record)

    def contains(self, match_id: str) -> bool:
        """Whether a match of exactly this id is stored."""
        with self._lock:
            row = self._db.execute("SELECT 1 FROM matches WHERE match_id=?", (match_id,))
            return row.fetchone() is not None

    def secret(self, name: str) -> bytes:
        """A random 32-byte secret kept in the store under ``name`` (made on first use).

        Kept with the matches so that what is signed with it (web session tokens)
        stays valid across restarts of the same store.
        """
        with self._transaction() as db:
            row = db.execute("SELECT value FROM secrets WHERE name=?", (name,)).fetchone()
            if row is not None:
                return bytes(row[0])
            value = secrets.token_bytes(32)
            db.execute("INSERT INTO secrets (name, value) VALUES (?, ?)", (name, value))
            return value

    def load(self, match_id: str) -> MatchRecord:
        """The stored record of ``match_id`` (a unique prefix will do)."""
        with self._lock:
            row = self._db.execute(
                "SELECT match_id, game_name, rules, roles, random_token, start_time, "
                "game_meta_url, preview_clock, start_clock, play_clock, player_names, is_human, "
                "source, initial_state, initial_time, is_completed, is_aborted, goal_values, "
                "chance_role FROM matches WHERE match_id=?",
                (self._resolve(match_id),),
            ).fetchone()
            steps = self._db.execute(
                "SELECT moves, errors, state, state_time, percepts FROM steps WHERE match_id=? "
                "ORDER BY step",
                (row[0],),
            ).fetchall()
        record = MatchRecord(
            match_id=row[0],
            game_name=row[1],
            rules=row[2],
            roles=json.loads(row[3]),
            random_token=row[4],
            start_time=row[5],
            game_meta_url=row[6],
            preview_clock=row[7],
            start_clock=row[8],
            play_clock=row[9],
            player_names=json.loads(row[10]),
            is_human=json.loads(row[11]),
            source=row[12],
            is_completed=bool(row[15]),
            is_aborted=bool(row[16]),
            goal_values=None if row[17] is None else json.loads(row[17]),
            chance_role=row[18],
        )
        record.add_state(row[13], row[14])
        for moves, errors, state, state_time, percepts in steps:
            seen = None if percepts is None else json.loads(percepts)
            record.add_step(json.loads(moves), json.loads(errors), state, state_time, seen)
        return record

    def matches(self, game: str | None = None, limit: int | None = None) -> list[MatchSummary]:
        """Stored matches, newest first, optionally of one game only."""
        sql = (
            "SELECT m.match_id, m.game_name, m.start_time, "
            "(SELECT count(*) FROM steps s WHERE s.match_id = m.match_id), "
            "m.player_names, m.goal_values, m.is_completed, m.is_aborted, m.source "
            "FROM matches m"
        )
        params: list[object] = []
        if game is not None:
            sql += " WHERE m.game_name = ?"
            params.append(game)
        sql += " ORDER BY m.start_time DESC, m.match_id"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        with self._lock:
            rows = self._db.execute(sql, params).fetchall()
        return [
            MatchSummary(
                match_id=r[0],
                game_name=r[1],
                start_time=r[2],
                steps=r[3],
                players=json.loads(r[4]),
                goal_values=None if r[5] is None else json.loads(r[5]),
                is_completed=bool(r[6]),
                is_aborted=bool(r[7]),
                source=r[8],
            )
            for r in rows
        ]

    # ---- internals -------------------------------------------------------------------------------

    def _end_abandoned(self) -> list[str]:
        """End as aborted the unfinished matches whose writer on this host has died."""
        host = socket.gethostname()
        with self._transaction() as db:
            rows = db.execute(
                "SELECT w.match_id, w.pid, w.started, m.source FROM writers w "
                "JOIN matches m ON m.match_id = w.match_id "
                "WHERE w.host=? AND m.is_completed=0 AND m.is_aborted=0",
                (host,),
            ).fetchall()
            dead = [
                match_id
                for match_id, pid, started, source in rows
                if source not in RESTORED_SOURCES and _process_start(pid) != started
            ]
            for match_id in dead:
                db.execute("UPDATE matches SET is_aborted=1 WHERE match_id=?", (match_id,))
                db.execute("DELETE FROM writers WHERE match_id=?", (match_id,))
        return dead

    def _resolve(self, match_id: str) -> str:
        exact = self._db.execute("SELECT 1 FROM matches WHERE match_id=?", (match_id,)).fetchone()
        if exact:
            return match_id
        escaped = match_id.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self._db.execute(
            "SELECT match_id FROM matches WHERE match_id LIKE ? ESCAPE '\\' LIMIT 2",
            (escaped + "%",),
        ).fetchall()
        if len(rows) == 1:
            return str(rows[0][0])
        if not rows:
            raise StoreError(f"no stored match {match_id!r} in {self.path}")
        raise StoreError(f"{match_id!r} matches more than one stored match; give more of the id")

    @staticmethod
    def _write_header(db: sqlite3.Connection, record: MatchRecord) -> None:
        _drop_held_moves(db, record)
        db.execute("DELETE FROM steps WHERE match_id=?", (record.match_id,))
        db.execute("DELETE FROM matches WHERE match_id=?", (record.match_id,))
        db.execute(
            "INSERT INTO matches (match_id, game_name, rules, roles, random_token, start_time, "
            "game_meta_url, preview_clock, start_clock, play_clock, player_names, is_human, "
            "source, initial_state, initial_time) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                record.match_id,
                record.game_name,
                record.rules,
                json.dumps(record.roles),
                record.random_token,
                record.start_time,
                record.game_meta_url,
                record.preview_clock,
                record.start_clock,
                record.play_clock,
                json.dumps(record.player_names),
                json.dumps(record.is_human),
                record.source,
                record.states[0],
                record.state_times[0] if record.state_times else record.start_time,
            ),
        )
        if record.chance_role is not None:  # GDL-II's columns: written where a match has them
            db.execute(
                "UPDATE matches SET chance_role=? WHERE match_id=?",
                (record.chance_role, record.match_id),
            )

    @staticmethod
    def _write_result(db: sqlite3.Connection, record: MatchRecord) -> None:
        db.execute("DELETE FROM writers WHERE match_id=?", (record.match_id,))
        db.execute(
            "UPDATE matches SET is_completed=?, is_aborted=?, goal_values=? WHERE match_id=?",
            (
                int(record.is_completed),
                int(record.is_aborted),
                None if record.goal_values is None else json.dumps(record.goal_values),
                record.match_id,
            ),
        )

    @staticmethod
    def _write_step(db: sqlite3.Connection, record: MatchRecord, step: int) -> None:
        errors = record.errors[step - 1] if step - 1 < len(record.errors) else []
        state_time = (
            record.state_times[step] if step < len(record.state_times) else record.start_time
        )
        percepts = record.percepts[step - 1] if step - 1 < len(record.percepts) else None
        _drop_held_moves(db, record)
        db.execute(
            "INSERT OR REPLACE INTO steps (match_id, step, moves, errors, state, state_time) "
            "VALUES (?,?,?,?,?,?)",
            (
                record.match_id,
                step,
                json.dumps(record.moves[step - 1]),
                json.dumps(errors),
                record.states[step],
                state_time,
            ),
        )
        if percepts is not None:
            db.execute(
                "UPDATE steps SET percepts=? WHERE match_id=? AND step=?",
                (json.dumps(percepts), record.match_id, step),
            )


def _drop_held_moves(db: sqlite3.Connection, record: MatchRecord) -> None:
    """Forget the moves held for ``record``'s match (a step of it, or all of it, is being
    written). Only the web app holds moves, so other matches skip the statement."""
    if record.source in RESTORED_SOURCES:
        db.execute("DELETE FROM held_moves WHERE match_id=?", (record.match_id,))


def _process_start(pid: int) -> str:
    """What tells this process apart from a later one with the same pid ("" when it is gone).

    Its start time in clock ticks since boot, from ``/proc``; where there is no
    ``/proc``, only whether the pid is alive.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        fields = stat.rsplit(")", 1)[1].split()
        return "" if fields[0] in ("Z", "X") else fields[19]
    except (OSError, IndexError):
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return ""
    except PermissionError:
        return "alive"
    return "" if Path("/proc/self/stat").exists() else "alive"
