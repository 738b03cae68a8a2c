"""Tournament tables in the match store: one result per slot, slot and match written together."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ggpkit.match.records import MatchRecord
from ggpkit.store import sqlite as store_module
from ggpkit.store.sqlite import MatchStore, StoreError
from ggpkit.store.tournaments import SlotRow, TournamentStore


def record(match_id: str, goals: list[int]) -> MatchRecord:
    rec = MatchRecord(match_id, "g", "", ["a", "b"], 10, 2, source="tournament")
    rec.add_state("( (cell 1) )")
    rec.add_step(["x", "noop"], ["", ""], "( (cell 2) )")
    rec.finish(goals)
    return rec


def stored(tmp_path: Path) -> TournamentStore:
    tstore = TournamentStore(MatchStore(tmp_path / "m.sqlite3"))
    tstore.create("t1", {"name": "x"})
    tstore.add_slots(
        "t1", [SlotRow("k1", 1, "g", ("p", "q"), 7), SlotRow("k2", 1, "g", ("q", "p"), 8)]
    )
    return tstore


def test_a_slot_takes_one_result_only(tmp_path: Path) -> None:
    tstore = stored(tmp_path)
    assert tstore.record_result("t1", "k1", record("m1", [100, 0]))
    assert not tstore.record_result("t1", "k1", record("m1-again", [0, 100]))
    slots = {s.key: s for s in tstore.slots("t1")}
    assert slots["k1"].match_id == "m1" and slots["k1"].goals == (100, 0)
    assert slots["k2"].match_id is None and slots["k2"].goals is None
    assert [m.match_id for m in tstore.store.matches()] == ["m1"]  # the repeat wrote nothing
    back = tstore.store.load("m1")
    assert back.states == ["( (cell 1) )", "( (cell 2) )"] and back.moves == [["x", "noop"]]
    assert (back.goal_values, back.is_completed, back.source) == ([100, 0], True, "tournament")


def test_a_failed_write_leaves_neither_slot_nor_match(tmp_path: Path) -> None:
    tstore = stored(tmp_path)
    broken = record("m1", [100, 0])
    broken.states = []  # the store refuses a record without states, inside the transaction
    with pytest.raises(StoreError):
        tstore.record_result("t1", "k1", broken)
    assert tstore.slots("t1")[0].match_id is None
    assert tstore.store.matches() == []


def test_adding_slots_again_keeps_the_played_ones(tmp_path: Path) -> None:
    tstore = stored(tmp_path)
    tstore.record_result("t1", "k1", record("m1", [100, 0]))
    tstore.add_slots(
        "t1", [SlotRow("k1", 1, "g", ("p", "q"), 7), SlotRow("k3", 2, "g", ("p", "q"), 9)]
    )
    assert [(s.key, s.match_id) for s in tstore.slots("t1")] == [
        ("k1", "m1"),
        ("k2", None),
        ("k3", None),
    ]


def test_errors_are_kept_until_the_slot_is_played(tmp_path: Path) -> None:
    tstore = stored(tmp_path)
    tstore.record_error("t1", "k2", "GameError: boom")
    assert tstore.slots("t1")[1].error == "GameError: boom"
    tstore.record_result("t1", "k2", record("m2", [0, 100]))
    assert tstore.slots("t1")[1].error is None


def test_listing_and_unknown_ids(tmp_path: Path) -> None:
    tstore = stored(tmp_path)
    tstore.record_result("t1", "k1", record("m1", [100, 0]))
    (summary,) = tstore.tournaments()
    assert (summary.tournament_id, summary.name, summary.slots, summary.played) == ("t1", "x", 2, 1)
    with pytest.raises(StoreError, match="no tournament 'nope'"):
        tstore.config("nope")
    with pytest.raises(StoreError, match="no slot 'k9'"):
        tstore.record_result("t1", "k9", record("m9", [0, 0]))


def test_a_version_3_store_is_upgraded_with_its_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.sqlite3"
    monkeypatch.setattr(store_module, "MIGRATIONS", store_module.MIGRATIONS[:3])
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", 3)
    with MatchStore(path) as old:
        old.save(record("kept", [50, 50]))
    monkeypatch.undo()
    with MatchStore(path) as store:
        assert store.schema_version() == store_module.SCHEMA_VERSION
        assert store.load("kept").goal_values == [50, 50]
        TournamentStore(store).create("t", {})
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM tournaments").fetchone() == (1,)
