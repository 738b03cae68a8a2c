"""The live terminal view: progress, standings, matches in flight; drawn only at a terminal."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from ggpkit.cli.tournament_view import LiveView
from ggpkit.match.records import MatchRecord
from ggpkit.store.sqlite import MatchStore
from ggpkit.store.tournaments import SlotRow, TournamentStore
from ggpkit.tournament.runner import RunState


def stored(tmp_path: Path) -> TournamentStore:
    tstore = TournamentStore(MatchStore(tmp_path / "m.sqlite3"))
    tstore.create("t1", {})
    tstore.add_slots("t1", [SlotRow(f"k{i}", 1, "chess", ("ann", "bob"), i) for i in range(3)])
    record = MatchRecord("m0", "chess", "", ["w", "b"], 1, 1)
    record.add_state("( (s 0) )")
    record.finish([100, 0])
    tstore.record_result("t1", "k0", record)
    return tstore


def test_the_view_shows_progress_standings_and_matches_in_flight(tmp_path: Path) -> None:
    tstore = stored(tmp_path)
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100, color_system=None)
    running = {s.key: s for s in tstore.slots("t1")[1:]}
    state = RunState("t1", total=3, done=1, running=running, failed=[("k9", "boom")])
    with LiveView(tstore, ["ann", "bob"], console) as view:
        view(state)
    text = out.getvalue()
    assert "t1: 1/3 matches, 1 failed" in text
    assert "2 matches in flight" in text and "ann vs bob" in text
    standings = text[text.index("standings") :]
    assert standings.index("ann") < standings.index("bob")  # the winner first
    assert "1-0-0" in standings and "0-0-1" in standings


def test_off_a_terminal_nothing_is_drawn(tmp_path: Path) -> None:
    out = io.StringIO()
    with LiveView(stored(tmp_path), ["ann", "bob"], Console(file=out)) as view:
        view(RunState("t1", total=3, done=1))
    assert out.getvalue() == ""
