"""The join-code prover against the interpreted prover, per state of a random line.

Usage:
    python benchmarks/prover_vs_joincode.py [--games chess,amazons] [--states 20] [--repeats 3]

For each game, one random line of ``--states`` states is fixed (seeded), then both
reasoners walk it, each from a fresh instance (so nothing is cached between runs),
alternating which goes first: every role's legal moves, ``terminal`` and the next
state. Time is CPU time of this process, so a loaded machine slows both alike. The
table gives the median milliseconds per state of each and the speed-up.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ggpkit.gdl.kif import Rule, parse_rules, read_kif_file  # noqa: E402
from ggpkit.gdl.terms import Term  # noqa: E402
from ggpkit.reasoning.prover.reasoner import Prover  # noqa: E402

GAMES = ROOT.parent / "shared" / "ggp-games"
# The corpus games that do not ground (the prover plays them), slowest first.
DEFAULT = "chess,alexChess,amazons,skirmish,merrills,mummymaze1p,sudoku,gt_two_thirds_6p"


def random_line(rules: list[Rule], states: int, seed: int) -> list[list[Term]]:
    """The joint moves of one random line (restarting at a terminal state)."""
    prover = Prover(rules, compiled=True)
    rng = random.Random(seed)
    state, line = prover.initial(), []
    while len(line) < states:
        if prover.terminal(state):
            state = prover.initial()
            continue
        joint = [rng.choice(prover.legal(state, i)) for i in range(len(prover.roles))]
        line.append(joint)
        state = prover.next(state, joint)
    return line


def walk(rules: list[Rule], line: list[list[Term]], compiled: bool) -> float:
    """CPU seconds per state to answer legal, terminal and next along ``line``."""
    prover = Prover(rules, compiled=compiled)
    state: Any = prover.initial()
    began = time.process_time()
    for joint in line:
        if prover.terminal(state):
            state = prover.initial()
        for i in range(len(prover.roles)):
            prover.legal(state, i)
        state = prover.next(state, joint)
    return (time.process_time() - began) / len(line)


def measure(path: Path, states: int, repeats: int) -> tuple[float, float]:
    """Median CPU seconds per state: (interpreted, join code)."""
    rules = parse_rules(read_kif_file(path), str(path))
    line = random_line(rules, states, seed=1)
    runs: dict[bool, list[float]] = {False: [], True: []}
    for r in range(repeats):
        for compiled in (False, True) if r % 2 == 0 else (True, False):
            runs[compiled].append(walk(rules, line, compiled))
    return statistics.median(runs[False]), statistics.median(runs[True])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default=DEFAULT, help="corpus names or .kif paths")
    parser.add_argument("--states", type=int, default=20, help="states per line")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each reasoner")
    args = parser.parse_args()
    print("| game | prover ms/state | joincode ms/state | speed-up |")
    print("|---|---|---|---|")
    for name in args.games.split(","):
        path = Path(name) if name.endswith(".kif") else GAMES / f"{name}.kif"
        if not path.is_file():
            print(f"| {name} | absent | | |")
            continue
        slow, fast = measure(path, args.states, args.repeats)
        print(f"| {path.stem} | {slow * 1000:.1f} | {fast * 1000:.1f} | {slow / fast:.2f}x |")


if __name__ == "__main__":
    main()
