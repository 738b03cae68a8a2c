"""ggpkit's player against a ggp-base player, refereed by ggp-base's own game manager.

Starts ggp-base's ``PlayerRunner`` (default SampleMonteCarloGamer) and ``ggpkit player``
on two local ports, then for every game and both orders of the two roles has
ggp-base's ``LocalMatchRunner`` run a match over the GGP protocol. Prints, per game,
ggpkit's points (the mean goal, with a 95% interval over the matches), wins, draws,
losses and the errors ggp-base's manager recorded for ggpkit's player (timeouts,
illegal moves) and for its opponent ("theirs": an opponent's errors make ggpkit's wins
worth less), the totals, and the games no match of which could be played.

``--games all`` is every two-role game of the corpus: the sweep. ``--results FILE``
appends each finished match to FILE (one JSON line) and skips the matches already
there, so a sweep that was stopped goes on where it stopped; the table covers every
match in the file.

Needs ``java`` and a build of ggp-base made outside this repository (never shipped):
``--ggp-base PATH`` or ``$GGPKIT_GGP_BASE`` (default ``../shared/ggp-base``), a folder
whose ``run.sh MAIN ARGS...`` runs a ggp-base class (``PlayerRunner``, ``LocalMatchRunner``).

    python benchmarks/vs_ggp_base.py --games connectFour,breakthroughSmall --playclock 2
    python benchmarks/vs_ggp_base.py --games all --results sweep.jsonl --ggp-base /opt/ggp-base
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GGP_BASE = Path(os.environ.get("GGPKIT_GGP_BASE", ROOT.parent / "shared" / "ggp-base"))
GAMES = ROOT.parent / "shared" / "ggp-games"
SEEDS = ["breakthroughSmallHoles", "checkersBarrelNoKings"]
OTHERS = [
    "connectFour", "breakthroughSmall", "pentago", "reversi", "nineBoardTicTacToe",
    "knightThrough", "sheepAndWolf", "checkersSmall", "quarto", "connect5",
]  # fmt: skip
ROLE = re.compile(r"\(\s*role\s+([^\s()?]+)\s*\)", re.IGNORECASE)
MATCH_SECONDS_PER_MOVE = 3
"""A match may take its start clock plus this many play clocks a step for 300 steps
before the sweep gives up on it (a hung manager must not stop a night's sweep)."""


@dataclass
class Tally:
    """ggpkit's results on one game."""

    points: list[int] = field(default_factory=list)
    wins: int = 0
    draws: int = 0
    losses: int = 0
    errors: int = 0
    their_errors: int = 0
    failures: list[str] = field(default_factory=list)


def two_role_games() -> list[str]:
    """Every game of the corpus that names exactly two roles, by name (comments left
    out; ``(role ?r)`` in a rule's body names none)."""
    names = []
    for path in sorted(GAMES.glob("*.kif")):
        lines = path.read_text(errors="replace").splitlines()
        text = "\n".join(line.split(";")[0] for line in lines)
        if len(set(ROLE.findall(text))) == 2:
            names.append(path.stem)
    return names


def wait_for_port(port: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise SystemExit(f"nothing listens on port {port} after {seconds:g} s")


def start_players(
    ours: int,
    theirs: int,
    agent: str,
    opponent: str,
    opponent_cmd: str | None,
    log: Path | None = None,
    ggp_base: Path = GGP_BASE,
) -> list[subprocess.Popen[bytes]]:
    """Both players, listening; ggpkit's log (which engine each START chose) to ``log``."""
    command = [str(ggp_base / "run.sh"), "PlayerRunner", str(theirs), opponent]
    if opponent_cmd is not None:
        command = shlex.split(opponent_cmd.replace("{port}", str(theirs)))
    other = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env=opponent_environment(), cwd=tempfile.gettempdir(),
    )  # fmt: skip
    python = subprocess.Popen(
        [sys.executable, "-m", "ggpkit", "player", "--port", str(ours), "--agent", agent],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL if log is None else log.open("ab"),
    )  # fmt: skip
    try:
        wait_for_port(theirs, 60)
        wait_for_port(ours, 60)
    except SystemExit:  # neither is left running
        stop([other, python])
        raise
    return [other, python]


def opponent_environment() -> dict[str, str]:
    """This process's environment without ``PYTHONPATH``, for the opponent's player.

    An opponent that is another install of ggpkit must import its own package: with
    the ``PYTHONPATH`` that points our player at a worktree (or a cwd inside this
    repository, hence the neutral cwd above), ``python -m ggpkit`` in the other venv
    imports *this* code, and the run is self-play. Stop 22-25's runs "against the old
    mcts" were self-play this way.
    """
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def play(
    game: str,
    out: Path,
    clocks: tuple[int, int],
    seats: list[tuple[int, str]],
    ggp_base: Path = GGP_BASE,
) -> Path:
    """One match through ggp-base's manager; the path of its match JSON.

    RuntimeError when the manager wrote none (it could not read the game, or a player
    never answered START) or ran past :data:`MATCH_SECONDS_PER_MOVE`'s limit."""
    before = set(out.glob("*.json"))
    args = [str(ggp_base / "run.sh"), "LocalMatchRunner", str(GAMES / f"{game}.kif"), str(out)]
    args += [str(clocks[0]), str(clocks[1])]
    for port, name in seats:
        args += ["127.0.0.1", str(port), name]
    limit = clocks[0] + 300 * MATCH_SECONDS_PER_MOVE * clocks[1]
    try:
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=False, timeout=limit)  # fmt: skip
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"ggp-base's manager still ran after {limit} s") from None
    made = set(out.glob("*.json")) - before
    if not made:
        raise RuntimeError("ggp-base's manager wrote no match record")
    return made.pop()


