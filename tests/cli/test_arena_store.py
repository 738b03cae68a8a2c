"""``ggpkit arena`` keeps every match it plays in the match store."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from ggpkit.cli import _load_commands, app
from ggpkit.store.sqlite import MatchStore


def test_arena_matches_are_stored_and_replayable(tmp_path: Path) -> None:
    _load_commands()
    db = tmp_path / "arena.sqlite3"
    args = ["arena", "breakthrough-holes", "random", "random", "--matches", "3"]
    result = CliRunner().invoke(
        app, [*args, "--jobs", "1", "--seed", "5", "--json", "--db", str(db)]
    )
    assert result.exit_code == 0, result.output
    with MatchStore(db) as store:
        stored = store.matches()
        assert len(stored) == 3
        assert all(m.source == "arena" and m.is_completed for m in stored)
        record = store.load(stored[0].match_id)
    assert len(record.states) == record.steps + 1
    assert sorted(record.goal_values or []) == [0, 100]
