"""Random rollouts per second: ``ggpkit perftest`` against ggp-base's propnet, in one run.

For each game, every repeat runs three processes one after the other (their order
rotating from repeat to repeat), each timing only its rollouts from the initial
state, by the wall clock, on one thread:

- ``ggpkit perftest --timeout T`` (64 rollouts at a time on the propnet; the join
  code where the rules do not ground),
- ``ggpkit perftest --scalar`` (one rollout at a time, the way a tree search uses it),
- ggp-base's ``Playouts GAME propnet`` driver (``../shared/ggp-base``; its own loop of
  getLegalMoves / getNextState with java.util.Random, after a JIT warm-up),
- with ``--sancho CLASSPATH`` (a build of Sancho 1.61c, the 2014 champion player, never
  shipped): Sancho's propnet driven as gdl-perf's harness drives it
  (``benchmarks/sancho/SanchoPlayouts.java``, compiled here with javac).

Set-up (reading, grounding, building the network) is timed apart: ggpkit's is the
process's wall time less its rollouts; ggp-base's is what its driver prints. The
table gives medians over the repeats and the ratio of the medians. A side that fails
(a set-up past ``--setup-timeout``, a goal the rules do not define, ...) shows its
error instead. Needs ``java``; nothing of ggp-base is shipped.

    .venv/bin/python benchmarks/perftest_vs_ggp_base.py --seconds 10 --repeat 3 [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GGP_BASE = ROOT.parent / "shared" / "ggp-base"
GAMES = ROOT.parent / "shared" / "ggp-games"
NAMED = (
    "chess_200", "chess", "amazons", "reversi", "hex", "checkers", "breakthrough",
    "sudokuGrade1", "ticTacToe", "connectFour", "peg", "checkersBarrelNoKings",
    "breakthroughSmallHoles",
)  # fmt: skip
"""The files issue 11 names, then ticTacToe, connectFour and the three seed files."""
SIDES = ("batch", "scalar", "ggp-base")
HARNESS = Path(__file__).resolve().parent / "sancho" / "SanchoPlayouts.java"
JAVA_OPTS = "-Xmx8g -XX:+UseSerialGC"


@dataclass
class Run:
    """One side's figures for one game over the repeats (or the error that stopped it)."""

    rates: list[float] = field(default_factory=list)
    setups: list[float] = field(default_factory=list)
    engine: str = ""
    error: str | None = None


def ggpkit_side(game: Path, seconds: float, scalar: bool, setup_timeout: float) -> Run:
    """One ``ggpkit perftest`` process: its rollouts/s and set-up seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "results.txt"
        command = [sys.executable, "-m", "ggpkit", "perftest", str(game), str(out), str(seconds)]
        command += ["--timeout", str(setup_timeout)] + (["--scalar"] if scalar else [])
        began = time.perf_counter()
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, timeout=setup_timeout + 3 * seconds + 120
            )
        except subprocess.TimeoutExpired:
            return Run(error=f"no result within {setup_timeout + 3 * seconds + 120:.0f} s")
        wall = time.perf_counter() - began
        text = out.read_text() if out.exists() else ""
    kv = dict(line.split("=", 1) for line in text.splitlines())
    if done.returncode != 0 or "numRollouts" not in kv:
        error = kv.get("errorMessage") or _last_line(done.stderr)
        return Run(error=error, engine=kv.get("version", "").rsplit("-", 1)[0])
    ms = int(kv["millisecondsTaken"])
    rate = 1000.0 * int(kv["numRollouts"]) / ms
    return Run([rate], [wall - ms / 1000.0], kv["version"].rsplit("-", 1)[0])


def ggp_base_side(game: Path, seconds: float, setup_timeout: float) -> Run:
    """ggp-base's ``Playouts`` driver on its propnet: rollouts/s and set-up seconds."""
    command = [str(GGP_BASE / "run.sh"), "Playouts", str(game), "propnet", str(seconds)]
    env = {**os.environ, "JAVA_OPTS": JAVA_OPTS}
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, env=env, timeout=setup_timeout + seconds + 30
        )
    except subprocess.TimeoutExpired:
        limit = setup_timeout + seconds + 30
        return Run(error=f"no result within {limit:.0f} s", engine="ggp-base-propnet")
    rate = re.search(r"playouts_per_sec=([0-9.]+)", done.stdout)
    setup = re.search(r"initialize=([0-9.]+) ms", done.stdout + done.stderr)
    if done.returncode != 0 or rate is None:
        return Run(error=_last_line(done.stderr or done.stdout), engine="ggp-base-propnet")
    setups = [float(setup.group(1)) / 1000.0] if setup else []
    return Run([float(rate.group(1))], setups, "ggp-base-propnet")


def sancho_side(game: Path, seconds: float, setup_timeout: float, classpath: str) -> Run:
    """Sancho's propnet through the compiled harness: rollouts/s and set-up seconds."""
    command = ["java", *JAVA_OPTS.split(), "-cp", classpath, "SanchoPlayouts", str(game)]
    command.append(str(seconds))
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=setup_timeout + seconds + 30,
            cwd=tempfile.gettempdir(),  # Sancho's logger writes logs/ into its cwd
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        limit = setup_timeout + seconds + 30
        return Run(error=f"no result within {limit:.0f} s", engine="sancho-propnet")
    rate = re.search(r"playouts_per_sec=([0-9.]+)", done.stdout)
    setup = re.search(r"initialize=([0-9.]+) ms", done.stdout)
    if done.returncode != 0 or rate is None:
        return Run(error=_last_line(done.stderr or done.stdout), engine="sancho-propnet")
    setups = [float(setup.group(1)) / 1000.0] if setup else []
    return Run([float(rate.group(1))], setups, "sancho-propnet")