def outcome(record: Path, seat: int) -> dict[str, object]:
    """The result of one match for the results file: the goals in role order and each
    side's count of steps with an error (ggpkit's first)."""
    data = json.loads(record.read_text())
    goals = data.get("goalValues") or []
    ours = theirs = 0
    for step in data.get("errors", []):
        ours += bool(step[seat])
        theirs += bool(step[1 - seat])
    return {"goals": goals, "errors": [ours, theirs], "record": record.name}


def score(entry: dict[str, object], tally: Tally) -> None:
    """Add one results-file entry to ``tally``."""
    if entry.get("failure"):
        tally.failures.append(str(entry["failure"]))
        return
    goals, seat = entry["goals"], entry["seat"]
    assert isinstance(goals, list) and isinstance(seat, int)
    errors = entry["errors"]
    assert isinstance(errors, list)
    tally.errors += errors[0]
    tally.their_errors += errors[1]
    if len(goals) != 2:
        tally.failures.append("no goals in the record")
        return
    mine, theirs = goals[seat], goals[1 - seat]
    tally.points.append(mine)
    tally.wins += mine > theirs
    tally.draws += mine == theirs
    tally.losses += mine < theirs


def done_matches(results: Path | None) -> list[dict[str, object]]:
    """The entries of the results file (none without one, or before its first match)."""
    if results is None or not results.is_file():
        return []
    entries = []
    for line in results.read_text().splitlines():
        if line.strip():
            try:
                entries.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut short by a kill: that match is played again
    return entries


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games",
        default=",".join(SEEDS + OTHERS),
        help="comma-separated corpus game names, or 'all' for every two-role game "
        "(default: the seeds and ten others)",
    )
    parser.add_argument("--rounds", type=int, default=1, help="matches per role order")
    parser.add_argument("--startclock", type=int, default=10, help="seconds (default 10)")
    parser.add_argument("--playclock", type=int, default=2, help="seconds (default 2)")
    parser.add_argument("--agent", default="mcts", help="ggpkit's agent spec (default mcts)")
    parser.add_argument(
        "--opponent",
        default="SampleMonteCarloGamer",
        help="a ggp-base player class, or a name for --opponent-cmd's player",
    )
    parser.add_argument(
        "--opponent-cmd",
        help="run this player instead of a ggp-base one, {port} replaced by its port (e.g. "
        "another install of ggpkit: '/old/venv/bin/python -m ggpkit player --port {port}')",
    )
    parser.add_argument(
        "--settle",
        type=float,
        default=0.0,
        help="seconds to wait before each match, for an opponent that restarts after every "
        "match (Sancho's PlayerRunner quits on STOP): its old process may still hold the port",
    )
    parser.add_argument(
        "--ggp-base",
        type=Path,
        default=GGP_BASE,
        help=f"a local build of ggp-base with run.sh (default {GGP_BASE})",
    )
    parser.add_argument(
        "--results",
        type=Path,
        help="append each match to this JSON-lines file and skip those already in it "
        "(resumes a stopped sweep)",
    )
    parser.add_argument(
        "--skip",
        default="",
        help="comma-separated games left out (e.g. those ggp-base's manager is too slow for)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON, not a table")
    parser.add_argument("--ports", default="9391,9392", help="ggpkit's port, then ggp-base's")
    parser.add_argument(
        "--out",
        type=Path,
        help="keep the match records and ggpkit's player log here (default: none)",
    )
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    games = two_role_games() if args.games == "all" else args.games.split(",")
    games = [game for game in games if game not in set(args.skip.split(","))]
    missing = [game for game in games if not (GAMES / f"{game}.kif").is_file()]
    if missing:  # else every match fails and is written to the results file as played
        raise SystemExit(f"no {', '.join(missing[:3])} in {GAMES} (the public games beside "
                         "the checkout, or a worktree: link ../shared there)")  # fmt: skip
    entries = done_matches(args.results)
    done = {(e["game"], e["round"], e["seat"]) for e in entries}
    plan = [(g, r, seat) for g in games for r in range(args.rounds) for seat in (0, 1)]
    todo = [key for key in plan if key not in done]
    print(f"{len(plan)} matches, {len(plan) - len(todo)} already played", file=sys.stderr)
    if todo:
        if shutil.which("java") is None or not (args.ggp_base / "run.sh").is_file():
            raise SystemExit(f"needs java and a ggp-base build with run.sh at {args.ggp_base}")
        entries += play_all(args, todo)
    report(games, entries, args.json)


