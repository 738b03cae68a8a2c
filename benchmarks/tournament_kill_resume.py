"""``kill -9`` a tournament in the middle, ``resume`` it, and count what the store holds.

4 players x 4 games x 10 matches per pairing (240 matches). The run is killed once
about half its matches are stored; ``resume`` then plays the rest. The store must then
hold exactly one completed match per slot: the counts are printed side by side.
The database is kept (its path is printed) for ``ggpkit web --db`` to show. The two
public games are read from ``--games-dir``, else from the game library (``ggpkit games
fetch ticTacToe nim1``).

    python benchmarks/tournament_kill_resume.py [--db PATH] [--kill-at 0.5] [--games-dir DIR]
"""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ggpkit.games.library import find_game

PUBLIC = ("ticTacToe", "nim1")
CONFIG = """\
name = "kill -9 and resume"
games = ["breakthrough-holes", "pawn-checkers", "{ticTacToe}", "{nim1}"]
schedule = "round-robin"
matches_per_pairing = 10
startclock = 2
playclock = 1
seed = 2026
[players]
random = "random"
mcts30 = "mcts:playouts=30"
mcts150 = "mcts:playouts=150"
ab2 = "alphabeta:depth=2"
"""
QUERY = (
    "SELECT (SELECT count(*) FROM tournament_slots), (SELECT count(match_id) FROM "
    "tournament_slots), (SELECT count(DISTINCT match_id) FROM tournament_slots), (SELECT "
    "count(*) FROM matches WHERE source='tournament'), (SELECT coalesce(sum(is_completed), 0) "
    "FROM matches WHERE source='tournament')"
)


def counts(db: Path) -> tuple[int, ...]:
    try:
        with sqlite3.connect(db, timeout=10) as conn:
            return tuple(conn.execute(QUERY).fetchone())
    except sqlite3.OperationalError:
        return (0, 0, 0, 0, 0)


def public_files(games_dir: Path | None) -> dict[str, str]:
    """The rules file of each public game, from ``games_dir`` or else the game library."""
    files = {}
    for name in PUBLIC:
        if games_dir is not None:
            path: Path | None = games_dir / f"{name}.kif"
        else:
            found = find_game(name)
            path = found.path if found is not None else None
        if path is None or not path.is_file():
            sys.exit(f"{name}: not found; ggpkit games fetch {name} (or give --games-dir)")
        files[name] = str(path.resolve())
    return files


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", type=Path, default=Path(tempfile.mkdtemp()) / "kill.sqlite3")
    parser.add_argument("--kill-at", type=float, default=0.5, help="share of matches stored")
    parser.add_argument(
        "--games-dir",
        type=Path,
        default=None,
        help="folder of ticTacToe.kif and nim1.kif (default: the game library)",
    )
    args = parser.parse_args()
    config = args.db.parent / "kill.toml"
    config.write_text(CONFIG.format(**public_files(args.games_dir)))
    base = [sys.executable, "-m", "ggpkit", "tournament"]
    run = subprocess.Popen(
        [*base, "run", str(config), "--db", str(args.db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert run.stdout is not None
    tournament_id = run.stdout.readline().strip()
    while run.poll() is None and counts(args.db)[1] < args.kill_at * max(counts(args.db)[0], 1):
        time.sleep(0.02)
    os.kill(run.pid, signal.SIGKILL)
    run.wait()
    killed = counts(args.db)
    started = time.perf_counter()
    resume = subprocess.run(
        [*base, "resume", tournament_id, "--db", str(args.db)], capture_output=True, text=True
    )
    seconds = time.perf_counter() - started
    after = counts(args.db)
    print(f"tournament {tournament_id} in {args.db}")
    print(f"{'':22}{'slots':>7}{'with result':>12}{'distinct':>9}{'matches':>8}{'completed':>10}")
    for label, row in (("after kill -9", killed), ("after resume", after)):
        print(
            f"{label:22}"
            + "".join(f"{v:>{w}}" for v, w in zip(row, (7, 12, 9, 8, 10), strict=True))
        )
    print(f"resume: exit {resume.returncode}, {seconds:.1f} s; played {after[1] - killed[1]}")
    print(resume.stdout)


if __name__ == "__main__":
    main()
