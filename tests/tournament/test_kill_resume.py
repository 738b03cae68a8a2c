"""``kill -9`` of ``ggpkit tournament run`` in the middle, then ``resume``: the store holds
exactly the schedule, every match once and whole (the commands run as real processes).
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from match.support import TINY_GDL

pytest.importorskip("ray")

CONFIG = """\
games = ["tiny.kif", "breakthrough-holes"]
matches_per_pairing = 4
startclock = 5
playclock = 1
seed = 9
[players]
a = "random"
b = "random"
c = "mcts:playouts=8"
d = "random"
"""
SLOTS = 2 * 6 * 4  # games x pairs of 4 players x matches per pairing


def ggpkit(*args: str) -> list[str]:
    return [sys.executable, "-m", "ggpkit", "tournament", *args]


def played(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=10) as conn:
            return int(conn.execute("SELECT count(match_id) FROM tournament_slots").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0


def test_kill_9_in_the_middle_then_resume_plays_exactly_what_is_missing(tmp_path: Path) -> None:
    (tmp_path / "tiny.kif").write_text(TINY_GDL)
    (tmp_path / "t.toml").write_text(CONFIG)
    db = tmp_path / "m.sqlite3"
    run = subprocess.Popen(
        ggpkit("run", str(tmp_path / "t.toml"), "--db", str(db), "--cpus", "2"),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert run.stdout is not None
    tournament_id = run.stdout.readline().strip()  # the id comes first
    deadline = time.monotonic() + 60
    while played(db) < 8 and time.monotonic() < deadline and run.poll() is None:
        time.sleep(0.02)
    os.kill(run.pid, signal.SIGKILL)
    run.wait()
    before = played(db)
    assert 8 <= before < SLOTS, "the kill did not land in the middle of the tournament"

    resume = subprocess.run(
        ggpkit("resume", tournament_id, "--db", str(db), "--cpus", "2"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resume.returncode == 0, resume.stderr
    with sqlite3.connect(db) as conn:
        slots = conn.execute(
            "SELECT count(*), count(match_id), count(DISTINCT match_id) FROM tournament_slots"
        ).fetchone()
        matches = conn.execute(
            "SELECT count(*), sum(is_completed) FROM matches WHERE source='tournament'"
        ).fetchone()
        orphans = conn.execute(
            "SELECT count(*) FROM matches WHERE match_id NOT IN "
            "(SELECT match_id FROM tournament_slots WHERE match_id IS NOT NULL)"
        ).fetchone()
    assert slots == (SLOTS, SLOTS, SLOTS)
    assert matches == (SLOTS, SLOTS)
    assert orphans == (0,)

    standings = subprocess.run(
        ggpkit("standings", tournament_id, "--db", str(db), "--json"),
        capture_output=True,
        text=True,
        check=True,
    )
    rows = json.loads(standings.stdout)
    assert {r["player"] for r in rows} == set("abcd")
    assert all({"rating", "low", "high", "points", "matches"} <= set(r) for r in rows)
    assert all(r["low"] <= r["rating"] <= r["high"] for r in rows)
    assert sum(r["matches"] for r in rows) == 2 * SLOTS  # two players in every match
    assert sum(r["points"] for r in rows) == SLOTS  # one point shared out per match