def play_all(args: argparse.Namespace, todo: list[tuple[str, int, int]]) -> list[dict[str, object]]:
    """Play the matches of ``todo`` (game, round, ggpkit's seat), each appended to the
    results file as it ends; their entries."""
    ours, theirs = (int(p) for p in args.ports.split(","))
    log = None
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        log = args.out / "ggpkit-player.log"
    start = (ours, theirs, args.agent, args.opponent, args.opponent_cmd, log, args.ggp_base)
    players = start_players(*start)
    entries: list[dict[str, object]] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            out = args.out or Path(tmp)
            out.mkdir(parents=True, exist_ok=True)
            for index, (game, round_, seat) in enumerate(todo, 1):
                if any(p.poll() is not None for p in players):  # one died: both afresh
                    stop(players)
                    players = start_players(*start)
                entry = play_one(args, out, game, seat, (ours, theirs))
                entry.update(game=game, round=round_, seat=seat)
                entries.append(entry)
                if args.results is not None:
                    with args.results.open("a") as f:
                        f.write(json.dumps(entry) + "\n")
                shown = entry.get("failure") or entry.get("goals")
                print(f"[{index}/{len(todo)}] {game} ggpkit as role {seat}: {shown}", flush=True)
    finally:
        stop(players)
    return entries


