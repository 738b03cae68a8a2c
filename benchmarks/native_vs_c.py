"""Random playouts per CPU-second: ggpkit's native engines against plain C bitboard engines.

The C engines in ``benchmarks/c_engines/`` play the seed games from rules.md as a C
programmer writes a playout engine for speed: uint64 bitboards, moves counted by
popcount and never listed, the chosen move's bit found by BMI2 ``pdep``, each side's
turn written out, xorshift64; they are compiled here with ``gcc -O2 -march=native``
into a temporary directory (they are a benchmark, not a dependency: without gcc a
line says so and nothing is measured).

First each C engine is checked to play the same game as the native one: over
``--check`` playouts from the start, the mean playout length and mean goals of the
two must agree within statistical noise (z, the difference in standard errors, under
4; the spread is taken from the C engine's sums of squares). A mismatch exits 1.

Then, in one run and interleaved (native then C, C then native, ...), each engine
plays the same number of playouts, sized to about ``--seconds`` of CPU time; the
native side is one ``game.playout_stats`` call timed by ``time.thread_time()``
(warm-up excluded), the C side is the binary's own ``clock()`` around its playout
loop (process start excluded). The table shows the median rate of ``--repeat`` runs
per side and the median of the per-run ratios native/C. Compare ratios within one
run only: the machine may be shared.

    .venv/bin/python benchmarks/native_vs_c.py --repeat 5 --seconds 0.25 [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ggpkit

C_DIR = Path(__file__).resolve().parent / "c_engines"
CFLAGS = ("-O2", "-march=native")
Z_LIMIT = 4.0
"""Largest |z| still taken as the same game (false alarm about 6e-5 per figure)."""


@dataclass(frozen=True)
class Pairing:
    """A native game and the C source (and defines) of its baseline."""

    game: str
    source: str
    defines: tuple[str, ...] = ()


PAIRINGS = (
    Pairing("peg", "peg.c"),
    Pairing("pawn-checkers", "checkers.c"),
    Pairing("breakthrough-holes", "breakthrough.c"),
    Pairing("breakthrough-holes-capture", "breakthrough.c", ("-DCAPTURE",)),
)


@dataclass(frozen=True)
class Totals:
    """Totals of ``playouts`` random playouts from the start and the CPU time they took."""

    playouts: int
    moves: int
    goals: tuple[int, ...]
    cpu: float
    moves_sq: int = 0
    goals_sq: tuple[int, ...] = ()


def compile_engines(out: Path) -> dict[str, Path]:
    """Every C engine built into ``out``: game name -> binary."""
    binaries = {}
    for p in PAIRINGS:
        binary = out / p.game
        cmd = ["gcc", *CFLAGS, *p.defines, "-o", str(binary), str(C_DIR / p.source)]
        subprocess.run(cmd, check=True, capture_output=True, text=True)
        binaries[p.game] = binary
    return binaries


def run_c(binary: Path, playouts: int, seed: int) -> Totals:
    """Run a C engine and read its report line (``key=value`` pairs)."""
    done = subprocess.run(
        [str(binary), str(playouts), str(seed)], check=True, capture_output=True, text=True
    )
    fields = dict(pair.split("=") for pair in done.stdout.split())

    def ints(key: str) -> tuple[int, ...]:
        return tuple(int(v) for v in fields[key].split(","))

    return Totals(
        playouts=int(fields["playouts"]),
        moves=int(fields["moves"]),
        goals=ints("goals"),
        cpu=float(fields["cpu"]),
        moves_sq=int(fields["moves_sq"]),
        goals_sq=ints("goals_sq"),
    )


class Native:
    """A native game's ``playout_stats`` from the start, warmed up (compiled) on creation."""

    def __init__(self, name: str) -> None:
        self.game: Any = ggpkit.load(name)
        self.start = self.game.initial_state()
        self.game.playout_stats(self.start, 100, 0)

    def run(self, playouts: int, seed: int) -> Totals:
        begin = time.thread_time()
        stats = self.game.playout_stats(self.start, playouts, seed)
        cpu = time.thread_time() - begin
        return Totals(stats.playouts, stats.moves, tuple(stats.goal_sums), cpu)


def z_score(native_sum: int, c_sum: int, c_sq: int, n_native: int, n_c: int) -> float:
    """Difference of the two means in standard errors (the spread from the C side)."""
    mean_c = c_sum / n_c
    var = max(c_sq / n_c - mean_c * mean_c, 0.0)
    diff = native_sum / n_native - mean_c
    se = math.sqrt(var / n_c + var / n_native)
    if se == 0.0:
        return 0.0 if diff == 0.0 else math.inf
    return diff / se


