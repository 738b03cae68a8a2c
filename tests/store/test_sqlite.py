"""The SQLite match store: step-by-step writes, reads, listing, migrations, crash safety."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from match.support import TINY_GDL, FirstAgent, LastAgent, TinyGame

from ggpkit.match.clock import Clocks
from ggpkit.match.players import LocalPlayer, Player
from ggpkit.match.records import MatchRecord
from ggpkit.match.referee import Referee
from ggpkit.store.sqlite import SCHEMA_VERSION, MatchStore, StoreError, default_db_path

TESTS_DIR = Path(__file__).resolve().parents[1]


def play_tiny(store: MatchStore, match_id: str | None = None) -> MatchRecord:
    players: list[Player] = [LocalPlayer(FirstAgent()), LocalPlayer(LastAgent())]
    referee = Referee(TinyGame(), TINY_GDL, players, Clocks(2, 1), store, match_id=match_id)
    return asyncio.run(referee.run())


def test_a_played_match_reads_back_identically(tmp_path: Path) -> None:
    with MatchStore(tmp_path / "m.sqlite3") as store:
        record = play_tiny(store)
        assert store.load(record.match_id).to_json() == record.to_json()
        assert store.load(record.match_id[:-2]).match_id == record.match_id  # unique prefix


def test_listing_filters_by_game_and_limits(tmp_path: Path) -> None:
    with MatchStore(tmp_path / "m.sqlite3") as store:
        ids = [play_tiny(store, f"tiny.{i}").match_id for i in range(3)]
        other = MatchRecord.loads(store.load(ids[0]).dumps())
        other.match_id, other.game_name = "peg.1", "peg"
        store.save(other)
        assert {m.match_id for m in store.matches(game="tiny")} == set(ids)
        assert [m.match_id for m in store.matches(game="peg")] == ["peg.1"]
        assert len(store.matches(limit=2)) == 2
        summary = store.matches(game="peg")[0]
        assert summary.steps == 3 and summary.status == "completed"
        assert summary.goal_values == [100, 0]


def test_unknown_match_is_a_store_error(tmp_path: Path) -> None:
    with MatchStore(tmp_path / "m.sqlite3") as store, pytest.raises(StoreError, match="no stored"):
        store.load("nosuch")


def test_schema_is_versioned_and_a_newer_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite3"
    with MatchStore(path) as store:
        assert store.schema_version() == SCHEMA_VERSION
        play_tiny(store, "kept")
    with MatchStore(path) as store:  # reopening migrates nothing and keeps the data
        assert store.schema_version() == SCHEMA_VERSION
        assert store.load("kept").is_completed
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO schema_version VALUES (?)", (SCHEMA_VERSION + 1,))
    with pytest.raises(StoreError, match="upgrade ggpkit"):
        MatchStore(path)


def test_default_path_follows_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GGPKIT_DB", "/tmp/x/y.sqlite3")
    assert default_db_path() == Path("/tmp/x/y.sqlite3")
    monkeypatch.delenv("GGPKIT_DB")
    monkeypatch.setenv("XDG_DATA_HOME", "/data")
    assert default_db_path() == Path("/data/ggpkit/matches.sqlite3")


_texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)


@st.composite
def records(draw: st.DrawFn) -> MatchRecord:
    roles = draw(st.lists(st.from_regex(r"[a-z]{1,6}", fullmatch=True), min_size=1, max_size=3))
    steps = draw(st.integers(0, 4))
    record = MatchRecord(
        match_id=draw(st.from_regex(r"[A-Za-z0-9._-]{1,20}", fullmatch=True)),
        game_name=draw(_texts),
        rules=draw(_texts),
        roles=roles,
        start_clock=draw(st.integers(0, 100)),
        play_clock=draw(st.sampled_from([0.5, 1.0, 7.0])),
        player_names=[draw(_texts) for _ in roles],
        is_human=[draw(st.booleans()) for _ in roles],
    )
    record.add_state(draw(_texts), draw(st.integers(0, 2**41)))
    for _ in range(steps):
        record.add_step(
            [draw(_texts) for _ in roles],
            [draw(st.sampled_from(["", "TO", "CE", "IL (x 1)"])) for _ in roles],
            draw(_texts),
            draw(st.integers(0, 2**41)),
        )
    if draw(st.booleans()):
        record.finish([draw(st.integers(0, 100)) for _ in roles])
    else:
        record.is_aborted = draw(st.booleans())
    return record


@settings(max_examples=40, deadline=None)
@given(records())
def test_any_record_round_trips_through_json_and_the_store(record: MatchRecord) -> None:
    assert MatchRecord.loads(record.dumps()).to_json() == record.to_json()
    with MatchStore(":memory:") as store:
        store.save(record)
        assert store.load(record.match_id).to_json() == record.to_json()


_REFEREE_SCRIPT = """
import asyncio, sys, time
from ggpkit.match.clock import Clocks
from ggpkit.match.players import LocalPlayer
from ggpkit.match.referee import Referee
from ggpkit.store.sqlite import MatchStore
from match.support import TINY_GDL, FirstAgent, TinyGame

class Slow(FirstAgent):
    def select(self, game, state, role, limit):
        time.sleep(0.05)
        return game.legal_moves(state, role)[0]

def announce(event):  # called after the recorder has committed the step
    print(event.step, flush=True)