def play_one(
    args: argparse.Namespace, out: Path, game: str, seat: int, ports: tuple[int, int]
) -> dict[str, object]:
    """One match with ggpkit in ``seat``: its outcome, or the failure that stopped it."""
    ours, theirs = ports
    seats = [(theirs, args.opponent)] * 2
    seats[seat] = (ours, "ggpkit")
    time.sleep(args.settle)
    wait_for_port(theirs, 60)
    wait_for_port(ours, 60)
    try:
        record = play(game, out, (args.startclock, args.playclock), seats, args.ggp_base)
    except RuntimeError as e:
        return {"failure": str(e)}
    return outcome(record, seat)


def stop(players: list[subprocess.Popen[bytes]]) -> None:
    for p in players:
        p.terminate()
    for p in players:
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()


def interval(points: list[int]) -> float:
    """Half the width of the 95% interval of the mean of ``points`` (normal approximation)."""
    n = len(points)
    if n < 2:
        return math.nan
    mean = sum(points) / n
    variance = sum((p - mean) ** 2 for p in points) / (n - 1)
    return 1.96 * math.sqrt(variance / n)


def counted_summary(entries: list[dict[str, object]]) -> str:
    """The matches without an error on either side apart from the others: a late or
    illegal move replaced by a random one says little about strength, so a comparison
    counts only clean matches, by ggpkit's share of both sides' points."""
    clean, faulty = Tally(), Tally()
    theirs = 0
    for entry in entries:
        errors, goals = entry.get("errors"), entry.get("goals")
        if entry.get("failure") or not isinstance(goals, list) or len(goals) != 2:
            continue
        seat = entry["seat"]
        assert isinstance(errors, list) and isinstance(seat, int)
        if any(errors):
            score(entry, faulty)
        else:
            score(entry, clean)
            theirs += int(goals[1 - seat])
    mine = sum(clean.points)
    share = f"{mine / (mine + theirs):.1%}" if mine + theirs else "-"
    return (
        f"counted (no error on either side): {len(clean.points)} matches, "
        f"{clean.wins}-{clean.draws}-{clean.losses}, {share} of both sides' points; "
        f"apart (an error on either side): {len(faulty.points)} matches, "
        f"{faulty.wins}-{faulty.draws}-{faulty.losses}"
    )


def report(games: list[str], entries: list[dict[str, object]], as_json: bool) -> None:
    """The table of every game's results (only the games asked for), then the totals."""
    results: dict[str, Tally] = {game: Tally() for game in games}
    for entry in entries:
        if entry.get("game") in results:
            score(entry, results[str(entry["game"])])
    if as_json:
        print(json.dumps({g: t.__dict__ for g, t in results.items()}, indent=2))
        return
    head = f"{'game':32s} {'points':>13s} {'W':>3s} {'D':>3s} {'L':>3s}"
    print(f"{head} {'errors':>6s} {'theirs':>6s}")
    total = Tally()
    for game, t in results.items():
        if not t.points:
            continue
        mean = sum(t.points) / len(t.points)
        print(
            f"{game:32s} {mean:7.1f} ±{interval(t.points):4.0f} {t.wins:3d} {t.draws:3d} "
            f"{t.losses:3d} {t.errors:6d} {t.their_errors:6d}"
        )
        total.points += t.points
        total.wins, total.draws = total.wins + t.wins, total.draws + t.draws
        total.losses, total.errors = total.losses + t.losses, total.errors + t.errors
        total.their_errors += t.their_errors
    n = max(1, len(total.points))
    print(
        f"{'all':32s} {sum(total.points) / n:7.1f} ±{interval(total.points):4.1f} "
        f"{total.wins:3d} {total.draws:3d} {total.losses:3d} {total.errors:6d} "
        f"{total.their_errors:6d}   wins {total.wins / n:.0%}"
    )
    print(counted_summary([e for e in entries if e.get("game") in results]))
    unplayed = {g: t.failures for g, t in results.items() if t.failures}
    for game, failures in unplayed.items():
        print(f"not played: {game}: {len(failures)} matches ({failures[0]})")


if __name__ == "__main__":
    main()
