"""Random rollouts per second: ``ggpkit perftest`` against reference reasoners, in one run.

For each game, every repeat runs each side once, one process after the other (their
order rotating from repeat to repeat), each timing only its rollouts from the initial
state, by the wall clock, on one thread:

- ``ggpkit perftest --timeout T`` (64 rollouts at a time on the propnet; the join
  code where the rules do not ground),
- ``ggpkit perftest --scalar`` (one rollout at a time, the way a tree search uses it),
- with ``--ggp-base-classpath CLASSPATH`` (a local build of ggp-base): its prover state
  machine, driven as gdl-perf's harness drives it
  (``benchmarks/java/GgpBasePlayouts.java``, compiled here with javac),
- with ``--sancho CLASSPATH`` (a local build of Sancho 1.61c, the 2014 champion player):
  Sancho's propnet, likewise (``benchmarks/java/SanchoPlayouts.java``),
- with ``--rbg DIR`` (a local build of Regular Boardgames' compiled reasoners): for the
  games that have an RBG twin (:data:`RBG_TWINS`), the executable ``DIR/<rbg game>``,
  built from rbg2cpp's reasoner for that game and rbg2cpp's own flat Monte Carlo
  harness (``test/benchmark.cpp``), which takes milliseconds as its one argument and
  prints ``number of playouts: N (R playouts/sec)`` and ``depth: avg D``.

Nothing of the references is shipped, nor any way of building them: each is built by
hand outside the repository, and its side is left out without its option.

Set-up (reading, grounding, building the network) is timed apart where a side reports
it: ggpkit's is the process's wall time less its rollouts. The mean length of a rollout
(state changes per rollout) is the check that both sides play the same game; lengths
further apart than :data:`SAME_LENGTH` are flagged. The tables give medians over the
repeats and ggpkit's median over the reference's. A side that fails (a set-up past
``--setup-timeout``, a goal the rules do not define, ...) shows its error instead.

    .venv/bin/python benchmarks/perftest_vs_references.py --rbg DIR --sancho CLASSPATH
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
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT.parent / "shared" / "ggp-games"
NAMED = (
    "chess_200", "chess", "amazons", "reversi", "hex", "checkers", "breakthrough",
    "sudokuGrade1", "ticTacToe", "connectFour", "peg", "checkersBarrelNoKings",
    "breakthroughSmallHoles",
)  # fmt: skip
"""The files issue 11 names, then ticTacToe, connectFour and the three seed files."""
RBG_TWINS = {
    "amazons": "amazons",
    "breakthrough": "breakthrough",
    "chess_200": "chess_200",
    "connectFour": "connect4",
    "englishDraughts": "englishDraughts",
    "gomoku_15x15": "gomoku_freeStyle",
    "hex": "hex_9x9",
    "knightThrough": "knightthrough",
    "pentago": "pentago",
    "reversi": "reversi",
    "skirmish": "skirmish",
    "ticTacToe": "ticTacToe",
}
"""Corpus games and the RBG games (rbgGames' ``games/*.rbg``) written for the same rules:
the same board, pieces and move limit, by the RBG authors' own pairing where they
made one. The length check is what holds each pair to account."""
OURS = ("batch", "scalar")
REFERENCES = ("ggp-base", "sancho", "rbg")
SAME_LENGTH = 0.10
"""Relative difference of mean rollout lengths beyond which a pair is flagged."""
JAVA = Path(__file__).resolve().parent / "java"
HARNESSES = {
    "ggp-base": (JAVA / "GgpBasePlayouts.java", "ggp-base-prover"),
    "sancho": (JAVA / "SanchoPlayouts.java", "sancho-propnet"),
}
"""Each Java reference's harness (ours, compiled against the reference's classpath) and
the engine it measures."""
JAVA_OPTS = "-Xmx8g -XX:+UseSerialGC"


@dataclass
class Run:
    """One side's figures for one game over the repeats (or the error that stopped it)."""

    rates: list[float] = field(default_factory=list)
    setups: list[float] = field(default_factory=list)
    lengths: list[float] = field(default_factory=list)
    engine: str = ""
    error: str | None = None

    def add(self, other: Run) -> None:
        self.engine, self.error = other.engine, other.error
        self.rates += other.rates
        self.setups += other.setups
        self.lengths += other.lengths


def _process(command: list[str], limit: float, **kw: object) -> subprocess.CompletedProcess[str]:
    """``command`` run to its end (TimeoutExpired past ``limit`` seconds)."""
    return subprocess.run(command, capture_output=True, text=True, timeout=limit, **kw)  # type: ignore[call-overload, no-any-return]