def agreement(native: Totals, c: Totals) -> dict[str, Any]:
    """Means of both engines and the largest |z| over playout length and every goal."""
    zs = [z_score(native.moves, c.moves, c.moves_sq, native.playouts, c.playouts)]
    for ng, cg, csq in zip(native.goals, c.goals, c.goals_sq, strict=True):
        zs.append(z_score(ng, cg, csq, native.playouts, c.playouts))
    worst = max(abs(z) for z in zs)
    return {
        "playouts": native.playouts,
        "native_length": native.moves / native.playouts,
        "c_length": c.moves / c.playouts,
        "native_goals": [g / native.playouts for g in native.goals],
        "c_goals": [g / c.playouts for g in c.goals],
        "z": zs,
        "same_game": worst < Z_LIMIT,
    }


def measure(
    natives: dict[str, Native], binaries: dict[str, Path], seconds: float, repeat: int
) -> list[dict[str, Any]]:
    """Interleaved timing runs of every pair: rates (playouts per CPU-second) and ratios."""
    sizes = {}
    for name, native in natives.items():
        probe = native.run(2000, 1)
        rate = probe.playouts / max(probe.cpu, 1e-6)
        sizes[name] = max(1000, int(rate * seconds) // 1000 * 1000)
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in natives}
    for r in range(repeat):
        seed = 1000 + r
        for name, native in natives.items():
            if r % 2 == 0:
                ours = native.run(sizes[name], seed)
                theirs = run_c(binaries[name], sizes[name], seed)
            else:
                theirs = run_c(binaries[name], sizes[name], seed)
                ours = native.run(sizes[name], seed)
            runs[name].append(
                (ours.playouts / max(ours.cpu, 1e-9), theirs.playouts / max(theirs.cpu, 1e-9))
            )
    return [
        {
            "game": name,
            "playouts": sizes[name],
            "native_rate": statistics.median(n for n, _ in pairs),
            "c_rate": statistics.median(c for _, c in pairs),
            "ratio": statistics.median(n / c for n, c in pairs),
            "ratios": [n / c for n, c in pairs],
        }
        for name, pairs in runs.items()
    ]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timing runs per figure (median)")
    parser.add_argument("--seconds", type=float, default=0.25, help="CPU time of one timing run")
    parser.add_argument(
        "--check", type=int, default=100_000, help="playouts per side of the same-game check"
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    return parser.parse_args(argv)


def print_table(result: dict[str, Any]) -> None:
    print(f"load average before: {result['load_before']:.2f}; gcc {' '.join(CFLAGS)}")
    print(f"same game? means over {result['check_playouts']:,} playouts from the start; "
          f"z = difference in standard errors")  # fmt: skip
    print(f"{'game':<28} {'length native':>13} {'length C':>9} {'goals native':>14} "
          f"{'goals C':>14} {'max |z|':>7}  verdict")  # fmt: skip
    for name, a in result["check"].items():
        goals_n = "/".join(f"{g:.2f}" for g in a["native_goals"])
        goals_c = "/".join(f"{g:.2f}" for g in a["c_goals"])
        print(f"{name:<28} {a['native_length']:>13.3f} {a['c_length']:>9.3f} {goals_n:>14} "
              f"{goals_c:>14} {max(abs(z) for z in a['z']):>7.2f}  "
              f"{'same' if a['same_game'] else 'DIFFERENT'}")  # fmt: skip
    print()
    print(f"speed: playouts per CPU-second, median of {result['repeat']} interleaved runs")
    print(f"{'game':<28} {'playouts':>9} {'native/CPU-s':>13} {'C/CPU-s':>11} {'native/C':>9}")
    for row in result["speed"]:
        print(f"{row['game']:<28} {row['playouts']:>9,} {row['native_rate']:>13,.0f} "
              f"{row['c_rate']:>11,.0f} {row['ratio']:>8.2f}x")  # fmt: skip
    print(f"load average after: {result['load_after']:.2f}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if shutil.which("gcc") is None:
        print("C engines not measured: gcc not found")
        return 0
    result: dict[str, Any] = {
        "load_before": os.getloadavg()[0],
        "check_playouts": args.check,
        "repeat": args.repeat,
    }
    with tempfile.TemporaryDirectory(prefix="ggpkit-c-engines-") as tmp:
        binaries = compile_engines(Path(tmp))
        natives = {p.game: Native(p.game) for p in PAIRINGS}
        result["check"] = {
            name: agreement(native.run(args.check, 7), run_c(binaries[name], args.check, 7))
            for name, native in natives.items()
        }
        result["speed"] = measure(natives, binaries, args.seconds, args.repeat)
    result["load_after"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)
    return 0 if all(a["same_game"] for a in result["check"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