def compile_harness(sancho: str, into: Path) -> str:
    """Compile the Sancho harness against ``sancho``'s classpath: the classpath to run it."""
    done = subprocess.run(
        ["javac", "-nowarn", "-cp", sancho, "-d", str(into), str(HARNESS)],
        capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"the Sancho harness does not compile: {_last_line(done.stderr)}")
    return f"{into}{os.pathsep}{sancho}"


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:160] if lines else "failed with no message"


def measure(
    game: Path, repeat: int, seconds: float, setup_timeout: float, sancho: str | None
) -> dict[str, Run]:
    """Every side ``repeat`` times, interleaved; a side that fails once is not run again."""
    sides = SIDES + (("sancho",) if sancho else ())
    runs = {side: Run() for side in sides}
    for i in range(repeat):
        for side in sides[i % len(sides) :] + sides[: i % len(sides)]:
            run = runs[side]
            if run.error is not None:
                continue
            if side == "ggp-base":
                got = ggp_base_side(game, seconds, setup_timeout)
            elif side == "sancho" and sancho:
                got = sancho_side(game, seconds, setup_timeout, sancho)
            else:
                got = ggpkit_side(game, seconds, side == "scalar", setup_timeout)
            run.engine, run.error = got.engine, got.error
            run.rates += got.rates
            run.setups += got.setups
    return runs


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def row(game: str, runs: dict[str, Run]) -> dict[str, object]:
    """The table's row for one game: medians, ratios to ggp-base (and Sancho), errors."""
    med = {side: _median(r.rates) if r.error is None else None for side, r in runs.items()}
    base, sancho = med["ggp-base"], med.get("sancho")
    out: dict[str, object] = {"game": game, "reasoner": runs["batch"].engine}
    for side, run in runs.items():
        out[side] = med[side]
        out[f"{side}_setup"] = _median(run.setups)
        out[f"{side}_error"] = run.error
    for side in ("batch", "scalar"):
        mine = med[side]
        out[f"{side}_ratio"] = mine / base if mine is not None and base else None
        out[f"{side}_sancho"] = mine / sancho if mine is not None and sancho else None
    return out


def _cell(value: object, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def print_table(rows: list[dict[str, object]]) -> None:
    """A markdown table; errors listed under it."""
    print(
        "| game | ggpkit reasoner | batch r/s | scalar r/s | ggp-base propnet r/s | batch / "
        "ggp-base | scalar / ggp-base | set-up ggpkit s | set-up ggp-base s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['game']} | {r['reasoner'] or '-'} | {_cell(r['batch'], ',.1f')} "
            f"| {_cell(r['scalar'], ',.1f')} | {_cell(r['ggp-base'], ',.1f')} "
            f"| {_cell(r['batch_ratio'], '.2f')} | {_cell(r['scalar_ratio'], '.2f')} "
            f"| {_cell(r['batch_setup'], '.1f')} | {_cell(r['ggp-base_setup'], '.1f')} |"
        )
    if rows and "sancho" in rows[0]:
        print("\n| game | Sancho propnet r/s | batch / Sancho | scalar / Sancho", end=" ")
        print("| set-up Sancho s |")
        print("|---|---|---|---|---|")
        for r in rows:
            print(
                f"| {r['game']} | {_cell(r['sancho'], ',.1f')} | {_cell(r['batch_sancho'], '.2f')} "
                f"| {_cell(r['scalar_sancho'], '.2f')} | {_cell(r['sancho_setup'], '.1f')} |"
            )
    for r in rows:
        for side in (*SIDES, "sancho"):
            if r.get(f"{side}_error"):
                print(f"- {r['game']}, {side}: {r[f'{side}_error']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default=",".join(NAMED), help="comma-separated corpus names")
    parser.add_argument("--seconds", type=float, default=10.0, help="rollout time per run")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--setup-timeout", type=float, default=300.0)
    parser.add_argument("--json", action="store_true", help="print the rows as JSON too")
    parser.add_argument(
        "--sancho",
        metavar="CLASSPATH",
        help="also time Sancho 1.61c's propnet: the Java classpath of a Sancho build (its "
        "compiled classes and jars, absolute paths: the harness runs in a temp directory)",
    )
    args = parser.parse_args()
    if shutil.which("java") is None or not (GGP_BASE / "run.sh").is_file():
        raise SystemExit("needs java and ../shared/ggp-base")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        sancho = compile_harness(args.sancho, Path(tmp)) if args.sancho else None
        for name in args.games.split(","):
            runs = measure(
                GAMES / f"{name}.kif", args.repeat, args.seconds, args.setup_timeout, sancho
            )
            rows.append(row(name, runs))
            print(f"done {name}", file=sys.stderr, flush=True)
    print_table(rows)
    if args.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