store = MatchStore(sys.argv[1])
players = [LocalPlayer(Slow()), LocalPlayer(Slow())]
game = TinyGame(target=10_000)
referee = Referee(game, TINY_GDL, players, Clocks(5, 5), store, announce, match_id="long")
asyncio.run(referee.run())
"""


def test_kill_9_mid_match_leaves_a_sound_database(tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite3"
    env = {**os.environ, "PYTHONPATH": str(TESTS_DIR)}
    script = [sys.executable, "-c", _REFEREE_SCRIPT, str(db)]
    proc = subprocess.Popen(script, env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    announced = -1
    try:
        deadline = time.monotonic() + 60
        while announced < 8 and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            announced = int(line)
        assert proc.poll() is None, "the referee ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        # Steps announced between our last read and the kill were committed too.
        announced = max([announced, *(int(x) for x in proc.stdout.read().split())])
    finally:
        proc.kill()
        proc.wait(10)
        proc.stdout.close()
    with sqlite3.connect(db) as check:
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with MatchStore(db) as store:
        record = store.load("long")
    assert not record.is_completed
    assert record.steps >= announced >= 8  # every step announced as committed is there
    # Every stored step is whole and follows from the one before.
    from ggpkit.gdl.terms import facts_text

    game = TinyGame(target=10_000)
    state = game.initial_state()
    assert record.states[0] == facts_text(game.facts(state))
    for moves, after, errors in zip(record.moves, record.states[1:], record.errors, strict=True):
        state = game.next_state(state, moves)
        assert after == facts_text(game.facts(state))
        assert errors == ["", ""]


def test_a_new_migration_upgrades_an_old_file_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ggpkit.store import sqlite as store_module

    path = tmp_path / "m.sqlite3"
    with MatchStore(path) as store:
        play_tiny(store, "old")
    upgraded = [*store_module.MIGRATIONS, "ALTER TABLE matches ADD COLUMN note TEXT DEFAULT 'x'"]
    monkeypatch.setattr(store_module, "MIGRATIONS", upgraded)
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", len(upgraded))
    with MatchStore(path) as store:
        assert store.schema_version() == len(upgraded)
        assert store.load("old").is_completed
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT note FROM matches").fetchone() == ("x",)
        versions = [v for (v,) in db.execute("SELECT version FROM schema_version ORDER BY 1")]
    assert versions == list(range(1, len(upgraded) + 1))


_WRITER = """
import sys, time
from ggpkit.match.records import MatchRecord
from ggpkit.store.sqlite import MatchStore
store = MatchStore(sys.argv[1])
record = MatchRecord(match_id=sys.argv[2], game_name="tiny", rules="", roles=["a"],
                     start_clock=10, play_clock=5, player_names=["p"], is_human=[False],
                     source=sys.argv[3])
record.add_state("(count 0)")
store.match_started(record)
print("started", flush=True)
time.sleep(120)
"""


def _start_in_a_process(db: Path, match_id: str, source: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(db), match_id, source],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None and proc.stdout.readline().strip() == "started"
    return proc


def test_matches_of_a_killed_writer_are_ended_as_aborted_at_the_next_open(tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite3"
    dead = _start_in_a_process(db, "killed-referee", "referee")
    web = _start_in_a_process(db, "killed-web", "web")
    alive = _start_in_a_process(db, "live-referee", "referee")
    try:
        for proc in (dead, web):
            proc.kill()
            proc.wait()
        with MatchStore(db) as store:
            assert store.abandoned == ["killed-referee"]
            status = {m.match_id: (m.is_completed, m.is_aborted) for m in store.matches()}
        assert status["killed-referee"] == (False, True)
        assert status["live-referee"] == (False, False)  # its writer is still at it
        assert status["killed-web"] == (False, False)  # web sessions are restored instead
    finally:
        alive.kill()
        alive.wait()


def test_a_finished_match_is_never_ended_again(tmp_path: Path) -> None:
    db = tmp_path / "m.sqlite3"
    with MatchStore(db) as store:
        record = play_tiny(store)
    with MatchStore(db) as store:
        assert store.abandoned == []
        again = store.load(record.match_id)
    assert again.is_completed and not again.is_aborted


def test_a_held_move_is_kept_until_a_step_of_its_match_is_written(tmp_path: Path) -> None:
    with MatchStore(tmp_path / "m.sqlite3") as store:
        record = MatchRecord(match_id="m", game_name="tiny", rules="", roles=["a", "b"],
                             start_clock=10, play_clock=5, player_names=["p", "q"],
                             is_human=[True, True], source="web")  # fmt: skip
        record.states.append("(s 0)")
        store.match_started(record)
        store.hold_move("m", 0, "a", "(show heads)")
        store.hold_move("m", 0, "a", "(show tails)")  # chosen again: the last one is held
        assert store.held_moves("m", 0) == {"a": "(show tails)"}
        assert store.held_moves("m", 1) == {} and store.held_moves("other", 0) == {}
        assert "show" not in store.load("m").dumps()  # no part of the record
        record.add_step(["(show tails)", "(show heads)"], ["", ""], "(s 1)", None)
        store.step_played(record)
        assert store.held_moves("m", 0) == {}
        store.hold_move("m", 1, "b", "(show heads)")
        store.save(record)  # a whole record written again (an undo) drops it too
        assert store.held_moves("m", 1) == {}
