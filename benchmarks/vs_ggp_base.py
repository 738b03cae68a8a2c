"""ggpkit's player against a ggp-base player, refereed by ggp-base's own game manager.

Starts ggp-base's ``PlayerRunner`` (default SampleMonteCarloGamer) and ``ggpkit player``
on two local ports, then for every game and both orders of the two roles has
ggp-base's ``LocalMatchRunner`` run a match over the GGP protocol. Prints, per game,
ggpkit's points (the mean goal), wins, draws, losses and the errors ggp-base's
manager recorded for ggpkit's player (timeouts, illegal moves) and for its opponent
("theirs": an opponent's errors make ggpkit's wins worth less), and the totals.

Needs ``java`` and ``../shared/ggp-base`` (a build of ggp-base; never shipped).

    python benchmarks/vs_ggp_base.py --games connectFour,breakthroughSmall --playclock 2
"""

from __future__ import annotations

import argparse
import json
import os
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
GGP_BASE = ROOT.parent / "shared" / "ggp-base"
GAMES = ROOT.parent / "shared" / "ggp-games"
SEEDS = ["breakthroughSmallHoles", "checkersBarrelNoKings"]
OTHERS = [
    "connectFour", "breakthroughSmall", "pentago", "reversi", "nineBoardTicTacToe",
    "knightThrough", "sheepAndWolf", "checkersSmall", "quarto", "connect5",
]  # fmt: skip


@dataclass
class Tally:
    """ggpkit's results on one game."""

    points: list[int] = field(default_factory=list)
    wins: int = 0
    draws: int = 0
    losses: int = 0
    errors: int = 0
    their_errors: int = 0


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
) -> list[subprocess.Popen[bytes]]:
    """Both players, listening; ggpkit's log (which engine each START chose) to ``log``."""
    command = [str(GGP_BASE / "run.sh"), "PlayerRunner", str(theirs), opponent]
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
    wait_for_port(theirs, 60)
    wait_for_port(ours, 60)
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


def play(game: str, out: Path, clocks: tuple[int, int], seats: list[tuple[int, str]]) -> Path:
    """One match through ggp-base's manager; the path of its match JSON."""
    before = set(out.glob("*.json"))
    args = [str(GGP_BASE / "run.sh"), "LocalMatchRunner", str(GAMES / f"{game}.kif"), str(out)]
    args += [str(clocks[0]), str(clocks[1])]
    for port, name in seats:
        args += ["127.0.0.1", str(port), name]
    subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    made = set(out.glob("*.json")) - before
    if not made:
        raise RuntimeError(f"{game}: ggp-base's manager wrote no match record")
    return made.pop()


def score(record: Path, seat: int, tally: Tally) -> None:
    data = json.loads(record.read_text())
    goals = data.get("goalValues") or []
    if len(goals) != 2:
        tally.errors += 1
        return
    mine, theirs = goals[seat], goals[1 - seat]
    tally.points.append(mine)
    tally.wins += mine > theirs
    tally.draws += mine == theirs
    tally.losses += mine < theirs
    for step in data.get("errors", []):
        tally.errors += bool(step[seat])
        tally.their_errors += bool(step[1 - seat])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--games",
        default=",".join(SEEDS + OTHERS),
        help="comma-separated corpus game names (default: the seeds and ten others)",
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
    parser.add_argument("--json", action="store_true", help="print JSON, not a table")
    parser.add_argument("--ports", default="9391,9392", help="ggpkit's port, then ggp-base's")
    parser.add_argument(
        "--out",
        type=Path,
        help="keep the match records and ggpkit's player log here (default: none)",
    )
    args = parser.parse_args()
    if shutil.which("java") is None or not (GGP_BASE / "run.sh").is_file():
        raise SystemExit("needs java and ../shared/ggp-base")
    ours, theirs = (int(p) for p in args.ports.split(","))
    log = None
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        log = args.out / "ggpkit-player.log"
    players = start_players(ours, theirs, args.agent, args.opponent, args.opponent_cmd, log)
    results: dict[str, Tally] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            out = args.out or Path(tmp)
            out.mkdir(parents=True, exist_ok=True)
            for game in args.games.split(","):
                tally = results.setdefault(game, Tally())
                for _ in range(args.rounds):
                    for seat in (0, 1):
                        seats = [(theirs, args.opponent)] * 2
                        seats[seat] = (ours, "ggpkit")
                        time.sleep(args.settle)
                        wait_for_port(theirs, 60)
                        wait_for_port(ours, 60)
                        record = play(game, out, (args.startclock, args.playclock), seats)
                        score(record, seat, tally)
                        line = f"{game} ggpkit as role {seat}: {tally.points[-1:]} ({record.name})"
                        print(line, flush=True)
    finally:
        for p in players:
            p.terminate()
    report(results, args.json)


def report(results: dict[str, Tally], as_json: bool) -> None:
    if as_json:
        print(json.dumps({g: t.__dict__ for g, t in results.items()}, indent=2))
        return
    head = f"{'game':24s} {'points':>7s} {'W':>3s} {'D':>3s} {'L':>3s}"
    print(f"{head} {'errors':>6s} {'theirs':>6s}")
    total = Tally()
    for game, t in results.items():
        mean = sum(t.points) / max(1, len(t.points))
        print(
            f"{game:24s} {mean:7.1f} {t.wins:3d} {t.draws:3d} {t.losses:3d} {t.errors:6d} "
            f"{t.their_errors:6d}"
        )
        total.points += t.points
        total.wins, total.draws = total.wins + t.wins, total.draws + t.draws
        total.losses, total.errors = total.losses + t.losses, total.errors + t.errors
        total.their_errors += t.their_errors
    n = max(1, len(total.points))
    print(
        f"{'all':24s} {sum(total.points) / n:7.1f} {total.wins:3d} {total.draws:3d} "
        f"{total.losses:3d} {total.errors:6d} {total.their_errors:6d}   wins {total.wins / n:.0%}"
    )


if __name__ == "__main__":
    main()
