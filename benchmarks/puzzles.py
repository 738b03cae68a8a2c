"""ggpkit's player on the corpus's one-role puzzles, one spec or two side by side.

Why: a puzzle is scored by one line, not by winning more often than an opponent, so
the arena's with-against-without tables say little about the techniques made for
puzzles (lines kept, latches, nested Monte Carlo). Here every one-role game in
``../shared/ggp-games`` (or the ``--games`` named) is played by each spec, one match
per seed at a fixed time a move, each in its own ``ggpkit arena`` process pinned to a
core (one process per core at a time), and the table gives each spec's mean goal per
game, its time, and the totals: games solved (goal 100) and mean goal.

    python benchmarks/puzzles.py --time 0.5 --spec mcts --spec mcts:nested=0
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAMES = ROOT.parent / "shared" / "ggp-games"
ROLE = re.compile(r"^\s*\(\s*role\s", re.MULTILINE | re.IGNORECASE)


@dataclass(frozen=True)
class Run:
    """One spec's matches on one game: the mean goal (None: failed) and seconds."""

    game: str
    spec: str
    goal: float | None
    seconds: float
    error: str = ""


def puzzles(names: list[str] | None) -> list[Path]:
    """The corpus's one-role games (by counting ``role`` facts), or those named."""
    if names:
        return [GAMES / f"{name}.kif" for name in names]
    return [p for p in sorted(GAMES.glob("*.kif")) if len(ROLE.findall(p.read_text())) == 1]


def play(path: Path, spec: str, args: argparse.Namespace, core: str) -> Run:
    """One spec on one game in a fresh ``ggpkit arena`` pinned to ``core`` (a taskset
    core list)."""
    agent = f"{spec}{',' if ':' in spec else ':'}time={args.time}"
    command = [
        "taskset", "-c", core, sys.executable, "-m", "ggpkit", "arena", str(path), agent,
        "-n", str(args.matches), "--seed", str(args.seed), "--jobs", "1", "--no-store", "--json",
    ]  # fmt: skip
    start = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return Run(path.stem, spec, None, time.monotonic() - start, "timeout")
    seconds = time.monotonic() - start
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["failed"])[-1]
        return Run(path.stem, spec, None, seconds, last[:80])
    result = json.loads(done.stdout)["results"][0]
    return Run(path.stem, spec, float(result["mean_goal"]), seconds)


def report(paths: list[Path], specs: list[str], runs: dict[tuple[str, str], Run]) -> None:
    """The table: per game each spec's mean goal and seconds, then the totals."""
    print(f"{'game':32}" + "".join(f"{spec[:22]:>24}{'s':>7}" for spec in specs))
    for path in paths:
        cells = []
        for spec in specs:
            run = runs[path.stem, spec]
            goal = "-" if run.goal is None else f"{run.goal:.1f}"
            cells.append(f"{goal:>24}{run.seconds:>7.0f}")
        errors = "; ".join(runs[path.stem, s].error for s in specs if runs[path.stem, s].error)
        print(f"{path.stem[:32]:32}" + "".join(cells) + (f"  ({errors})" if errors else ""))
    for spec in specs:
        goals = [runs[p.stem, spec].goal for p in paths]
        played = [g for g in goals if g is not None]
        solved = sum(g == 100 for g in played)
        mean = sum(played) / len(played) if played else 0.0
        print(f"{spec}: {solved} of {len(paths)} solved, mean goal {mean:.1f} over {len(played)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", action="append", help="Agent spec (repeat; default mcts).")
    parser.add_argument("--games", help="Comma-separated corpus names (default: every puzzle).")
    parser.add_argument("--time", type=float, default=0.5, help="Seconds a move.")
    parser.add_argument("--matches", type=int, default=1, help="Matches per game and spec.")
    parser.add_argument("--seed", type=int, default=1, help="Seed of every arena run.")
    parser.add_argument("--timeout", type=float, default=300, help="Seconds per game and spec.")
    parser.add_argument(
        "--cores",
        default="0,1",
        help="Comma-separated slots, one run each, as taskset -c takes them: 0,1 runs two "
        "one-core runs at a time; 0-1 runs one at a time on both (for mcts:threads=2).",
    )
    parser.add_argument("--out", type=Path, help="Also write the runs as JSON here.")
    args = parser.parse_args()
    if not GAMES.is_dir():
        raise SystemExit(f"no corpus at {GAMES}")
    specs = args.spec or ["mcts"]
    paths = puzzles(args.games.split(",") if args.games else None)
    cores = args.cores.split(",")
    jobs = [(p, s) for p in paths for s in specs]
    free = list(cores)

    def one(job: tuple[Path, str]) -> Run:
        core = free.pop()
        try:
            run = play(job[0], job[1], args, core)
        finally:
            free.append(core)
        print(f"  {run.game} {run.spec}: {run.goal} in {run.seconds:.0f} s {run.error}", flush=True)
        return run

    with ThreadPoolExecutor(len(cores)) as pool:
        runs = {(r.game, r.spec): r for r in pool.map(one, jobs)}
    report(paths, specs, runs)
    if args.out:
        args.out.write_text(json.dumps([r.__dict__ for r in runs.values()], indent=1))


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