def ggpkit_side(game: Path, seconds: float, scalar: bool, setup_timeout: float) -> Run:
    """One ``ggpkit perftest`` process: its rollouts/s, set-up seconds and rollout length."""
    limit = setup_timeout + 3 * seconds + 120
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "results.txt"
        command = [sys.executable, "-m", "ggpkit", "perftest", str(game), str(out), str(seconds)]
        command += ["--timeout", str(setup_timeout)] + (["--scalar"] if scalar else [])
        began = time.perf_counter()
        try:
            done = _process(command, limit)
        except subprocess.TimeoutExpired:
            return Run(error=f"no result within {limit:.0f} s")
        wall = time.perf_counter() - began
        text = out.read_text() if out.exists() else ""
    kv = dict(line.split("=", 1) for line in text.splitlines())
    if done.returncode != 0 or "numRollouts" not in kv:
        error = kv.get("errorMessage") or _last_line(done.stderr)
        return Run(error=error, engine=kv.get("version", "").rsplit("-", 1)[0])
    ms, rollouts = int(kv["millisecondsTaken"]), int(kv["numRollouts"])
    length = int(kv["numStateChanges"]) / rollouts if rollouts else 0.0
    rate = 1000.0 * rollouts / ms
    return Run([rate], [wall - ms / 1000.0], [length], kv["version"].rsplit("-", 1)[0])


def harness_side(harness: Harness, game: Path, seconds: float, setup_timeout: float) -> Run:
    """A compiled Java harness on ``game``: rollouts/s and set-up seconds (it prints
    ``playouts_per_sec=R`` and ``initialize=MS ms``)."""
    command = ["java", *JAVA_OPTS.split(), "-cp", harness.classpath, harness.main, str(game)]
    command.append(str(seconds))
    limit = setup_timeout + seconds + 30
    try:  # Sancho's logger writes logs/ into its working directory
        done = _process(command, limit, cwd=tempfile.gettempdir())
    except subprocess.TimeoutExpired:
        return Run(error=f"no result within {limit:.0f} s", engine=harness.engine)
    rate = re.search(r"playouts_per_sec=([0-9.]+)", done.stdout)
    setup = re.search(r"initialize=([0-9.]+) ms", done.stdout + done.stderr)
    if done.returncode != 0 or rate is None:
        return Run(error=_last_line(done.stderr or done.stdout), engine=harness.engine)
    setups = [float(setup.group(1)) / 1000.0] if setup else []
    return Run([float(rate.group(1))], setups, engine=harness.engine)


def rbg_side(executable: Path, seconds: float) -> Run:
    """An RBG reasoner's flat Monte Carlo harness: rollouts/s and rollout length."""
    limit = seconds + 60
    try:
        done = _process([str(executable), str(max(1, round(seconds * 1000)))], limit)
    except subprocess.TimeoutExpired:
        return Run(error=f"no result within {limit:.0f} s", engine="rbg")
    rate = re.search(r"number of playouts: \d+ \(([0-9.]+) playouts/sec\)", done.stdout)
    depth = re.search(r"depth: avg ([0-9.]+)", done.stdout)
    if done.returncode != 0 or rate is None or depth is None:
        return Run(error=_last_line(done.stderr or done.stdout), engine="rbg")
    return Run([float(rate.group(1))], lengths=[float(depth.group(1))], engine="rbg")


@dataclass(frozen=True)
class Harness:
    """A Java harness compiled against a reference's classpath."""

    main: str
    engine: str
    classpath: str


def compile_harness(source: Path, engine: str, classpath: str, into: Path) -> Harness:
    """Compile ``source`` (with the clock the harnesses share) against ``classpath`` into
    ``into``: the harness to run."""
    sources = [str(source), str(JAVA / "PlayoutClock.java")]
    done = _process(["javac", "-nowarn", "-cp", classpath, "-d", str(into), *sources], 600)
    if done.returncode != 0:
        raise SystemExit(f"{source.name} does not compile: {_last_line(done.stderr)}")
    return Harness(source.stem, engine, f"{into}{os.pathsep}{classpath}")


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:160] if lines else "failed with no message"


Side = Callable[[], Run]


def sides_for(
    name: str, args: argparse.Namespace, harnesses: dict[str, Harness]
) -> dict[str, Side]:
    """The sides that measure corpus game ``name`` under the command's options (with the
    Java references' ``harnesses`` compiled)."""
    game, s, t = GAMES / f"{name}.kif", args.seconds, args.setup_timeout
    sides: dict[str, Side] = {
        "batch": lambda: ggpkit_side(game, s, False, t),
        "scalar": lambda: ggpkit_side(game, s, True, t),
    }
    for ref, harness in harnesses.items():
        sides[ref] = partial(harness_side, harness, game, s, t)
    if args.rbg and name in RBG_TWINS:
        executable = Path(args.rbg) / RBG_TWINS[name]
        sides["rbg"] = (
            (lambda: rbg_side(executable, s))
            if executable.is_file()
            else (lambda: Run(error=f"no executable {executable}", engine="rbg"))
        )
    return sides


