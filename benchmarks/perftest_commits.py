"""Rollouts per second of two ggpkit checkouts on the same games, interleaved in one run.

A change to the grounder or the propnet kernels is judged against the commit before
it: check that commit out beside this one (``git worktree add /tmp/base HEAD~1``),
then run, from outside both checkouts::

    python benchmarks/perftest_commits.py --base /tmp/base --head . hex:batch reversi:scalar

Each job is ``GAME:MODE`` (``batch``: 64 rollouts at a time, ``scalar``: one at a time,
as a tree search uses the reasoner). Every run is a fresh ``ggpkit perftest`` process
with ``PYTHONPATH`` set to one checkout; the two sides alternate (A B, then B A), and
the table gives the median of ``--runs`` runs of each. A checkout's first run fills its
numba cache: give ``--runs 3`` or more so the median does not see it.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

DEFAULT_GAMES = Path(__file__).resolve().parents[1] / ".." / "shared" / "ggp-games"


def rollouts_per_second(checkout: Path, kif: Path, mode: str, seconds: float) -> float:
    """One ``ggpkit perftest`` run of ``checkout`` on ``kif``; NaN when it gave no result."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "results.txt"
        args = [sys.executable, "-m", "ggpkit", "perftest", str(kif), str(out), str(seconds)]
        if mode == "scalar":
            args.append("--scalar")
        env = dict(os.environ, PYTHONPATH=str(checkout.resolve()))
        subprocess.run(args, env=env, cwd=tmp, capture_output=True, timeout=600, check=False)
        if not out.is_file():
            return math.nan
        pairs = (line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)
        results = dict(pairs)
    if "numRollouts" not in results:
        return math.nan
    return int(results["numRollouts"]) / (int(results["millisecondsTaken"]) / 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("jobs", nargs="+", help="GAME:MODE, MODE batch or scalar")
    parser.add_argument("--base", type=Path, required=True, help="the checkout to compare to")
    parser.add_argument("--head", type=Path, required=True, help="the checkout under test")
    parser.add_argument("--games", type=Path, default=DEFAULT_GAMES, help="folder of .kif files")
    parser.add_argument("--runs", type=int, default=3, help="runs of each side per job")
    parser.add_argument("--seconds", type=float, default=3.0, help="rollout time of each run")
    args = parser.parse_args()
    sides = {"base": args.base, "head": args.head}
    print("| game | mode | base r/s | head r/s | head / base |\n|---|---|---|---|---|")
    for job in args.jobs:
        game, _, mode = job.partition(":")
        mode = mode or "batch"
        kif = args.games / f"{game}.kif"
        rates: dict[str, list[float]] = {"base": [], "head": []}
        for run in range(args.runs):
            order = ("base", "head") if run % 2 == 0 else ("head", "base")
            for side in order:
                rates[side].append(
                    rollouts_per_second(sides[side], kif, mode or "batch", args.seconds)
                )
        base, head = (statistics.median(rates[s]) for s in ("base", "head"))
        print(f"| {game} | {mode} | {base:,.0f} | {head:,.0f} | {head / base:.2f} |")


if __name__ == "__main__":
    main()