def measure(sides: dict[str, Side], repeat: int) -> dict[str, Run]:
    """Every side ``repeat`` times, interleaved; a side that fails once is not run again."""
    names = list(sides)
    runs = {side: Run() for side in names}
    for i in range(repeat):
        for side in names[i % len(names) :] + names[: i % len(names)]:
            if runs[side].error is None:
                runs[side].add(sides[side]())
    return runs


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def row(game: str, runs: dict[str, Run]) -> dict[str, object]:
    """The table's row for one game: medians, ratios to each reference, lengths, errors."""
    med = {side: _median(r.rates) if r.error is None else None for side, r in runs.items()}
    out: dict[str, object] = {"game": game, "reasoner": runs["batch"].engine}
    if "rbg" in runs:
        out["rbg_game"] = RBG_TWINS[game]
    for side, run in runs.items():
        out[side] = med[side]
        out[f"{side}_setup"] = _median(run.setups)
        out[f"{side}_length"] = _median(run.lengths)
        out[f"{side}_error"] = run.error
    for ref in REFERENCES:
        theirs = med.get(ref)
        for side in OURS:
            mine = med[side]
            out[f"{side}_per_{ref}"] = mine / theirs if mine is not None and theirs else None
    return out


def same_game(r: dict[str, object], ref: str) -> str:
    """``same`` where the mean rollout lengths agree within :data:`SAME_LENGTH`, else a flag."""
    mine, theirs = r.get("batch_length"), r.get(f"{ref}_length")
    if not isinstance(mine, float) or not isinstance(theirs, float) or theirs <= 0:
        return "-"
    return "same" if abs(mine - theirs) <= SAME_LENGTH * theirs else "**lengths differ**"


def _cell(value: object, fmt: str) -> str:
    return "-" if value is None else format(value, fmt)


def print_table(rows: list[dict[str, object]]) -> None:
    """ggpkit's rates, then one markdown table per reference measured; errors under them."""
    print("| game | ggpkit reasoner | batch r/s | scalar r/s | set-up s | rollout length |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['game']} | {r['reasoner'] or '-'} | {_cell(r['batch'], ',.1f')} "
            f"| {_cell(r['scalar'], ',.1f')} | {_cell(r['batch_setup'], '.1f')} "
            f"| {_cell(r['batch_length'], '.1f')} |"
        )
    for ref in REFERENCES:
        measured = [r for r in rows if ref in r]
        if not measured:
            continue
        print(f"\n| game | {ref} r/s | batch / {ref} | scalar / {ref} | set-up {ref} s ", end="")
        print(f"| rollout length {ref} | same game |")
        print("|---|---|---|---|---|---|---|")
        for r in measured:
            print(
                f"| {r['game']} | {_cell(r[ref], ',.1f')} | {_cell(r[f'batch_per_{ref}'], '.2f')} "
                f"| {_cell(r[f'scalar_per_{ref}'], '.2f')} | {_cell(r[f'{ref}_setup'], '.1f')} "
                f"| {_cell(r[f'{ref}_length'], '.1f')} | {same_game(r, ref)} |"
            )
    for r in rows:
        for side in (*OURS, *REFERENCES):
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
        "--ggp-base-classpath",
        metavar="CLASSPATH",
        help="also time ggp-base's prover: the Java classpath of a ggp-base build (its "
        "compiled classes and the jars of its lib/, absolute paths)",
    )
    parser.add_argument(
        "--sancho",
        metavar="CLASSPATH",
        help="also time Sancho 1.61c's propnet: the Java classpath of a Sancho build (its "
        "compiled classes and jars, absolute paths: the harness runs in a temp directory)",
    )
    parser.add_argument(
        "--rbg",
        metavar="DIR",
        help="a folder of RBG flat Monte Carlo executables, one per RBG game, named as the "
        f"game (its twins: {', '.join(f'{k}={v}' for k, v in RBG_TWINS.items())})",
    )
    args = parser.parse_args()
    classpaths = {"ggp-base": args.ggp_base_classpath, "sancho": args.sancho}
    classpaths = {ref: cp for ref, cp in classpaths.items() if cp}
    if classpaths and shutil.which("javac") is None:
        raise SystemExit("--ggp-base-classpath and --sancho need java and javac")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        harnesses = {
            ref: compile_harness(*HARNESSES[ref], cp, Path(tmp) / ref)
            for ref, cp in classpaths.items()
        }
        for name in args.games.split(","):
            rows.append(row(name, measure(sides_for(name, args, harnesses), args.repeat)))
            print(f"done {name}", file=sys.stderr, flush=True)
    print_table(rows)
    if args.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
